package admin

import (
	"bufio"
	"bytes"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/internal/resp"
)

// TestCommandInfoRecorded: COMMAND INFO of every command Redis 7.0 has
// (Origin OriginRedis70), subcommands included, equals redis-server
// 7.0.15's in full, byte for byte in RESP3, as recorded by `go generate`
// (internal/gendocs): cmdinfo_redis70.resp3 for the server's commands,
// cmdinfo_sentinel70.resp3 for SENTINEL. Only a container's subcommands
// are compared as a set (Redis lists them in its dict order), leaving out
// lockkv's Redis 7.2 ones. No redis-server is needed; the conformance
// suite checks the same against a live one.
func TestCommandInfoRecorded(t *testing.T) {
	recorded := map[string][]byte{}
	for _, file := range []string{"cmdinfo_redis70.resp3", "cmdinfo_sentinel70.resp3"} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range rawElems(t, b) {
			recorded[entryName(t, e)] = e
		}
	}
	if len(recorded) < 200 {
		t.Fatalf("recorded COMMAND INFO of only %d commands", len(recorded))
	}
	te := enginetest.NewCluster(t, enginetest.NewFakeCluster("n1")) // SENTINEL exists in cluster mode
	cl, conn := te.Client()
	te.Do(cl, conn, "HELLO", "3")
	compared := 0
	for _, s := range engine.All() {
		if s.Origin != engine.OriginRedis70 {
			continue
		}
		want, ok := recorded[s.Name]
		if !ok {
			t.Errorf("%s: not in the recording", s.Name)
			continue
		}
		got := rawElems(t, []byte(te.Do(cl, conn, "COMMAND", "INFO", s.Name)))
		if len(got) != 1 {
			t.Fatalf("COMMAND INFO %s: %d entries", s.Name, len(got))
		}
		if g, w := canonicalInfo(t, got[0]), canonicalInfo(t, want); !bytes.Equal(g, w) {
			t.Errorf("COMMAND INFO %s:\n got %q\nwant %q", s.Name, g, w)
		}
		compared++
	}
	if compared < 180 {
		t.Fatalf("compared only %d commands", compared)
	}
}

// canonicalInfo is a raw RESP3 COMMAND INFO entry with its subcommands
// sorted and those Redis 7.0 lacks left out.
func canonicalInfo(t *testing.T, entry []byte) []byte {
	t.Helper()
	fields := rawElems(t, entry)
	if len(fields) != 10 {
		t.Fatalf("COMMAND INFO entry of %d fields: %q", len(fields), entry)
	}
	var subs [][]byte
	for _, sub := range rawElems(t, fields[9]) {
		if s := engine.LookupArgs(bytes.Split([]byte(entryName(t, sub)), []byte("|"))); s == nil || s.Origin == engine.OriginRedis70 {
			subs = append(subs, canonicalInfo(t, sub))
		}
	}
	slices.SortFunc(subs, bytes.Compare)
	out := []byte("*10\r\n")
	for _, f := range fields[:9] {
		out = append(out, f...)
	}
	out = append(out, fields[9][0]) // an array, or an empty set when there are none
	out = append(out, strconv.Itoa(len(subs))+"\r\n"...)
	return append(out, bytes.Join(subs, nil)...)
}

// rawElems splits one raw RESP3 aggregate reply into its raw elements.
func rawElems(t *testing.T, b []byte) [][]byte {
	t.Helper()
	r := bufio.NewReader(bytes.NewReader(b))
	head, err := r.ReadString('\n')
	if err != nil || len(head) < 4 || (head[0] != '*' && head[0] != '~') {
		t.Fatalf("not an array or set: %q", b)
	}
	n, err := strconv.Atoi(head[1 : len(head)-2])
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]byte, n)
	for i := range out {
		if out[i], err = resp.ReadReply(r, nil); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// entryName is the name (first field) of a raw COMMAND INFO entry.
func entryName(t *testing.T, entry []byte) string {
	t.Helper()
	name := rawElems(t, entry)[0]
	i := bytes.IndexByte(name, '\n')
	return string(name[i+1 : len(name)-2])
}
