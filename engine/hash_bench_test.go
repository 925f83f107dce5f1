package engine_test

import (
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// benchEngine returns an engine and a client whose replies are discarded
// between commands.
func benchEngine(b *testing.B) (*engine.Engine, *engine.Client) {
	e := enginetest.NewWith(b, engine.Options{Clock: &enginetest.Clock{T: time.Unix(1700000000, 0)}}).E
	return e, e.NewClient(nil)
}

func benchRun(b *testing.B, e *engine.Engine, cl *engine.Client, cmds ...[][]byte) {
	b.Helper()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		for _, args := range cmds {
			e.Call(cl, args)
		}
		cl.W.Reset()
	}
}

func argv(s ...string) [][]byte {
	out := make([][]byte, len(s))
	for i, a := range s {
		out[i] = []byte(a)
	}
	return out
}

const benchOwner = "8743c9c0-0795-4907-87fd-6c719a6b4586:1"

// BenchmarkHINCRBYLock is Redisson's reentry/unlock pair on a one-field
// lock hash.
func BenchmarkHINCRBYLock(b *testing.B) {
	e, cl := benchEngine(b)
	e.Call(cl, argv("HSET", "myLock", benchOwner, "1"))
	benchRun(b, e, cl, argv("HINCRBY", "myLock", benchOwner, "1"), argv("HINCRBY", "myLock", benchOwner, "-1"))
}

// BenchmarkHSETSmall overwrites a field of a three-field hash.
func BenchmarkHSETSmall(b *testing.B) {
	e, cl := benchEngine(b)
	e.Call(cl, argv("HSET", "h", "a", "1", "b", "2", "c", "3"))
	benchRun(b, e, cl, argv("HSET", "h", "b", "x"))
}

// BenchmarkLockCycle takes and releases a lock: HINCRBY creates the hash,
// HEXISTS checks ownership, HDEL empties and deletes it.
func BenchmarkLockCycle(b *testing.B) {
	e, cl := benchEngine(b)
	benchRun(b, e, cl, argv("HINCRBY", "myLock", benchOwner, "1"), argv("HEXISTS", "myLock", benchOwner), argv("HDEL", "myLock", benchOwner))
}

// BenchmarkHGETBig reads a field of a hashtable-encoded hash.
func BenchmarkHGETBig(b *testing.B) {
	e, cl := benchEngine(b)
	for i := 0; i < 1000; i++ {
		e.Call(cl, argv("HSET", "big", "field:"+itoa(i), "v"))
	}
	benchRun(b, e, cl, argv("HGET", "big", "field:500"))
}

func itoa(i int) string { return string(appendInt(nil, i)) }

func appendInt(b []byte, i int) []byte {
	if i >= 10 {
		b = appendInt(b, i/10)
	}
	return append(b, byte('0'+i%10))
}

// benchBatches runs each op as one pipeline through ProcessBatch and
// FlushOutputs, the server's path; ns/op covers one pipeline.
func benchBatches(b *testing.B, e *engine.Engine, cmds [][][]byte) {
	b.Helper()
	conn := &enginetest.Conn{}
	cl := e.NewClient(conn)
	done := func() {}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.ProcessBatch(cl, cmds, done)
		e.FlushOutputs()
		conn.Out = conn.Out[:0]
	}
}

// BenchmarkBatchHINCRBYLock is BenchmarkHINCRBYLock's pair sent by one
// client at a time, one command per pipeline (a lock client's usual
// traffic): ns/op covers the two pipelines.
func BenchmarkBatchHINCRBYLock(b *testing.B) {
	e, cl := benchEngine(b)
	e.Call(cl, argv("HSET", "myLock", benchOwner, "1"))
	conn := &enginetest.Conn{}
	c := e.NewClient(conn)
	in, out := [][][]byte{argv("HINCRBY", "myLock", benchOwner, "1")}, [][][]byte{argv("HINCRBY", "myLock", benchOwner, "-1")}
	done := func() {}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.ProcessBatch(c, in, done)
		e.ProcessBatch(c, out, done)
		e.FlushOutputs()
		conn.Out = conn.Out[:0]
	}
}

// BenchmarkBatchHGET16 reads a field sixteen times in one pipeline.
func BenchmarkBatchHGET16(b *testing.B) {
	e, cl := benchEngine(b)
	e.Call(cl, argv("HSET", "h", "a", "1", "b", "2", "c", "3"))
	cmds := make([][][]byte, 16)
	for i := range cmds {
		cmds[i] = argv("HGET", "h", "b")
	}
	benchBatches(b, e, cmds)
}
