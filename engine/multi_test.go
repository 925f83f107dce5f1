package engine_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine/enginetest"
	"github.com/lockkv/lockkv/store"
)

// TestWatchSwapDBExpired checks SWAPDB's watch rules for keys that are
// expired but not yet reclaimed, where real-time tests against Redis would
// race with active expiry. Expected outcomes were taken from Redis 7.0.15
// with active expiry disabled.
func TestWatchSwapDBExpired(t *testing.T) {
	const (
		missing = iota
		live
		expired
	)
	for _, tc := range []struct {
		db0, db1 int
		fails    bool
	}{
		{missing, live, true},
		{live, missing, true},
		{missing, expired, false},
		{expired, live, true},
		{expired, expired, false},
		{expired, missing, false},
		{live, live, true},
		{missing, missing, false},
	} {
		te := enginetest.New(t)
		cl, conn := te.Client()
		now := te.Clock.T.UnixMilli()
		put := func(db, state int) {
			switch state {
			case live:
				te.E.DBs[db].Set("k", store.NewString([]byte("v")), 0, now)
			case expired:
				te.E.DBs[db].Set("k", store.NewString([]byte("v")), now+1, now)
			}
		}
		put(0, tc.db0)
		put(1, tc.db1)
		te.Advance(10 * time.Millisecond)
		other, oconn := te.Client()
		te.Expect(cl, conn, "+OK\r\n", "WATCH", "k")
		te.Expect(other, oconn, "+OK\r\n", "SWAPDB", "0", "1")
		te.Expect(cl, conn, "+OK\r\n", "MULTI")
		te.Expect(cl, conn, "+QUEUED\r\n", "PING")
		want := "*1\r\n+PONG\r\n"
		if tc.fails {
			want = "*-1\r\n"
		}
		te.Expect(cl, conn, want, "EXEC")
	}
}

// TestWatchExpiredReclaimed covers an expired-at-WATCH key reclaimed by
// active expiry (no change) and a live-at-WATCH key reclaimed (a change).
func TestWatchExpiredReclaimed(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	now := te.Clock.T.UnixMilli()
	te.E.DBs[0].Set("gone", store.NewString([]byte("v")), now+1, now)
	te.E.DBs[0].Set("soon", store.NewString([]byte("v")), now+50, now)
	te.Advance(10 * time.Millisecond)
	te.Expect(cl, conn, "+OK\r\n", "WATCH", "gone")
	te.E.Cron() // reclaims "gone"
	te.Expect(cl, conn, "+OK\r\n", "MULTI")
	te.Expect(cl, conn, "*0\r\n", "EXEC")

	te.Expect(cl, conn, "+OK\r\n", "WATCH", "soon")
	te.Advance(100 * time.Millisecond)
	te.E.Cron() // reclaims "soon"
	te.Expect(cl, conn, "+OK\r\n", "MULTI")
	te.Expect(cl, conn, "*-1\r\n", "EXEC")
	if n := te.E.WatchedKeysForTest(); n != 0 {
		t.Fatalf("%d watched keys left", n)
	}
}

// TestWatchCleanup checks that every way out of a watch (EXEC, DISCARD,
// UNWATCH, a touch, RESET, disconnection) leaves no entry behind.
func TestWatchCleanup(t *testing.T) {
	te := enginetest.New(t)
	a, aconn := te.Client()
	b, bconn := te.Client()
	for _, end := range [][]string{{"UNWATCH"}, {"RESET"}} {
		te.Do(a, aconn, "WATCH", "x", "y")
		te.Do(b, bconn, "WATCH", "x")
		te.Do(a, aconn, end...)
		if n := te.E.WatchersForTest(0, "x"); n != 1 {
			t.Fatalf("after %s: %d watchers of x, want 1", end[0], n)
		}
		te.Do(b, bconn, "UNWATCH")
	}
	te.Do(a, aconn, "WATCH", "x")
	te.Do(b, bconn, "SET", "x", "1") // touch: a is dirty and unwatched
	if te.E.WatchedKeysForTest() != 0 || !a.DirtyCAS() {
		t.Fatalf("touch: %d watched keys, dirty %v", te.E.WatchedKeysForTest(), a.DirtyCAS())
	}
	te.Do(a, aconn, "WATCH", "z") // pointless once dirty
	if te.E.WatchedKeysForTest() != 0 {
		t.Fatal("WATCH of a dirty client registered a key")
	}
	te.Expect(a, aconn, "+OK\r\n", "UNWATCH")
	te.Do(a, aconn, "WATCH", "x")
	te.E.FreeClient(a)
	if te.E.WatchedKeysForTest() != 0 {
		t.Fatal("a freed client still watches")
	}
}

// TestTrackingTableLazy checks the tracking table's bookkeeping: entries of
// clients that stopped tracking stay until their key is invalidated, and
// INFO's counters follow.
func TestTrackingTableLazy(t *testing.T) {
	te := enginetest.New(t)
	a, aconn := te.Client()
	b, bconn := te.Client()
	te.Do(a, aconn, "HELLO", "3")
	te.Do(a, aconn, "CLIENT", "TRACKING", "on")
	te.Do(a, aconn, "GET", "k1")
	te.Do(a, aconn, "MGET", "k1", "k2", "k3")
	if clients, keys, items, _ := te.E.TrackingStats(); clients != 1 || keys != 3 || items != 3 {
		t.Fatalf("stats %d %d %d", clients, keys, items)
	}
	te.Do(b, bconn, "SET", "k1", "v")
	if got := string(aconn.Out); got != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\nk1\r\n" {
		t.Fatalf("invalidation %q", got)
	}
	aconn.Out = nil
	te.Do(a, aconn, "CLIENT", "TRACKING", "off")
	te.Do(b, bconn, "SET", "k2", "v")
	if len(aconn.Out) != 0 {
		t.Fatalf("sent %q after tracking off", aconn.Out)
	}
	if _, keys, items, _ := te.E.TrackingStats(); keys != 1 || items != 1 {
		t.Fatalf("keys %d items %d, want 1 1", keys, items)
	}
	te.E.FreeClient(a)
	te.Do(b, bconn, "FLUSHALL")
	if clients, keys, items, _ := te.E.TrackingStats(); clients != 0 || keys != 0 || items != 0 {
		t.Fatalf("after flush %d %d %d", clients, keys, items)
	}
}

