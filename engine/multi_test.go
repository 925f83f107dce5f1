package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/store"
)

// testConn collects what the engine delivers to one client.
type testConn struct{ out []byte }

func (c *testConn) Deliver(b []byte)                { c.out = append(c.out, b...) }
func (c *testConn) SetAuthenticated(bool)           {}
func (c *testConn) Close()                          {}
func (c *testConn) Blocked(bool)                    {}
func (c *testConn) Abort()                          {}
func (c *testConn) Pending() int64                  { return 0 }
func (c *testConn) QueryBuffer() (used, free int64) { return 0, 0 }
func (c *testConn) RemoteAddr() string              { return "127.0.0.1:1" }
func (c *testConn) LocalAddr() string               { return "127.0.0.1:2" }

// testEngine is an engine on a fixed clock with helpers to run commands
// as connected clients and read what they were sent.
type testEngine struct {
	t     *testing.T
	e     *Engine
	clock *fixedClock
}

func newTestEngine(t *testing.T) *testEngine {
	clock := &fixedClock{t: time.UnixMilli(1_000_000)}
	return &testEngine{t: t, e: newEngine(nil, clock), clock: clock}
}

func (te *testEngine) client() (*Client, *testConn) {
	conn := &testConn{}
	return te.e.NewClient(conn), conn
}

func (te *testEngine) advance(d time.Duration) { te.clock.t = te.clock.t.Add(d) }

// do runs a command as cl and returns everything cl's connection was sent
// since the last call.
func (te *testEngine) do(cl *Client, conn *testConn, args ...string) string {
	te.t.Helper()
	a := make([][]byte, len(args))
	for i, s := range args {
		a[i] = []byte(s)
	}
	te.e.Call(cl, a)
	te.e.FlushOutputs()
	out := string(conn.out)
	conn.out = conn.out[:0]
	return out
}

func (te *testEngine) expect(cl *Client, conn *testConn, want string, args ...string) {
	te.t.Helper()
	if got := te.do(cl, conn, args...); got != want {
		te.t.Fatalf("%q: got %q, want %q", args, got, want)
	}
}

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
		te := newTestEngine(t)
		cl, conn := te.client()
		now := te.clock.t.UnixMilli()
		put := func(db, state int) {
			switch state {
			case live:
				te.e.DBs[db].Set("k", store.NewString([]byte("v")), 0, now)
			case expired:
				te.e.DBs[db].Set("k", store.NewString([]byte("v")), now+1, now)
			}
		}
		put(0, tc.db0)
		put(1, tc.db1)
		te.advance(10 * time.Millisecond)
		other, oconn := te.client()
		te.expect(cl, conn, "+OK\r\n", "WATCH", "k")
		te.expect(other, oconn, "+OK\r\n", "SWAPDB", "0", "1")
		te.expect(cl, conn, "+OK\r\n", "MULTI")
		te.expect(cl, conn, "+QUEUED\r\n", "PING")
		want := "*1\r\n+PONG\r\n"
		if tc.fails {
			want = "*-1\r\n"
		}
		te.expect(cl, conn, want, "EXEC")
	}
}

// TestWatchExpiredReclaimed covers an expired-at-WATCH key reclaimed by
// active expiry (no change) and a live-at-WATCH key reclaimed (a change).
func TestWatchExpiredReclaimed(t *testing.T) {
	te := newTestEngine(t)
	cl, conn := te.client()
	now := te.clock.t.UnixMilli()
	te.e.DBs[0].Set("gone", store.NewString([]byte("v")), now+1, now)
	te.e.DBs[0].Set("soon", store.NewString([]byte("v")), now+50, now)
	te.advance(10 * time.Millisecond)
	te.expect(cl, conn, "+OK\r\n", "WATCH", "gone")
	te.e.Cron() // reclaims "gone"
	te.expect(cl, conn, "+OK\r\n", "MULTI")
	te.expect(cl, conn, "*0\r\n", "EXEC")

	te.expect(cl, conn, "+OK\r\n", "WATCH", "soon")
	te.advance(100 * time.Millisecond)
	te.e.Cron() // reclaims "soon"
	te.expect(cl, conn, "+OK\r\n", "MULTI")
	te.expect(cl, conn, "*-1\r\n", "EXEC")
	if n := len(te.e.watches.keys); n != 0 {
		t.Fatalf("%d watched keys left", n)
	}
}

