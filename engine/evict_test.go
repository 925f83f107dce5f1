package engine_test

import (
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// TestMaxmemoryPolicyRefused: lockkv never evicts, so CONFIG SET refuses a
// maxmemory limit together with an evicting policy, whichever comes
// first, and changes nothing; a policy alone (LRU or LFU access data) and
// a limit with noeviction are taken.
func TestMaxmemoryPolicyRefused(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	const ok = "+OK\r\n"
	refused := func(arg string) string {
		return "-ERR CONFIG SET failed (possibly related to argument '" + arg + "') - " + engine.ErrEvictionPolicy + "\r\n"
	}
	te.Expect(cl, conn, ok, "CONFIG", "SET", "maxmemory", "1mb")
	te.Expect(cl, conn, refused("maxmemory-policy"), "CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	te.Expect(cl, conn, refused("maxmemory-policy"), "CONFIG", "SET", "timeout", "5", "maxmemory-policy", "volatile-ttl")
	te.Expect(cl, conn, "*4\r\n$16\r\nmaxmemory-policy\r\n$10\r\nnoeviction\r\n$7\r\ntimeout\r\n$1\r\n0\r\n", "CONFIG", "GET", "timeout", "maxmemory-policy")
	te.Expect(cl, conn, ok, "CONFIG", "SET", "maxmemory", "0", "maxmemory-policy", "allkeys-lfu")
	if !te.E.Config.LFU {
		t.Fatal("allkeys-lfu without a limit does not keep LFU counters")
	}
	te.Expect(cl, conn, refused("maxmemory"), "CONFIG", "SET", "MAXMEMORY", "1gb")
	te.Expect(cl, conn, "*2\r\n$9\r\nmaxmemory\r\n$1\r\n0\r\n", "CONFIG", "GET", "maxmemory")
	te.Expect(cl, conn, ok, "CONFIG", "SET", "maxmemory-policy", "noeviction", "maxmemory", "1gb")
	te.Expect(cl, conn, "*2\r\n$9\r\nmaxmemory\r\n$10\r\n1073741824\r\n", "CONFIG", "GET", "maxmemory")
}

// TestMaxmemoryUsedMemory: used memory is read at most once a millisecond
// and afresh after CONFIG SET maxmemory, and INFO reports it.
func TestMaxmemoryUsedMemory(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	if u := te.E.UsedMemoryForTest(); u == 0 {
		t.Fatal("used memory 0")
	}
	te.Expect(cl, conn, "+OK\r\n", "SET", "k", "v")
	te.Expect(cl, conn, "+OK\r\n", "CONFIG", "SET", "maxmemory", "1")
	if te.E.MemSampledAtForTest() == 0 || !(te.E.UsedMemoryForTest() > 1) {
		t.Fatal("no fresh reading after CONFIG SET maxmemory")
	}
	te.Expect(cl, conn, "-"+engine.ErrOOM+"\r\n", "SET", "k", "v")
	te.Expect(cl, conn, "$1\r\nv\r\n", "GET", "k")
}
