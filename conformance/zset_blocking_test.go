package conformance

import (
	"testing"
	"time"
)

func TestZsetBZPOP(t *testing.T) {
	p := blockPair(t)
	a := blockOn(t, 1, "BZPOPMIN", "z", "0")
	p.Do("ZADD", "z", "2", "b", "1", "a", "3", "c")
	a.Receive()
	p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")

	// Several keys: the first key that gets members serves.
	a.Send("BZPOPMAX", "k1", "k2", "k3", "0")
	waitBlocked(t, 1)
	p.Do("ZADD", "k3", "1", "x", "5", "y")
	a.Receive()
	p.Do("ZRANGE", "k3", "0", "-1", "WITHSCORES")

	// The last member popped deletes the key.
	a.Send("BZPOPMIN", "one", "0")
	waitBlocked(t, 1)
	p.Do("ZINCRBY", "one", "1.5", "m")
	a.Receive()
	p.Do("EXISTS", "one")

	// The same key twice is one wait.
	a.Send("BZPOPMIN", "d", "d", "0")
	waitBlocked(t, 1)
	p.Do("ZADD", "d", "1", "m1", "2", "m2")
	a.Receive()
	p.Do("ZRANGE", "d", "0", "-1")
	a.NoReply(20 * time.Millisecond)

	// Data already there: no blocking at all.
	a.Do("BZPOPMAX", "nokey", "d", "0")
	a.Do("EXISTS", "d")
	a.Do("ZADD", "e", "1", "a", "2", "b")
	a.Do("BZPOPMIN", "e", "0")
	a.Do("BZMPOP", "0", "2", "nokey", "e", "MAX", "COUNT", "5")
	a.Do("EXISTS", "e")
}

func TestZsetBZMPOP(t *testing.T) {
	p := blockPair(t)
	a := blockOn(t, 1, "BZMPOP", "0", "2", "x", "y", "MIN", "COUNT", "2")
	p.Do("ZADD", "y", "3", "c", "1", "a", "2", "b")
	a.Receive()
	p.Do("ZRANGE", "y", "0", "-1", "WITHSCORES")

	a.Send("BZMPOP", "0", "1", "x", "MAX")
	waitBlocked(t, 1)
	p.Do("ZADD", "x", "1", "a", "2", "b")
	a.Receive()
	p.Do("ZRANGE", "x", "0", "-1")

	a.Send("BZMPOP", "0", "1", "w", "MAX", "COUNT", "10")
	waitBlocked(t, 1)
	p.Do("ZADD", "w", "1", "a", "2", "b")
	a.Receive()
	p.Do("EXISTS", "w")

	// Argument errors come before the timeout is looked at.
	for _, args := range [][]string{
		{"0", "0", "k", "MIN"}, {"0", "x", "k", "MIN"}, {"0", "1", "k"}, {"0", "1", "k", "LEFT"},
		{"0", "1", "k", "MIN", "COUNT", "0"}, {"0", "1", "k", "MIN", "COUNT"}, {"0", "1", "k", "MIN", "FOO"},
		{"0", "1", "k", "MIN", "COUNT", "1", "COUNT", "2"}, {"-1", "1", "k", "MIN"}, {"x", "1", "k", "MIN"},
		{"-1", "0", "k", "MIN"}, {"0", "5", "k", "MIN"}, {"0.01", "1", "k", "max", "count", "-1"},
	} {
		p.Do(append([]string{"BZMPOP"}, args...)...)
	}
	p.Do("BZMPOP", "0", "1", "k")
}

