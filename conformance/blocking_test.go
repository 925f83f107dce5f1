package conformance

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

var blockedRe = regexp.MustCompile(`blocked_clients:(\d+)`)

// waitBlocked polls INFO on both servers until exactly n clients are
// blocked, so a test knows a blocking command was processed before it
// pushes.
// unblockBoth sends CLIENT UNBLOCK for the client blocked on each server
// (its ID there: lid, rid) with mode, compares the replies, then reads what
// the unblocked client a got and waits until no client is blocked.
func unblockBoth(t *testing.T, p, a *Pair, lid, rid string, mode ...string) {
	t.Helper()
	lv, err := p.L.Do(append([]string{"CLIENT", "UNBLOCK", lid}, mode...)...)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := p.R.Do(append([]string{"CLIENT", "UNBLOCK", rid}, mode...)...)
	if err != nil {
		t.Fatal(err)
	}
	p.check("CLIENT UNBLOCK", lv, rv, Equal(lv, rv))
	a.Receive()
	waitBlocked(t, 0)
}

func waitBlocked(t *testing.T, n int) {
	t.Helper()
	for _, addr := range []string{lockkvAddr, redisAddr} {
		c := testutil.MustDial(t, addr)
		testutil.Eventually(t, 3*time.Second, func() error {
			m := blockedRe.FindStringSubmatch(c.MustDo(t, "INFO", "clients").Str)
			if m == nil || m[1] != strconv.Itoa(n) {
				return fmt.Errorf("%s: want %d blocked clients, INFO says %v", addr, n, m)
			}
			return nil
		})
		c.Close()
	}
}

// blockPair returns a flushed pair once no client is blocked on either
// server (clients of earlier tests may still be going away).
func blockPair(t *testing.T) *Pair {
	t.Helper()
	p := NewPair(t)
	waitBlocked(t, 0)
	return p
}

// blockOn sends a blocking command on a new connection pair and waits until
// both servers have blocked it.
func blockOn(t *testing.T, blocked int, args ...string) *Pair {
	t.Helper()
	a := Connect(t)
	a.Send(args...)
	waitBlocked(t, blocked)
	return a
}

func TestBlockingBLPOP(t *testing.T) {
	p := blockPair(t)
	a := blockOn(t, 1, "BLPOP", "k", "0")
	p.Do("RPUSH", "k", "x")
	a.Receive()
	p.Do("EXISTS", "k")

	// Several keys: the first key that gets elements serves.
	a.Send("BLPOP", "k1", "k2", "k3", "0")
	waitBlocked(t, 1)
	p.Do("LPUSH", "k3", "a", "b")
	a.Receive()
	p.Do("LRANGE", "k3", "0", "-1")

	// BRPOP takes from the tail; the pusher's reply counts the element
	// handed over.
	a.Send("BRPOP", "k4", "0")
	waitBlocked(t, 1)
	p.Do("RPUSH", "k4", "a", "b", "c")
	a.Receive()
	p.Do("LRANGE", "k4", "0", "-1")

	// The same key twice is one wait.
	a.Send("BLPOP", "d", "d", "0")
	waitBlocked(t, 1)
	p.Do("RPUSH", "d", "1", "2")
	a.Receive()
	p.Do("LRANGE", "d", "0", "-1")
	a.NoReply(20 * time.Millisecond)

	// Data already there: no blocking at all.
	a.Do("RPUSH", "d", "3")
	a.Do("BLPOP", "nokey", "d", "0")
	a.Do("BRPOP", "d", "0")
	a.Do("EXISTS", "d")
}

