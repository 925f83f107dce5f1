package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

func TestMultiExec(t *testing.T) {
	p := NewPair(t)
	p.Do("MULTI")
	p.Do("SET", "a", "1")
	p.Do("INCR", "a")
	p.Do("GET", "a")
	p.Do("EXEC")
	p.Do("GET", "a")
	// Empty transaction.
	p.Do("MULTI")
	p.Do("EXEC")
	// Runtime errors are per-element; the rest still runs.
	p.Do("MULTI")
	p.Do("SET", "s", "x")
	p.Do("INCR", "s")
	p.Do("HSET", "s", "f", "v")
	p.Do("GET", "s")
	p.Do("EXEC")
	// SELECT inside the transaction applies to what follows, and stays.
	p.Do("MULTI")
	p.Do("SELECT", "1")
	p.Do("SET", "in1", "v")
	p.Do("EXEC")
	p.Do("GET", "in1")
	p.Do("SELECT", "0")
	p.Do("GET", "in1")
	p.Do("FLUSHALL")
}

func TestMultiErrors(t *testing.T) {
	p := NewPair(t)
	p.Do("EXEC")
	p.Do("DISCARD")
	p.Do("MULTI")
	p.Do("MULTI") // nested: an error that does not abort the transaction
	p.Do("WATCH", "x")
	p.Do("SET", "a", "1")
	p.Do("EXEC")
	// Queue-time errors abort with EXECABORT and discard the transaction.
	p.Do("MULTI")
	p.Do("SET", "a")
	p.Do("SET", "a", "2")
	p.Do("EXEC")
	p.Do("GET", "a")
	p.Do("MULTI")
	p.Do("NOSUCHCOMMAND", "x")
	p.Do("EXEC")
	p.Do("MULTI")
	p.Do("PUBSUB", "NOSUCH")
	p.Do("EXEC")
	p.Do("MULTI")
	p.Do("SUBSCRIBE")
	p.Do("DISCARD")
	p.Do("EXEC")
	p.Do("MULTI", "x")
	p.Do("EXEC", "x")
	p.Do("DISCARD", "x")
	p.Do("WATCH")
	p.Do("UNWATCH", "x")
	p.Do("MULTI")
	p.Do("EXEC", "x") // arity error on EXEC itself flags the transaction
	p.Do("EXEC")
	p.Do("MULTI")
	p.Do("DISCARD")
	p.Do("DISCARD")
	// Commands flagged no_multi are refused and abort the transaction.
	p.Do("MULTI")
	p.Do("SHUTDOWN", "bogus-arg")
	p.Do("SET", "a", "1")
	p.Do("EXEC")
	p.Do("GET", "a")
}

// TestMultiNoMulti: every command Redis 7.0 flags no_multi (SAVE,
// SHUTDOWN, SYNC, PSYNC) that lockkv has is refused inside MULTI with
// Redis's error, after the arity check, and aborts the transaction. (BGSAVE
// and BGREWRITEAOF are not flagged: Redis queues them.) The refusal follows
// the command table's flag, and TestServerCOMMAND holds lockkv's flags to
// Redis's, so a command added later is refused as Redis refuses it.
func TestMultiNoMulti(t *testing.T) {
	p := NewPair(t)
	lv, rv := p.both([]string{"COMMAND", "INFO", "save", "shutdown", "sync", "psync"})
	checked := 0
	for i, r := range rv.Elems {
		if lv.Elems[i].Null {
			continue // a Redis command lockkv does not have
		}
		name, arity := r.Elems[0].Str, r.Elems[1].Str
		n, _ := strconv.Atoi(arity)
		if n < 0 {
			n = -n
		}
		args := []string{strings.ToUpper(name)}
		for len(args) < n {
			args = append(args, "x")
		}
		p.Do("MULTI")
		p.Do(args...)
		p.Do(append(args, "x", "y", "z")...)
		p.Do("SET", "a", name)
		p.Do("EXEC")
		p.Do("GET", "a")
		checked++
	}
	if checked == 0 {
		t.Fatal("lockkv has none of the commands")
	}
}

