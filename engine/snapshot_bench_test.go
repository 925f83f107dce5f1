package engine_test

import (
	"bytes"
	"io"
	"strconv"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/store"
)

// lockHashEngine returns an engine holding n Redisson lock hashes, each
// {"uuid:1": "1"} with a 30 s lease, as HSET + PEXPIRE leave them.
func lockHashEngine(t testing.TB, n int) *engine.Engine {
	clock := &enginetest.Clock{T: time.UnixMilli(1_700_000_000_000)}
	e := enginetest.NewWith(t, engine.Options{Clock: clock}).E
	now := e.NowMs()
	db := e.DBs[0]
	for i := 0; i < n; i++ {
		h := store.NewHash()
		h.Set([]byte("uuid:1"), []byte("1"), 512, 64)
		db.Set("lock:"+strconv.Itoa(i), h, now+30_000, now)
	}
	return e
}

// BenchmarkSnapshotLockHashes measures the command goroutine's pause for
// Engine.Snapshot of a million lock hashes (ns/op is the pause) and the
// snapshot's size (bytes/snapshot):
//
//	go test -run '^$' -bench SnapshotLockHashes -benchtime 5x ./engine/
func BenchmarkSnapshotLockHashes(b *testing.B) {
	e := lockHashEngine(b, 1_000_000)
	b.ResetTimer()
	var size int64
	for i := 0; i < b.N; i++ {
		size = e.Snapshot(nil).Size()
	}
	b.ReportMetric(float64(size), "bytes/snapshot")
	b.ReportMetric(float64(size)/1e6, "bytes/key")
}

// BenchmarkSnapshotWriteLockHashes is WriteTo's cost (off the command
// goroutine) for the same snapshot: checksum and copy.
func BenchmarkSnapshotWriteLockHashes(b *testing.B) {
	s := lockHashEngine(b, 1_000_000).Snapshot(nil)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := s.WriteTo(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(s.Size())
}

// BenchmarkRestoreLockHashes is Restore of the same snapshot.
func BenchmarkRestoreLockHashes(b *testing.B) {
	var buf bytes.Buffer
	if _, err := lockHashEngine(b, 1_000_000).Snapshot(nil).WriteTo(&buf); err != nil {
		b.Fatal(err)
	}
	e := enginetest.NewWith(b, engine.Options{Clock: &enginetest.Clock{T: time.UnixMilli(1_700_000_000_000)}}).E
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Restore(bytes.NewReader(buf.Bytes())); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