func TestBlockingWakeOrder(t *testing.T) {
	p := blockPair(t)
	var cs []*Pair
	for i := 1; i <= 3; i++ {
		cs = append(cs, blockOn(t, i, "BLPOP", "q", "0"))
	}
	p.Do("RPUSH", "q", "1", "2")
	cs[0].Receive()
	cs[1].Receive()
	cs[2].NoReply(20 * time.Millisecond)
	p.Do("EXISTS", "q")
	p.Do("RPUSH", "q", "3", "4")
	cs[2].Receive()
	p.Do("LRANGE", "q", "0", "-1")

	// Clients on different keys and directions.
	waitBlocked(t, 0)
	b1 := blockOn(t, 1, "BRPOP", "x", "y", "0")
	b2 := blockOn(t, 2, "BLPOP", "y", "0")
	b3 := blockOn(t, 3, "BLMPOP", "0", "2", "z", "y", "LEFT", "COUNT", "2")
	p.Do("RPUSH", "y", "1", "2", "3", "4", "5")
	b1.Receive()
	b2.Receive()
	b3.Receive()
	p.Do("LRANGE", "y", "0", "-1")
}

func TestBlockingTimeout(t *testing.T) {
	p := blockPair(t)
	for _, cmd := range [][]string{
		{"BLPOP", "k", "0.05"},
		{"BRPOP", "k", "k2", "0.05"},
		{"BLMOVE", "k", "d", "LEFT", "RIGHT", "0.05"},
		{"BRPOPLPUSH", "k", "d", "0.05"},
		{"BLMPOP", "0.05", "2", "k", "k2", "RIGHT", "COUNT", "3"},
		{"BLPOP", "k", "0.0001"},
	} {
		p.Send(cmd...)
		p.Receive()
	}
	p.Do("EXISTS", "d")
	// A timed-out client carries on with its pipeline.
	p.SendRaw([]byte("*3\r\n$5\r\nBLPOP\r\n$1\r\nk\r\n$4\r\n0.05\r\n*2\r\n$4\r\nECHO\r\n$5\r\nafter\r\n"))
	p.Receive()
	p.Receive()
	p.Do("HELLO", "3")
	for _, cmd := range [][]string{
		{"BLPOP", "k", "0.05"},
		{"BLMOVE", "k", "d", "LEFT", "RIGHT", "0.05"},
		{"BLMPOP", "0.05", "1", "k", "LEFT"},
	} {
		p.Send(cmd...)
		p.Receive()
	}
}

func TestBlockingTimeoutArgs(t *testing.T) {
	p := blockPair(t)
	for _, to := range []string{"-1", "-0.5", "abc", "", " 1", "1 ", "nan", "inf", "-inf", "+inf",
		"1e400", "-1e400", "1e5000", "1e20", "9223372036854775808", "0x", "1..0", "1e",
		"1e-5000", "0x1p99999", "-9223372036854775.808", "9223372036854775.808"} {
		p.Do("BLPOP", "k", to)
		p.Do("BRPOP", "k", to)
		p.Do("BLMOVE", "k", "d", "LEFT", "LEFT", to)
		p.Do("BRPOPLPUSH", "k", "d", to)
		p.Do("BLMPOP", to, "1", "k", "LEFT")
	}
	// Argument errors come in Redis's order.
	for _, cmd := range [][]string{
		{"BLMOVE", "k", "d", "UP", "LEFT", "x"},
		{"BLMOVE", "k", "d", "LEFT", "DOWN", "x"},
		{"BLMPOP", "x", "0", "k", "LEFT"},
		{"BLMPOP", "0", "0", "k", "LEFT"},
		{"BLMPOP", "x", "1", "k", "UP"},
		{"BLMPOP", "x", "1", "k", "LEFT", "COUNT", "0"},
		{"BLMPOP", "x", "2", "k", "LEFT"},
		{"BLMPOP", "0", "1", "k"},
		{"BLPOP", "k"},
		{"BLMOVE", "k", "d", "LEFT", "LEFT"},
		{"BRPOPLPUSH", "k", "d"},
		{"BLMPOP", "0", "1", "k", "LEFT", "COUNT"},
	} {
		p.Do(cmd...)
	}
}

