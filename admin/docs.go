package admin

import (
	"bufio"
	"bytes"
	_ "embed"
	"strconv"
	"sync"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/resp"
)

// COMMAND DOCS answers from Redis's own documentation, recorded from
// redis-server 7.0.15 in RESP3 (the summaries, arguments, history and
// groups of Redis's command documentation, BSD-3-Clause, Redis Ltd):
//
//	docs_redis70.resp3     HELLO 3, COMMAND DOCS, every command
//	docs_sentinel70.resp3  HELLO 3, COMMAND DOCS sentinel, in Sentinel mode
//	                       (lockkv's cluster-mode SENTINEL)
//
// Both are written by `go generate ./admin` (internal/gendocs), which
// starts redis-server 7.0.15 from PATH and refuses any other version. The
// files are maps in Redis's hash-table order, which differs between
// recordings; only the set of entries matters. The same run records
// Redis's COMMAND INFO (cmdinfo_redis70.resp3, cmdinfo_sentinel70.resp3),
// which TestCommandInfoRecorded checks the command table against.
//
// Commands Redis 7.0 lacks get docs in the same format from Spec.Doc: the
// Redis 7.2 commands lockkv implements carry 7.2's documentation
// (src/commands/*.json), RAFT.NODE lockkv's. A container's entry is its
// recorded header (summary, since, group, complexity) with the
// subcommands of lockkv's table, so CLIENT lists 7.2's SETINFO and
// NO-TOUCH too.
//
//go:generate go run ./internal/gendocs

//go:embed docs_redis70.resp3
var redisDocs []byte

//go:embed docs_sentinel70.resp3
var sentinelDocs []byte

var (
	docsOnce  sync.Once
	docsIndex map[string][]byte // full name ("client|list") -> RESP3 doc
)

// commandDoc returns the RESP3 doc of a command or subcommand (its
// Spec.Doc, else the recording's), or nil.
func commandDoc(s *engine.Spec) []byte {
	if s.Doc != nil {
		return s.Doc.RESP3()
	}
	return recordedDoc(s.FullName())
}

// recordedDoc returns Redis's recorded doc of a command or subcommand, or
// nil.
func recordedDoc(fullName string) []byte {
	docsOnce.Do(indexDocs)
	return docsIndex[fullName]
}

func indexDocs() {
	docsIndex = map[string][]byte{}
	for _, recorded := range [][]byte{redisDocs, sentinelDocs} {
		for _, p := range docPairs(recorded) {
			docsIndex[bulkText(p[0])] = p[1]
			for _, f := range docPairs(p[1]) {
				if bulkText(f[0]) != "subcommands" {
					continue
				}
				for _, sub := range docPairs(f[1]) {
					docsIndex[bulkText(sub[0])] = sub[1]
				}
			}
		}
	}
}

// docPairs splits a raw RESP3 map into its raw keys and values (nil if
// raw is not a well-formed map).
func docPairs(raw []byte) [][2][]byte {
	r := bufio.NewReader(bytes.NewReader(raw))
	line, err := r.ReadSlice('\n')
	if err != nil || len(line) < 4 || line[0] != '%' {
		return nil
	}
	n, err := strconv.Atoi(string(line[1 : len(line)-2]))
	if err != nil {
		return nil
	}
	out := make([][2][]byte, 0, n)
	for i := 0; i < n; i++ {
		k, err1 := resp.ReadReply(r, nil)
		v, err2 := resp.ReadReply(r, nil)
		if err1 != nil || err2 != nil {
			return nil
		}
		out = append(out, [2][]byte{k, v})
	}
	return out
}

// bulkText is the text of a raw bulk string reply.
func bulkText(b []byte) string {
	i := bytes.IndexByte(b, '\n')
	if i < 0 || len(b) < i+3 {
		return ""
	}
	return string(b[i+1 : len(b)-2])
}

// writeCommandDoc writes s's COMMAND DOCS entry: its doc as recorded (or
// from Spec.Doc); for a container, the doc's header with a "subcommands"
// map built from the command table. A command without any doc gets only
// its group, as Redis answers for a command that has no documentation.
func writeCommandDoc(c *engine.Ctx, s *engine.Spec) {
	doc := commandDoc(s)
	if doc == nil {
		n := 1
		if len(s.Sub) > 0 {
			n++
		}
		c.W.Map(n)
		c.W.BulkString("group")
		c.W.BulkString(commandGroup(s))
		if len(s.Sub) > 0 {
			writeSubcommandDocs(c, s)
		}
		return
	}
	if len(s.Sub) == 0 {
		writeRESP3As(c.W, doc, c.W.Proto)
		return
	}
	pairs := docPairs(doc)
	c.W.Map(len(pairs))
	for _, p := range pairs {
		if bulkText(p[0]) == "subcommands" {
			writeSubcommandDocs(c, s)
			continue
		}
		writeRESP3As(c.W, p[0], c.W.Proto)
		writeRESP3As(c.W, p[1], c.W.Proto)
	}
}

