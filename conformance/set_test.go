package conformance

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestSetSADD(t *testing.T) {
	p := NewPair(t)
	p.Do("SADD", "s", "3", "1", "2", "1")
	p.Do("SADD", "s", "2")
	p.Do("SMEMBERS", "s") // intset: ascending
	encoding(p, "s")
	p.Do("SADD", "s", "-5", "9223372036854775807", "-9223372036854775808")
	p.Do("SMEMBERS", "s")
	encoding(p, "s")
	p.Do("SADD", "s", "a")
	encoding(p, "s")
	p.DoSorted("SMEMBERS", "s")
	p.Do("SADD", "s")
	p.Do("SADD")
	p.Do("SET", "str", "x")
	p.Do("SADD", "str", "a")
	p.Do("TYPE", "s")
	// Members that are not canonical integers make a hashtable.
	for _, m := range []string{"01", "+1", "-0", " 1", "1.0", "9223372036854775808", ""} {
		key := "nc" + m
		p.Do("SADD", key, m)
		encoding(p, key)
		p.Do("SISMEMBER", key, m)
		p.Do("SMEMBERS", key)
	}
	p.Do("SADD", "bin", "\x00\r\n", "x")
	p.DoSorted("SMEMBERS", "bin")
}

func TestSetSREM(t *testing.T) {
	p := NewPair(t)
	p.Do("SADD", "s", "1", "2", "3")
	p.Do("SREM", "s", "1", "1", "x", "01")
	p.Do("SMEMBERS", "s")
	p.Do("SREM", "s", "2", "3", "4")
	p.Do("EXISTS", "s")
	p.Do("SREM", "nokey", "a")
	p.Do("SREM", "s")
	p.Do("SADD", "h", "a", "b", "c")
	p.Do("SREM", "h", "a", "b")
	p.Do("SMEMBERS", "h")
	p.Do("SREM", "h", "c")
	p.Do("EXISTS", "h")
	p.Do("SET", "str", "x")
	p.Do("SREM", "str", "a")
}

func TestSetSISMEMBER(t *testing.T) {
	p := NewPair(t)
	p.Do("SADD", "i", "1", "2", "-3")
	p.Do("SADD", "h", "a", "1")
	for _, key := range []string{"i", "h", "nokey"} {
		for _, m := range []string{"1", "a", "-3", "01", "x", ""} {
			p.Do("SISMEMBER", key, m)
		}
		p.Do("SMISMEMBER", key, "1", "a", "-3", "nosuch")
	}
	p.Do("SISMEMBER", "i")
	p.Do("SISMEMBER", "i", "1", "2")
	p.Do("SMISMEMBER", "i")
	p.Do("SET", "str", "x")
	p.Do("SISMEMBER", "str", "a")
	p.Do("SMISMEMBER", "str", "a")
}

func TestSetSMEMBERSSCARD(t *testing.T) {
	p := NewPair(t)
	p.Do("SMEMBERS", "nokey")
	p.Do("SCARD", "nokey")
	p.Do("SADD", "s", "10", "-1", "5")
	p.Do("SMEMBERS", "s")
	p.Do("SCARD", "s")
	p.Do("SMEMBERS", "s", "x")
	p.Do("SCARD")
	p.Do("SET", "str", "x")
	p.Do("SMEMBERS", "str")
	p.Do("SCARD", "str")
}

func TestSetEncodingThresholds(t *testing.T) {
	p := NewPair(t)
	// 512 integers (set-max-intset-entries) stay an intset; 513 convert.
	args := []string{"SADD", "s"}
	for i := 512; i > 0; i-- {
		args = append(args, strconv.Itoa(i*7))
	}
	p.Do(args...)
	encoding(p, "s")
	p.Do("SMEMBERS", "s")
	p.Do("SADD", "s", "7")
	p.Do("SADD", "s", "1")
	encoding(p, "s")
	p.Do("SCARD", "s")
	p.DoSorted("SMEMBERS", "s")
	p.Do("SISMEMBER", "s", "14")
	p.Do("SREM", "s", "14", "1")
	encoding(p, "s")
	p.Do("SCARD", "s")
	args = append([]string{"SADD", "t"}, args[2:]...)
	args = append(args, "513")
	p.Do(args...)
	encoding(p, "t")
	// A string member converts at once.
	p.Do("SADD", "u", "1", "2", "x", "3")
	encoding(p, "u")
	p.DoSorted("SMEMBERS", "u")
}

