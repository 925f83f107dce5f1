package conformance

import (
	"testing"

	"github.com/lockkv/lockkv/lockscripts"
	"github.com/lockkv/lockkv/scriptcache"
)

// maxmemory under the noeviction policy: CONFIG SET maxmemory 1 puts both
// servers over the limit, whatever they hold.

// overMaxmemory sets maxmemory on both servers (from a connection of its
// own, so that the pair's transactions are not disturbed) and puts it
// back to 0 when the test ends, failed or not.
func overMaxmemory(t *testing.T, value string) {
	t.Helper()
	c := Connect(t)
	c.Do("CONFIG", "SET", "maxmemory", value)
	t.Cleanup(func() {
		c := Connect(t)
		c.Do("CONFIG", "SET", "maxmemory", "0")
	})
}

// TestMaxmemoryNoevictionCommands: commands flagged denyoom are refused
// with Redis's OOM error before they run; reads, deletions, expiry
// changes, PUBLISH and administration run; maxmemory 0 lets writes in
// again.
func TestMaxmemoryNoevictionCommands(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "pre", "1")
	p.Do("HSET", "h", "f", "1")
	p.Do("RPUSH", "l", "a", "b")
	p.Do("SET", "ttl", "x", "EX", "100")
	overMaxmemory(t, "1")
	for _, cmd := range [][]string{
		{"SET", "k", "v"}, {"SETNX", "a", "b"}, {"INCR", "n"}, {"APPEND", "pre", "x"},
		{"MSET", "a", "1", "b", "2"}, {"HSET", "h", "g", "2"}, {"HINCRBY", "h", "f", "1"},
		{"LPUSH", "l", "c"}, {"SADD", "s", "m"}, {"ZADD", "z", "1", "m"}, {"SETRANGE", "pre", "0", "x"},
		{"COPY", "pre", "pre2"}, {"GETSET", "pre", "2"},
		{"GET", "k"}, {"GET", "pre"}, {"HGET", "h", "f"}, {"LRANGE", "l", "0", "-1"}, {"EXISTS", "pre"},
		{"EXPIRE", "pre", "100"}, {"PEXPIRE", "pre", "100000"}, {"PERSIST", "pre"}, {"TTL", "ttl"},
		{"PUBLISH", "ch", "x"}, {"HDEL", "h", "nosuch"}, {"LPOP", "l"}, {"GETDEL", "nosuch"},
		{"DEL", "pre"}, {"UNLINK", "ttl"}, {"DBSIZE"}, {"PING"}, {"ECHO", "x"},
		{"SET", "k", "v"}, {"INCR", "nosuch"}, {"SET"}, {"NOSUCH"},
		{"CONFIG", "GET", "maxmemory"}, {"CONFIG", "GET", "maxmemory-policy"},
	} {
		p.Do(cmd...)
	}
	// A transaction is refused as it is built, EXEC discards it.
	p.Do("MULTI")
	p.Do("GET", "k")
	p.Do("SET", "k", "v")
	p.Do("PING")
	p.Do("EXEC")
	p.Do("MULTI")
	p.Do("DISCARD")
	p.Do("MULTI")
	p.Do("EXEC")
	// RESP2 subscribed context: the OOM check comes first.
	s := Connect(t)
	s.Do("SUBSCRIBE", "c")
	s.Do("SET", "a", "b")
	s.Do("PING")
	p.Do("FLUSHALL")
	p.Do("CONFIG", "SET", "maxmemory", "0")
	p.Do("SET", "k", "v")
	p.Do("GET", "k")
}

// TestMaxmemoryNoevictionTransactions: EXEC is refused when what it
// queued may grow memory, however long ago it was queued.
func TestMaxmemoryNoevictionTransactions(t *testing.T) {
	p := NewPair(t)
	other := Connect(t)
	t.Cleanup(func() { Connect(t).Do("CONFIG", "SET", "maxmemory", "0") })
	p.Do("MULTI")
	p.Do("SET", "k", "v")
	p.Do("GET", "k")
	other.Do("CONFIG", "SET", "maxmemory", "1")
	p.Do("EXEC")
	p.Do("GET", "k")
	other.Do("CONFIG", "SET", "maxmemory", "0")
	// Reads and deletions only: EXEC runs, and a script without flags in
	// it is judged by the state EXEC started in.
	p.Do("SET", "k", "v")
	p.Do("MULTI")
	p.Do("GET", "k")
	p.Do("DEL", "k")
	p.Do("EVAL", "return redis.call('set','x','1')", "0")
	other.Do("CONFIG", "SET", "maxmemory", "1")
	p.Do("EXEC")
	p.Do("EXISTS", "k", "x")
}

