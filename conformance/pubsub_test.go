package conformance

import (
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// receiveN reads n replies or messages from both servers, requiring each
// to be identical.
func (p *Pair) receiveN(n int) {
	p.t.Helper()
	for i := 0; i < n; i++ {
		p.Receive()
	}
}

// receiveMassUnsubscribe reads the n confirmations of an UNSUBSCRIBE (or
// SUNSUBSCRIBE) without arguments. Redis goes through the client's
// channels in hash-table order, so the channel names are compared as a
// set; kinds and the decreasing counts are compared in order.
func (p *Pair) receiveMassUnsubscribe(n int) {
	p.t.Helper()
	var lnames, rnames []string
	for i := 0; i < n; i++ {
		lv, rv := p.read("mass unsubscribe")
		same := lv.Kind == rv.Kind && len(lv.Elems) == 3 && len(rv.Elems) == 3 &&
			Equal(lv.Elems[0], rv.Elems[0]) && Equal(lv.Elems[2], rv.Elems[2])
		p.check("mass unsubscribe", lv, rv, same)
		if same {
			lnames = append(lnames, lv.Elems[1].Str)
			rnames = append(rnames, rv.Elems[1].Str)
		}
	}
	sort.Strings(lnames)
	sort.Strings(rnames)
	l := Value{Kind: '+', Str: strings.Join(lnames, ",")}
	r := Value{Kind: '+', Str: strings.Join(rnames, ",")}
	p.check("mass unsubscribe channels", l, r, l.Str == r.Str)
}

func TestPubSubSubscribe(t *testing.T) {
	p := NewPair(t)
	sub := Connect(t)
	sub.Send("SUBSCRIBE", "news", "sport")
	sub.receiveN(2)
	sub.Send("SUBSCRIBE", "news") // again: same confirmation, same count
	sub.Receive()
	p.Do("PUBLISH", "news", "hello")
	sub.Receive()
	p.Do("PUBLISH", "sport", "")
	sub.Receive()
	p.Do("PUBLISH", "nobody", "x")
	p.Do("PUBLISH", "news", strings.Repeat("z", 5000))
	sub.Receive()
	// Subscribed context (RESP2): only (P|S)(UN)SUBSCRIBE, PING, QUIT, RESET.
	sub.Do("GET", "x")
	sub.Do("PUBLISH", "news", "x")
	sub.Do("PING")
	sub.Do("PING", "payload")
	sub.Do("PING", "a", "b")
	sub.Do("SELECT", "1")
	sub.Do("NOSUCH")
	sub.Do("MULTI")
	sub.Do("EXEC")
	sub.Do("DISCARD")
	sub.Do("WATCH", "x")
	sub.Send("UNSUBSCRIBE", "news", "nothere")
	sub.receiveN(2)
	sub.Send("UNSUBSCRIBE")
	sub.Receive()
	// Back to normal.
	sub.Do("GET", "x")
	sub.Do("UNSUBSCRIBE")
	sub.Do("UNSUBSCRIBE", "a")
	sub.Do("PUNSUBSCRIBE")
	sub.Do("SUNSUBSCRIBE")
	sub.Do("SUBSCRIBE")
	sub.Do("PSUBSCRIBE")
	sub.Do("SSUBSCRIBE")
	p.Do("PUBLISH", "news")
	p.Do("PUBLISH", "news", "a", "b")
	p.Do("SPUBLISH", "news")
}

func TestPubSubOrdering(t *testing.T) {
	p := NewPair(t)
	a := Connect(t)
	b := Connect(t)
	a.Send("SUBSCRIBE", "ch")
	a.Receive()
	b.Send("SUBSCRIBE", "ch", "other")
	b.receiveN(2)
	for i := 0; i < 20; i++ {
		n := string(rune('a' + i))
		p.Send("PUBLISH", "ch", n)
		p.Send("PUBLISH", "other", n)
	}
	p.receiveN(40)
	a.receiveN(20)
	b.receiveN(40)
	a.NoReply(50 * time.Millisecond)
	// A pipeline of publishes and subscriptions keeps its order.
	p.Send("PUBLISH", "ch", "1")
	p.Send("PUBLISH", "ch", "2")
	p.receiveN(2)
	a.receiveN(2)
	b.receiveN(2)
}

func TestPubSubPatterns(t *testing.T) {
	p := NewPair(t)
	sub := Connect(t)
	sub.Send("PSUBSCRIBE", "news.*", "h?llo", "[ab]x", "news.*")
	sub.receiveN(4)
	p.Do("PUBSUB", "NUMPAT")
	p.Do("PUBLISH", "news.it", "ciao")
	sub.Receive()
	p.Do("PUBLISH", "hallo", "1")
	sub.Receive()
	p.Do("PUBLISH", "bx", "2")
	sub.Receive()
	p.Do("PUBLISH", "cx", "3")
	p.Do("PUBLISH", "news", "4")
	// Channel and pattern: the channel message first, then the pmessage.
	sub.Send("SUBSCRIBE", "news.uk")
	sub.Receive()
	p.Do("PUBLISH", "news.uk", "both")
	sub.receiveN(2)
	sub.Send("PUNSUBSCRIBE", "h?llo", "nope")
	sub.receiveN(2)
	// Without arguments: in subscription order (a list in Redis 7.0).
	sub.Send("PUNSUBSCRIBE")
	sub.receiveN(2)
	sub.Send("PUNSUBSCRIBE")
	sub.Receive()
	sub.Send("UNSUBSCRIBE")
	sub.Receive()
	p.Do("PUBSUB", "NUMPAT")
	// The pattern "*" does not match the empty channel name.
	sub.Send("PSUBSCRIBE", "*")
	sub.Receive()
	p.Do("PUBLISH", "", "empty")
	p.Do("PUBLISH", "x", "nonempty")
	sub.Receive()
	sub.Send("PUNSUBSCRIBE")
	sub.Receive()
}

func TestPubSubMassUnsubscribe(t *testing.T) {
	NewPair(t)
	sub := Connect(t)
	sub.Send("SUBSCRIBE", "c1", "c2", "c3", "c4", "c5")
	sub.receiveN(5)
	sub.Send("PSUBSCRIBE", "p1", "p2")
	sub.receiveN(2)
	sub.Send("UNSUBSCRIBE")
	sub.receiveMassUnsubscribe(5)
	sub.Do("PING")
	sub.Send("PUNSUBSCRIBE")
	sub.receiveN(2)
	sub.Do("PING")
}

func TestPubSubSelf(t *testing.T) {
	// A RESP2 subscriber cannot publish, but it can receive what its
	// subscription commands and other clients send, interleaved in order.
	p := NewPair(t)
	sub := Connect(t)
	sub.Send("SUBSCRIBE", "x")
	sub.Send("PING")
	sub.Send("PSUBSCRIBE", "x*")
	sub.receiveN(3)
	p.Do("PUBLISH", "x", "1")
	sub.receiveN(2)
	p.Do("PUBSUB", "NUMSUB", "x", "y")
}

func TestPubSubIntrospection(t *testing.T) {
	p := NewPair(t)
	p.Do("PUBSUB", "CHANNELS")
	p.Do("PUBSUB", "NUMSUB")
	p.Do("PUBSUB", "NUMPAT")
	p.Do("PUBSUB", "SHARDCHANNELS")
	p.Do("PUBSUB", "SHARDNUMSUB")
	a := Connect(t)
	b := Connect(t)
	a.Send("SUBSCRIBE", "alpha", "beta", "gamma")
	a.receiveN(3)
	b.Send("SUBSCRIBE", "alpha")
	b.Receive()
	b.Send("SSUBSCRIBE", "s1", "s2")
	b.receiveN(2)
	p.DoSorted("PUBSUB", "CHANNELS")
	p.DoSorted("PUBSUB", "channels", "*a")
	p.DoSorted("PUBSUB", "CHANNELS", "[ab]*")
	p.Do("PUBSUB", "CHANNELS", "nomatch")
	p.Do("PUBSUB", "NUMSUB", "alpha", "beta", "none", "alpha")
	p.DoSorted("PUBSUB", "SHARDCHANNELS")
	p.Do("PUBSUB", "SHARDCHANNELS", "s1")
	p.Do("PUBSUB", "SHARDNUMSUB", "s1", "alpha")
	p.Do("PUBSUB", "NUMPAT")
	p.Do("PUBSUB", "HELP")
	p.Do("pubsub", "help")
	p.Do("PUBSUB")
	p.Do("PUBSUB", "NOSUCH")
	p.Do("PUBSUB", "CHANNELS", "a", "b")
	p.Do("PUBSUB", "SHARDCHANNELS", "a", "b")
	p.Do("PUBSUB", "NUMPAT", "x")
	p.Do("PUBSUB", "HELP", "x")
	// Subscriptions of a closed connection go away.
	a.L.Close()
	a.R.Close()
	for _, c := range []*Conn{p.L, p.R} {
		testutil.Eventually(t, 2*time.Second, func() error {
			if v := c.MustDo(t, "PUBSUB", "NUMSUB", "beta"); v.String() != `*["beta", :0]` {
				return fmt.Errorf("%s: PUBSUB NUMSUB beta: %v", c.Addr, v)
			}
			return nil
		})
	}
	p.DoSorted("PUBSUB", "CHANNELS")
	p.Do("PUBSUB", "NUMSUB", "alpha", "beta")
}

func TestPubSubShard(t *testing.T) {
	p := NewPair(t)
	sub := Connect(t)
	sub.Send("SSUBSCRIBE", "s", "t")
	sub.receiveN(2)
	sub.Send("SUBSCRIBE", "s")
	sub.Receive() // the count excludes shard channels
	sub.Send("PSUBSCRIBE", "*")
	sub.Receive()
	p.Do("SPUBLISH", "s", "shard") // patterns never see shard messages
	sub.Receive()
	p.Do("PUBLISH", "s", "classic")
	sub.receiveN(2)
	p.Do("SPUBLISH", "none", "x")
	sub.Send("SUNSUBSCRIBE", "s")
	sub.Receive()
	sub.Send("SUNSUBSCRIBE")
	sub.Receive()
	sub.Send("SUNSUBSCRIBE")
	sub.Receive()
	sub.Send("UNSUBSCRIBE")
	sub.Receive()
	sub.Send("PUNSUBSCRIBE")
	sub.Receive()
	sub.Do("GET", "x")
}

func TestPubSubInMulti(t *testing.T) {
	NewPair(t)
	c := Connect(t)
	c.Do("MULTI")
	c.Do("SUBSCRIBE", "a")
	c.Do("SSUBSCRIBE", "b")
	c.Do("EXEC")
	c.Do("PING")
	c.Send("UNSUBSCRIBE")
	c.Receive()
	c.Do("GET", "x")
}

func TestPubSubReplyOff(t *testing.T) {
	p := NewPair(t)
	sub := Connect(t)
	sub.Send("CLIENT", "REPLY", "OFF") // no reply
	// Subscription confirmations and messages are pushes: they are sent
	// even with replies off.
	sub.Send("SUBSCRIBE", "x")
	sub.Receive()
	p.Do("PUBLISH", "x", "1")
	sub.Receive()
	sub.Send("UNSUBSCRIBE")
	sub.Receive()
	sub.Send("PING")
	sub.NoReply(50 * time.Millisecond)
	sub.Send("CLIENT", "REPLY", "ON")
	sub.Receive()
	// Under SKIP too.
	sub.Send("CLIENT", "REPLY", "SKIP")
	sub.Send("SUBSCRIBE", "y")
	sub.Receive()
	sub.Send("PING")
	sub.Receive()
}

func TestPubSubResp3(t *testing.T) {
	p := NewPair(t)
	sub := Connect(t)
	sub.Do("HELLO", "3")
	sub.Send("SUBSCRIBE", "a", "b")
	sub.receiveN(2)
	sub.Send("PSUBSCRIBE", "a*")
	sub.Receive()
	// Any command works while subscribed; messages are pushes.
	sub.Do("SET", "k", "v")
	sub.Do("PING")
	sub.Do("PING", "x")
	p.Do("PUBLISH", "a", "1")
	sub.receiveN(2)
	// Publishing to itself: the messages come before the reply.
	sub.Send("PUBLISH", "ab", "self")
	sub.receiveN(2)
	sub.Send("UNSUBSCRIBE", "a", "zz")
	sub.receiveN(2)
	sub.Send("UNSUBSCRIBE")
	sub.Receive()
	sub.Send("UNSUBSCRIBE")
	sub.Receive()
	sub.Send("PUNSUBSCRIBE")
	sub.Receive()
	sub.Send("SSUBSCRIBE", "s")
	sub.Receive()
	p.Do("SPUBLISH", "s", "m")
	sub.Receive()
	sub.Send("SUNSUBSCRIBE")
	sub.Receive()
	// Inside a transaction the subscription push is part of EXEC's reply.
	sub.Do("MULTI")
	sub.Do("SUBSCRIBE", "t")
	sub.Do("PUBLISH", "t", "in-exec")
	sub.Send("EXEC")
	sub.Receive()
	sub.Send("UNSUBSCRIBE")
	sub.Receive()
}

func TestPubSubFromScript(t *testing.T) {
	// Redisson's unlock: a script deletes the lock and publishes on the
	// lock's channel; the waiter is subscribed there.
	p := NewPair(t)
	waiter := Connect(t)
	waiter.Send("SUBSCRIBE", "redisson_lock__channel:{mylock}")
	waiter.Receive()
	p.Do("HSET", "mylock", "id:1", "1")
	unlock := "if (redis.call('hexists', KEYS[1], ARGV[2]) == 0) then return nil; end; " +
		"local counter = redis.call('hincrby', KEYS[1], ARGV[2], -1); " +
		"if (counter > 0) then return 0; else redis.call('del', KEYS[1]); " +
		"redis.call('publish', KEYS[2], ARGV[1]); return 1; end; return nil;"
	p.Do("EVAL", unlock, "2", "mylock", "redisson_lock__channel:{mylock}", "0", "id:1")
	waiter.Receive()
	p.Do("EVAL", unlock, "2", "mylock", "redisson_lock__channel:{mylock}", "0", "id:1")
	waiter.NoReply(50 * time.Millisecond)
	// Subscribing is refused in scripts.
	p.Do("EVAL", "return redis.call('subscribe', 'x')", "0")
	p.Do("EVAL", "return redis.pcall('multi')", "0")
	p.Do("EVAL", "return redis.call('spublish', 'x', 'y')", "0")
	// A script in MULTI publishes when EXEC runs.
	p.Do("MULTI")
	p.Do("EVAL", "return redis.call('publish', KEYS[1], 'late')", "1", "redisson_lock__channel:{mylock}")
	waiter.NoReply(20 * time.Millisecond)
	p.Do("EXEC")
	waiter.Receive()
}

func TestPubSubReset(t *testing.T) {
	// RESET leaves pub/sub, MULTI, WATCH and tracking silently.
	p := NewPair(t)
	c := Connect(t)
	c.Send("SUBSCRIBE", "a")
	c.Receive()
	c.Send("PSUBSCRIBE", "b*")
	c.Receive()
	c.Do("RESET")
	p.Do("PUBLISH", "a", "x")
	p.Do("PUBLISH", "bb", "x")
	p.Do("PUBSUB", "NUMPAT")
	c.Do("GET", "x")
	c.Do("WATCH", "w")
	c.Do("MULTI")
	c.Do("SET", "w", "1")
	c.Do("RESET")
	c.Do("EXEC")
	p.Do("SET", "w", "2")
	c.Do("MULTI")
	c.Do("EXEC") // the watch went with RESET
	c.Do("HELLO", "3")
	c.Do("CLIENT", "TRACKING", "on", "bcast")
	c.Do("RESET")
	c.Do("CLIENT", "TRACKINGINFO")
	p.Do("SET", "z", "1")
	c.NoReply(50 * time.Millisecond)
}

// TestPubSubAfterPUNSUBSCRIBE is Redis's "PUBLISH/PSUBSCRIBE after
// PUNSUBSCRIBE without arguments" (tests/unit/pubsub.tcl), with the
// publisher waiting for PUNSUBSCRIBE's replies: Redis's test does not wait,
// and relies on its one event loop running the PUNSUBSCRIBE, sent first,
// before the PUBLISH of another connection (see DESIGN.md, "Order across
// connections").
func TestPubSubAfterPUNSUBSCRIBE(t *testing.T) {
	p := NewPair(t)
	sub := Connect(t)
	sub.Send("PSUBSCRIBE", "chan1.*", "chan2.*", "chan3.*")
	sub.receiveN(3)
	sub.Send("PUNSUBSCRIBE")
	sub.receiveMassUnsubscribe(3)
	p.Do("PUBLISH", "chan1.hi", "hello")
	p.Do("PUBLISH", "chan2.hi", "hello")
	p.Do("PUBLISH", "chan3.hi", "hello")
	p.Do("PUBSUB", "NUMPAT")
	sub.Do("PING")
}
