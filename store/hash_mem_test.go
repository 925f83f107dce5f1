package store

import (
	"os"
	"runtime"
	"strconv"
	"testing"
)

// lockHashBytesPerKey stores n one-field lock hashes the way Redisson does
// (key "lock:<i>", field "<uuid>:<thread>", value "1", optionally a 30 s
// lease) and returns the heap bytes per key they take: the runtime.MemStats
// delta, after GC, with the DB still alive.
func lockHashBytesPerKey(n int, lease bool) float64 {
	const maxEntries, maxValue = 512, 64
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	db := NewDB()
	field := []byte("8743c9c0-0795-4907-87fd-6c719a6b4586:1")
	one := []byte("1")
	var buf []byte
	for i := 0; i < n; i++ {
		buf = strconv.AppendInt(append(buf[:0], "lock:"...), int64(i), 10)
		h := NewHash()
		h.Set(field, one, maxEntries, maxValue)
		var exp int64
		if lease {
			exp = 1_700_000_030_000
		}
		db.Set(string(buf), h, exp, 1_700_000_000_000)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	runtime.KeepAlive(db)
	return float64(after.HeapAlloc-before.HeapAlloc) / float64(n)
}

// TestLockHashMemory guards the size of the lock hash. With LOCKKV_MEM=1 it
// measures 1,000,000 keys and logs bytes per key (go test -run
// TestLockHashMemory -v ./store/ with LOCKKV_MEM=1).
func TestLockHashMemory(t *testing.T) {
	n := 20000
	if os.Getenv("LOCKKV_MEM") != "" {
		n = 1_000_000
	}
	plain := lockHashBytesPerKey(n, false)
	leased := lockHashBytesPerKey(n, true)
	t.Logf("%d one-field lock hashes: %.1f bytes/key, %.1f bytes/key with a lease", n, plain, leased)
	if plain > 200 {
		t.Errorf("a one-field lock hash takes %.1f bytes per key (limit 200)", plain)
	}
}
