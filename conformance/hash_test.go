package conformance

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// encoding compares OBJECT ENCODING of key.
func encoding(p *Pair, key string) {
	p.t.Helper()
	p.Do("OBJECT", "ENCODING", key)
}

// members returns the bulk strings of an array/set/map reply (one level,
// nested pairs flattened).
func members(v Value) []string {
	var out []string
	for _, e := range v.Elems {
		if len(e.Elems) > 0 {
			out = append(out, members(e)...)
			continue
		}
		out = append(out, e.Str)
	}
	return out
}

func rep(s string, n int) string { return strings.Repeat(s, n) }

func TestHashHSET(t *testing.T) {
	p := NewPair(t)
	p.Do("HSET", "h", "f", "v")
	p.Do("HSET", "h", "f", "v2")
	p.Do("HGET", "h", "f")
	p.Do("HSET", "h", "a", "1", "b", "2", "a", "3")
	p.Do("HGETALL", "h")
	p.Do("HSET", "h", "odd", "1", "x")
	p.Do("HSET", "h", "f")
	p.Do("HSET", "h")
	p.Do("HMSET", "h", "x", "1", "y", "2")
	p.Do("HMSET", "h", "x")
	p.Do("HMSET", "h", "x", "1", "y")
	p.Do("HGETALL", "h")
	p.Do("HSET", "h", "", "")
	p.Do("HGET", "h", "")
	p.Do("HSET", "h", "bin\x00\r\n", "\x00\xff")
	p.Do("HGET", "h", "bin\x00\r\n")
	p.Do("HGET", "h", "nosuch")
	p.Do("HGET", "nokey", "f")
	p.Do("HGET", "h")
	p.Do("HGET", "h", "f", "g")
	p.Do("HMGET", "h", "f", "nosuch", "a", "")
	p.Do("HMGET", "nokey", "a", "b")
	p.Do("HMGET", "h")
	p.Do("SET", "s", "x")
	p.Do("HSET", "s", "f", "v")
	p.Do("HMSET", "s", "f", "v")
	p.Do("HGET", "s", "f")
	p.Do("HMGET", "s", "f")
	p.Do("GET", "s")
	p.Do("TYPE", "h")
	p.Do("hset", "H2", "F", "V")
	p.Do("HgEt", "H2", "F")
}

func TestHashHSETNX(t *testing.T) {
	p := NewPair(t)
	p.Do("HSETNX", "h", "f", "1")
	p.Do("HSETNX", "h", "f", "2")
	p.Do("HGET", "h", "f")
	p.Do("HSETNX", "h", "g", "3")
	p.Do("HGETALL", "h")
	p.Do("HSETNX", "h", "f")
	p.Do("HSETNX", "h", "f", "1", "x")
	p.Do("SET", "s", "x")
	p.Do("HSETNX", "s", "f", "1")
	// A long value converts only when the field is actually set.
	p.Do("HSETNX", "h", "f", rep("v", 65))
	encoding(p, "h")
	p.Do("HSETNX", "h2", "f", rep("v", 65))
	encoding(p, "h2")
	p.DoPairsSorted("HGETALL", "h2")
}

func TestHashHDEL(t *testing.T) {
	p := NewPair(t)
	p.Do("HSET", "h", "a", "1", "b", "2", "c", "3")
	p.Do("HDEL", "h", "a")
	p.Do("HDEL", "h", "a")
	p.Do("HDEL", "h", "nosuch", "b", "b")
	p.Do("HGETALL", "h")
	p.Do("HDEL", "h", "c", "c", "x")
	p.Do("EXISTS", "h")
	p.Do("HDEL", "nokey", "a")
	p.Do("HDEL", "h")
	p.Do("SET", "s", "x")
	p.Do("HDEL", "s", "a")
	// Deleting from the middle keeps the listpack order of the others.
	p.Do("HSET", "o", "a", "1", "b", "22", "c", "333", "d", "4444")
	p.Do("HDEL", "o", "b")
	p.Do("HSET", "o", "b", "x")
	p.Do("HGETALL", "o")
	p.Do("HKEYS", "o")
	p.Do("HVALS", "o")
}