// TestWatchCleanup checks that every way out of a watch (EXEC, DISCARD,
// UNWATCH, a touch, RESET, disconnection) leaves no entry behind.
func TestWatchCleanup(t *testing.T) {
	te := newTestEngine(t)
	a, aconn := te.client()
	b, bconn := te.client()
	for _, end := range [][]string{{"UNWATCH"}, {"RESET"}} {
		te.do(a, aconn, "WATCH", "x", "y")
		te.do(b, bconn, "WATCH", "x")
		te.do(a, aconn, end...)
		if n := len(te.e.watches.keys[watchKey{0, "x"}]); n != 1 {
			t.Fatalf("after %s: %d watchers of x, want 1", end[0], n)
		}
		te.do(b, bconn, "UNWATCH")
	}
	te.do(a, aconn, "WATCH", "x")
	te.do(b, bconn, "SET", "x", "1") // touch: a is dirty and unwatched
	if len(te.e.watches.keys) != 0 || !a.DirtyCAS() {
		t.Fatalf("touch: %d watched keys, dirty %v", len(te.e.watches.keys), a.DirtyCAS())
	}
	te.do(a, aconn, "WATCH", "z") // pointless once dirty
	if len(te.e.watches.keys) != 0 {
		t.Fatal("WATCH of a dirty client registered a key")
	}
	te.expect(a, aconn, "+OK\r\n", "UNWATCH")
	te.do(a, aconn, "WATCH", "x")
	te.e.FreeClient(a)
	if len(te.e.watches.keys) != 0 {
		t.Fatal("a freed client still watches")
	}
}

// TestTrackingTableLazy checks the tracking table's bookkeeping: entries of
// clients that stopped tracking stay until their key is invalidated, and
// INFO's counters follow.
func TestTrackingTableLazy(t *testing.T) {
	te := newTestEngine(t)
	a, aconn := te.client()
	b, bconn := te.client()
	te.do(a, aconn, "HELLO", "3")
	te.do(a, aconn, "CLIENT", "TRACKING", "on")
	te.do(a, aconn, "GET", "k1")
	te.do(a, aconn, "MGET", "k1", "k2", "k3")
	if clients, keys, items, _ := te.e.TrackingStats(); clients != 1 || keys != 3 || items != 3 {
		t.Fatalf("stats %d %d %d", clients, keys, items)
	}
	te.do(b, bconn, "SET", "k1", "v")
	if got := string(aconn.out); got != ">2\r\n$10\r\ninvalidate\r\n*1\r\n$2\r\nk1\r\n" {
		t.Fatalf("invalidation %q", got)
	}
	aconn.out = nil
	te.do(a, aconn, "CLIENT", "TRACKING", "off")
	te.do(b, bconn, "SET", "k2", "v")
	if len(aconn.out) != 0 {
		t.Fatalf("sent %q after tracking off", aconn.out)
	}
	if _, keys, items, _ := te.e.TrackingStats(); keys != 1 || items != 1 {
		t.Fatalf("keys %d items %d, want 1 1", keys, items)
	}
	te.e.FreeClient(a)
	te.do(b, bconn, "FLUSHALL")
	if clients, keys, items, _ := te.e.TrackingStats(); clients != 0 || keys != 0 || items != 0 {
		t.Fatalf("after flush %d %d %d", clients, keys, items)
	}
}

// TestTrackingBcastBatches checks that BCAST invalidations of one
// event-loop iteration go out as one sorted message per prefix.
func TestTrackingBcastBatches(t *testing.T) {
	te := newTestEngine(t)
	a, aconn := te.client()
	b, _ := te.client()
	te.do(a, aconn, "HELLO", "3")
	te.do(a, aconn, "CLIENT", "TRACKING", "on", "bcast", "prefix", "p:", "prefix", "q:")
	for _, k := range []string{"p:b", "q:z", "p:a", "x", "p:b"} {
		te.e.Call(b, [][]byte{[]byte("SET"), []byte(k), []byte("v")})
	}
	te.e.FlushOutputs()
	want := ">2\r\n$10\r\ninvalidate\r\n*2\r\n$3\r\np:a\r\n$3\r\np:b\r\n" +
		">2\r\n$10\r\ninvalidate\r\n*1\r\n$3\r\nq:z\r\n"
	if got := string(aconn.out); got != want {
		t.Fatalf("got %q\nwant %q", got, want)
	}
	if _, _, _, prefixes := te.e.TrackingStats(); prefixes != 2 {
		t.Fatalf("%d prefixes", prefixes)
	}
	te.e.FreeClient(a)
	if _, _, _, prefixes := te.e.TrackingStats(); prefixes != 0 {
		t.Fatalf("%d prefixes after free", prefixes)
	}
}