func TestMultiWatch(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	// Untouched: EXEC runs.
	p.Do("SET", "k", "1")
	p.Do("WATCH", "k")
	p.Do("MULTI")
	p.Do("INCR", "k")
	p.Do("EXEC")
	// Touched by another client: EXEC returns a null array.
	p.Do("WATCH", "k")
	other.Do("SET", "k", "5")
	p.Do("MULTI")
	p.Do("INCR", "k")
	p.Do("EXEC")
	p.Do("GET", "k")
	// Touched by the client itself.
	p.Do("WATCH", "k")
	p.Do("SET", "k", "6")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	// Touched between MULTI and EXEC.
	p.Do("WATCH", "k", "j")
	p.Do("MULTI")
	p.Do("GET", "k")
	other.Do("DEL", "j") // j does not exist: no change
	p.Do("EXEC")
	p.Do("WATCH", "k")
	p.Do("MULTI")
	p.Do("GET", "k")
	other.Do("DEL", "k")
	p.Do("EXEC")
	// A missing key that gets created.
	p.Do("WATCH", "k")
	other.Do("SET", "k", "new")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	// UNWATCH clears the watch, and the dirty flag.
	p.Do("WATCH", "k")
	other.Do("SET", "k", "x")
	p.Do("UNWATCH")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	// DISCARD unwatches too.
	p.Do("WATCH", "k")
	p.Do("MULTI")
	p.Do("DISCARD")
	other.Do("SET", "k", "y")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	// EXEC unwatches.
	p.Do("WATCH", "k")
	p.Do("MULTI")
	p.Do("EXEC")
	other.Do("SET", "k", "z")
	p.Do("MULTI")
	p.Do("EXEC")
	// EXECABORT wins over a touched key.
	p.Do("WATCH", "k")
	other.Do("SET", "k", "w")
	p.Do("MULTI")
	p.Do("SET")
	p.Do("EXEC")
	// A write that changes nothing does not touch (failed SETNX-like
	// commands, wrong type errors).
	p.Do("WATCH", "k")
	other.Do("HSET", "k", "f", "v")
	other.Do("SET", "h", "v")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	// Watching in another database.
	p.Do("SELECT", "2")
	p.Do("WATCH", "k")
	p.Do("SELECT", "0")
	other.Do("SET", "k", "db0")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	p.Do("SELECT", "2")
	p.Do("WATCH", "k")
	other.Do("SELECT", "2")
	other.Do("SET", "k", "db2")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	p.Do("FLUSHALL")
}

func TestMultiWatchFlush(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	for _, tc := range []struct {
		setup []string
		touch []string
	}{
		{[]string{"SET", "k", "1"}, []string{"FLUSHDB"}},
		{[]string{"SET", "k", "1"}, []string{"FLUSHALL"}},
		{[]string{"SET", "k", "1"}, []string{"FLUSHALL", "ASYNC"}},
		{[]string{"SET", "other", "1"}, []string{"FLUSHDB"}}, // k missing: untouched
		{[]string{"SET", "k", "1"}, []string{"SWAPDB", "0", "1"}},
		{[]string{"SET", "other", "1"}, []string{"SWAPDB", "0", "1"}},
	} {
		p.Do("FLUSHALL")
		p.Do(tc.setup...)
		p.Do("WATCH", "k")
		other.Do(tc.touch...)
		p.Do("MULTI")
		p.Do("PING")
		p.Do("EXEC")
	}
	// SWAPDB bringing k in from the other database.
	p.Do("FLUSHALL")
	other.Do("SELECT", "1")
	other.Do("SET", "k", "1")
	p.Do("WATCH", "k")
	other.Do("SWAPDB", "0", "1")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	// FLUSHDB of another database leaves it alone.
	p.Do("FLUSHALL")
	p.Do("SET", "k", "1")
	p.Do("WATCH", "k")
	other.Do("FLUSHDB")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	other.Do("SELECT", "0")
	p.Do("FLUSHALL")
}

// serverMs reads c's clock (TIME) in milliseconds.
func serverMs(t *testing.T, c *Conn) int64 {
	t.Helper()
	v, err := c.Do("TIME")
	if err != nil || len(v.Elems) != 2 {
		t.Fatalf("%s: TIME: %v %v", c.Addr, v, err)
	}
	sec, _ := strconv.ParseInt(v.Elems[0].Str, 10, 64)
	usec, _ := strconv.ParseInt(v.Elems[1].Str, 10, 64)
	return sec*1000 + usec/1000
}

