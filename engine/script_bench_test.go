package engine_test

import (
	"crypto/sha1"
	"encoding/hex"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"

	"github.com/lockkv/lockkv/lockscripts"
)

// BenchmarkEvalshaLockPair runs the reentrant lock's acquire and release
// scripts by EVALSHA on the engine alone (no connection): the cost of the
// scripting path and the three to five commands each script calls.
func BenchmarkEvalshaLockPair(b *testing.B) {
	e, cl := benchEngine(b)
	sha := func(s string) string {
		h := sha1.Sum([]byte(s))
		return hex.EncodeToString(h[:])
	}
	e.Call(cl, argv("SCRIPT", "LOAD", lockscripts.Acquire))
	e.Call(cl, argv("SCRIPT", "LOAD", lockscripts.Release))
	cl.W.Reset()
	acquire := argv("EVALSHA", sha(lockscripts.Acquire), "1", "myLock", "30000", benchOwner)
	release := argv("EVALSHA", sha(lockscripts.Release), "2", "myLock", "redisson_lock__channel:{myLock}", "0", "30000", benchOwner)
	e.Call(cl, acquire)
	e.Call(cl, release)
	if got := string(cl.W.B); got != "$-1\r\n:1\r\n" {
		b.Fatalf("acquire and release answered %q", got)
	}
	benchRun(b, e, cl, acquire, release)
}

// BenchmarkExecLockPair is the same lock taken and released by two
// transactions (MULTI, HINCRBY, PEXPIRE, EXEC; MULTI, HDEL, EXEC).
func BenchmarkExecLockPair(b *testing.B) {
	e, cl := benchEngine(b)
	benchRun(b, e, cl,
		argv("MULTI"), argv("HINCRBY", "myLock", benchOwner, "1"), argv("PEXPIRE", "myLock", "30000"), argv("EXEC"),
		argv("MULTI"), argv("HDEL", "myLock", benchOwner), argv("EXEC"))
}

// BenchmarkApplyLockPair is a follower applying the entries of the lock
// benchmark's pair: the acquire script's EVALSHA in one entry, the release
// script's in the next (scripts replicate verbatim, so each node runs them
// at apply).
func BenchmarkApplyLockPair(b *testing.B) {
	leader := enginetest.NewWith(b, engine.Options{Clock: &enginetest.Clock{T: time.Unix(1700000000, 0)}})
	r := &enginetest.StubReplicator{}
	leader.E.EnableReplicationForTest(r, 7)
	leader.E.SetLeader(true)
	cl, conn := leader.Client()
	sha := func(s string) string {
		h := sha1.Sum([]byte(s))
		return hex.EncodeToString(h[:])
	}
	index := uint64(0)
	propose := func(want string, args ...string) []engine.Op {
		leader.Do(cl, conn, args...)
		ops := r.Ops
		r.Ops = nil
		if len(ops) != 1 {
			b.Fatalf("%s proposed %d ops", args[0], len(ops))
		}
		index++
		leader.E.ApplyEntry(index, leader.E.NowMs(), index, nil, cloneOps(ops))
		leader.E.FlushOutputs()
		if string(conn.Out) != want {
			b.Fatalf("%s answered %q", args[0], conn.Out)
		}
		return ops
	}
	load := append(propose("$40\r\n"+sha(lockscripts.Acquire)+"\r\n", "SCRIPT", "LOAD", lockscripts.Acquire),
		propose("$40\r\n"+sha(lockscripts.Release)+"\r\n", "SCRIPT", "LOAD", lockscripts.Release)...)
	acquire := propose("$-1\r\n", "EVALSHA", sha(lockscripts.Acquire), "1", "myLock", "30000", benchOwner)
	release := propose(":1\r\n", "EVALSHA", sha(lockscripts.Release), "2", "myLock", "redisson_lock__channel:{myLock}", "0", "30000", benchOwner)
	f := enginetest.NewWith(b, engine.Options{Clock: &enginetest.Clock{T: time.Unix(1700000000, 0)}})
	f.E.EnableReplicationForTest(&enginetest.StubReplicator{}, 8)
	now := f.E.NowMs()
	f.E.ApplyEntry(1, now, 1, nil, load)
	empty := f.E.Digest()
	index = 1
	apply := func(ops []engine.Op) {
		index++
		f.E.ApplyEntry(index, now, index, nil, ops)
	}
	apply(acquire)
	apply(release)
	if f.E.Digest() != empty {
		b.Fatal("the follower's keyspace changed over an acquire and release")
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		apply(acquire)
		apply(release)
	}
}
