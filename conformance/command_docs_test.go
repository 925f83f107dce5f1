package conformance

import (
	"strings"
	"testing"

	"github.com/lockkv/lockkv/commands"
)

// TestCommandDOCS: COMMAND DOCS answers byte for byte as Redis 7.0 for
// every command both have (each alone, each subcommand alone, in RESP2 and
// RESP3, and several at once in the order given). A container's own reply
// lists its subcommands in Redis's hash-table order, which differs between
// Redis processes, so containers are compared through their subcommands.
func TestCommandDOCS(t *testing.T) {
	p := NewPair(t)
	var names []string
	for _, s := range commands.All() {
		if s.ClusterOnly || newerThan70[s.Name] {
			continue
		}
		if len(s.Sub) == 0 {
			names = append(names, s.Name)
		}
		for _, sub := range s.Sub {
			if !newerThan70[sub.FullName()] {
				names = append(names, sub.FullName())
			}
		}
	}
	for _, proto := range []string{"2", "3"} {
		p.Do("HELLO", proto)
		for _, n := range names {
			p.Do("COMMAND", "DOCS", n)
		}
		p.Do("COMMAND", "DOCS", "get", "set", "nosuchcommand", "client|list", "hgetall")
		p.Do("COMMAND", "DOCS", strings.ToUpper("zadd"))
	}
}