func TestHashHLENHSTRLENHEXISTS(t *testing.T) {
	p := NewPair(t)
	p.Do("HSET", "h", "a", "1", "b", "hello", "c", "")
	p.Do("HLEN", "h")
	p.Do("HLEN", "nokey")
	p.Do("HLEN")
	p.Do("HSTRLEN", "h", "b")
	p.Do("HSTRLEN", "h", "c")
	p.Do("HSTRLEN", "h", "nosuch")
	p.Do("HSTRLEN", "nokey", "a")
	p.Do("HSTRLEN", "h")
	p.Do("HEXISTS", "h", "a")
	p.Do("HEXISTS", "h", "nosuch")
	p.Do("HEXISTS", "nokey", "a")
	p.Do("HEXISTS", "h")
	p.Do("SET", "s", "x")
	p.Do("HLEN", "s")
	p.Do("HSTRLEN", "s", "a")
	p.Do("HEXISTS", "s", "a")
	p.Do("HINCRBY", "h", "n", "-12345")
	p.Do("HSTRLEN", "h", "n")
}

func TestHashHGETALL(t *testing.T) {
	p := NewPair(t)
	p.Do("HGETALL", "nokey")
	p.Do("HKEYS", "nokey")
	p.Do("HVALS", "nokey")
	p.Do("HSET", "h", "z", "1", "a", "2", "m", "3")
	p.Do("HGETALL", "h")
	p.Do("HKEYS", "h")
	p.Do("HVALS", "h")
	p.Do("HGETALL", "h", "x")
	p.Do("HKEYS")
	p.Do("SET", "s", "x")
	p.Do("HGETALL", "s")
	p.Do("HKEYS", "s")
	p.Do("HVALS", "s")
}

func TestHashHINCRBY(t *testing.T) {
	p := NewPair(t)
	p.Do("HINCRBY", "h", "f", "5")
	p.Do("HINCRBY", "h", "f", "-7")
	p.Do("HINCRBY", "h", "f", "0")
	p.Do("HGET", "h", "f")
	for _, bad := range []string{"abc", "1.5", "+1", " 1", "1 ", "01", "", "9223372036854775808", "-9223372036854775809", "1e3", "0x10"} {
		p.Do("HINCRBY", "h", "f", bad)
	}
	p.Do("HINCRBY", "h", "f", "-0")
	p.Do("HSET", "h", "s", "abc", "sp", " 1", "fl", "1.5", "big", "9223372036854775808", "lz", "01")
	for _, f := range []string{"s", "sp", "fl", "big", "lz"} {
		p.Do("HINCRBY", "h", f, "1")
	}
	p.Do("HSET", "h", "max", "9223372036854775807", "min", "-9223372036854775808")
	p.Do("HINCRBY", "h", "max", "1")
	p.Do("HINCRBY", "h", "max", "0")
	p.Do("HINCRBY", "h", "max", "-1")
	p.Do("HINCRBY", "h", "min", "-1")
	p.Do("HINCRBY", "h", "min", "9223372036854775807")
	p.Do("HINCRBY", "h", "min", "1")
	p.Do("HINCRBY", "h", "new", "9223372036854775807")
	p.Do("HINCRBY", "h", "new", "9223372036854775807")
	p.Do("HINCRBY", "h", "neg", "-9223372036854775808")
	p.Do("HINCRBY", "h", "neg", "-1")
	p.Do("HGETALL", "h")
	p.Do("HINCRBY", "h", "f")
	p.Do("HINCRBY", "h", "f", "1", "2")
	p.Do("SET", "s", "x")
	p.Do("HINCRBY", "s", "f", "1")
	p.Do("HINCRBY", "s", "f", "x") // the increment is checked first
	p.Do("HINCRBY", "nokey", "f", "x")
	p.Do("EXISTS", "nokey")
}