// TestMaxmemoryNoevictionScripts follows script.c: a script without
// flags starts, and its first command that may grow memory fails with
// OOM unless it wrote before; a script with flags is refused at once
// unless it allows OOM or does not write; a script called inside EXEC,
// queued before it was loaded, is refused when it starts.
func TestMaxmemoryNoevictionScripts(t *testing.T) {
	p := NewPair(t)
	p.Do("SCRIPT", "FLUSH")
	p.Do("FUNCTION", "FLUSH")
	p.Do("CONFIG", "RESETSTAT")
	t.Cleanup(func() {
		c := Connect(t)
		c.Do("CONFIG", "SET", "maxmemory", "0")
		c.Do("FUNCTION", "FLUSH")
		c.Do("SCRIPT", "FLUSH")
	})
	p.Do("FUNCTION", "LOAD", "#!lua name=lib\n"+
		"redis.register_function('f', function() return redis.call('set','fk','1') end)\n"+
		"redis.register_function{function_name='ro', callback=function() return 1 end, flags={'no-writes'}}\n"+
		"redis.register_function{function_name='ao', callback=function() return redis.call('set','fk','2') end, flags={'allow-oom'}}")
	shebang := "#!lua\nreturn redis.call('set','x','1')"
	loaded := p.Do("SCRIPT", "LOAD", "return redis.call('set','y','1')").Str
	p.Do("SET", "k", "v")
	p.Do("MULTI")
	p.Do("EVALSHA", scriptcache.SHA1Hex([]byte(shebang)), "0")
	p.Do("EVAL", "return 1", "0")
	overMaxmemory(t, "1")
	p.Do("SCRIPT", "LOAD", shebang)
	p.Do("EXEC") // the EVALSHA was queued unknown: refused as it starts
	for _, cmd := range [][]string{
		{"EVAL", "return 1", "0"},
		{"EVAL", "return redis.call('set','k','v')", "0"},
		{"EVAL", "return redis.call('get','k')", "0"},
		{"EVAL", "redis.call('del','k'); return redis.call('set','k','v')", "0"},
		{"EVAL", "pcall(redis.call,'set','k','v'); return redis.call('del','k')", "0"},
		{"EVAL", "return redis.pcall('set','k','v')", "0"},
		{"EVAL", "#!lua\nreturn 1", "0"},
		{"EVAL", "#!lua flags=no-writes\nreturn 1", "0"},
		{"EVAL", "#!lua flags=allow-oom\nreturn redis.call('set','k','v')", "0"},
		{"EVAL", "#!lua flags=bad\nreturn 1", "0"},
		{"EVAL_RO", "return redis.call('set','k','v')", "0"},
		{"EVALSHA", loaded, "0"},
		{"EVALSHA", scriptcache.SHA1Hex([]byte(shebang)), "0"},
		{"EVALSHA", "0000000000000000000000000000000000000000", "0"},
		{"FCALL", "f", "0"}, {"FCALL_RO", "f", "0"}, {"FCALL", "ro", "0"}, {"FCALL_RO", "ro", "0"},
		{"FCALL", "ao", "0"}, {"FCALL", "nosuch", "0"},
		{"FUNCTION", "LOAD", "#!lua name=lib2\nredis.register_function('g', function() return 1 end)"},
		{"FUNCTION", "DELETE", "lib"},
		{"SCRIPT", "LOAD", "return 2"},
		{"GET", "k"}, {"GET", "fk"},
	} {
		p.Do(cmd...)
	}
	p.Do("INFO", "errorstats")
}

// TestMaxmemoryNoevictionLockScripts: a release that only deletes
// (redsync's, and a forced unlock) works over maxmemory; Redisson's
// reentrant release decrements its hold count with HINCRBY first, which
// may grow memory, so Redis refuses it, and lockkv too. Acquiring is
// refused; renewing a lease runs.
func TestMaxmemoryNoevictionLockScripts(t *testing.T) {
	p := newLockPair(t)
	const lock, ch, owner = "lock", "redisson_lock__channel:{lock}", "8743c9c0:1"
	p.run(lockscripts.Acquire, []string{lock}, "30000", owner)
	p.Do("SET", "simple", "token")
	for _, s := range []string{lockscripts.Release, lockscripts.Renew, lockscripts.ForceRelease, lockscripts.Acquire} {
		p.Do("SCRIPT", "LOAD", s)
	}
	overMaxmemory(t, "1")
	p.run(lockscripts.Acquire, []string{"other"}, "30000", owner)
	p.run(lockscripts.Renew, []string{lock}, "30000", owner)
	p.run(lockscripts.Release, []string{lock, ch}, "0", "30000", owner)
	p.Do("EVAL", `if redis.call("GET", KEYS[1]) == ARGV[1] then return redis.call("DEL", KEYS[1]) else return 0 end`, "1", "simple", "token")
	p.run(lockscripts.ForceRelease, []string{lock, ch}, "0")
	p.Do("EXISTS", lock, "simple")
}