// TestTrackingBcastBatches checks that BCAST invalidations of one
// event-loop iteration go out as one sorted message per prefix.
func TestTrackingBcastBatches(t *testing.T) {
	te := enginetest.New(t)
	a, aconn := te.Client()
	b, _ := te.Client()
	te.Do(a, aconn, "HELLO", "3")
	te.Do(a, aconn, "CLIENT", "TRACKING", "on", "bcast", "prefix", "p:", "prefix", "q:")
	for _, k := range []string{"p:b", "q:z", "p:a", "x", "p:b"} {
		te.E.Call(b, [][]byte{[]byte("SET"), []byte(k), []byte("v")})
	}
	te.E.FlushOutputs()
	want := ">2\r\n$10\r\ninvalidate\r\n*2\r\n$3\r\np:a\r\n$3\r\np:b\r\n" +
		">2\r\n$10\r\ninvalidate\r\n*1\r\n$3\r\nq:z\r\n"
	if got := string(aconn.Out); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if _, _, _, prefixes := te.E.TrackingStats(); prefixes != 2 {
		t.Fatalf("%d prefixes", prefixes)
	}
	te.E.FreeClient(a)
	if _, _, _, prefixes := te.E.TrackingStats(); prefixes != 0 {
		t.Fatalf("%d prefixes after free", prefixes)
	}
}

// TestPubSubFreeClient checks that a disconnected subscriber leaves no
// subscription behind and that pattern delivery order is subscription
// order.
func TestPubSubFreeClient(t *testing.T) {
	te := enginetest.New(t)
	a, aconn := te.Client()
	b, bconn := te.Client()
	te.Do(a, aconn, "PSUBSCRIBE", "z*", "a*")
	te.Do(a, aconn, "SUBSCRIBE", "ab")
	te.Do(a, aconn, "SSUBSCRIBE", "ab")
	te.Expect(b, bconn, ":2\r\n", "PUBLISH", "ab", "m")
	out := string(aconn.Out)
	if i, j := strings.Index(out, "message"), strings.Index(out, "pmessage"); i < 0 || j < 0 || i > j {
		t.Fatalf("order: %q", out)
	}
	te.E.FreeClient(a)
	if c, p, s := te.E.PubSubCounts(); c+p+s != 0 || te.E.PatternIndexForTest() != 0 {
		t.Fatalf("left %d %d %d", c, p, s)
	}
	te.Expect(b, bconn, ":0\r\n", "PUBLISH", "ab", "m")
}

// BenchmarkPublishOneSubscriber measures PUBLISH to a channel with one
// subscriber (a lock release waking one waiter).
func BenchmarkPublishOneSubscriber(b *testing.B) {
	te := enginetest.New(&testing.T{})
	sub, sconn := te.Client()
	pub, _ := te.Client()
	te.E.Call(sub, [][]byte{[]byte("SUBSCRIBE"), []byte("redisson_lock__channel:{lock}")})
	args := [][]byte{[]byte("PUBLISH"), []byte("redisson_lock__channel:{lock}"), []byte("0")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		te.E.Call(pub, args)
		te.E.FlushOutputs()
		sconn.Out = sconn.Out[:0]
	}
}

// BenchmarkTrackedGetSet measures a tracking client's GET followed by a
// SET of the same key from another client (remember + invalidate).
func BenchmarkTrackedGetSet(b *testing.B) {
	te := enginetest.New(&testing.T{})
	r, rconn := te.Client()
	w, _ := te.Client()
	te.E.Call(r, [][]byte{[]byte("HELLO"), []byte("3")})
	te.E.Call(r, [][]byte{[]byte("CLIENT"), []byte("TRACKING"), []byte("on")})
	get := [][]byte{[]byte("GET"), []byte("key:1")}
	set := [][]byte{[]byte("SET"), []byte("key:1"), []byte("v")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		te.E.Call(r, get)
		te.E.Call(w, set)
		te.E.FlushOutputs()
		rconn.Out = rconn.Out[:0]
	}
}

// TestTrackingTableLimit checks tracking-table-max-keys: extra keys are
// forgotten with an invalidation.
func TestTrackingTableLimit(t *testing.T) {
	te := enginetest.New(t)
	te.E.Config.TrackingTableMaxKeys = 10
	a, aconn := te.Client()
	te.Do(a, aconn, "HELLO", "3")
	te.Do(a, aconn, "CLIENT", "TRACKING", "on")
	var out string
	for i := 0; i < 15; i++ {
		out += te.Do(a, aconn, "GET", "k"+itoa(i))
	}
	_, keys, items, _ := te.E.TrackingStats()
	if keys != 10 || items != keys {
		t.Fatalf("keys %d items %d", keys, items)
	}
	if n := strings.Count(out, "invalidate"); n != 5 {
		t.Fatalf("%d invalidations, want 5", n)
	}
}