func TestSetSPOP(t *testing.T) {
	p := NewPair(t)
	p.Do("SPOP", "nokey")
	p.Do("SPOP", "nokey", "3")
	p.Do("SPOP", "nokey", "0")
	p.Do("SPOP", "nokey", "-1")
	p.Do("SPOP", "nokey", "x")
	p.Do("SPOP", "nokey", "1", "2")
	p.Do("SET", "str", "x")
	p.Do("SPOP", "str")
	p.Do("SPOP", "str", "1")
	p.Do("SPOP", "str", "-1")
	p.Do("SPOP", "str", "0")

	p.Do("SADD", "one", "x")
	p.Do("SPOP", "one")
	p.Do("EXISTS", "one")
	p.Do("SADD", "one", "5")
	p.Do("SPOP", "one", "1")
	p.Do("EXISTS", "one")

	for _, set := range [][]string{{"1", "2", "3", "4", "5", "6", "7", "8", "9", "10"}, {"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}} {
		model := map[string]bool{}
		for _, m := range set {
			model[m] = true
		}
		p.Do(append([]string{"SADD", "s"}, set...)...)
		// The servers pop different members: remove what each popped from
		// the other so that their contents stay equal.
		syncPop := func(lv, rv Value) {
			t.Helper()
			lm, rm := members(lv), members(rv)
			if lv.Kind == '$' {
				lm, rm = []string{lv.Str}, []string{rv.Str}
			}
			for _, m := range lm {
				if !model[m] {
					t.Errorf("SPOP gave %q, not a member", m)
				}
			}
			for _, m := range append(lm, rm...) {
				delete(model, m)
			}
			p.L.Do(append([]string{"SREM", "s"}, rm...)...)
			p.R.Do(append([]string{"SREM", "s"}, lm...)...)
		}
		lv, rv := p.DoShape("SPOP", "s")
		syncPop(lv, rv)
		p.DoSorted("SMEMBERS", "s")
		lv, rv = p.DoShape("SPOP", "s", "2")
		syncPop(lv, rv)
		p.DoSorted("SMEMBERS", "s")
		lv, rv = p.DoShape("SPOP", "s", "5")
		syncPop(lv, rv)
		p.Do("SCARD", "s")
		p.DoSorted("SMEMBERS", "s")
		p.DoSorted("SPOP", "s", "100")
		p.Do("EXISTS", "s")
	}
	// Big hashtable set: SPOP with count leaves the right cardinality.
	args := []string{"SADD", "big"}
	for i := 0; i < 600; i++ {
		args = append(args, "m"+strconv.Itoa(i))
	}
	p.Do(args...)
	p.DoShape("SPOP", "big", "10")
	p.DoShape("SPOP", "big", "500")
	p.Do("SCARD", "big")
	p.DoShape("SPOP", "big", "89")
	p.Do("SCARD", "big")
	p.DoShape("SPOP", "big", "1")
	p.Do("EXISTS", "big")
}

func TestSetSRANDMEMBER(t *testing.T) {
	p := NewPair(t)
	p.Do("SRANDMEMBER", "nokey")
	p.Do("SRANDMEMBER", "nokey", "5")
	p.Do("SRANDMEMBER", "nokey", "-5")
	p.Do("SRANDMEMBER", "nokey", "0")
	p.Do("SRANDMEMBER", "nokey", "x")
	p.Do("SRANDMEMBER", "nokey", "1", "2")
	p.Do("SRANDMEMBER", "nokey", "-9223372036854775808")
	p.Do("SET", "str", "x")
	p.Do("SRANDMEMBER", "str")
	p.Do("SRANDMEMBER", "str", "1")
	p.Do("SRANDMEMBER", "str", "x")
	for _, n := range []int{5, 600} {
		for _, prefix := range []string{"", "m"} {
			key := prefix + "s" + strconv.Itoa(n)
			model := map[string]bool{}
			args := []string{"SADD", key}
			for i := 0; i < n; i++ {
				m := prefix + strconv.Itoa(i)
				model[m] = true
				args = append(args, m)
			}
			p.Do(args...)
			lv, _ := p.DoShape("SRANDMEMBER", key)
			if !model[lv.Str] {
				t.Errorf("SRANDMEMBER gave %q", lv.Str)
			}
			for _, count := range []int{1, 2, n - 1, n, n + 3, -1, -3, -n, -2 * n, 0} {
				lv, _ := p.DoShape("SRANDMEMBER", key, strconv.Itoa(count))
				seen := map[string]bool{}
				for _, m := range members(lv) {
					if !model[m] {
						t.Errorf("%s: SRANDMEMBER gave %q", key, m)
					}
					if count > 0 && seen[m] {
						t.Errorf("%s: SRANDMEMBER %d repeated %q", key, count, m)
					}
					seen[m] = true
				}
			}
			p.DoSorted("SRANDMEMBER", key, strconv.Itoa(n+1))
			p.Do("SRANDMEMBER", key, "-9223372036854775808")
			p.Do("SCARD", key)
		}
	}
}

func TestSetRESP3(t *testing.T) {
	p := NewPair(t)
	p.Do("HELLO", "3")
	p.Do("SADD", "s", "3", "1", "2")
	p.Do("SMEMBERS", "s")
	p.Do("SMEMBERS", "nokey")
	p.Do("SISMEMBER", "s", "1")
	p.Do("SMISMEMBER", "s", "1", "x")
	p.Do("SPOP", "nokey")
	p.Do("SPOP", "nokey", "2")
	p.Do("SPOP", "s", "0")
	p.Do("SRANDMEMBER", "nokey")
	p.Do("SRANDMEMBER", "nokey", "2")
	p.DoShape("SRANDMEMBER", "s")
	p.DoShape("SRANDMEMBER", "s", "2")
	p.DoShape("SRANDMEMBER", "s", "-5")
	p.Do("SRANDMEMBER", "s", "3")
	p.DoShape("SPOP", "s")
	p.DoShape("SPOP", "s", "1")
	p.DoShape("SPOP", "s", "5")
	p.Do("EXISTS", "s")
	p.Do("SADD", "h", "a", "b", "c")
	p.DoSorted("SMEMBERS", "h")
	p.DoSorted("SPOP", "h", "3")
}

// TestSetNotifications checks keyspace events: sadd, srem, spop, and del
// when the set is emptied (t_set.c).
func TestSetNotifications(t *testing.T) {
	p := NewPair(t)
	sub := Connect(t)
	sub.Do("PSUBSCRIBE", "__key*__:*")
	p.Do("CONFIG", "SET", "notify-keyspace-events", "KEA")
	defer p.Do("CONFIG", "SET", "notify-keyspace-events", "")
	p.Do("SADD", "s", "1", "2", "3", "4")
	p.Do("SADD", "s", "1") // no event
	p.Do("SREM", "s", "x") // no event
	p.Do("SREM", "s", "1")
	p.Do("SPOP", "s", "0") // no event
	p.DoShape("SPOP", "s")
	p.DoShape("SPOP", "s", "1")
	p.Do("SREM", "s", "1", "2", "3", "4")
	p.Do("SADD", "t", "1", "2")
	p.DoSorted("SPOP", "t", "5")
	p.Do("SADD", "u", "1")
	p.Do("SPOP", "u")
	// sadd srem spop spop srem del sadd spop del sadd spop del
	for i := 0; i < 2*12; i++ {
		sub.Receive()
	}
	sub.NoReply(100 * time.Millisecond)
}

func TestSetSSCAN(t *testing.T) {
	p := NewPair(t)
	p.Do("SSCAN", "nokey", "0")
	p.Do("SSCAN", "nokey", "x")
	p.Do("SSCAN", "s")
	p.Do("SET", "str", "x")
	p.Do("SSCAN", "str", "0")
	p.Do("SADD", "s", "30", "-2", "11", "1")
	p.Do("SSCAN", "s", "0")
	p.Do("SSCAN", "s", "77", "COUNT", "1")
	p.Do("SSCAN", "s", "0", "MATCH", "1*")
	p.Do("SSCAN", "s", "0", "MATCH", "-*")
	p.Do("SSCAN", "s", "0", "COUNT", "0")
	p.Do("SSCAN", "s", "0", "MATCH")
	p.Do("SSCAN", "s", "0", "TYPE", "set")
	p.Do("SADD", "m", "a", "b", "c")
	compareScans(t, p, false, "SSCAN", "m") // small hashtable: any order
	args := []string{"SADD", "big"}
	for i := 0; i < 1000; i++ {
		args = append(args, "m"+strconv.Itoa(i))
	}
	p.Do(args...)
	compareScans(t, p, false, "SSCAN", "big")
	compareScans(t, p, false, "SSCAN", "big", "COUNT", "50")
	compareScans(t, p, false, "SSCAN", "big", "MATCH", "m9?", "COUNT", "3")
	args = []string{"SADD", "ints"}
	for i := 0; i < 600; i++ {
		args = append(args, strconv.Itoa(i))
	}
	p.Do(args...)
	compareScans(t, p, false, "SSCAN", "ints", "MATCH", "*7*")
}

func TestSetCOPY(t *testing.T) {
	p := NewPair(t)
	p.Do("SADD", "s", "1", "2")
	p.Do("COPY", "s", "s2")
	p.Do("SADD", "s2", "3")
	p.Do("SMEMBERS", "s")
	p.Do("SMEMBERS", "s2")
	encoding(p, "s2")
	p.Do("SADD", "h", "a", "b")
	p.Do("COPY", "h", "h2")
	p.Do("SREM", "h2", "a")
	p.DoSorted("SMEMBERS", "h")
	p.DoSorted("SMEMBERS", "h2")
	encoding(p, "h2")
	p.Do("TYPE", "h2")
}

func TestSetSMOVE(t *testing.T) {
	p := NewPair(t)
	p.Do("SADD", "a", "1", "2", "x")
	p.Do("SADD", "b", "2")
	p.Do("SMOVE", "a", "b", "1")
	p.Do("SMOVE", "a", "b", "2") // already in b: removed from a only
	p.Do("SMEMBERS", "a")
	p.Do("SMEMBERS", "b")
	p.Do("SMOVE", "a", "b", "nosuch")
	p.Do("SMOVE", "a", "a", "x")
	p.Do("SMOVE", "a", "a", "nosuch")
	p.Do("SMOVE", "a", "new", "x") // empties a, creates new
	p.Do("EXISTS", "a")
	p.Do("SMEMBERS", "new")
	encoding(p, "new")
	p.Do("SMOVE", "nokey", "b", "1")
	p.Do("SET", "str", "v")
	p.Do("SMOVE", "nokey", "str", "1")
	p.Do("SMOVE", "str", "b", "1")
	p.Do("SMOVE", "b", "str", "1")
	p.Do("SMOVE", "b", "str", "nosuch")
	p.Do("SMOVE", "b", "c")
	p.Do("SADD", "ints", "1", "2")
	p.Do("SADD", "strs", "a")
	p.Do("SMOVE", "strs", "ints", "a")
	encoding(p, "ints")
	p.DoSorted("SMEMBERS", "ints")
}

func TestSetSINTER(t *testing.T) {
	p := NewPair(t)
	p.Do("SADD", "a", "1", "2", "3", "4", "5")
	p.Do("SADD", "b", "2", "3", "5", "7")
	p.Do("SADD", "c", "3", "5", "x")
	p.Do("SADD", "d", "x", "y", "3")
	p.Do("SINTER", "a", "b")
	p.Do("SINTER", "a")
	p.DoSorted("SINTER", "a", "b", "c")
	p.DoSorted("SINTER", "c", "d")
	p.Do("SINTER", "a", "nokey")
	p.Do("SINTER", "nokey", "a")
	p.Do("SINTER", "a", "a")
	p.Do("SINTER")
	p.Do("SET", "str", "v")
	p.Do("SINTER", "a", "str")
	p.Do("SINTER", "nokey", "str")
	p.Do("SINTERCARD", "2", "a", "b")
	p.Do("SINTERCARD", "2", "a", "b", "LIMIT", "2")
	p.Do("SINTERCARD", "2", "a", "b", "limit", "0")
	p.Do("SINTERCARD", "2", "a", "b", "LIMIT", "100")
	p.Do("SINTERCARD", "1", "a")
	p.Do("SINTERCARD", "2", "a", "nokey")
	p.Do("SINTERCARD", "2", "a", "str")
	p.Do("SINTERCARD", "0", "a")
	p.Do("SINTERCARD", "-1", "a")
	p.Do("SINTERCARD", "x", "a")
	p.Do("SINTERCARD", "3", "a", "b")
	p.Do("SINTERCARD", "1", "a", "LIMIT", "-1")
	p.Do("SINTERCARD", "1", "a", "LIMIT", "x")
	p.Do("SINTERCARD", "1", "a", "LIMIT")
	p.Do("SINTERCARD", "1", "a", "FOO", "1")
	p.Do("SINTERCARD", "1")
	p.Do("SINTERSTORE", "dst", "a", "b")
	p.Do("SMEMBERS", "dst")
	encoding(p, "dst")
	p.Do("SINTERSTORE", "dst", "c", "d")
	p.DoSorted("SMEMBERS", "dst")
	encoding(p, "dst")
	p.Do("PEXPIRE", "dst", "100000")
	p.Do("SINTERSTORE", "dst", "a", "c")
	p.Do("TTL", "dst")
	p.Do("SINTERSTORE", "dst", "a", "nokey") // empty: dst deleted
	p.Do("EXISTS", "dst")
	p.Do("SINTERSTORE", "dst", "a", "d")
	p.Do("SINTERSTORE", "str", "a", "b") // overwrites any type
	p.Do("SMEMBERS", "str")
	p.Do("SET", "str", "v")
	p.Do("SINTERSTORE", "dst", "str")
	p.Do("SINTERSTORE", "dst")
	p.Do("SINTERSTORE", "a", "a", "b") // destination among the sources
	p.Do("SMEMBERS", "a")
}

func TestSetSUNIONSDIFF(t *testing.T) {
	p := NewPair(t)
	p.Do("SADD", "a", "5", "1", "3")
	p.Do("SADD", "b", "2", "3", "-4")
	p.Do("SADD", "c", "x", "3")
	p.Do("SUNION", "a", "b") // intset result: ascending
	p.DoSorted("SUNION", "a", "b", "c")
	p.Do("SUNION", "a", "nokey")
	p.Do("SUNION", "nokey")
	p.Do("SDIFF", "a", "b")
	p.Do("SDIFF", "a", "nokey", "b")
	p.Do("SDIFF", "nokey", "a")
	p.Do("SDIFF", "a", "a")
	p.Do("SDIFF", "a", "b", "a")
	p.DoSorted("SDIFF", "c", "a")
	p.Do("SET", "str", "v")
	p.Do("SUNION", "a", "str")
	p.Do("SDIFF", "nokey", "str")
	p.Do("SUNION")
	p.Do("SUNIONSTORE", "u", "a", "b")
	p.Do("SMEMBERS", "u")
	encoding(p, "u")
	p.Do("SUNIONSTORE", "u", "a", "c")
	encoding(p, "u")
	p.Do("SUNIONSTORE", "u", "nokey")
	p.Do("EXISTS", "u")
	p.Do("SDIFFSTORE", "d", "a", "b")
	p.Do("SMEMBERS", "d")
	p.Do("SDIFFSTORE", "d", "a", "a")
	p.Do("EXISTS", "d")
	p.Do("SDIFFSTORE", "d", "a", "str")
	p.Do("SDIFFSTORE", "d")
	p.Do("SUNIONSTORE", "a", "a", "b")
	p.Do("SMEMBERS", "a")
	// SDIFF's algorithm choice shows in the stored encoding: filtering the
	// first set (algorithm 1) stores an intset for a few integers, while
	// copying it and removing the others (algorithm 2, chosen when the first
	// set dwarfs the rest) leaves the converted hashtable.
	args := []string{"SADD", "big"}
	for i := 0; i < 600; i++ {
		args = append(args, strconv.Itoa(i))
	}
	p.Do(args...)
	args = []string{"SADD", "most"}
	for i := 0; i < 590; i++ {
		args = append(args, strconv.Itoa(i))
	}
	p.Do(args...)
	p.Do("SDIFFSTORE", "r1", "big", "most")
	encoding(p, "r1")
	p.Do("SMEMBERS", "r1")
	p.Do("SDIFFSTORE", "r2", "big", "a")
	encoding(p, "r2")
	p.Do("SDIFFSTORE", "r3", "big", "most", "most", "most")
	encoding(p, "r3")
	p.Do("SMEMBERS", "r3")
	p.Do("SDIFFSTORE", "r4", "b", "big")
	p.Do("SMEMBERS", "r4")
	p.Do("SDIFFSTORE", "r6", "big", "a", "b")
	encoding(p, "r6")
	p.Do("SCARD", "r6")
	p.Do("SDIFFSTORE", "r7", "big", "a", "b", "c", "nokey")
	encoding(p, "r7")
	p.DoSorted("SDIFF", "big", "a", "b")
	p.Do("SUNIONSTORE", "r5", "big", "a")
	encoding(p, "r5")
	p.Do("SCARD", "r5")
}

// TestHashSetCommandTable compares the hash and set command specs (arity,
// flags, key range, ACL categories: the first seven fields of COMMAND INFO)
// with Redis's; key specs are the COMMAND family's approximation.
func TestHashSetCommandTable(t *testing.T) {
	p := NewPair(t)
	for _, name := range []string{"hset", "hsetnx", "hget", "hmset", "hmget", "hincrby", "hincrbyfloat", "hdel",
		"hlen", "hstrlen", "hkeys", "hvals", "hgetall", "hexists", "hscan", "hrandfield",
		"sadd", "srem", "sismember", "smismember", "smembers", "scard", "spop", "srandmember", "smove",
		"sinter", "sintercard", "sinterstore", "sunion", "sunionstore", "sdiff", "sdiffstore", "sscan"} {
		lv, err := p.L.Do("COMMAND", "INFO", name)
		if err != nil {
			t.Fatal(err)
		}
		rv, err := p.R.Do("COMMAND", "INFO", name)
		if err != nil {
			t.Fatal(err)
		}
		head := func(v Value) Value {
			if len(v.Elems) == 1 && len(v.Elems[0].Elems) >= 7 {
				v.Elems[0].Elems = v.Elems[0].Elems[:7]
			}
			return v
		}
		lv, rv = head(lv), head(rv)
		p.check([]string{"COMMAND", "INFO", name}, lv, rv, Equal(lv, rv))
	}
}

// TestHashSetConfigThresholds moves the encoding thresholds with CONFIG SET.
func TestHashSetConfigThresholds(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "SET", "hash-max-listpack-entries", "4")
	defer func() {
		p.Do("CONFIG", "SET", "hash-max-listpack-entries", "512")
		p.Do("CONFIG", "SET", "hash-max-listpack-value", "64")
		p.Do("CONFIG", "SET", "set-max-intset-entries", "512")
	}()
	p.Do("CONFIG", "SET", "hash-max-listpack-value", "8")
	p.Do("CONFIG", "SET", "set-max-intset-entries", "4")
	p.Do("HSET", "h", "a", "1", "b", "2", "c", "3", "d", "4")
	encoding(p, "h")
	p.Do("HGETALL", "h")
	p.Do("HSET", "h", "e", "5")
	encoding(p, "h")
	p.Do("HSET", "v", "a", "12345678")
	encoding(p, "v")
	p.Do("HSET", "v", "b", "123456789")
	encoding(p, "v")
	p.Do("HINCRBYFLOAT", "w", "f", "0.125")
	encoding(p, "w")
	p.Do("HINCRBYFLOAT", "w", "f", "1000000.125")
	encoding(p, "w")
	p.Do("SADD", "s", "1", "2", "3", "4")
	encoding(p, "s")
	p.Do("SADD", "s", "5")
	encoding(p, "s")
	p.Do("SUNIONSTORE", "u", "s")
	encoding(p, "u")
	p.Do("CONFIG", "SET", "hash-max-listpack-entries", "0")
	p.Do("CONFIG", "SET", "hash-max-listpack-value", "0")
	p.Do("CONFIG", "SET", "set-max-intset-entries", "0")
	p.Do("HSET", "z", "a", "1")
	encoding(p, "z")
	p.Do("SADD", "zs", "1")
	encoding(p, "zs")
	p.Do("SMEMBERS", "zs")
}

