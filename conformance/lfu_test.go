package conformance

import (
	"strconv"
	"testing"
	"time"
)

// OBJECT FREQ under an LFU maxmemory-policy, deterministic with
// lfu-log-factor 0 (every access counts) and lfu-decay-time 0 (no decay):
// which commands count as accesses, what a new, overwritten, renamed or
// copied key starts from.
func TestObjectFreqLFU(t *testing.T) {
	p := NewPair(t)
	t.Cleanup(func() {
		p.Do("CONFIG", "SET", "maxmemory-policy", "noeviction", "lfu-log-factor", "10", "lfu-decay-time", "1")
	})
	p.Do("SET", "lru", "x")
	p.Do("OBJECT", "FREQ", "nokey")
	p.Do("OBJECT", "FREQ", "lru")
	p.Do("CONFIG", "SET", "maxmemory-policy", "volatile-lru")
	p.Do("OBJECT", "FREQ", "lru")
	p.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu", "lfu-log-factor", "0", "lfu-decay-time", "0")
	p.Do("OBJECT", "IDLETIME", "lru")
	p.Do("OBJECT", "IDLETIME", "nokey")
	p.Do("OBJECT", "FREQ", "nokey")
	p.Do("CONFIG", "GET", "maxmemory-policy")
	p.DoPairsSorted("CONFIG", "GET", "lfu-*")

	steps := [][]string{
		{"SET", "b", "x"},
		{"GET", "b"},
		{"GET", "b"},
		// Not accesses.
		{"TYPE", "b"},
		{"EXISTS", "b"},
		{"TTL", "b"},
		{"PTTL", "b"},
		{"OBJECT", "ENCODING", "b"},
		{"DBSIZE"},
		{"DEBUG", "SLEEP", "0"},
		// Writes are accesses; an overwritten key keeps its counter.
		{"SET", "b", "y"},
		{"APPEND", "b", "z"},
		{"SETRANGE", "b", "0", "q"},
		{"SETRANGE", "b", "0", ""},
		{"STRLEN", "b"},
		{"GETRANGE", "b", "0", "1"},
		{"SET", "b", "v", "GET"},
		{"SETNX", "b", "w"},
		{"MSETNX", "b", "w", "c", "w"},
		{"MSET", "b", "w", "c", "w"},
		{"GETSET", "b", "u"},
		{"INCR", "b"},
		{"SET", "big", "123456"},
		{"INCR", "big"},
		{"INCRBYFLOAT", "big", "1.5"},
		{"SET", "bits", ""},
		{"SETBIT", "bits", "3", "1"},
		{"GETBIT", "bits", "3"},
		{"BITCOUNT", "bits"},
		{"BITOP", "OR", "bits", "bits", "b"},
		{"HSET", "h", "f", "v"},
		{"HSET", "h", "g", "v"},
		{"HGET", "h", "f"},
		{"HINCRBY", "h", "n", "1"},
		{"HGETALL", "h"},
		{"HLEN", "h"},
		{"EXPIRE", "h", "100"},
		{"PERSIST", "h"},
		{"RENAME", "h", "h2"},
		{"RENAMENX", "b", "h2"},
		{"COPY", "h2", "h3"},
		{"COPY", "h2", "h3"},
		{"COPY", "h2", "h3", "REPLACE"},
		{"MOVE", "h3", "1"},
		{"MOVE", "h2", "1"},
		{"LPUSH", "l", "a", "b"},
		{"LPOP", "l"},
		{"LRANGE", "l", "0", "-1"},
		{"LMOVE", "l", "l2", "LEFT", "RIGHT"},
		{"RPUSH", "l", "x"},
		{"SADD", "s", "a"},
		{"SISMEMBER", "s", "a"},
		{"SMEMBERS", "s"},
		{"SADD", "s2", "b"},
		{"SMOVE", "s", "s2", "a"},
		{"SUNIONSTORE", "s3", "s", "s2"},
		{"SUNIONSTORE", "s3", "s", "s2"},
		{"ZADD", "z", "1", "a"},
		{"ZSCORE", "z", "a"},
		{"ZINCRBY", "z", "1", "a"},
		{"ZRANGESTORE", "z2", "z", "0", "-1"},
		{"ZRANGESTORE", "z2", "z", "0", "-1"},
		{"SORT", "l", "ALPHA", "STORE", "l3"},
		{"SORT", "l", "ALPHA", "STORE", "l3"},
		{"EVAL", "redis.call('get', KEYS[1]) return redis.call('object', 'freq', KEYS[1])", "1", "c"},
		{"EVAL", "redis.call('hset', KEYS[1], 'a', 'b') return redis.call('exists', KEYS[1])", "1", "h9"},
		{"TOUCH", "c", "c", "nokey"},
		{"UNLINK", "nokey"},
	}
	keys := []string{"b", "c", "big", "bits", "h", "h2", "h3", "h9", "l", "l2", "l3", "s", "s2", "s3", "z", "z2"}
	for _, st := range steps {
		p.Do(st...)
		for _, k := range keys {
			p.Do("OBJECT", "FREQ", k)
		}
	}
	p.Do("SELECT", "1")
	p.Do("OBJECT", "FREQ", "h2")
	p.Do("OBJECT", "FREQ", "h3")
	p.Do("SELECT", "0")

	// Inside MULTI/EXEC.
	p.Do("MULTI")
	p.Do("GET", "c")
	p.Do("OBJECT", "FREQ", "c")
	p.Do("SET", "c", "x")
	p.Do("OBJECT", "FREQ", "c")
	p.Do("EXEC")

	// A policy switch converts nothing: volatile-lfu reads the same data.
	p.Do("CONFIG", "SET", "maxmemory-policy", "volatile-lfu")
	p.Do("OBJECT", "FREQ", "c")
	p.Do("GET", "c")
	p.Do("OBJECT", "FREQ", "c")

	// The counter saturates at 255.
	for i := 0; i < 260; i++ {
		p.Do("HGET", "h9", "a")
	}
	p.Do("OBJECT", "FREQ", "h9")

	// LFU data read as an LRU clock, and an LRU time read as LFU data (the
	// low 8 bits of the LRU clock, in seconds): both depend on the time,
	// so they may differ by one when a second passes in between.
	p.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lru")
	p.Do("OBJECT", "FREQ", "c")
	p.DoApprox(1, "OBJECT", "IDLETIME", "c")
	p.Do("SET", "lru2", "x")
	p.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu")
	p.DoApprox(1, "OBJECT", "FREQ", "lru2")
}