func TestHashHINCRBYFLOAT(t *testing.T) {
	p := NewPair(t)
	p.Do("HINCRBYFLOAT", "h", "f", "0.1")
	p.Do("HINCRBYFLOAT", "h", "f", "0.2")
	p.Do("HINCRBYFLOAT", "h", "f", "-0.3")
	p.Do("HINCRBYFLOAT", "h", "g", "10")
	p.Do("HINCRBYFLOAT", "h", "g", "1e20")
	p.Do("HINCRBYFLOAT", "h", "tiny", "1.5e-20")
	for _, incr := range []string{"inf", "-inf", "+inf", "Infinity", "nan", "NaN", "abc", "", " 1", "1 ", "1/2", "1_0", "1,5", "1e", "0x", ".", "1e99999", "1e-99999"} {
		p.Do("HINCRBYFLOAT", "h", "e", incr)
	}
	p.Do("EXISTS", "nokey")
	p.Do("HINCRBYFLOAT", "nokey", "f", "x")
	p.Do("EXISTS", "nokey")
	cases := [][2]string{
		{"0.1", "0.2"}, {"1.1", "2.2"}, {"3.0e3", "1"}, {"10.5", "-0.5"}, {"1e308", "1e308"},
		{"-1", "0.99999999999999999"}, {"1.23456789012345678", "0"}, {"0x1p-2", "0"}, {"0X1.8P1", "0x10"},
		{"1e-18", "0"}, {"0.000001", "0"}, {"123456789012345678", "1"}, {"-0.1", "0.1"},
		{"1e4932", "1e4932"}, {"1.18e4932", "0"}, {"7", "-7"}, {"1e-4940", "0"}, {"1.5", "1e-17"},
		{"0.5e-16", "0"}, {"1.000000000000000005", "0"}, {"+.5", ".5"}, {"5.", "1"}, {"1e", "1"},
		{"inf", "1"}, {"-INFINITY", "1"}, {"nan", "1"}, {"abc", "1"}, {"-0", "-0"}, {"0e99999", "1"},
		{"9223372036854775807", "1"}, {"0.30000000000000004", "0"}, {"100", "1e-30"}, {"1.5e300", "-1.5e300"},
		{"3", "-3.0000000000000000001"}, {"-5", "2"}, {"2.5", "-2.5"}, {"1", "1e-5000"},
	}
	for _, c := range cases {
		p.Do("HSET", "t", "f", c[0])
		p.Do("HINCRBYFLOAT", "t", "f", c[1])
		p.Do("HGET", "t", "f")
	}
	p.Do("HINCRBYFLOAT", "h", "f")
	p.Do("HINCRBYFLOAT", "h", "f", "1", "2")
	p.Do("SET", "s", "x")
	p.Do("HINCRBYFLOAT", "s", "f", "1")
	p.Do("HINCRBYFLOAT", "s", "f", "x")
	p.Do("HINCRBYFLOAT", "s", "f", "inf")
	// A result longer than hash-max-listpack-value converts the hash.
	p.Do("HSET", "c", "f", "1")
	encoding(p, "c")
	p.Do("HINCRBYFLOAT", "c", "f", "1e70")
	encoding(p, "c")
}

