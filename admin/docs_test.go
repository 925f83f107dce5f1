package admin

import (
	"bytes"
	"testing"

	"github.com/lockkv/lockkv/engine"
)

// TestCmdDocEncoding: engine.Doc encodes as Redis does, checked by encoding
// docs Redis 7.0 has and comparing with the recording byte for byte.
func TestCmdDocEncoding(t *testing.T) {
	for name, d := range map[string]*engine.Doc{
		"wait": {Summary: "Wait for the synchronous replication of all the write commands sent in the context of the current connection",
			Since: "3.0.0", Group: "generic", Complexity: "O(1)",
			Args: []engine.DocArg{{Name: "numreplicas", Type: "integer"}, {Name: "timeout", Type: "integer"}}},
		"client|no-evict": {Summary: "Set client eviction mode for the current connection", Since: "7.0.0", Group: "connection", Complexity: "O(1)",
			Args: []engine.DocArg{{Name: "enabled", Type: "oneof", Args: []engine.DocArg{
				{Name: "on", Type: "pure-token", Token: "ON"}, {Name: "off", Type: "pure-token", Token: "OFF"}}}}},
		"latency|reset": {Summary: "Reset latency data for one or more events.", Since: "2.8.13", Group: "server", Complexity: "O(1)",
			Args: []engine.DocArg{{Name: "event", Type: "string", Flags: []string{"optional", "multiple"}}}},
		"incrbyfloat": {Summary: "Increment the float value of a key by the given amount", Since: "2.6.0", Group: "string", Complexity: "O(1)",
			Args: []engine.DocArg{{Name: "key", Type: "key"}, {Name: "increment", Type: "double"}}},
		"failover": {Summary: "Start a coordinated failover between this server and one of its replicas.", Since: "6.2.0", Group: "server", Complexity: "O(1)",
			Args: []engine.DocArg{
				{Name: "target", Type: "block", Token: "TO", Flags: []string{"optional"}, Args: []engine.DocArg{
					{Name: "host", Type: "string"}, {Name: "port", Type: "integer"},
					{Name: "force", Type: "pure-token", Token: "FORCE", Flags: []string{"optional"}}}},
				{Name: "abort", Type: "pure-token", Token: "ABORT", Flags: []string{"optional"}},
				{Name: "milliseconds", Type: "integer", Token: "TIMEOUT", Flags: []string{"optional"}}}},
	} {
		if got, want := d.RESP3(), recordedDoc(name); !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %q\nwant %q", name, got, want)
		}
	}
	// A container's header, with subcommands from the table.
	if got, want := (&engine.Doc{Summary: "A container for latency diagnostics commands", Since: "2.8.13", Group: "server",
		Complexity: "Depends on subcommand.", Container: true}).RESP3(), recordedDoc("latency"); !bytes.HasPrefix(want, got[:len(got)-len("%0\r\n")]) {
		t.Errorf("latency header:\n got %q\nwant %q", got, want)
	}
}

// TestCommandDocsComplete: every command and subcommand, cluster-only ones
// included, has documentation, and every container's has subcommands.
func TestCommandDocsComplete(t *testing.T) {
	for _, s := range engine.All() {
		for _, x := range append([]*engine.Spec{s}, s.Sub...) {
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