// The integers 0..9999 are one object each in Redis (with maxmemory 0):
// their counter is the object's, counted by accesses to any key holding
// it, and a key overwritten with one gives it its own counter. The
// object's starting counter comes from the server's start time, so it is
// saturated first and only the changes are compared.
func TestObjectFreqLFUSharedIntegers(t *testing.T) {
	const l0Missing = -1
	p := NewPair(t)
	t.Cleanup(func() {
		p.Do("CONFIG", "SET", "maxmemory-policy", "noeviction", "lfu-log-factor", "10", "lfu-decay-time", "1")
	})
	p.Do("CONFIG", "SET", "maxmemory-policy", "allkeys-lfu", "lfu-log-factor", "0", "lfu-decay-time", "0")
	freq := func(key string) (int64, int64) {
		t.Helper()
		lv, rv := p.both([]string{"OBJECT", "FREQ", key})
		if lv.Null && rv.Null {
			return l0Missing, l0Missing
		}
		l, errL := strconv.ParseInt(lv.Str, 10, 64)
		r, errR := strconv.ParseInt(rv.Str, 10, 64)
		if lv.Kind != ':' || rv.Kind != ':' || errL != nil || errR != nil {
			t.Fatalf("OBJECT FREQ %s: lockkv %v, redis %v", key, lv, rv)
		}
		return l, r
	}
	p.Do("SET", "n", "7")
	// The shared object's counter starts from each server's start time:
	// saturate it (log factor 0: every access counts) so that what is
	// copied from it into a key later (APPEND on a shared value) is the
	// same on both servers.
	for i := 0; i < 260; i++ {
		p.Do("GET", "n")
	}
	l0, r0 := freq("n")
	for _, st := range [][]string{
		{"GET", "n"},
		{"SET", "m", "7"},
		{"GET", "m"},
		{"APPEND", "m", "1"},
		{"SET", "x", "x"},
		{"GET", "x"},
		{"GET", "x"},
		{"SET", "x", "7"},
		{"INCR", "m"},
		{"SET", "m", "7"},
	} {
		p.Do(st...)
		for _, k := range []string{"n", "m", "x"} {
			l, r := freq(k)
			if l == l0Missing {
				continue
			}
			if p.Do("OBJECT", "REFCOUNT", k).Str != "2147483647" {
				l0, r0 := int64(0), int64(0) // not shared: compared as is
				comparisons.Add(1)
				if l-l0 != r-r0 {
					divergences.Add(1)
					t.Errorf("after %q: OBJECT FREQ %s is %d on lockkv, %d on redis", st, k, l, r)
				}
				continue
			}
			comparisons.Add(1)
			if l-l0 != r-r0 {
				divergences.Add(1)
				t.Errorf("after %q: OBJECT FREQ %s moved by %d on lockkv, %d on redis", st, k, l-l0, r-r0)
			}
		}
	}
}

// Writes are accesses for OBJECT IDLETIME too (lookupKeyWrite); DEL of
// another key is not. After 2.1 s the written keys are idle 0 (1 when a
// second passes between the servers), the others 2.
func TestObjectIdletimeAfterWrite(t *testing.T) {
	p := NewPair(t)
	for _, k := range []string{"h", "s", "l", "idle"} {
		p.Do("RPUSH", k, "x")
	}
	p.Do("DEL", "h", "s")
	p.Do("HSET", "h", "f", "v")
	p.Do("SET", "s", "x")
	time.Sleep(2100 * time.Millisecond)
	p.Do("HSET", "h", "g", "v")
	p.Do("EXPIRE", "s", "100")
	p.Do("RENAMENX", "l", "s")
	p.Do("DEL", "idle2")
	for _, k := range []string{"h", "s", "l", "idle"} {
		p.DoApprox(1, "OBJECT", "IDLETIME", k)
	}
}