func TestHashEncodingThresholds(t *testing.T) {
	p := NewPair(t)
	// 512 entries (hash-max-listpack-entries) stay a listpack (insertion
	// order), the 513th converts.
	for i := 0; i < 512; i++ {
		p.Send("HSET", "h", "f"+strconv.Itoa(511-i), strconv.Itoa(i))
	}
	for i := 0; i < 512; i++ {
		p.Receive()
	}
	encoding(p, "h")
	p.Do("HLEN", "h")
	p.Do("HGETALL", "h")
	p.Do("HKEYS", "h")
	p.Do("HSET", "h", "f0", "again")
	encoding(p, "h")
	p.Do("HSET", "h", "f512", "x")
	encoding(p, "h")
	p.Do("HLEN", "h")
	p.DoPairsSorted("HGETALL", "h")
	p.DoSorted("HKEYS", "h")
	p.DoSorted("HVALS", "h")
	p.Do("HGET", "h", "f5")
	p.Do("HDEL", "h", "f5", "f6")
	p.Do("HEXISTS", "h", "f5")
	p.Do("HINCRBY", "h", "f7", "10")
	p.Do("HINCRBYFLOAT", "h", "f8", "0.5")
	p.Do("HSTRLEN", "h", "f0")
	p.Do("HMGET", "h", "f1", "f5", "f512")
	p.Do("HSETNX", "h", "f9", "x")
	p.Do("HSETNX", "h", "f5", "x")

	// One HSET of 513 pairs converts in one go.
	args := []string{"HSET", "big"}
	for i := 0; i < 513; i++ {
		args = append(args, "k"+strconv.Itoa(i), "v")
	}
	p.Do(args...)
	encoding(p, "big")

	// 64-byte fields and values fit; 65 bytes convert.
	p.Do("HSET", "v", rep("f", 64), rep("v", 64))
	encoding(p, "v")
	p.Do("HSET", "v", "x", rep("v", 65))
	encoding(p, "v")
	p.DoPairsSorted("HGETALL", "v")
	p.Do("HSET", "k", rep("f", 65), "1")
	encoding(p, "k")
	p.Do("HMSET", "m", "a", "1", "b", rep("v", 65))
	encoding(p, "m")
	p.Do("HINCRBY", "i", rep("f", 65), "1")
	encoding(p, "i")
	p.Do("HINCRBY", "i", rep("f", 65), "1")
	p.Do("HINCRBYFLOAT", "j", rep("f", 65), "1.5")
	encoding(p, "j")
	// A hashtable never converts back.
	p.Do("HDEL", "v", "x")
	encoding(p, "v")
	p.Do("HDEL", "v", rep("f", 64))
	p.Do("EXISTS", "v")
}

func TestHashHRANDFIELD(t *testing.T) {
	p := NewPair(t)
	p.Do("HRANDFIELD", "nokey")
	p.Do("HRANDFIELD", "nokey", "5")
	p.Do("HRANDFIELD", "nokey", "-5", "WITHVALUES")
	p.Do("HRANDFIELD", "nokey", "0")
	p.Do("HRANDFIELD", "nokey", "x")
	p.Do("HRANDFIELD", "nokey", "1", "x")
	p.Do("HRANDFIELD", "nokey", "1", "withvalues", "x")
	p.Do("SET", "s", "x")
	p.Do("HRANDFIELD", "s")
	p.Do("HRANDFIELD", "s", "1")
	p.Do("HRANDFIELD", "s", "x")
	p.Do("HRANDFIELD", "s", "0")

	for _, n := range []int{3, 600} { // listpack, hashtable
		key := "h" + strconv.Itoa(n)
		model := map[string]string{}
		args := []string{"HSET", key}
		for i := 0; i < n; i++ {
			f, v := "f"+strconv.Itoa(i), "v"+strconv.Itoa(i)
			model[f] = v
			args = append(args, f, v)
		}
		p.Do(args...)
		checkFields := func(v Value, withValues bool, unique bool) {
			t.Helper()
			seen := map[string]bool{}
			ms := members(v)
			step := 1
			if withValues {
				step = 2
			}
			for i := 0; i < len(ms); i += step {
				val, ok := model[ms[i]]
				if !ok {
					t.Errorf("%s: HRANDFIELD returned unknown field %q", key, ms[i])
				}
				if withValues && ms[i+1] != val {
					t.Errorf("%s: field %q came with %q, want %q", key, ms[i], ms[i+1], val)
				}
				if unique && seen[ms[i]] {
					t.Errorf("%s: field %q returned twice", key, ms[i])
				}
				seen[ms[i]] = true
			}
		}
		lv, _ := p.DoShape("HRANDFIELD", key)
		if _, ok := model[lv.Str]; !ok {
			t.Errorf("HRANDFIELD gave %q", lv.Str)
		}
		for _, count := range []int{1, 2, n - 1, n, n + 5, -1, -2, -n, -3 * n} {
			c := strconv.Itoa(count)
			lv, _ = p.DoShape("HRANDFIELD", key, c)
			checkFields(lv, false, count > 0)
			lv, _ = p.DoShape("HRANDFIELD", key, c, "WITHVALUES")
			checkFields(lv, true, count > 0)
		}
		p.Do("HRANDFIELD", key, "0", "withvalues")
		// count >= size returns everything: compare as a set.
		p.DoSorted("HRANDFIELD", key, strconv.Itoa(n+1))
		p.DoPairsSorted("HRANDFIELD", key, strconv.Itoa(n), "WITHVALUES")
	}
	p.Do("HRANDFIELD", "h3", "-9223372036854775808")
	p.Do("HRANDFIELD", "h3", "-9223372036854775807", "x")
	p.Do("HRANDFIELD", "h3", "9223372036854775807", "withvalues")
	p.Do("HRANDFIELD", "h3", "-4611686018427387904", "withvalues")
	p.Do("HRANDFIELD", "h3", "4611686018427387904", "withvalues")
	p.DoPairsSorted("HRANDFIELD", "h3", "4611686018427387903", "withvalues")
	p.Do("HRANDFIELD", "h3", "9223372036854775808")
}

