package conformance

import (
	"sort"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/internal/testutil"
)

// TestCommandDOCS: COMMAND DOCS answers byte for byte as Redis 7.0 for
// every command both have (each alone, each subcommand alone, in RESP2 and
// RESP3, and several at once in the order given). A container's reply
// lists its subcommands in Redis's hash-table order, which differs between
// Redis processes, and so does the reply without names: those are compared
// as sets of (name, doc) pairs, everything else in place.
func TestCommandDOCS(t *testing.T) {
	p := NewPair(t)
	var names, containers []string
	for _, s := range engine.All() {
		if s.ClusterOnly || newerThan70(s.Name) {
			continue
		}
		if len(s.Sub) == 0 {
			names = append(names, s.Name)
		} else {
			containers = append(containers, s.Name)
		}
		for _, sub := range s.Sub {
			if !newerThan70(sub.FullName()) {
				names = append(names, sub.FullName())
			}
		}
	}
	for _, proto := range []string{"2", "3"} {
		p.Do("HELLO", proto)
		for _, n := range names {
			p.Do("COMMAND", "DOCS", n)
		}
		for _, n := range containers {
			p.doDocs("COMMAND", "DOCS", n)
		}
		p.Do("COMMAND", "DOCS", "get", "set", "nosuchcommand", "client|list", "hgetall")
		p.Do("COMMAND", "DOCS", strings.ToUpper("zadd"))
		p.Do("COMMAND", "DOCS", "nosuchcommand")
		p.doDocs("COMMAND", "DOCS", "config", "get")
		p.doDocs("COMMAND", "DOCS")
	}
}

// doDocs is Do for COMMAND DOCS replies holding containers or all
// commands: maps of commands and of subcommands are compared as sets. The
// commands lockkv has beyond Redis 7.0 (newerThan70, and nothing else) are
// left out of lockkv's reply, and the Redis commands lockkv's table does
// not have (streams, replication, ...) out of Redis's.
func (p *Pair) doDocs(args ...string) {
	p.t.Helper()
	lv, rv := p.both(args)
	inTable := map[string]bool{}
	for _, s := range engine.All() {
		inTable[s.Name] = true
		for _, sub := range s.Sub {
			inTable[sub.FullName()] = true
		}
	}
	ln := normDocs(lv, func(name string) bool { return !newerThan70(name) })
	rn := normDocs(rv, func(name string) bool { return inTable[name] })
	comparisons.Add(1)
	if Equal(ln, rn) {
		return
	}
	divergences.Add(1)
	// Name the entries that differ rather than print both replies whole.
	entries := func(v Value) map[string]Value {
		m := map[string]Value{}
		for i := 0; i+1 < len(v.Elems); i += 2 {
			m[v.Elems[i].Str] = v.Elems[i+1]
		}
		return m
	}
	lm, rm := entries(ln), entries(rn)
	var diff []string
	for name, r := range rm {
		if l, ok := lm[name]; !ok {
			diff = append(diff, name+": missing in lockkv")
		} else if !Equal(l, r) {
			diff = append(diff, name+":\n  lockkv: "+l.String()+"\n  redis:  "+r.String())
		}
	}
	for name := range lm {
		if _, ok := rm[name]; !ok {
			diff = append(diff, name+": only in lockkv")
		}
	}
	sort.Strings(diff)
	p.t.Errorf("%q (kinds %c %c): %d entries differ:\n%s", args, ln.Kind, rn.Kind, len(diff), strings.Join(diff, "\n"))
}

// normDocs sorts a COMMAND DOCS reply's entries, and those of every
// "subcommands" map, by name (RESP2 flat arrays and RESP3 maps alike),
// keeping the commands keep accepts.
func normDocs(v Value, keep func(name string) bool) Value {
	if v.Kind != '*' && v.Kind != '%' {
		return v
	}
	type entry struct{ k, v Value }
	var es []entry
	for i := 0; i+1 < len(v.Elems); i += 2 {
		if !keep(v.Elems[i].Str) {
			continue
		}
		es = append(es, entry{v.Elems[i], normDoc(v.Elems[i+1], keep)})
	}
	sort.Slice(es, func(i, j int) bool { return es[i].k.Str < es[j].k.Str })
	out := Value{Kind: v.Kind, Elems: []Value{}}
	for _, e := range es {
		out.Elems = append(out.Elems, e.k, e.v)
	}
	return out
}

// normDoc normalizes the "subcommands" entry of one command's doc.
func normDoc(doc Value, keep func(name string) bool) Value {
	if doc.Kind != '*' && doc.Kind != '%' {
		return doc
	}
	out := doc
	out.Elems = append([]Value(nil), doc.Elems...)
	for i := 0; i+1 < len(out.Elems); i += 2 {
		if out.Elems[i].Str == "subcommands" {
			out.Elems[i+1] = normDocs(out.Elems[i+1], keep)
		}
	}
	return out
}

// TestSentinelCommandDOCS: in cluster mode SENTINEL's docs are Redis
// Sentinel 7.0's, checked against a real Sentinel like the leader
// discovery replies (TestSentinelFormatsAgainstRedisSentinel).
func TestSentinelCommandDOCS(t *testing.T) {
	sAddr, _ := startRedisServer(t, "redis-sentinel")
	s := testutil.MustDial(t, sAddr)
	lk := newEngineClient(t, &enginetest.FakeCluster{SelfID: "n1", LeaderID: "n1", Members: []engine.Node{
		{ID: "n1", ClientAddr: "127.0.0.1:1", RaftAddr: "127.0.0.1:2", Voter: true}}})
	var subs []string
	for _, sp := range engine.All() {
		if sp.Name == "sentinel" {
			for _, sub := range sp.Sub {
				subs = append(subs, sub.FullName())
			}
		}
	}
	if len(subs) == 0 {
		t.Fatal("no SENTINEL subcommands in the table")
	}
	all := func(string) bool { return true }
	for _, proto := range []string{"2", "3"} {
		s.MustDo(t, "HELLO", proto)
		lk.Do("HELLO", proto)
		for _, args := range [][]string{{"COMMAND", "DOCS", "sentinel"}, append([]string{"COMMAND", "DOCS"}, subs...)} {
			l, r := normDocs(lk.Do(args...), all), normDocs(s.MustDo(t, args...), all)
			comparisons.Add(1)
			if !Equal(l, r) {
				divergences.Add(1)
				t.Errorf("RESP%s %q:\n lockkv: %s\n  redis: %s", proto, args, l, r)
			}
		}
		for _, sub := range subs {
			l, r := lk.Do("COMMAND", "DOCS", sub), s.MustDo(t, "COMMAND", "DOCS", sub)
			comparisons.Add(1)
			if !Equal(l, r) {
				divergences.Add(1)
				t.Errorf("RESP%s COMMAND DOCS %s:\n lockkv: %s\n  redis: %s", proto, sub, l, r)
			}
		}
	}
}
