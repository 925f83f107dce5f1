package engine_test

import (
	"strconv"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/store"
)

// TestCronExpiresInSlices checks that Engine.Cron reclaims a mass of expired
// keys a bounded slice per call, counting each one in expired_keys.
func TestCronExpiresInSlices(t *testing.T) {
	clock := &enginetest.Clock{T: time.UnixMilli(1_000_000)}
	e := enginetest.NewWith(t, engine.Options{Clock: clock}).E
	const n = 100_000
	v := store.NewString([]byte("lease"))
	now := clock.T.UnixMilli()
	for i := 0; i < n; i++ {
		db := e.DBs[i%3]
		db.Set("lock:"+strconv.Itoa(i), v, now+int64(1+i%500), now)
	}
	e.DBs[0].Set("forever", v, 0, now)
	clock.T = clock.T.Add(time.Second)
	calls := 0
	for prev := int64(0); ; calls++ {
		e.Cron()
		got := e.Stats.ExpiredKeys - prev
		prev = e.Stats.ExpiredKeys
		if got == 0 {
			break
		}
		if got > 2000 {
			t.Fatalf("one Cron call reclaimed %d keys", got)
		}
		// While keys remain due, the engine asks to run again at once.
		if w := e.NextWakeup(); got == 2000 && w != clock.T.UnixMilli() {
			t.Fatalf("after a full slice NextWakeup = %d, want now (%d)", w, clock.T.UnixMilli())
		}
	}
	if e.Stats.ExpiredKeys != n || calls != n/2000 {
		t.Fatalf("reclaimed %d keys in %d calls", e.Stats.ExpiredKeys, calls)
	}
	if w := e.NextWakeup(); w != 0 {
		t.Fatalf("nothing left to expire, NextWakeup = %d", w)
	}
	if l := e.DBs[0].Len() + e.DBs[1].Len() + e.DBs[2].Len(); l != 1 {
		t.Fatalf("%d keys left, want 1", l)
	}
}

// BenchmarkStringLockCycle runs a lock's life through Exec: SET NX PX, GET,
// PEXPIRE (renew), PTTL, DEL. ns/op covers the five commands.
func BenchmarkStringLockCycle(b *testing.B) {
	e := enginetest.New(b).E
	cl := e.NewClient(nil)
	cl.Authenticated = true
	cmds := [][][]byte{
		{[]byte("SET"), []byte("lock:resource:42"), []byte("token-abcdef"), []byte("NX"), []byte("PX"), []byte("30000")},
		{[]byte("GET"), []byte("lock:resource:42")},
		{[]byte("PEXPIRE"), []byte("lock:resource:42"), []byte("30000")},
		{[]byte("PTTL"), []byte("lock:resource:42")},
		{[]byte("DEL"), []byte("lock:resource:42")},
	}
	ctx := engine.Ctx{E: e, C: cl, W: &cl.W, DB: e.DBs[0]}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		for _, a := range cmds {
			cl.W.Reset()
			ctx.Now = 1_000_000 + int64(i)
			engine.Exec(&ctx, a)
		}
	}
}