func TestBlockingWrongType(t *testing.T) {
	p := blockPair(t)
	p.Do("SET", "s", "v")
	p.Do("RPUSH", "l", "a")
	for _, cmd := range [][]string{
		{"BLPOP", "s", "0"},
		{"BLPOP", "nokey", "s", "0"},
		{"BRPOP", "nokey", "s", "0"},
		{"BLMOVE", "s", "d", "LEFT", "LEFT", "0"},
		{"BLMOVE", "l", "s", "LEFT", "LEFT", "0"},
		{"BRPOPLPUSH", "l", "s", "0"},
		{"BLMPOP", "0", "2", "nokey", "s", "LEFT"},
		{"BLMPOP", "0", "2", "l", "s", "LEFT"},
	} {
		p.Do(cmd...)
	}
	p.Do("LRANGE", "l", "0", "-1")
	p.Do("DEL", "l")

	// The destination became a string while the client waited: the client
	// gets WRONGTYPE and the element stays in the source.
	a := blockOn(t, 1, "BLMOVE", "src", "s", "LEFT", "LEFT", "0")
	b := blockOn(t, 2, "BLPOP", "src", "0")
	p.Do("RPUSH", "src", "v")
	a.Receive()
	b.Receive()
	p.Do("EXISTS", "src")

	// A key that became a string does not wake a list waiter.
	a.Send("BLPOP", "w", "0")
	waitBlocked(t, 1)
	p.Do("SET", "w", "str")
	a.NoReply(30 * time.Millisecond)
	p.Do("DEL", "w")
	p.Do("RPUSH", "w", "ok")
	a.Receive()
}

func TestBlockingBLMOVE(t *testing.T) {
	p := blockPair(t)
	for _, dirs := range [][2]string{{"LEFT", "LEFT"}, {"LEFT", "RIGHT"}, {"RIGHT", "LEFT"}, {"RIGHT", "RIGHT"}} {
		p.Do("DEL", "src", "dst")
		p.Do("RPUSH", "dst", "d1", "d2")
		a := blockOn(t, 1, "BLMOVE", "src", "dst", dirs[0], dirs[1], "0")
		p.Do("RPUSH", "src", "a", "b", "c")
		a.Receive()
		p.Do("LRANGE", "src", "0", "-1")
		p.Do("LRANGE", "dst", "0", "-1")
		waitBlocked(t, 0)
	}
	// Source and destination the same key.
	p.Do("DEL", "src", "dst")
	a := blockOn(t, 1, "BRPOPLPUSH", "same", "same", "0")
	p.Do("RPUSH", "same", "x", "y")
	a.Receive()
	p.Do("LRANGE", "same", "0", "-1")
	// Immediate path.
	p.Do("BLMOVE", "same", "other", "RIGHT", "LEFT", "0")
	p.Do("BRPOPLPUSH", "same", "other", "0")
	p.Do("BRPOPLPUSH", "same", "other", "0.01")
	p.Do("LRANGE", "other", "0", "-1")
}

// A served BLMOVE pushes into a key another client waits on: that client
// is served in the same round of handling ready keys.
func TestBlockingBLMOVEChain(t *testing.T) {
	p := blockPair(t)
	a := blockOn(t, 1, "BLMOVE", "a", "b", "LEFT", "RIGHT", "0")
	b := blockOn(t, 2, "BLMOVE", "b", "c", "LEFT", "RIGHT", "0")
	c := blockOn(t, 3, "BLPOP", "c", "0")
	p.Do("RPUSH", "a", "v1", "v2")
	a.Receive()
	b.Receive()
	c.Receive()
	waitBlocked(t, 0)
	for _, k := range []string{"a", "b", "c"} {
		p.Do("LRANGE", k, "0", "-1")
	}
	// A cycle: a -> b and b -> a.
	p.Do("DEL", "a", "b", "c")
	a.Send("BRPOPLPUSH", "a", "b", "0")
	waitBlocked(t, 1)
	b.Send("BRPOPLPUSH", "b", "a", "0")
	waitBlocked(t, 2)
	c.Send("BLPOP", "a", "0")
	waitBlocked(t, 3)
	p.Do("LPUSH", "a", "x")
	a.Receive()
	b.Receive()
	c.Receive()
	p.Do("EXISTS", "a", "b")
}

