package commands

import (
	"bufio"
	"bytes"
	_ "embed"
	"strconv"
	"sync"

	"github.com/lockkv/lockkv/internal/resp"
)

// redisDocs is Redis 7.0.15's own COMMAND DOCS reply (RESP3), recorded
// from redis-server 7.0.15 (`HELLO 3`, `COMMAND DOCS`): the summaries,
// arguments, history and groups of Redis's command documentation
// (BSD-3-Clause, Redis Ltd). COMMAND DOCS answers from it byte for byte
// for every command lockkv shares with Redis 7.0; commands Redis 7.0 lacks
// (7.2's, lockkv's own) get the structure the command table gives.
//
//go:embed docs_redis70.resp3
var redisDocs []byte

var (
	docsOnce  sync.Once
	docsIndex map[string][]byte // full name ("client|list") -> RESP3 doc
)

// redisDoc returns the recorded RESP3 doc of a command, or nil.
func redisDoc(fullName string) []byte {
	docsOnce.Do(indexDocs)
	return docsIndex[fullName]
}

func indexDocs() {
	docsIndex = map[string][]byte{}
	r := bufio.NewReader(bytes.NewReader(redisDocs))
	n, ok := mapHeader(r)
	if !ok {
		return
	}
	for i := 0; i < n; i++ {
		name, err := resp.ReadReply(r, nil)
		if err != nil {
			return
		}
		doc, err := resp.ReadReply(r, nil)
		if err != nil {
			return
		}
		docsIndex[bulkText(name)] = doc
		indexSubcommands(doc)
	}
}

// indexSubcommands adds the docs in a doc's "subcommands" map.
func indexSubcommands(doc []byte) {
	r := bufio.NewReader(bytes.NewReader(doc))
	n, ok := mapHeader(r)
	if !ok {
		return
	}
	for i := 0; i < n; i++ {
		k, err := resp.ReadReply(r, nil)
		if err != nil {
			return
		}
		v, err := resp.ReadReply(r, nil)
		if err != nil {
			return
		}
		if bulkText(k) != "subcommands" {
			continue
		}
		sr := bufio.NewReader(bytes.NewReader(v))
		m, ok := mapHeader(sr)
		if !ok {
			return
		}
		for j := 0; j < m; j++ {
			name, err1 := resp.ReadReply(sr, nil)
			sub, err2 := resp.ReadReply(sr, nil)
			if err1 != nil || err2 != nil {
				return
			}
			docsIndex[bulkText(name)] = sub
		}
	}
}

func mapHeader(r *bufio.Reader) (int, bool) {
	line, err := r.ReadSlice('\n')
	if err != nil || len(line) < 4 || line[0] != '%' {
		return 0, false
	}
	n, err := strconv.Atoi(string(line[1 : len(line)-2]))
	return n, err == nil
}

// bulkText is the text of a raw bulk string reply.
func bulkText(b []byte) string {
	i := bytes.IndexByte(b, '\n')
	if i < 0 || len(b) < i+3 {
		return ""
	}
	return string(b[i+1 : len(b)-2])
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