// TestHashSetNewKeyEvents checks the "new" event (flag n) of every hash and
// set command that creates a key.
func TestHashSetNewKeyEvents(t *testing.T) {
	p := NewPair(t)
	sub := Connect(t)
	sub.Do("PSUBSCRIBE", "__key*__:*")
	p.Do("CONFIG", "SET", "notify-keyspace-events", "Ehsgn")
	defer p.Do("CONFIG", "SET", "notify-keyspace-events", "")
	p.Do("HSET", "h1", "a", "1")           // new, hset
	p.Do("HSETNX", "h2", "a", "1")         // new, hset
	p.Do("HINCRBY", "h3", "a", "1")        // new, hincrby
	p.Do("HINCRBYFLOAT", "h4", "a", "1.5") // new, hincrbyfloat
	p.Do("HINCRBY", "h5", "a", "x")        // nothing
	p.Do("SADD", "s1", "a")                // new, sadd
	p.Do("SMOVE", "s1", "s2", "a")         // srem, del, new, sadd
	p.Do("SADD", "s3", "a", "b")           // new, sadd
	p.Do("SINTERSTORE", "s4", "s2", "s3")  // new, sinterstore
	p.Do("SINTERSTORE", "s4", "s2", "s3")  // sinterstore
	p.Do("SUNIONSTORE", "s5", "s3")        // new, sunionstore
	p.Do("SDIFFSTORE", "s5", "s3", "s3")   // del
	p.Do("SDIFFSTORE", "s6", "s3", "s2")   // new, sdiffstore
	for i := 0; i < 24; i++ {
		sub.Receive()
	}
	sub.NoReply(100 * time.Millisecond)
}