func TestZsetBlockingWakeOrder(t *testing.T) {
	p := blockPair(t)
	var cs []*Pair
	for i := 1; i <= 3; i++ {
		cs = append(cs, blockOn(t, i, "BZPOPMIN", "q", "0"))
	}
	p.Do("ZADD", "q", "1", "a", "2", "b")
	cs[0].Receive()
	cs[1].Receive()
	cs[2].NoReply(20 * time.Millisecond)
	p.Do("EXISTS", "q")
	p.Do("ZADD", "q", "3", "c", "4", "d")
	cs[2].Receive()
	p.Do("ZRANGE", "q", "0", "-1")

	// Mixed commands and directions on one key.
	waitBlocked(t, 0)
	b1 := blockOn(t, 1, "BZPOPMAX", "x", "y", "0")
	b2 := blockOn(t, 2, "BZPOPMIN", "y", "0")
	b3 := blockOn(t, 3, "BZMPOP", "0", "2", "z", "y", "MIN", "COUNT", "2")
	p.Do("ZADD", "y", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
	b1.Receive()
	b2.Receive()
	b3.Receive()
	p.Do("ZRANGE", "y", "0", "-1", "WITHSCORES")

	// A list push does not serve a zset waiter; creating the zset does.
	waitBlocked(t, 0)
	b4 := blockOn(t, 1, "BZPOPMIN", "m", "0")
	b5 := blockOn(t, 2, "BLPOP", "m", "0")
	p.Do("RPUSH", "m", "v")
	b5.Receive()
	b4.NoReply(20 * time.Millisecond)
	p.Do("ZADD", "m", "7", "z")
	b4.Receive()
}

func TestZsetBlockingStoreWakes(t *testing.T) {
	p := blockPair(t)
	p.Do("ZADD", "src", "1", "a", "2", "b", "3", "c")
	a := blockOn(t, 1, "BZPOPMAX", "d1", "0")
	p.Do("ZRANGESTORE", "d1", "src", "0", "1")
	a.Receive()
	p.Do("ZRANGE", "d1", "0", "-1")
	a.Send("BZPOPMIN", "d2", "0")
	waitBlocked(t, 1)
	p.Do("ZUNIONSTORE", "d2", "1", "src")
	a.Receive()
	a.Send("BZPOPMIN", "d3", "0")
	waitBlocked(t, 1)
	p.Do("ZINTERSTORE", "d3", "2", "src", "d2")
	a.Receive()
	p.Do("ZRANGE", "d3", "0", "-1")
	// Keys created by COPY, RENAME and MOVE wake waiters too.
	a.Send("BZPOPMIN", "d4", "0")
	waitBlocked(t, 1)
	p.Do("COPY", "src", "d4")
	a.Receive()
	a.Send("BZPOPMAX", "d5", "0")
	waitBlocked(t, 1)
	p.Do("RENAME", "d4", "d5")
	a.Receive()
	p.Do("ZRANGE", "d5", "0", "-1")
	a.Send("BZMPOP", "0", "1", "d6", "MIN", "COUNT", "9")
	waitBlocked(t, 1)
	p.Do("SELECT", "1")
	p.Do("ZADD", "d6", "1", "x")
	p.Do("MOVE", "d6", "0")
	p.Do("SELECT", "0")
	a.Receive()
}

func TestZsetBlockingTimeout(t *testing.T) {
	p := blockPair(t)
	for _, cmd := range [][]string{
		{"BZPOPMIN", "k", "0.05"},
		{"BZPOPMAX", "k", "k2", "0.05"},
		{"BZMPOP", "0.05", "2", "k", "k2", "MIN", "COUNT", "3"},
		{"BZPOPMIN", "k", "0.0001"},
	} {
		p.Send(cmd...)
		p.Receive()
	}
	p.SendRaw([]byte("*3\r\n$8\r\nBZPOPMIN\r\n$1\r\nk\r\n$4\r\n0.05\r\n*2\r\n$4\r\nECHO\r\n$5\r\nafter\r\n"))
	p.Receive()
	p.Receive()
	for _, to := range []string{"-1", "-0.5", "abc", "", " 1", "1 ", "nan", "inf", "1e400", "0x"} {
		p.Do("BZPOPMIN", "k", to)
		p.Do("BZMPOP", to, "1", "k", "MIN")
	}
	p.Do("HELLO", "3")
	for _, cmd := range [][]string{
		{"BZPOPMIN", "k", "0.05"},
		{"BZMPOP", "0.05", "1", "k", "MAX"},
	} {
		p.Send(cmd...)
		p.Receive()
	}
	// RESP3 shapes of served clients.
	a := Connect(t)
	a.Do("HELLO", "3")
	a.Send("BZPOPMIN", "r3", "0")
	waitBlocked(t, 1)
	p.Do("ZADD", "r3", "1.5", "a", "2", "b")
	a.Receive()
	a.Do("BZMPOP", "0", "1", "r3", "MAX", "COUNT", "3")
	a.Send("BZMPOP", "0", "1", "r3", "MAX", "COUNT", "3")
	waitBlocked(t, 1)
	p.Do("ZADD", "r3", "1", "a", "-0", "b", "inf", "c")
	a.Receive()
	a.Do("ZADD", "r3", "1", "x")
	a.Do("BZPOPMAX", "r3", "0")
}

func TestZsetBlockingWrongType(t *testing.T) {
	p := blockPair(t)
	p.Do("SET", "s", "x")
	p.Do("BZPOPMIN", "s", "0")
	p.Do("BZPOPMIN", "nokey", "s", "0")
	p.Do("BZMPOP", "0", "2", "nokey", "s", "MIN")
	p.Do("ZADD", "z", "1", "a")
	p.Do("BZPOPMIN", "z", "s", "0")
	p.Do("BZPOPMIN", "s", "z", "0")
	p.Do("BZPOPMIN", "s", "x")
	// A waiter skips a key that gets another type.
	a := blockOn(t, 1, "BZPOPMIN", "w", "0")
	p.Do("SET", "w", "str")
	a.NoReply(20 * time.Millisecond)
	p.Do("DEL", "w")
	p.Do("ZADD", "w", "1", "m")
	a.Receive()
	p.Do("BZPOPMIN")
	p.Do("BZPOPMIN", "k")
	p.Do("BZMPOP", "0", "1")
}

func TestZsetBlockingNoBlockContexts(t *testing.T) {
	p := blockPair(t)
	// BZPOPMIN/BZPOPMAX are noscript; BZMPOP answers at once in scripts.
	p.Do("EVAL", "return redis.call('bzpopmin','k',0)", "1", "k")
	p.Do("EVAL", "return redis.call('bzpopmax','k',0)", "1", "k")
	p.Do("EVAL", "return redis.call('bzmpop',0,1,'k','min')", "1", "k")
	p.Do("ZADD", "k", "1", "a")
	p.Do("EVAL", "return redis.call('bzmpop',0,1,'k','min')", "1", "k")
	// A script adds then pops: the waiter is not served.
	a := blockOn(t, 1, "BZPOPMIN", "k", "0")
	p.Do("EVAL", "redis.call('zadd',KEYS[1],1,'x'); return redis.call('zpopmin',KEYS[1])", "1", "k")
	a.NoReply(20 * time.Millisecond)
	p.Do("ZADD", "k", "2", "y")
	a.Receive()

	m := Connect(t)
	m.Do("MULTI")
	for _, cmd := range [][]string{
		{"BZPOPMIN", "nokey", "0"},
		{"BZPOPMAX", "nokey", "0"},
		{"BZMPOP", "0", "1", "nokey", "MIN"},
		{"BZPOPMIN", "nokey", "-1"},
	} {
		m.Do(cmd...)
	}
	m.Do("EXEC")
}

func TestZsetBlockingNotifications(t *testing.T) {
	p := blockPair(t)
	p.Do("CONFIG", "SET", "notify-keyspace-events", "KEA")
	t.Cleanup(func() { p.Do("CONFIG", "SET", "notify-keyspace-events", "") })
	sub := Connect(t)
	sub.Do("PSUBSCRIBE", "__key*__:*")
	subscribeDrain(sub)
	a := blockOn(t, 1, "BZPOPMIN", "z", "0")
	p.Do("ZADD", "z", "1", "a")
	a.Receive()
	drainEvents(t, p, sub)
}
