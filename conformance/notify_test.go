package conformance

import (
	"testing"
	"time"
)

func TestNotifyConfig(t *testing.T) {
	p := NewPair(t)
	defer p.Do("CONFIG", "SET", "notify-keyspace-events", "")
	for _, f := range []string{"", "KEA", "EKA", "KEn", "An", "AKEmn", "gn", "m", "Kx$", "lsK",
		"g$lshzxetd", "g$lshzxetdn", "KEg$lshzxetdm", "E", "AAAA", "nnK"} {
		p.Do("CONFIG", "SET", "notify-keyspace-events", f)
		p.Do("CONFIG", "GET", "notify-keyspace-events")
	}
	p.Do("CONFIG", "SET", "notify-keyspace-events", "Kq")
	p.Do("CONFIG", "SET", "notify-keyspace-events", "KEA ")
	p.Do("CONFIG", "GET", "notify-keyspace-events")
}

// notifySetup enables flags on both servers and returns a subscriber to
// every keyspace and keyevent channel.
func notifySetup(t *testing.T, flags string) (*Pair, *Pair) {
	t.Helper()
	p := NewPair(t)
	p.Do("CONFIG", "SET", "notify-keyspace-events", flags)
	t.Cleanup(func() {
		if c, err := Dial(LockkvAddr()); err == nil {
			c.Do("CONFIG", "SET", "notify-keyspace-events", "")
			c.Close()
		}
		if c, err := Dial(RedisAddr()); err == nil {
			c.Do("CONFIG", "SET", "notify-keyspace-events", "")
			c.Close()
		}
	})
	sub := Connect(t)
	sub.Send("PSUBSCRIBE", "__key*@*__:*")
	sub.Receive()
	return p, sub
}

func TestNotifyKeyspaceAndKeyevent(t *testing.T) {
	p, sub := notifySetup(t, "KEA")
	p.Do("SET", "k", "v")
	sub.receiveN(2) // keyspace first, then keyevent
	p.Do("DEL", "k")
	sub.receiveN(2)
	p.Do("DEL", "k") // nothing deleted: no event
	p.Do("SELECT", "5")
	p.Do("SET", "in5", "v")
	sub.receiveN(2)
	p.Do("SELECT", "0")
	p.Do("CONFIG", "SET", "notify-keyspace-events", "E$")
	p.Do("SET", "k", "v")
	sub.Receive()
	p.Do("HSET", "h", "f", "v") // class h not enabled
	p.Do("CONFIG", "SET", "notify-keyspace-events", "Kg")
	p.Do("SET", "k", "v")
	p.Do("EXPIRE", "k", "100")
	sub.Receive()
	p.Do("CONFIG", "SET", "notify-keyspace-events", "A") // no K or E: nothing
	p.Do("DEL", "k")
	sub.NoReply(50 * time.Millisecond)
}

func TestNotifyExpired(t *testing.T) {
	p, sub := notifySetup(t, "KEx")
	p.Do("SET", "k", "v", "PX", "30")
	// Active expiry publishes "expired" by itself.
	sub.receiveN(2)
	p.Do("SET", "k", "v", "PX", "1")
	time.Sleep(10 * time.Millisecond)
	p.Do("SET", "k", "w") // a write to an expired key reclaims it first
	sub.receiveN(2)
	sub.NoReply(50 * time.Millisecond)
}

func TestNotifyNewAndMiss(t *testing.T) {
	p, sub := notifySetup(t, "KEA")
	p.Do("CONFIG", "SET", "notify-keyspace-events", "KEnm$")
	p.Do("GET", "missing")
	sub.receiveN(2)
	p.Do("SET", "n", "1") // "new" before "set"
	sub.receiveN(4)
	p.Do("SET", "n", "2")
	sub.receiveN(2)
	p.Do("MGET", "n", "x", "y")
	sub.receiveN(4)
	p.Do("EXISTS", "x")
	sub.receiveN(2)
	p.Do("TYPE", "x")
	sub.receiveN(2)
	p.Do("TTL", "x")
	sub.receiveN(2)
	p.Do("SETNX", "n", "3")
	sub.NoReply(50 * time.Millisecond)
}

func TestNotifyResp3(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "SET", "notify-keyspace-events", "KEA")
	defer p.Do("CONFIG", "SET", "notify-keyspace-events", "")
	sub := Connect(t)
	sub.Do("HELLO", "3")
	sub.Do("SUBSCRIBE", "__keyevent@0__:set")
	// RESP3 subscribers may run any command; events arrive as pushes.
	sub.Do("SET", "a", "1")
	sub.Receive()
	p.Do("SET", "b", "1")
	sub.Receive()
	sub.Do("PUBLISH", "__keyevent@0__:set", "self")
	sub.Do("GET", "a")
	sub.Do("UNSUBSCRIBE")
}