func TestBlockingPipeline(t *testing.T) {
	p := blockPair(t)
	a := Connect(t)
	a.SendRaw([]byte("*3\r\n$5\r\nBLPOP\r\n$1\r\nk\r\n$1\r\n0\r\n*2\r\n$4\r\nLLEN\r\n$1\r\nk\r\n*3\r\n$5\r\nRPUSH\r\n$1\r\nk\r\n$4\r\nmine\r\n"))
	waitBlocked(t, 1)
	// Commands sent while blocked wait behind the blocking one.
	a.Send("LRANGE", "k", "0", "-1")
	a.NoReply(20 * time.Millisecond)
	p.Do("RPUSH", "k", "a", "b")
	a.Receive() // [k, a]
	a.Receive() // LLEN
	a.Receive() // RPUSH
	a.Receive() // LRANGE
	// The served client blocks again inside its resumed pipeline.
	a.SendRaw([]byte("*3\r\n$5\r\nBLPOP\r\n$2\r\nk2\r\n$1\r\n0\r\n*3\r\n$5\r\nBLPOP\r\n$2\r\nk3\r\n$1\r\n0\r\n*2\r\n$4\r\nECHO\r\n$4\r\ndone\r\n"))
	waitBlocked(t, 1)
	p.Do("RPUSH", "k3", "early")
	p.Do("RPUSH", "k2", "x")
	a.Receive()
	a.Receive()
	a.Receive()
}

func TestBlockingDisconnect(t *testing.T) {
	p := blockPair(t)
	a := blockOn(t, 1, "BLPOP", "k", "0")
	a.L.Close()
	a.R.Close()
	waitBlocked(t, 0)
	p.Do("RPUSH", "k", "kept")
	p.Do("LRANGE", "k", "0", "-1")
	// A second waiter behind a departed one is served.
	p.Do("DEL", "k")
	b := blockOn(t, 1, "BLPOP", "k", "0")
	c := blockOn(t, 2, "BLPOP", "k", "0")
	b.L.Close()
	b.R.Close()
	waitBlocked(t, 1)
	p.Do("RPUSH", "k", "v")
	c.Receive()
	p.Do("EXISTS", "k")
}

func TestBlockingNoBlockContexts(t *testing.T) {
	p := blockPair(t)
	// Scripts: BLPOP family is noscript; BLMPOP answers at once.
	p.Do("EVAL", "return redis.call('blpop','k',0)", "1", "k")
	p.Do("EVAL", "return redis.call('blmove','k','d','left','left',0)", "2", "k", "d")
	p.Do("EVAL", "return redis.call('blmpop',0,1,'k','left')", "1", "k")
	p.Do("RPUSH", "k", "a")
	p.Do("EVAL", "return redis.call('blmpop',0,1,'k','left')", "1", "k")
	// A script pushes then pops: the waiter is not served.
	a := blockOn(t, 1, "BLPOP", "k", "0")
	p.Do("EVAL", "redis.call('rpush',KEYS[1],'x'); return redis.call('lpop',KEYS[1])", "1", "k")
	a.NoReply(20 * time.Millisecond)
	// Pushes to two keys in one script: the first signalled key serves.
	a2 := blockOn(t, 2, "BLPOP", "k2", "k1", "0")
	p.Do("EVAL", "redis.call('rpush',KEYS[1],'1'); redis.call('rpush',KEYS[2],'2'); return redis.call('llen',KEYS[1])", "2", "k1", "k2")
	a2.Receive()
	p.Do("RPUSH", "k", "y")
	a.Receive()

	m := Connect(t)
	m.Do("MULTI")
	for _, cmd := range [][]string{
		{"BLPOP", "nokey", "0"},
		{"BRPOP", "nokey", "0"},
		{"BLMOVE", "nokey", "d", "LEFT", "LEFT", "0"},
		{"BRPOPLPUSH", "nokey", "d", "0"},
		{"BLMPOP", "0", "1", "nokey", "LEFT"},
		{"BLPOP", "nokey", "-1"},
		// Accepted timeouts (parsed even though nothing blocks here).
		{"BLPOP", "nokey", "0x10"},
		{"BLPOP", "nokey", "0X1P4"},
		{"BLPOP", "nokey", "9223372036854775"},
		{"BLPOP", "nokey", "9223372036854775.807"},
		{"BLPOP", "nokey", "1e-4950"},
		{"BLPOP", "nokey", "-0.0001"},
		{"BLPOP", "nokey", "1e-5000"},
	} {
		m.Do(cmd...)
	}
	m.Do("EXEC")
}