// liveWatch sets key with a short lease on both servers and WATCHes it
// while it is live: by each server's own clock the WATCH ran before the
// lease could end, else (a slow machine) it tries again with a longer
// lease. It returns, per server (lockkv, Redis), a time by which the key
// has certainly expired.
func liveWatch(t *testing.T, p *Pair, key string) [2]int64 {
	t.Helper()
	for px := int64(300); ; px *= 2 {
		var before, after [2]int64
		for i, c := range []*Conn{p.L, p.R} {
			before[i] = serverMs(t, c)
		}
		p.Do("SET", key, "v", "PX", strconv.FormatInt(px, 10))
		p.Do("WATCH", key)
		for i, c := range []*Conn{p.L, p.R} {
			after[i] = serverMs(t, c)
		}
		if after[0] < before[0]+px-1 && after[1] < before[1]+px-1 {
			return [2]int64{after[0] + px + 1, after[1] + px + 1}
		}
		if px > 10000 {
			t.Fatalf("WATCH never ran within a %d ms lease", px)
		}
		p.Do("UNWATCH")
		p.Do("DEL", key)
	}
}

// waitGone polls both servers until key no longer exists (active expiry
// reclaimed it; DBSIZE does not reclaim).
func waitGone(t *testing.T, p *Pair, key string) {
	t.Helper()
	for _, c := range []*Conn{p.L, p.R} {
		testutil.Eventually(t, 10*time.Second, func() error {
			if v := c.MustDo(t, "DBSIZE"); v.Str != "0" {
				return fmt.Errorf("%s: %s not reclaimed (DBSIZE %v)", c.Addr, key, v)
			}
			return nil
		})
	}
}

func TestMultiWatchExpire(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	// Live at WATCH, expired by EXEC: the transaction fails.
	expires := liveWatch(t, p, "k")
	for i, c := range []*Conn{p.L, p.R} {
		// Until each server's clock passes the deadline; reading the key
		// would reclaim it on Redis, which is the next case.
		testutil.Eventually(t, 10*time.Second, func() error {
			if ms := serverMs(t, c); ms <= expires[i] {
				return fmt.Errorf("%s: its clock (%d) does not reach %d", c.Addr, ms, expires[i])
			}
			return nil
		})
	}
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	// Live at WATCH, reclaimed by active expiry before EXEC: fails too.
	p.Do("FLUSHALL")
	liveWatch(t, p, "k")
	waitGone(t, p, "k")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	// Already expired at WATCH (written with an absolute time in the
	// past would delete it; use a deadline just passed instead).
	p.Do("FLUSHALL")
	p.Do("SET", "k", "v", "PX", "1")
	time.Sleep(5 * time.Millisecond)
	p.Do("WATCH", "k")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	// Expired at WATCH and then written: fails.
	p.Do("FLUSHALL")
	p.Do("SET", "k", "v", "PX", "1")
	time.Sleep(5 * time.Millisecond)
	p.Do("WATCH", "k")
	other.Do("SET", "k", "again")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
	// Expired at WATCH, then reclaimed: no change.
	p.Do("FLUSHALL")
	p.Do("SET", "k", "v", "PX", "1")
	time.Sleep(5 * time.Millisecond)
	p.Do("WATCH", "k")
	waitGone(t, p, "k")
	p.Do("MULTI")
	p.Do("PING")
	p.Do("EXEC")
}

func TestMultiBlockingInExec(t *testing.T) {
	p := NewPair(t)
	p.Do("LPUSH", "l", "a")
	p.Do("MULTI")
	p.Do("BLPOP", "l", "0")
	p.Do("BLPOP", "l", "0")
	p.Do("BRPOPLPUSH", "l", "m", "0")
	p.Do("EXEC")
}

func TestMultiResp3(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	p.Do("HELLO", "3")
	p.Do("MULTI")
	p.Do("SET", "a", "1")
	p.Do("HSET", "h", "f", "v")
	p.Do("HGETALL", "h")
	p.Do("GET", "nope")
	p.Do("EXEC")
	p.Do("WATCH", "a")
	other.Do("SET", "a", "2")
	p.Do("MULTI")
	p.Do("GET", "a")
	p.Do("EXEC") // RESP3 null
	p.Do("MULTI")
	p.Do("SET")
	p.Do("EXEC")
}