// TestPubSubFreeClient checks that a disconnected subscriber leaves no
// subscription behind and that pattern delivery order is subscription
// order.
func TestPubSubFreeClient(t *testing.T) {
	te := newTestEngine(t)
	a, aconn := te.client()
	b, bconn := te.client()
	te.do(a, aconn, "PSUBSCRIBE", "z*", "a*")
	te.do(a, aconn, "SUBSCRIBE", "ab")
	te.do(a, aconn, "SSUBSCRIBE", "ab")
	te.expect(b, bconn, ":2\r\n", "PUBLISH", "ab", "m")
	out := string(aconn.out)
	if i, j := strings.Index(out, "message"), strings.Index(out, "pmessage"); i < 0 || j < 0 || i > j {
		t.Fatalf("order: %q", out)
	}
	te.e.FreeClient(a)
	if c, p, s := te.e.PubSubCounts(); c+p+s != 0 || te.e.pubsub.patOrder.idx != nil && len(te.e.pubsub.patOrder.idx) != 0 {
		t.Fatalf("left %d %d %d", c, p, s)
	}
	te.expect(b, bconn, ":0\r\n", "PUBLISH", "ab", "m")
}

// BenchmarkPublishOneSubscriber measures PUBLISH to a channel with one
// subscriber (a lock release waking one waiter).
func BenchmarkPublishOneSubscriber(b *testing.B) {
	te := newTestEngine(&testing.T{})
	sub, sconn := te.client()
	pub, _ := te.client()
	te.e.Call(sub, [][]byte{[]byte("SUBSCRIBE"), []byte("redisson_lock__channel:{lock}")})
	args := [][]byte{[]byte("PUBLISH"), []byte("redisson_lock__channel:{lock}"), []byte("0")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		te.e.Call(pub, args)
		te.e.FlushOutputs()
		sconn.out = sconn.out[:0]
	}
}

// BenchmarkTrackedGetSet measures a tracking client's GET followed by a
// SET of the same key from another client (remember + invalidate).
func BenchmarkTrackedGetSet(b *testing.B) {
	te := newTestEngine(&testing.T{})
	r, rconn := te.client()
	w, _ := te.client()
	te.e.Call(r, [][]byte{[]byte("HELLO"), []byte("3")})
	te.e.Call(r, [][]byte{[]byte("CLIENT"), []byte("TRACKING"), []byte("on")})
	get := [][]byte{[]byte("GET"), []byte("key:1")}
	set := [][]byte{[]byte("SET"), []byte("key:1"), []byte("v")}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		te.e.Call(r, get)
		te.e.Call(w, set)
		te.e.FlushOutputs()
		rconn.out = rconn.out[:0]
	}
}

// TestTrackingTableLimit checks tracking-table-max-keys: extra keys are
// forgotten with an invalidation.
func TestTrackingTableLimit(t *testing.T) {
	te := newTestEngine(t)
	te.e.Config.TrackingTableMaxKeys = 10
	a, aconn := te.client()
	te.do(a, aconn, "HELLO", "3")
	te.do(a, aconn, "CLIENT", "TRACKING", "on")
	var out string
	for i := 0; i < 15; i++ {
		out += te.do(a, aconn, "GET", "k"+itoa(i))
	}
	_, keys, items, _ := te.e.TrackingStats()
	if keys != 10 || items != keys {
		t.Fatalf("keys %d items %d", keys, items)
	}
	if n := strings.Count(out, "invalidate"); n != 5 {
		t.Fatalf("%d invalidations, want 5", n)
	}
}