func TestBlockingClientUnblock(t *testing.T) {
	p := blockPair(t)
	for _, mode := range [][]string{{}, {"TIMEOUT"}, {"ERROR"}} {
		a := Connect(t)
		lid, rid := clientIDs(t, a)
		a.Send("BLMOVE", "k", "d", "LEFT", "LEFT", "0")
		waitBlocked(t, 1)
		unblockBoth(t, p, a, lid, rid, mode...)
		// Not blocked any more.
		lv, _ := p.L.Do("CLIENT", "UNBLOCK", lid)
		rv, _ := p.R.Do("CLIENT", "UNBLOCK", rid)
		p.check("CLIENT UNBLOCK again", lv, rv, Equal(lv, rv))
		a.Do("PING")
	}
	p.Do("CLIENT", "UNBLOCK", "999999999", "FOO")
}

func TestBlockingExpiredAndLPUSHOrder(t *testing.T) {
	p := blockPair(t)
	a := blockOn(t, 1, "BLPOP", "k", "0")
	// LPUSH a b c makes [c b a]: the waiter gets c.
	p.Do("LPUSH", "k", "a", "b", "c")
	a.Receive()
	p.Do("LRANGE", "k", "0", "-1")
	// LPUSHX on a missing key does not wake anyone; LMOVE into it does.
	p.Do("DEL", "k")
	a.Send("BRPOP", "k", "0")
	waitBlocked(t, 1)
	p.Do("LPUSHX", "k", "x")
	p.Do("RPUSH", "from", "m")
	p.Do("LMOVE", "from", "k", "LEFT", "LEFT")
	a.Receive()
	p.Do("EXISTS", "k", "from")
	// LINSERT/LSET never add keys: only pushes and moves wake clients.
	a.Send("BLPOP", "k", "0")
	waitBlocked(t, 1)
	p.Do("LMPOP", "1", "k", "LEFT")
	p.Do("RPOPLPUSH", "nokey", "k")
	p.Do("RPUSH", "k", "z")
	a.Receive()
}

// Keys that arrive by RENAME, MOVE or COPY wake clients as pushes do
// (Redis 7.0's dbAdd signals every new key).
func TestBlockingKeyArrives(t *testing.T) {
	p := blockPair(t)
	p.Do("RPUSH", "src", "a", "b")
	a := blockOn(t, 1, "BLPOP", "k", "0")
	p.Do("RENAME", "src", "k")
	a.Receive()
	p.Do("LRANGE", "k", "0", "-1")

	a.Send("BRPOP", "k2", "0")
	waitBlocked(t, 1)
	p.Do("COPY", "k", "k2")
	a.Receive()
	p.Do("LRANGE", "k2", "0", "-1")

	b := Connect(t)
	b.Do("SELECT", "3")
	b.Send("BLPOP", "k", "0")
	waitBlocked(t, 1)
	p.Do("MOVE", "k", "3")
	b.Receive()
	b.Do("LRANGE", "k", "0", "-1")
	p.Do("RPUSH", "k", "z")
	p.Do("COPY", "k", "k", "DB", "3")
	b.Do("LRANGE", "k", "0", "-1")
	b.Do("DEL", "k")

	// SWAPDB brings a list into the database a client waits in.
	b.Send("BLPOP", "k", "0")
	waitBlocked(t, 1)
	p.Do("SWAPDB", "0", "3")
	b.Receive()
	p.Do("SWAPDB", "0", "3")
	p.Do("LRANGE", "k", "0", "-1")
	b.Do("FLUSHDB")
}