// hsKeyspaceStats returns the keyspace_hits/misses lines of INFO stats.
func hsKeyspaceStats(v Value) string {
	var out []string
	for _, l := range strings.Split(v.Str, "\r\n") {
		if strings.HasPrefix(l, "keyspace_") {
			out = append(out, l)
		}
	}
	return strings.Join(out, ",")
}

// TestHashSetKeyspaceStats checks which hash and set commands count
// keyspace hits and misses (lookupKeyRead) and which do not
// (lookupKeyWrite).
func TestHashSetKeyspaceStats(t *testing.T) {
	p := NewPair(t)
	p.Do("CONFIG", "RESETSTAT")
	p.Do("HSET", "h", "a", "1")
	p.Do("SADD", "s", "a")
	for _, c := range [][]string{{"HGET", "h", "a"}, {"HGET", "nokey", "a"}, {"HMGET", "h", "a"}, {"HLEN", "nokey"},
		{"HRANDFIELD", "h", "2"}, {"HSCAN", "h", "0"}, {"HEXISTS", "h", "a"}, {"HGETALL", "nokey"}, {"HSETNX", "h", "a", "2"},
		{"HINCRBY", "h", "a", "1"}, {"HDEL", "nokey", "a"}, {"SISMEMBER", "s", "a"}, {"SMEMBERS", "nokey"},
		{"SINTER", "s", "nokey"}, {"SINTERSTORE", "d", "s", "s"}, {"SINTERCARD", "2", "s", "d"}, {"SMOVE", "s", "d2", "a"},
		{"SRANDMEMBER", "nokey", "3"}, {"SUNION", "d", "d2"}, {"SPOP", "nokey"}, {"SREM", "d", "x"}, {"SSCAN", "d", "0"}} {
		p.Do(c...)
		lv, err := p.L.Do("INFO", "stats")
		if err != nil {
			t.Fatal(err)
		}
		rv, err := p.R.Do("INFO", "stats")
		if err != nil {
			t.Fatal(err)
		}
		a, b := hsKeyspaceStats(lv), hsKeyspaceStats(rv)
		p.check(append([]string{"INFO stats after"}, c...), Value{Kind: '+', Str: a}, Value{Kind: '+', Str: b}, a == b)
	}
}
