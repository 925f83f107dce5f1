package conformance

import (
	"fmt"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// clientIDs returns the CLIENT ID of p's lockkv and Redis connections.
func clientIDs(t *testing.T, p *Pair) (l, r string) {
	t.Helper()
	lv, err := p.L.Do("CLIENT", "ID")
	if err != nil {
		t.Fatal(err)
	}
	rv, err := p.R.Do("CLIENT", "ID")
	if err != nil {
		t.Fatal(err)
	}
	return lv.Str, rv.Str
}

// doEach sends a command that differs between the servers (it names a
// client ID) and requires the same reply.
func (p *Pair) doEach(l, r []string) Value {
	p.t.Helper()
	if err := p.L.Send(l...); err != nil {
		p.t.Fatal(err)
	}
	if err := p.R.Send(r...); err != nil {
		p.t.Fatal(err)
	}
	lv, rv := p.read(r)
	p.check(r, lv, rv, Equal(lv, rv))
	return rv
}

func withArgs(base []string, extra ...string) []string {
	return append(append([]string(nil), base...), extra...)
}

func TestTrackingErrors(t *testing.T) {
	p := NewPair(t)
	for _, cmd := range [][]string{
		{"CLIENT", "TRACKING"},
		{"CLIENT", "TRACKING", "maybe"},
		{"CLIENT", "TRACKING", "on", "foo"},
		{"CLIENT", "TRACKING", "maybe", "foo"},
		{"CLIENT", "TRACKING", "on", "redirect"},
		{"CLIENT", "TRACKING", "on", "prefix"},
		{"CLIENT", "TRACKING", "on", "redirect", "x"},
		{"CLIENT", "TRACKING", "on", "redirect", "999999"},
		{"CLIENT", "TRACKING", "on", "redirect", "0"},
		{"CLIENT", "TRACKING", "on", "redirect", "-1"},
		{"CLIENT", "TRACKING", "on", "prefix", "a"},
		{"CLIENT", "TRACKING", "on", "bcast", "optin"},
		{"CLIENT", "TRACKING", "on", "bcast", "optout"},
		{"CLIENT", "TRACKING", "on", "optin", "optout"},
		{"CLIENT", "TRACKING", "on", "bcast", "prefix", "a", "prefix", "ab"},
		{"CLIENT", "TRACKING", "on", "bcast", "prefix", "ab", "prefix", "a"},
		{"CLIENT", "TRACKING", "on", "bcast", "prefix", "", "prefix", "x"},
		{"CLIENT", "TRACKINGINFO"},
		{"CLIENT", "TRACKINGINFO", "x"},
		{"CLIENT", "GETREDIR"},
		{"CLIENT", "GETREDIR", "x"},
		{"CLIENT", "CACHING"},
		{"CLIENT", "CACHING", "yes"},
		{"CLIENT", "CACHING", "yes", "x"},
		{"CLIENT", "TRACKING", "off"},
		{"CLIENT", "TRACKING", "OFF", "bcast"},
	} {
		p.Do(cmd...)
	}
	p.Do("CLIENT", "TRACKING", "on", "optin")
	p.Do("CLIENT", "TRACKING", "on", "optout")
	p.Do("CLIENT", "TRACKING", "on", "bcast")
	p.Do("CLIENT", "CACHING", "no")
	p.Do("CLIENT", "CACHING", "maybe")
	p.Do("CLIENT", "TRACKINGINFO")
	p.Do("CLIENT", "CACHING", "yes")
	p.Do("CLIENT", "TRACKINGINFO")
	p.Do("CLIENT", "GETREDIR")
	p.Do("CLIENT", "TRACKING", "off")
	p.Do("CLIENT", "TRACKINGINFO")
	p.Do("CLIENT", "TRACKING", "on", "optout", "noloop")
	p.Do("CLIENT", "CACHING", "yes")
	p.Do("CLIENT", "CACHING", "no")
	p.Do("CLIENT", "TRACKINGINFO")
	p.Do("CLIENT", "TRACKING", "off")
	// Prefix rules in BCAST mode.
	p.Do("CLIENT", "TRACKING", "on", "bcast", "prefix", "a", "prefix", "b")
	p.Do("CLIENT", "TRACKING", "on", "bcast", "prefix", "ab")
	p.Do("CLIENT", "TRACKING", "on", "bcast", "prefix", "b")
	p.Do("CLIENT", "TRACKING", "on", "bcast", "prefix", "c")
	p.Do("CLIENT", "TRACKINGINFO")
	p.Do("CLIENT", "TRACKING", "on")
	p.Do("CLIENT", "TRACKING", "off")
	// Redis 7.0's collision check reports an overlap between a later pair
	// of provided prefixes, then enables tracking and answers +OK as well.
	p.Send("CLIENT", "TRACKING", "on", "bcast", "prefix", "b", "prefix", "c", "prefix", "cd")
	p.Receive()
	p.Receive()
	p.Do("CLIENT", "TRACKINGINFO")
	p.Do("CLIENT", "TRACKING", "off")
}

func TestTrackingRedirectErrors(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	l, r := clientIDs(t, other)
	base := []string{"CLIENT", "TRACKING", "on", "redirect"}
	p.doEach(withArgs(base, l, "redirect", l), withArgs(base, r, "redirect", r))
	p.doEach(withArgs(base, l, "bogus"), withArgs(base, r, "bogus"))
	p.doEach(withArgs(base, l), withArgs(base, r))
	p.DoShape("CLIENT", "GETREDIR") // the IDs differ
	p.Do("CLIENT", "TRACKING", "off")
	p.Do("CLIENT", "GETREDIR")
}

func TestTrackingResp3(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	p.Do("HELLO", "3")
	p.Do("CLIENT", "TRACKING", "on")
	p.Do("CLIENT", "TRACKINGINFO")
	p.Do("GET", "k")
	// The client's own write: the push follows the reply.
	p.Send("SET", "k", "1")
	p.receiveN(2)
	p.Do("GET", "k")
	other.Do("SET", "k", "2")
	p.Receive()
	other.Do("SET", "k", "3") // not read again: no message
	p.NoReply(50 * time.Millisecond)
	// Several keys, one read each: one message each.
	p.Do("MGET", "a", "b")
	other.Do("MSET", "a", "1", "b", "2")
	p.receiveN(2)
	// Keys are shared across databases.
	p.Do("GET", "x")
	other.Do("SELECT", "3")
	other.Do("SET", "x", "db3")
	p.Receive()
	other.Do("SELECT", "0")
	// Inside MULTI the invalidation comes after the EXEC reply.
	p.Do("GET", "k")
	p.Do("MULTI")
	p.Do("SET", "k", "m")
	p.Do("GET", "k")
	p.Send("EXEC")
	p.receiveN(2)
	p.Do("GET", "k")
	// Flushes invalidate everything with a null.
	p.Send("FLUSHALL")
	p.receiveN(2)
	p.Do("GET", "k")
	other.Do("FLUSHDB")
	p.Receive()
	other.Do("SWAPDB", "0", "1") // no invalidation
	p.NoReply(50 * time.Millisecond)
}

func TestTrackingResp3Writes(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	p.Do("HELLO", "3")
	p.Do("CLIENT", "TRACKING", "on")
	subscribeDrain(p) // RESP3: p keeps running commands
	for _, w := range [][]string{
		{"DEL", "k"}, {"EXPIRE", "k", "100"}, {"RENAME", "k", "k2"}, {"APPEND", "k", "x"},
		{"INCR", "k"}, {"HSET", "k", "f", "v"}, {"SADD", "k", "m"}, {"ZADD", "k", "1", "m"},
		{"PERSIST", "k"}, {"PEXPIRE", "k", "0"},
	} {
		other.Do("DEL", "k", "k2")
		other.Do("SET", "k", "5")
		drainEvents(t, other, p)
		p.Do("GET", "k")
		other.Do(w...)
		drainEvents(t, other, p)
	}
}

func TestTrackingExpiry(t *testing.T) {
	p := NewPair(t)
	p.Do("HELLO", "3")
	p.Do("CLIENT", "TRACKING", "on")
	p.Do("SET", "k", "v", "PX", "300")
	p.Do("GET", "k")
	// Active expiry sends the invalidation on its own.
	lv, err := p.L.Read(2 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	rv, err := p.R.Read(2 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	p.check("expired", lv, rv, Equal(lv, rv))
}

func TestTrackingNoloopOptin(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	p.Do("HELLO", "3")
	p.Do("CLIENT", "TRACKING", "on", "noloop")
	p.Do("GET", "k")
	p.Do("SET", "k", "1") // own write: nothing
	p.Do("GET", "k")
	other.Do("SET", "k", "2")
	p.Receive()
	p.Do("CLIENT", "TRACKING", "off")
	// OPTIN: only reads right after CLIENT CACHING yes are tracked.
	p.Do("CLIENT", "TRACKING", "on", "optin")
	p.Do("GET", "a")
	other.Do("SET", "a", "1")
	p.NoReply(50 * time.Millisecond)
	p.Do("CLIENT", "CACHING", "yes")
	p.Do("CLIENT", "TRACKINGINFO") // CLIENT commands keep the flag
	p.Do("GET", "a")
	p.Do("CLIENT", "TRACKINGINFO")
	p.Do("GET", "b") // flag used up
	other.Do("SET", "a", "2")
	p.Receive()
	other.Do("SET", "b", "2")
	p.NoReply(50 * time.Millisecond)
	// CLIENT CACHING yes before MULTI lasts for the whole transaction.
	p.Do("CLIENT", "CACHING", "yes")
	p.Do("MULTI")
	p.Do("GET", "c")
	p.Do("GET", "d")
	p.Do("EXEC")
	p.Do("CLIENT", "TRACKINGINFO")
	other.Do("MSET", "c", "1", "d", "1")
	p.receiveN(2)
	p.Do("CLIENT", "TRACKING", "off")
	// OPTOUT: everything but reads after CLIENT CACHING no.
	p.Do("CLIENT", "TRACKING", "on", "optout")
	p.Do("CLIENT", "CACHING", "no")
	p.Do("GET", "e")
	p.Do("GET", "f")
	other.Do("SET", "e", "1")
	p.NoReply(50 * time.Millisecond)
	other.Do("SET", "f", "1")
	p.Receive()
}

func TestTrackingBcast(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	p.Do("HELLO", "3")
	p.Do("CLIENT", "TRACKING", "on", "bcast", "prefix", "user:", "prefix", "lock:")
	p.Do("CLIENT", "TRACKINGINFO")
	other.Do("SET", "user:1", "a")
	p.Receive()
	other.Do("SET", "other", "a")
	p.NoReply(50 * time.Millisecond)
	// One write of several keys: one message, keys in order.
	other.Do("MSET", "user:b", "1", "user:a", "2", "lock:x", "3", "zzz", "4")
	p.receiveN(2)
	p.Do("SET", "lock:self", "1") // own writes are included without NOLOOP
	p.Receive()
	p.Do("CLIENT", "TRACKING", "on", "bcast", "noloop")
	p.Do("CLIENT", "TRACKINGINFO")
	p.Do("SET", "mine", "1")
	p.NoReply(50 * time.Millisecond)
	other.Do("SET", "theirs", "1")
	p.Receive()
	p.Do("CLIENT", "TRACKING", "off")
	other.Do("SET", "user:1", "b")
	p.NoReply(50 * time.Millisecond)
}

func TestTrackingRedirectResp2(t *testing.T) {
	p := NewPair(t)
	target := Connect(t)
	l, r := clientIDs(t, target)
	target.Send("SUBSCRIBE", "__redis__:invalidate")
	target.Receive()
	base := []string{"CLIENT", "TRACKING", "on", "redirect"}
	p.doEach(withArgs(base, l), withArgs(base, r))
	p.DoShape("CLIENT", "TRACKINGINFO")
	p.Do("GET", "k")
	p.Do("SET", "k", "1")
	target.Receive()
	p.Do("GET", "k")
	p.Do("FLUSHALL")
	target.Receive()
	// A RESP3 tracking client redirecting to a RESP2 subscriber: Redis
	// encodes the flush null for the tracking client's protocol.
	p.Do("HELLO", "3")
	p.Do("FLUSHDB")
	target.Receive()
	// The target goes away: tracking-redir-broken on the next invalidation.
	p.Do("GET", "k")
	target.L.Close()
	target.R.Close()
	waitClientGone(t, p.L, l)
	waitClientGone(t, p.R, r)
	p.Send("SET", "k", "2")
	p.Receive()
	lv, rv := p.read("tracking-redir-broken")
	p.check("tracking-redir-broken", lv, rv, sameShape(lv, rv) && len(rv.Elems) == 2 && lv.Elems[1].Str == l && rv.Elems[1].Str == r)
	p.DoShape("CLIENT", "TRACKINGINFO")
}

func TestTrackingRedirectNotSubscribed(t *testing.T) {
	p := NewPair(t)
	target := Connect(t)
	l, r := clientIDs(t, target)
	base := []string{"CLIENT", "TRACKING", "on", "redirect"}
	p.doEach(withArgs(base, l), withArgs(base, r))
	p.Do("GET", "k")
	p.Do("SET", "k", "1")
	target.NoReply(50 * time.Millisecond) // RESP2, not subscribed: nothing
	// Any subscription makes it a receiver.
	target.Send("SUBSCRIBE", "something")
	target.Receive()
	p.Do("GET", "k")
	p.Do("SET", "k", "2")
	target.Receive()
	// A RESP3 target gets a push whatever it subscribed to.
	target.Send("UNSUBSCRIBE")
	target.Receive()
	target.Do("HELLO", "3")
	p.Do("GET", "k")
	p.Do("SET", "k", "3")
	target.Receive()
}

func TestTrackingScripts(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	p.Do("HELLO", "3")
	p.Do("CLIENT", "TRACKING", "on")
	// Keys a script reads are tracked for the client running it.
	p.Do("EVAL", "return redis.call('get', KEYS[1])", "1", "a")
	other.Do("SET", "a", "1")
	p.Receive()
	// EVAL_RO's own key arguments are not: only what the script reads.
	p.Do("EVAL_RO", "return 1", "1", "b")
	p.Do("EVAL", "return 1", "1", "c")
	other.Do("MSET", "b", "1", "c", "1")
	p.NoReply(50 * time.Millisecond)
	// A script's own write of a key it read: after the reply.
	p.Do("GET", "d")
	p.Send("EVAL", "redis.call('get', KEYS[1]); return redis.call('set', KEYS[1], 'x')", "1", "d")
	p.receiveN(2)
	p.NoReply(50 * time.Millisecond)
}

func TestTrackingTableMaxKeysConfig(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "GET", "tracking-table-max-keys")
	p.Do("CONFIG", "SET", "tracking-table-max-keys", "-1")
	p.Do("CONFIG", "SET", "tracking-table-max-keys", "1k")
	p.Do("CONFIG", "SET", "tracking-table-max-keys", "2")
	p.Do("HELLO", "3")
	p.Do("CLIENT", "TRACKING", "on")
	p.Do("MGET", "a", "b")
	p.Send("GET", "c") // one key too many: one is forgotten (which one is random)
	p.Receive()
	lv, rv := p.read("evicted")
	p.check("evicted", lv, rv, sameShape(lv, rv))
	p.Do("CONFIG", "SET", "tracking-table-max-keys", "1000000")
	p.Do("CONFIG", "GET", "tracking-table-max-keys")
}

func TestTrackingReplyOff(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	p.Do("HELLO", "3")
	p.Do("CLIENT", "TRACKING", "on")
	p.Do("GET", "k")
	p.Do("GET", "j")
	p.Send("CLIENT", "REPLY", "OFF")
	other.Do("SET", "k", "1")
	p.Receive() // invalidations are pushes: sent with replies off
	p.Send("SET", "j", "1")
	p.Receive()
	p.Send("CLIENT", "REPLY", "ON")
	p.Receive()
}

// waitClientGone polls c until the client with the given ID has left.
func waitClientGone(t *testing.T, c *Conn, id string) {
	t.Helper()
	testutil.Eventually(t, 2*time.Second, func() error {
		if v := c.MustDo(t, "CLIENT", "LIST", "ID", id); v.Str != "" && v.Str != "txt:" { // bulk or RESP3 verbatim
			return fmt.Errorf("%s: client %s still connected: %v", c.Addr, id, v)
		}
		return nil
	})
}