func TestBlockingRESP3AndReplyModes(t *testing.T) {
	p := blockPair(t)
	a := Connect(t)
	a.Do("HELLO", "3")
	a.Send("BLMPOP", "0", "1", "k", "RIGHT", "COUNT", "2")
	waitBlocked(t, 1)
	p.Do("RPUSH", "k", "1", "2", "3")
	a.Receive()
	a.Send("BLPOP", "k", "0")
	a.Receive()
	a.Send("BLMOVE", "k", "d", "LEFT", "LEFT", "0")
	waitBlocked(t, 1)
	p.Do("LPUSH", "k", "m")
	a.Receive()

	// A blocked client of another database is not served.
	b := Connect(t)
	b.Do("SELECT", "1")
	b.Send("BLPOP", "k", "0")
	waitBlocked(t, 1)
	p.Do("RPUSH", "k", "db0")
	b.NoReply(20 * time.Millisecond)
	p.Do("SELECT", "1")
	p.Do("RPUSH", "k", "db1")
	b.Receive()
	p.Do("DEL", "k")
	b.Send("CLIENT", "REPLY", "OFF")
	b.Send("BLPOP", "k", "0")
	waitBlocked(t, 1)
	p.Do("RPUSH", "k", "db1")
	p.Do("SELECT", "0")
	waitBlocked(t, 0)
	b.NoReply(20 * time.Millisecond) // reply suppressed
	b.Do("CLIENT", "REPLY", "ON")
	b.Do("EXISTS", "k")
	p.Do("LRANGE", "k", "0", "-1")
}

// blockedIDs returns the ids of the clients CLIENT LIST shows as blocked.
func blockedIDs(t *testing.T, c *Conn) map[string]bool {
	t.Helper()
	v, err := c.Do("CLIENT", "LIST")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, line := range regexp.MustCompile(`\r?\n`).Split(v.Str, -1) {
		m := regexp.MustCompile(`^id=(\d+) .* flags=(\S+) `).FindStringSubmatch(line)
		if m != nil && regexp.MustCompile(`b`).MatchString(m[2]) {
			out[m[1]] = true
		}
	}
	return out
}

// TestBlockingRandomized blocks several clients with random blocking
// commands on a few keys, then pushes random elements, and requires both
// servers to serve the same clients with the same replies, BLMOVE chains
// included.
func TestBlockingRandomized(t *testing.T) {
	p := blockPair(t)
	rnd := rand.New(rand.NewPCG(11, 7))
	keys := []string{"a", "b", "c"}
	key := func() string { return keys[rnd.IntN(len(keys))] }
	side := func() string { return []string{"LEFT", "RIGHT"}[rnd.IntN(2)] }
	const n = 5
	type client struct {
		p        *Pair
		lid, rid string
	}
	var cs []client
	for i := 0; i < n; i++ {
		c := Connect(t)
		lid, rid := clientIDs(t, c)
		cs = append(cs, client{c, lid, rid})
	}
	for round := 0; round < 12; round++ {
		p.Do("DEL", "a", "b", "c")
		for i, c := range cs {
			var cmd []string
			switch rnd.IntN(5) {
			case 0:
				cmd = []string{"BLPOP", key(), key(), "0"}
			case 1:
				cmd = []string{"BRPOP", key(), "0"}
			case 2:
				cmd = []string{"BLMOVE", key(), key(), side(), side(), "0"}
			case 3:
				cmd = []string{"BRPOPLPUSH", key(), key(), "0"}
			case 4:
				cmd = []string{"BLMPOP", "0", "2", key(), key(), side(), "COUNT", "2"}
			}
			c.p.Send(cmd...)
			waitBlocked(t, i+1)
		}
		waiting := n
		for push := 0; push < 8 && waiting > 0; push++ {
			args := []string{[]string{"LPUSH", "RPUSH"}[rnd.IntN(2)], key()}
			for j := 0; j <= rnd.IntN(3); j++ {
				args = append(args, strconv.Itoa(round*100+push*10+j))
			}
			p.Do(args...)
			p.Do("PING")
			lb, rb := blockedIDs(t, p.L), blockedIDs(t, p.R)
			for _, c := range cs {
				if lb[c.lid] != rb[c.rid] {
					p.check("blocked "+c.rid, Value{Kind: ':', Str: strconv.FormatBool(lb[c.lid])}, Value{Kind: ':', Str: strconv.FormatBool(rb[c.rid])}, false)
				}
			}
			for i := range cs {
				c := &cs[i]
				if c.lid[0] != '-' && !rb[c.rid] {
					c.p.Receive()
					c.lid = "-" + c.lid // served this round
					waiting--
				}
			}
			for _, k := range keys {
				p.Do("LRANGE", k, "0", "-1")
			}
		}
		for i := range cs {
			c := &cs[i]
			if c.lid[0] == '-' {
				c.lid = c.lid[1:]
				continue
			}
			lv, _ := p.L.Do("CLIENT", "UNBLOCK", c.lid)
			rv, _ := p.R.Do("CLIENT", "UNBLOCK", c.rid)
			p.check("unblock", lv, rv, Equal(lv, rv))
			c.p.Receive()
		}
		waitBlocked(t, 0)
	}
}

