package engine_test

import (
	"crypto/sha1"
	"encoding/hex"
	"testing"

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