// TestHashRedissonLock is the lock-hash pattern Redisson's RLock runs (in
// Lua there; with plain commands here).
func TestHashRedissonLock(t *testing.T) {
	p := NewPair(t)
	const lock, owner = "myLock", "8743c9c0-0795-4907-87fd-6c719a6b4586:1"
	// tryLock: the lock is free.
	p.Do("EXISTS", lock)
	p.Do("HINCRBY", lock, owner, "1")
	p.Do("PEXPIRE", lock, "30000")
	// reentry
	p.Do("HEXISTS", lock, owner)
	p.Do("HINCRBY", lock, owner, "1")
	p.Do("PEXPIRE", lock, "30000")
	p.DoLease("PTTL", lock)
	// another owner is refused
	p.Do("HEXISTS", lock, "other:2")
	// unlock twice
	p.Do("HINCRBY", lock, owner, "-1")
	p.Do("HINCRBY", lock, owner, "-1")
	p.Do("HGET", lock, owner)
	p.Do("DEL", lock)
	p.Do("EXISTS", lock)
	p.Do("HEXISTS", lock, owner)
	// unlock by HDEL empties the hash, deleting the key
	p.Do("HSET", lock, owner, "1")
	p.Do("HDEL", lock, owner)
	p.Do("EXISTS", lock)
	encoding(p, lock)
	// a lease that runs out
	p.Do("HINCRBY", lock, owner, "1")
	p.Do("PEXPIRE", lock, "50")
	testutil.Eventually(t, 3*time.Second, func() error {
		lv, _ := p.L.Do("EXISTS", lock)
		rv, _ := p.R.Do("EXISTS", lock)
		if lv.Str != "0" || rv.Str != "0" {
			return fmt.Errorf("lease did not run out: lockkv %v redis %v", lv, rv)
		}
		return nil
	})
	p.Do("HEXISTS", lock, owner)
	p.Do("HINCRBY", lock, owner, "1")
	p.Do("HGETALL", lock)
}

func TestHashRESP3(t *testing.T) {
	p := NewPair(t)
	p.Do("HELLO", "3")
	p.Do("HSET", "h", "a", "1", "b", "2")
	p.Do("HGETALL", "h")
	p.Do("HGETALL", "nokey")
	p.Do("HKEYS", "h")
	p.Do("HVALS", "nokey")
	p.Do("HGET", "h", "nosuch")
	p.Do("HGET", "nokey", "a")
	p.Do("HMGET", "h", "a", "nosuch")
	p.Do("HMGET", "nokey", "a")
	p.Do("HINCRBYFLOAT", "h", "a", "1.5")
	p.Do("HRANDFIELD", "nokey")
	p.Do("HRANDFIELD", "nokey", "3", "withvalues")
	p.DoShape("HRANDFIELD", "h")
	p.DoShape("HRANDFIELD", "h", "1", "withvalues")
	p.DoShape("HRANDFIELD", "h", "-5", "withvalues")
	p.Do("HRANDFIELD", "h", "2", "withvalues")
	p.Do("HRANDFIELD", "h", "5")
	args := []string{"HSET", "big"}
	for i := 0; i < 600; i++ {
		args = append(args, "k"+strconv.Itoa(i), "v")
	}
	p.Do(args...)
	p.DoSorted("HGETALL", "big")
	p.DoShape("HRANDFIELD", "big", "10", "withvalues")
	p.DoShape("HRANDFIELD", "big", "500", "withvalues")
	p.DoShape("HRANDFIELD", "big", "-10", "withvalues")
}