// A served client's queued commands run after the pushing client's whole
// pipeline, as Redis runs unblocked clients in beforeSleep.
func TestBlockingResumeAfterPusherPipeline(t *testing.T) {
	p := blockPair(t)
	b := Connect(t)
	b.SendRaw([]byte("*3\r\n$5\r\nBLPOP\r\n$1\r\nk\r\n$1\r\n0\r\n*2\r\n$4\r\nLLEN\r\n$1\r\nk\r\n"))
	waitBlocked(t, 1)
	p.SendRaw([]byte("*3\r\n$5\r\nRPUSH\r\n$1\r\nk\r\n$1\r\na\r\n*3\r\n$5\r\nRPUSH\r\n$1\r\nk\r\n$1\r\nb\r\n*2\r\n$4\r\nLLEN\r\n$1\r\nk\r\n"))
	p.Receive()
	p.Receive()
	p.Receive()
	b.Receive()
	b.Receive()
}

// Keys readied inside MULTI/EXEC are served after EXEC, against the state
// the whole transaction left.
func TestBlockingServedAfterExec(t *testing.T) {
	p := blockPair(t)
	a := blockOn(t, 1, "BLPOP", "k", "0")
	p.Do("MULTI")
	p.Do("RPUSH", "k", "a")
	p.Do("LPOP", "k")
	p.Do("EXEC")
	a.NoReply(20 * time.Millisecond)
	p.Do("MULTI")
	p.Do("RPUSH", "k", "x")
	p.Do("LPUSH", "k", "y")
	p.Do("LLEN", "k")
	p.Do("EXEC")
	a.Receive()
	p.Do("LRANGE", "k", "0", "-1")
}

// TestBlockingBRPOPLPUSHLeavesWATCH is Redis's "BRPOPLPUSH does not affect
// WATCH while still blocked" (tests/unit/type/list.tcl): a BRPOPLPUSH still
// waiting touches neither of its keys, so a transaction WATCHing its
// destination executes. Redis's test sends the LPUSH that serves the
// BRPOPLPUSH right after EXEC without waiting for its reply; here the
// LPUSH waits for it (see DESIGN.md, "Order across connections").
func TestBlockingBRPOPLPUSHLeavesWATCH(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "somekey", "somevalue")
	blocked := Connect(t)
	blocked.Send("BRPOPLPUSH", "srclist", "dstlist", "0")
	waitBlocked(t, 1)
	w := Connect(t)
	w.Do("WATCH", "dstlist")
	w.Do("MULTI")
	w.Do("GET", "somekey")
	w.Do("EXEC")
	p.Do("LPUSH", "srclist", "element")
	blocked.Receive()
	p.Do("LRANGE", "dstlist", "0", "-1")
}
