package engine

import (
	"bytes"
	"testing"
)

// TestCmdDocEncoding: cmdDoc encodes as Redis does, checked by encoding
// docs Redis 7.0 has and comparing with the recording byte for byte.
func TestCmdDocEncoding(t *testing.T) {
	for name, d := range map[string]*cmdDoc{
		"wait": {summary: "Wait for the synchronous replication of all the write commands sent in the context of the current connection",
			since: "3.0.0", group: "generic", complexity: "O(1)",
			args: []docArg{{name: "numreplicas", typ: "integer"}, {name: "timeout", typ: "integer"}}},
		"client|no-evict": {summary: "Set client eviction mode for the current connection", since: "7.0.0", group: "connection", complexity: "O(1)",
			args: []docArg{{name: "enabled", typ: "oneof", args: []docArg{
				{name: "on", typ: "pure-token", token: "ON"}, {name: "off", typ: "pure-token", token: "OFF"}}}}},
		"latency|reset": {summary: "Reset latency data for one or more events.", since: "2.8.13", group: "server", complexity: "O(1)",
			args: []docArg{{name: "event", typ: "string", flags: []string{"optional", "multiple"}}}},
		"incrbyfloat": {summary: "Increment the float value of a key by the given amount", since: "2.6.0", group: "string", complexity: "O(1)",
			args: []docArg{{name: "key", typ: "key"}, {name: "increment", typ: "double"}}},
		"failover": {summary: "Start a coordinated failover between this server and one of its replicas.", since: "6.2.0", group: "server", complexity: "O(1)",
			args: []docArg{
				{name: "target", typ: "block", token: "TO", flags: []string{"optional"}, args: []docArg{
					{name: "host", typ: "string"}, {name: "port", typ: "integer"},
					{name: "force", typ: "pure-token", token: "FORCE", flags: []string{"optional"}}}},
				{name: "abort", typ: "pure-token", token: "ABORT", flags: []string{"optional"}},
				{name: "milliseconds", typ: "integer", token: "TIMEOUT", flags: []string{"optional"}}}},
	} {
		if got, want := d.resp3(), recordedDoc(name); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", name, got, want)
		}
	}
	// A container's header, with subcommands from the table.
	if got, want := (&cmdDoc{summary: "A container for latency diagnostics commands", since: "2.8.13", group: "server",
		complexity: "Depends on subcommand.", container: true}).resp3(), recordedDoc("latency"); !bytes.HasPrefix(want, got[:len(got)-len("%0\r\n")]) {
		t.Errorf("latency header:\n got %q\nwant %q", got, want)
	}
}

// TestCommandDocsComplete: every command and subcommand, cluster-only ones
// included, has documentation, and every container's has subcommands.
func TestCommandDocsComplete(t *testing.T) {
	for _, s := range All() {
		for _, x := range append([]*Spec{s}, s.Sub...) {
			doc := commandDoc(x)
			if doc == nil {
				t.Errorf("%s has no COMMAND DOCS entry", x.FullName())
				continue
			}
			hasSubs := false
			for _, p := range docPairs(doc) {
				hasSubs = hasSubs || bulkText(p[0]) == "subcommands"
			}
			if hasSubs != (len(x.Sub) > 0) {
				t.Errorf("%s: doc has subcommands %v, table %d", x.FullName(), hasSubs, len(x.Sub))
			}
		}
	}
}
