package engine_test

import (
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

func TestSortForScript(t *testing.T) {
	for _, tc := range []struct {
		cmd, in, want string
	}{
		{"smembers", "*3\r\n$1\r\nc\r\n$1\r\na\r\n$1\r\nb\r\n", "*3\r\n$1\r\na\r\n$1\r\nb\r\n$1\r\nc\r\n"},
		{"smembers", "~2\r\n$2\r\nzz\r\n$2\r\naa\r\n", "~2\r\n$2\r\naa\r\n$2\r\nzz\r\n"},
		{"hgetall", "*4\r\n$1\r\nf\r\n$1\r\n1\r\n$1\r\na\r\n$1\r\n2\r\n", "*4\r\n$1\r\na\r\n$1\r\n2\r\n$1\r\nf\r\n$1\r\n1\r\n"},
		{"hgetall", "%2\r\n$1\r\nf\r\n:1\r\n$1\r\na\r\n:2\r\n", "%2\r\n$1\r\na\r\n:2\r\n$1\r\nf\r\n:1\r\n"},
		{"get", "$1\r\nx\r\n", "$1\r\nx\r\n"},
		{"zrange", "*2\r\n$1\r\nb\r\n$1\r\na\r\n", "*2\r\n$1\r\nb\r\n$1\r\na\r\n"}, // ordered already: untouched
		{"smembers", "-WRONGTYPE x\r\n", "-WRONGTYPE x\r\n"},
	} {
		if got := string(engine.SortForScript(engine.Lookup([]byte(tc.cmd)), []byte(tc.in))); got != tc.want {
			t.Errorf("%s %q: got %q, want %q", tc.cmd, tc.in, got, tc.want)
		}
	}
}

// TestReadOnlyScriptLeavesReplicatedCache: EVAL_RO and EVALSHA_RO run on
// the leader only, so they leave the replicated script cache (which every
// node must hold alike: a later EVALSHA evicts and finds scripts by it)
// as the followers have it; the leader keeps what it compiled for itself.
func TestReadOnlyScriptLeavesReplicatedCache(t *testing.T) {
	te, r := replicatedEngine(t)
	follower := enginetest.New(t)
	follower.E.EnableReplicationForTest(&enginetest.StubReplicator{}, 8)
	cl, conn := te.Client()
	commit := func(index uint64) {
		ops := r.Ops
		r.Ops = nil
		follower.E.ApplyEntry(index, te.E.NowMs(), index, nil, cloneOps(ops))
		te.E.ApplyEntry(index, te.E.NowMs(), index, nil, ops)
		te.E.FlushOutputs()
	}
	te.Do(cl, conn, "EVAL", "return 1", "0")
	te.Do(cl, conn, "EVAL", "return 2", "0")
	commit(1)
	conn.Out = conn.Out[:0]
	ro := "return redis.call('get', KEYS[1])"
	te.Expect(cl, conn, "$-1\r\n", "EVAL_RO", ro, "1", "k")
	te.Expect(cl, conn, "$-1\r\n", "EVALSHA_RO", sha1hex(ro), "1", "k")
	te.Expect(cl, conn, ":1\r\n", "EVALSHA_RO", sha1hex("return 1"), "0") // LRU order untouched
	if te.E.Digest() != follower.E.Digest() {
		t.Fatal("a read-only script changed the leader's replicated state")
	}
	// A write EVALSHA of the script only the leader compiled is refused
	// by every node alike.
	te.Do(cl, conn, "EVALSHA", sha1hex(ro), "1", "k")
	commit(2)
	if got := string(conn.Out); got != "-"+engine.ErrNoScript+"\r\n" {
		t.Fatalf("EVALSHA of a script run read-only: %q", got)
	}
}