func writeSubcommandDocs(c *engine.Ctx, s *engine.Spec) {
	c.W.BulkString("subcommands")
	c.W.Map(len(s.Sub))
	for _, sub := range s.Sub {
		c.W.BulkString(sub.FullName())
		writeCommandDoc(c, sub)
	}
}

// writeRESP3As writes a recorded RESP3 reply for a client of protocol
// proto: as is for RESP3; maps and sets as Redis sends them to RESP2
// clients (flat arrays) otherwise. Docs hold only maps, sets, arrays, bulk
// and simple strings and integers.
func writeRESP3As(w *resp.Writer, raw []byte, proto int) {
	if proto == 3 {
		w.Raw(raw)
		return
	}
	for len(raw) > 0 {
		i := bytes.IndexByte(raw, '\n')
		line := raw[:i+1]
		switch line[0] {
		case '%':
			n, _ := strconv.Atoi(string(line[1 : len(line)-2]))
			w.Array(2 * n)
		case '~':
			n, _ := strconv.Atoi(string(line[1 : len(line)-2]))
			w.Array(n)
		case '$':
			n, _ := strconv.Atoi(string(line[1 : len(line)-2]))
			w.Raw(raw[:i+1+n+2])
			raw = raw[i+1+n+2:]
			continue
		default:
			w.Raw(line)
		}
		raw = raw[i+1:]
	}
}

// Docs of RAFT.NODE, lockkv's own (cluster mode; Spec.Doc).
var (
	docRaftNode = &engine.Doc{
		Summary:    "A container for Raft membership commands.",
		Since:      "1.0.0",
		Group:      "cluster",
		Complexity: "Depends on subcommand.",
		Container:  true,
	}
	docRaftNodeAdd = &engine.Doc{
		Summary:    "Adds a node to the Raft cluster, as a voter (the default) or a non-voter. The leader checks the node through the Raft handshake, adds it as a non-voter, and promotes it once it has caught up; replies when that is done.",
		Since:      "1.0.0",
		Group:      "cluster",
		Complexity: "O(N) where N is the number of nodes in the cluster.",
		Args: []engine.DocArg{
			{Name: "node-id", Type: "string"},
			{Name: "raft-address", Type: "string"},
			{Name: "client-address", Type: "string"},
			{Name: "membership", Type: "oneof", Flags: []string{"optional"}, Args: []engine.DocArg{
				{Name: "voter", Type: "pure-token", Token: "VOTER"},
				{Name: "nonvoter", Type: "pure-token", Token: "NONVOTER"},
			}},
		},
	}
	docRaftNodeAck = &engine.Doc{
		Summary:    "Reports a follower's replication progress (matched and applied log indexes) to the leader.",
		Since:      "1.0.0",
		Group:      "cluster",
		Complexity: "O(1)",
		Args: []engine.DocArg{
			{Name: "node-id", Type: "string"},
			{Name: "match-index", Type: "integer"},
			{Name: "applied-index", Type: "integer"},
		},
	}
	docRaftNodeRemove = &engine.Doc{
		Summary:    "Removes a node from the Raft cluster. Replies once the membership change is committed; the removed node stops.",
		Since:      "1.0.0",
		Group:      "cluster",
		Complexity: "O(N) where N is the number of nodes in the cluster.",
		Args:       []engine.DocArg{{Name: "node-id", Type: "string"}},
	}
	docRaftNodeTransfer = &engine.Doc{
		Summary:    "Hands leadership to the given node, or to the most up-to-date voter, on the leader. Replies once the other node leads.",
		Since:      "1.0.0",
		Group:      "cluster",
		Complexity: "O(1)",
		Args:       []engine.DocArg{{Name: "node-id", Type: "string", Flags: []string{"optional"}}},
	}
	docRaftNodeHelp = &engine.Doc{
		Summary:    "Show helpful text about the different subcommands",
		Since:      "1.0.0",
		Group:      "cluster",
		Complexity: "O(1)",
	}
)