// TestHashNotifications checks keyspace events: hset, hdel, hincrby,
// hincrbyfloat, and del when the hash is emptied (t_hash.c).
func TestHashNotifications(t *testing.T) {
	p := NewPair(t)
	sub := Connect(t)
	sub.Do("PSUBSCRIBE", "__key*__:*")
	p.Do("CONFIG", "SET", "notify-keyspace-events", "KEA")
	defer p.Do("CONFIG", "SET", "notify-keyspace-events", "")
	p.Do("HSET", "h", "a", "1")
	p.Do("HSETNX", "h", "a", "1") // no event
	p.Do("HSETNX", "h", "b", "1")
	p.Do("HMSET", "h", "c", "1")
	p.Do("HINCRBY", "h", "a", "1")
	p.Do("HINCRBYFLOAT", "h", "a", "1.5")
	p.Do("HDEL", "h", "nosuch") // no event
	p.Do("HDEL", "h", "a", "b")
	p.Do("HDEL", "h", "c")
	p.Do("HINCRBY", "h", "a", "x")
	for i := 0; i < 2*8; i++ {
		sub.Receive()
	}
	sub.NoReply(100 * time.Millisecond)
}

// fullScan runs a SCAN-family command to completion on one server and
// returns every element seen (pairs joined as "field=value" when pairs).
func fullScan(t *testing.T, c *Conn, pairs bool, args ...string) map[string]int {
	t.Helper()
	seen := map[string]int{}
	cursor := "0"
	for i := 0; ; i++ {
		if i > 10000 {
			t.Fatalf("%s: scan does not end", c.Addr)
		}
		a := append([]string{args[0], args[1], cursor}, args[2:]...)
		v, err := c.Do(a...)
		if err != nil || v.Kind != '*' || len(v.Elems) != 2 {
			t.Fatalf("%s: %q: %v %v", c.Addr, a, v, err)
		}
		els := v.Elems[1].Elems
		step := 1
		if pairs {
			step = 2
		}
		for j := 0; j < len(els); j += step {
			k := els[j].Str
			if pairs {
				k += "=" + els[j+1].Str
			}
			seen[k]++
		}
		cursor = v.Elems[0].Str
		if cursor == "0" {
			return seen
		}
	}
}

// compareScans requires both servers' full scans to return the same
// elements (each at least once, as SCAN guarantees).
func compareScans(t *testing.T, p *Pair, pairs bool, args ...string) {
	t.Helper()
	l, r := fullScan(t, p.L, pairs, args...), fullScan(t, p.R, pairs, args...)
	same := len(l) == len(r)
	for k := range r {
		if l[k] == 0 {
			same = false
		}
	}
	comparisons.Add(1)
	if !same {
		divergences.Add(1)
		t.Errorf("%q: full scan differs: lockkv %d elements, redis %d", args, len(l), len(r))
	}
}

func TestHashHSCAN(t *testing.T) {
	p := NewPair(t)
	p.Do("HSCAN", "nokey", "0")
	p.Do("HSCAN", "nokey", "x")
	p.Do("HSCAN", "nokey", "0", "COUNT", "x") // options are not checked for a missing key
	p.Do("HSCAN", "h")
	p.Do("SET", "str", "x")
	p.Do("HSCAN", "str", "0")
	p.Do("HSET", "h", "a1", "1", "b1", "2", "a2", "3")
	p.Do("HSCAN", "h", "0")
	p.Do("HSCAN", "h", "123")
	p.Do("HSCAN", "h", "0", "MATCH", "a*")
	p.Do("HSCAN", "h", "0", "match", "*", "count", "1")
	p.Do("HSCAN", "h", "0", "MATCH", "zz*")
	p.Do("HSCAN", "h", "0", "COUNT", "0")
	p.Do("HSCAN", "h", "0", "COUNT", "-1")
	p.Do("HSCAN", "h", "0", "COUNT", "x")
	p.Do("HSCAN", "h", "0", "COUNT")
	p.Do("HSCAN", "h", "0", "FOO", "bar")
	p.Do("HSCAN", "h", "0", "TYPE", "string")
	p.Do("HSCAN", "h", "-1")
	p.Do("HSCAN", "h", "abc")
	p.Do("HSCAN", "h", "18446744073709551616")
	args := []string{"HSET", "big"}
	for i := 0; i < 1000; i++ {
		args = append(args, "f"+strconv.Itoa(i), "v"+strconv.Itoa(i))
	}
	p.Do(args...)
	compareScans(t, p, true, "HSCAN", "big")
	compareScans(t, p, true, "HSCAN", "big", "COUNT", "100")
	compareScans(t, p, true, "HSCAN", "big", "MATCH", "f1*", "COUNT", "7")
	compareScans(t, p, true, "HSCAN", "big", "MATCH", "nothing*")
	lv, _ := p.DoShape("HSCAN", "big", "0", "COUNT", "2000")
	if n := len(lv.Elems[1].Elems); n != 2000 {
		t.Errorf("HSCAN COUNT 2000 on lockkv returned %d elements", n)
	}
}

