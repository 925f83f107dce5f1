package engine

import (
	"bufio"
	"bytes"
	_ "embed"
	"strconv"
	"sync"

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
// Both are written by `go generate ./commands` (internal/gendocs), which
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
func commandDoc(s *Spec) []byte {
	if s.Doc != nil {
		return s.Doc.resp3()
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
func writeCommandDoc(c *Ctx, s *Spec) {
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

func writeSubcommandDocs(c *Ctx, s *Spec) {
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

// docs of commands Redis 7.0 lacks

// cmdDoc is a command's documentation, encoded as Redis's
// addReplyCommandDocs does (the same fields in the same order as the
// recorded docs).
type cmdDoc struct {
	summary, since, group, complexity string
	history                           [][2]string // since, change
	args                              []docArg
	// container: the doc has a "subcommands" entry, filled from the
	// command table when written.
	container bool
}

// docArg is one argument (addReplyCommandArgList); typ is Redis's
// argument type (string, integer, key, pure-token, oneof, block, ...).
type docArg struct {
	name, typ, token string
	keySpec          int      // key_spec_index, for typ "key"
	flags            []string // optional, multiple, multiple_token
	args             []docArg // for oneof and block
}

// Docs of the commands Redis 7.0 lacks (Spec.Doc).
var (
	// Redis 7.2 (src/commands/waitaof.json, client-setinfo.json,
	// client-no-touch.json).
	docWaitaof = &cmdDoc{
		summary:    "Blocks until all of the preceding write commands sent by the connection are written to the append-only file of the master and/or replicas.",
		since:      "7.2.0",
		group:      "generic",
		complexity: "O(1)",
		args: []docArg{
			{name: "numlocal", typ: "integer"},
			{name: "numreplicas", typ: "integer"},
			{name: "timeout", typ: "integer"},
		},
	}
	docClientSetInfo = &cmdDoc{
		summary:    "Sets information specific to the client or connection.",
		since:      "7.2.0",
		group:      "connection",
		complexity: "O(1)",
		args: []docArg{{name: "attr", typ: "oneof", args: []docArg{
			{name: "libname", typ: "string", token: "LIB-NAME"},
			{name: "libver", typ: "string", token: "LIB-VER"},
		}}},
	}
	docClientNoTouch = &cmdDoc{
		summary:    "Controls whether commands sent by the client affect the LRU/LFU of accessed keys.",
		since:      "7.2.0",
		group:      "connection",
		complexity: "O(1)",
		args: []docArg{{name: "enabled", typ: "oneof", args: []docArg{
			{name: "on", typ: "pure-token", token: "ON"},
			{name: "off", typ: "pure-token", token: "OFF"},
		}}},
	}

	// lockkv's own (cluster mode).
	docRaftNode = &cmdDoc{
		summary:    "A container for Raft membership commands.",
		since:      "1.0.0",
		group:      "cluster",
		complexity: "Depends on subcommand.",
		container:  true,
	}
	docRaftNodeAdd = &cmdDoc{
		summary:    "Adds a node to the Raft cluster, as a voter (the default) or a non-voter. The leader checks the node through the Raft handshake, adds it as a non-voter, and promotes it once it has caught up; replies when that is done.",
		since:      "1.0.0",
		group:      "cluster",
		complexity: "O(N) where N is the number of nodes in the cluster.",
		args: []docArg{
			{name: "node-id", typ: "string"},
			{name: "raft-address", typ: "string"},
			{name: "client-address", typ: "string"},
			{name: "membership", typ: "oneof", flags: []string{"optional"}, args: []docArg{
				{name: "voter", typ: "pure-token", token: "VOTER"},
				{name: "nonvoter", typ: "pure-token", token: "NONVOTER"},
			}},
		},
	}
	docRaftNodeAck = &cmdDoc{
		summary:    "Reports a follower's replication progress (matched and applied log indexes) to the leader.",
		since:      "1.0.0",
		group:      "cluster",
		complexity: "O(1)",
		args: []docArg{
			{name: "node-id", typ: "string"},
			{name: "match-index", typ: "integer"},
			{name: "applied-index", typ: "integer"},
		},
	}
	docRaftNodeRemove = &cmdDoc{
		summary:    "Removes a node from the Raft cluster. Replies once the membership change is committed; the removed node stops.",
		since:      "1.0.0",
		group:      "cluster",
		complexity: "O(N) where N is the number of nodes in the cluster.",
		args:       []docArg{{name: "node-id", typ: "string"}},
	}
	docRaftNodeTransfer = &cmdDoc{
		summary:    "Hands leadership to the given node, or to the most up-to-date voter, on the leader. Replies once the other node leads.",
		since:      "1.0.0",
		group:      "cluster",
		complexity: "O(1)",
		args:       []docArg{{name: "node-id", typ: "string", flags: []string{"optional"}}},
	}
	docLockkvLocks = &cmdDoc{
		summary:    "Lists the locks among the keys one SCAN step visits: Redisson's reentrant, fair and read-write locks and permit-expirable semaphores, and SET NX locks, with holders, hold counts, leases and waiters.",
		since:      "1.0.0",
		group:      "generic",
		complexity: "O(N) for the keys visited, as SCAN.",
		args: []docArg{
			{name: "cursor", typ: "integer"},
			{name: "pattern", typ: "pattern", token: "MATCH", flags: []string{"optional"}},
			{name: "count", typ: "integer", token: "COUNT", flags: []string{"optional"}},
			{name: "type", typ: "string", token: "TYPE", flags: []string{"optional"}},
		},
	}
	docRaftNodeHelp = &cmdDoc{
		summary:    "Show helpful text about the different subcommands",
		since:      "1.0.0",
		group:      "cluster",
		complexity: "O(1)",
	}
)

// resp3 encodes d as Redis's addReplyCommandDocs does.
func (d *cmdDoc) resp3() []byte {
	var b []byte
	n := 1
	for _, has := range []bool{d.summary != "", d.since != "", d.complexity != "", d.history != nil, d.args != nil, d.container} {
		if has {
			n++
		}
	}
	b = appendLen(b, '%', n)
	if d.summary != "" {
		b = appendBulks(b, "summary", d.summary)
	}
	if d.since != "" {
		b = appendBulks(b, "since", d.since)
	}
	b = appendBulks(b, "group", d.group)
	if d.complexity != "" {
		b = appendBulks(b, "complexity", d.complexity)
	}
	if d.history != nil {
		b = appendBulks(b, "history")
		b = appendLen(b, '~', len(d.history))
		for _, h := range d.history {
			b = appendLen(b, '*', 2)
			b = appendBulks(b, h[0], h[1])
		}
	}
	if d.args != nil {
		b = appendBulks(b, "arguments")
		b = appendDocArgs(b, d.args)
	}
	if d.container {
		b = appendBulks(b, "subcommands")
		b = appendLen(b, '%', 0)
	}
	return b
}

// appendDocArgs encodes args as Redis's addReplyCommandArgList does.
func appendDocArgs(b []byte, args []docArg) []byte {
	b = appendLen(b, '*', len(args))
	for _, a := range args {
		n := 2
		for _, has := range []bool{a.typ == "key", a.token != "", a.flags != nil, a.typ == "oneof" || a.typ == "block"} {
			if has {
				n++
			}
		}
		b = appendLen(b, '%', n)
		b = appendBulks(b, "name", a.name, "type", a.typ)
		if a.typ == "key" {
			b = appendBulks(b, "key_spec_index")
			b = append(append(append(b, ':'), strconv.Itoa(a.keySpec)...), '\r', '\n')
		}
		if a.token != "" {
			b = appendBulks(b, "token", a.token)
		}
		if a.flags != nil {
			b = appendBulks(b, "flags")
			b = appendLen(b, '~', len(a.flags))
			for _, f := range a.flags {
				b = append(append(append(b, '+'), f...), '\r', '\n')
			}
		}
		if a.typ == "oneof" || a.typ == "block" {
			b = appendBulks(b, "arguments")
			b = appendDocArgs(b, a.args)
		}
	}
	return b
}

func appendLen(b []byte, kind byte, n int) []byte {
	return append(append(append(b, kind), strconv.Itoa(n)...), '\r', '\n')
}

func appendBulks(b []byte, ss ...string) []byte {
	for _, s := range ss {
		b = appendLen(b, '$', len(s))
		b = append(append(b, s...), '\r', '\n')
	}
	return b
}