func TestHashCOPY(t *testing.T) {
	p := NewPair(t)
	p.Do("HSET", "h", "a", "1", "b", "2")
	p.Do("COPY", "h", "h2")
	p.Do("HSET", "h2", "c", "3")
	p.Do("HINCRBY", "h2", "a", "5")
	p.Do("HGETALL", "h")
	p.Do("HGETALL", "h2")
	encoding(p, "h2")
	args := []string{"HSET", "big"}
	for i := 0; i < 600; i++ {
		args = append(args, "f"+strconv.Itoa(i), "v")
	}
	p.Do(args...)
	p.Do("COPY", "big", "big2")
	p.Do("HDEL", "big2", "f1")
	p.Do("HLEN", "big")
	p.Do("HLEN", "big2")
	encoding(p, "big2")
	p.Do("TYPE", "h2")
}

// Redisson's RLock scripts (RedissonLock.tryLockInnerAsync and
// unlockInnerAsync), run through EVAL on both servers.
const (
	redissonLockScript = `if ((redis.call('exists', KEYS[1]) == 0) or (redis.call('hexists', KEYS[1], ARGV[2]) == 1)) then ` +
		`redis.call('hincrby', KEYS[1], ARGV[2], 1); ` +
		`redis.call('pexpire', KEYS[1], ARGV[1]); ` +
		`return nil; ` +
		`end; ` +
		`return redis.call('pttl', KEYS[1]);`
	redissonUnlockScript = `if (redis.call('hexists', KEYS[1], ARGV[3]) == 0) then ` +
		`return nil;` +
		`end; ` +
		`local counter = redis.call('hincrby', KEYS[1], ARGV[3], -1); ` +
		`if (counter > 0) then ` +
		`redis.call('pexpire', KEYS[1], ARGV[2]); ` +
		`return 0; ` +
		`else ` +
		`redis.call('del', KEYS[1]); ` +
		`return 1; ` +
		`end; ` +
		`return nil;`
)

func TestHashRedissonLockScript(t *testing.T) {
	p := NewPair(t)
	const lock, me, other = "myLock", "8743c9c0-0795-4907-87fd-6c719a6b4586:1", "8743c9c0-0795-4907-87fd-6c719a6b4586:2"
	p.Do("EVAL", redissonLockScript, "1", lock, "30000", me)         // acquired: nil
	p.Do("EVAL", redissonLockScript, "1", lock, "30000", me)         // reentered: nil
	p.DoLease("EVAL", redissonLockScript, "1", lock, "30000", other) // busy: pttl
	p.Do("HGETALL", lock)
	p.Do("EVAL", redissonUnlockScript, "1", lock, "unlock", "30000", other) // not the owner: nil
	p.Do("EVAL", redissonUnlockScript, "1", lock, "unlock", "30000", me)    // 0: still held once
	p.DoLease("PTTL", lock)
	p.Do("EVAL", redissonUnlockScript, "1", lock, "unlock", "30000", me) // 1: released
	p.Do("EXISTS", lock)
	p.Do("EVAL", redissonLockScript, "1", lock, "30000", other)
	p.Do("HGETALL", lock)
}
