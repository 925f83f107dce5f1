package conformance

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// scanAll runs a whole SCAN-family iteration on one server and returns the
// sorted elements and the number of calls.
func scanAll(t *testing.T, c *Conn, cmd []string) ([]string, int) {
	t.Helper()
	var out []string
	cursor := "0"
	calls := 0
	for {
		args := append([]string{cmd[0]}, cmd[1:]...)
		// cmd holds "{cursor}" where the cursor goes.
		for i, a := range args {
			if a == "{cursor}" {
				args[i] = cursor
			}
		}
		v, err := c.Do(args...)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		if v.Kind != '*' || len(v.Elems) != 2 {
			t.Fatalf("%v: unexpected reply %v", args, v)
		}
		calls++
		for _, e := range v.Elems[1].Elems {
			out = append(out, e.Str)
		}
		cursor = v.Elems[0].Str
		if cursor == "0" {
			break
		}
		if calls > 100000 {
			t.Fatalf("%v: scan does not terminate", args)
		}
	}
	sort.Strings(out)
	return out, calls
}

// ScanEqual runs a full iteration on both servers and requires the same
// set of elements (duplicates removed: SCAN may return an element twice).
func (p *Pair) ScanEqual(t *testing.T, cmd ...string) []string {
	t.Helper()
	l, _ := scanAll(t, p.L, cmd)
	r, _ := scanAll(t, p.R, cmd)
	l, r = dedup(l), dedup(r)
	same := strings.Join(l, "\x00") == strings.Join(r, "\x00") && len(l) == len(r)
	p.check(cmd, Value{Kind: '+', Str: fmt.Sprint(len(l), l)}, Value{Kind: '+', Str: fmt.Sprint(len(r), r)}, same)
	return r
}

func dedup(s []string) []string {
	out := s[:0]
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

func TestKeysDEL(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "a", "1")
	p.Do("SET", "b", "2")
	p.Do("DEL", "a", "b", "c", "a")
	p.Do("EXISTS", "a", "b")
	p.Do("DEL", "nosuch")
	p.Do("DEL")
	p.Do("SET", "u", "1")
	p.Do("UNLINK", "u", "u", "v")
	p.Do("UNLINK")
	p.Do("SET", "e", "1", "PX", "1")
	p.waitExpired("e")
	p.Do("DEL", "e")
}

func TestKeysEXISTS(t *testing.T) {
	p := NewPair(t)
	p.Do("EXISTS", "a")
	p.Do("SET", "a", "1")
	p.Do("EXISTS", "a", "a", "a", "b")
	p.Do("EXISTS")
	p.Do("SET", "", "empty key")
	p.Do("EXISTS", "")
}

func TestKeysTYPE(t *testing.T) {
	p := NewPair(t)
	p.Do("TYPE", "a")
	p.Do("SET", "a", "1")
	p.Do("TYPE", "a")
	p.Do("TYPE")
	p.Do("TYPE", "a", "b")
}

func TestKeysKEYS(t *testing.T) {
	p := NewPair(t)
	for _, k := range []string{"foo", "foobar", "fxo", "f*o", "hello", "hallo", "hxllo", "hllo", "heeeello", "H", "", "[a]", "a\\b", "key:1", "key:2", "key:10"} {
		p.Do("SET", k, "v")
	}
	for _, pat := range []string{"*", "f*", "f?o", "f\\*o", "h[ae]llo", "h[^e]llo", "h[a-b]llo", "h[b-a]llo", "h*llo", "[", "[^", "**", "?", "key:[0-9]", "key:*0", "\\[a\\]", "[[]a]", "a\\\\b", "nomatch*", "*\\", "[a-]", "H", "h"} {
		p.DoSorted("KEYS", pat)
	}
	p.Do("KEYS")
	p.Do("KEYS", "a", "b")
	p.Do("SET", "exp", "1", "PX", "1")
	p.waitExpired("exp")
	p.DoSorted("KEYS", "e*")
	p.DoSorted("KEYS", "*")
}

func TestKeysSCAN(t *testing.T) {
	p := NewPair(t)
	// Argument errors.
	p.Do("SCAN")
	p.Do("SCAN", "x")
	p.Do("SCAN", "-")
	p.Do("SCAN", " 1")
	p.Do("SCAN", "1 ")
	p.Do("SCAN", "0x1")
	p.Do("SCAN", "18446744073709551616")
	p.Do("SCAN", "0", "COUNT", "0")
	p.Do("SCAN", "0", "COUNT", "-1")
	p.Do("SCAN", "0", "COUNT", "x")
	p.Do("SCAN", "0", "COUNT", "99999999999999999999")
	p.Do("SCAN", "0", "COUNT")
	p.Do("SCAN", "0", "MATCH")
	p.Do("SCAN", "0", "TYPE")
	p.Do("SCAN", "0", "FOO", "bar")
	p.Do("SCAN", "0", "COUNT", "0", "FOO")
	p.Do("SCAN", "0", "FOO", "COUNT", "0")
	// Empty database: every cursor ends at once.
	p.Do("SCAN", "0")
	p.Do("SCAN", "")
	p.Do("SCAN", "-1")
	p.Do("SCAN", "+5")
	p.Do("SCAN", "18446744073709551615")
	p.Do("SCAN", "0", "TYPE", "nosuchtype")
	p.Do("SCAN", "0", "count", "5", "COUNT", "10", "match", "a", "MATCH", "b", "type", "string")
	// A few keys: small dicts are visited in one call.
	p.Do("SET", "only", "1")
	p.Do("SCAN", "0")
	p.Do("SCAN", "0", "MATCH", "o*")
	p.Do("SCAN", "0", "MATCH", "x*")
	p.Do("SCAN", "0", "TYPE", "string")
	p.Do("SCAN", "0", "TYPE", "STRING")
	p.Do("SCAN", "0", "TYPE", "list")
	p.Do("SCAN", "0", "TYPE", "none")

	// Full iterations over 1000 keys.
	p.Do("FLUSHALL")
	var args []string
	for i := 0; i < 1000; i++ {
		args = append(args, "key:"+strconv.Itoa(i), strconv.Itoa(i))
	}
	p.Do(append([]string{"MSET"}, args...)...)
	keys := p.ScanEqual(t, "SCAN", "{cursor}")
	if len(keys) != 1000 {
		t.Errorf("SCAN returned %d keys, want 1000", len(keys))
	}
	p.ScanEqual(t, "SCAN", "{cursor}", "COUNT", "1")
	p.ScanEqual(t, "SCAN", "{cursor}", "COUNT", "100")
	p.ScanEqual(t, "SCAN", "{cursor}", "COUNT", "100000")
	p.ScanEqual(t, "SCAN", "{cursor}", "MATCH", "key:1*")
	p.ScanEqual(t, "SCAN", "{cursor}", "MATCH", "key:?", "COUNT", "3")
	p.ScanEqual(t, "SCAN", "{cursor}", "TYPE", "string", "COUNT", "50")
	p.ScanEqual(t, "SCAN", "{cursor}", "TYPE", "hash")
	// Expired keys are never returned.
	p.Do("PEXPIRE", "key:7", "1")
	p.Do("PEXPIRE", "key:8", "1")
	p.waitExpired("key:7", "key:8")
	keys = p.ScanEqual(t, "SCAN", "{cursor}", "COUNT", "20")
	if len(keys) != 998 {
		t.Errorf("SCAN returned %d keys after expiry, want 998", len(keys))
	}
}

func TestKeysSCANGuarantee(t *testing.T) {
	// Keys present for the whole iteration are returned even when the
	// table grows and shrinks between calls.
	p := NewPair(t)
	for _, c := range []*Conn{p.L, p.R} {
		for i := 0; i < 200; i++ {
			c.Do("SET", "stay:"+strconv.Itoa(i), "1")
		}
		seen := map[string]bool{}
		cursor := "0"
		step := 0
		for {
			v, err := c.Do("SCAN", cursor, "COUNT", "10")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range v.Elems[1].Elems {
				seen[e.Str] = true
			}
			cursor = v.Elems[0].Str
			step++
			// Grow the table, then shrink it again.
			if step == 2 {
				for i := 0; i < 2000; i++ {
					c.Do("SET", "tmp:"+strconv.Itoa(i), "1")
				}
			}
			if step == 5 {
				for i := 0; i < 2000; i++ {
					c.Do("DEL", "tmp:"+strconv.Itoa(i))
				}
			}
			if cursor == "0" {
				break
			}
		}
		for i := 0; i < 200; i++ {
			if !seen["stay:"+strconv.Itoa(i)] {
				t.Errorf("%s: stay:%d never returned", c.Addr, i)
			}
		}
	}
}

func TestKeysRENAME(t *testing.T) {
	p := NewPair(t)
	p.Do("RENAME", "a", "b")
	p.Do("RENAME", "a", "a")
	p.Do("RENAMENX", "a", "a")
	p.Do("SET", "a", "1")
	p.Do("RENAME", "a", "a")
	p.Do("RENAMENX", "a", "a")
	p.Do("RENAME", "a", "b")
	p.Do("GET", "a")
	p.Do("GET", "b")
	p.Do("SET", "c", "3")
	p.Do("RENAMENX", "b", "c")
	p.Do("RENAMENX", "b", "d")
	p.Do("GET", "d")
	p.Do("RENAME", "d", "c")
	p.Do("GET", "c")
	p.Do("EXISTS", "d")
	// The deadline moves with the key.
	p.Do("SET", "t", "1", "EX", "100")
	p.Do("RENAME", "t", "t2")
	p.DoApprox(1, "TTL", "t2")
	p.Do("SET", "t3", "x", "EX", "50")
	p.Do("SET", "t4", "y")
	p.Do("RENAME", "t4", "t3")
	p.Do("TTL", "t3")
	// An expired destination is replaced; an expired source is missing.
	p.Do("SET", "ex", "1", "PX", "1")
	p.Do("SET", "src", "2")
	p.waitExpired("ex")
	p.Do("RENAMENX", "src", "ex")
	p.Do("GET", "ex")
	p.Do("SET", "gone", "1", "PX", "1")
	p.waitExpired("gone")
	p.Do("RENAME", "gone", "x")
	p.Do("RENAME", "a")
	p.Do("RENAME", "a", "b", "c")
	p.Do("RENAMENX", "a")
}

// TestKeysMOVERedisSuite replays the MOVE tests of Redis's
// tests/unit/keyspace.tcl, which run in database 9 ("MOVE basic usage",
// "MOVE can move key expire metadata as well", ...).
func TestKeysMOVERedisSuite(t *testing.T) {
	p := NewPair(t)
	p.Do("SELECT", "9")
	t.Run("MOVE basic usage", func(t *testing.T) {
		p.Do("SET", "mykey", "foobar")
		p.Do("MOVE", "mykey", "10")
		p.Do("EXISTS", "mykey")
		p.Do("DBSIZE")
		p.Do("SELECT", "10")
		p.Do("GET", "mykey")
		p.Do("DBSIZE")
		p.Do("SELECT", "9")
	})
	t.Run("MOVE against key existing in the target DB", func(t *testing.T) {
		p.Do("SET", "mykey", "hello")
		p.Do("MOVE", "mykey", "10")
	})
	t.Run("MOVE against non-integer DB (#1428)", func(t *testing.T) {
		p.Do("SET", "mykey", "hello")
		p.Do("MOVE", "mykey", "notanumber")
	})
	t.Run("MOVE can move key expire metadata as well", func(t *testing.T) {
		p.Do("SELECT", "10")
		p.Do("FLUSHDB")
		p.Do("SELECT", "9")
		p.Do("SET", "mykey", "foo", "EX", "100")
		p.Do("MOVE", "mykey", "10")
		p.Do("TTL", "mykey")
		p.Do("SELECT", "10")
		p.DoApprox(1, "TTL", "mykey")
		p.DoLease("PTTL", "mykey")
		p.Do("GET", "mykey")
		p.Do("SELECT", "9")
	})
	t.Run("MOVE does not create an expire if it does not exist", func(t *testing.T) {
		p.Do("SELECT", "10")
		p.Do("FLUSHDB")
		p.Do("SELECT", "9")
		p.Do("SET", "mykey", "foo")
		p.Do("MOVE", "mykey", "10")
		p.Do("TTL", "mykey")
		p.Do("SELECT", "10")
		p.Do("TTL", "mykey")
		p.Do("GET", "mykey")
		p.Do("SELECT", "9")
	})
}

func TestKeysMOVE(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "k", "v", "EX", "100")
	p.Do("MOVE", "k", "0")
	p.Do("MOVE", "k", "16")
	p.Do("MOVE", "k", "-1")
	p.Do("MOVE", "k", "x")
	p.Do("MOVE", "k", "4294967296")
	p.Do("MOVE", "nosuch", "1")
	p.Do("MOVE", "nosuch", "0")
	p.Do("MOVE", "k", "1")
	p.Do("EXISTS", "k")
	p.Do("SELECT", "1")
	p.Do("GET", "k")
	p.DoApprox(1, "TTL", "k")
	p.Do("SET", "k2", "in1")
	p.Do("SELECT", "0")
	p.Do("SET", "k2", "in0")
	p.Do("MOVE", "k2", "1")
	p.Do("GET", "k2")
	p.Do("MOVE")
	p.Do("MOVE", "k")
	p.Do("SELECT", "1")
	p.Do("FLUSHDB")
	p.Do("SELECT", "0")
}

func TestKeysCOPY(t *testing.T) {
	p := NewPair(t)
	p.Do("COPY", "a", "b")
	p.Do("SET", "a", "hello", "EX", "100")
	p.Do("COPY", "a", "a")
	p.Do("COPY", "a", "b")
	p.Do("GET", "b")
	p.DoApprox(1, "TTL", "b")
	p.Do("COPY", "a", "b")
	p.Do("SET", "a", "world")
	p.Do("COPY", "a", "b", "REPLACE")
	p.Do("GET", "b")
	p.Do("TTL", "b")
	p.Do("COPY", "a", "b", "replace", "REPLACE")
	p.Do("COPY", "a", "a", "DB", "0")
	p.Do("COPY", "a", "a", "DB", "1")
	p.Do("COPY", "a", "a", "DB", "1")
	p.Do("COPY", "a", "a", "DB", "1", "REPLACE")
	p.Do("COPY", "a", "b", "DB")
	p.Do("COPY", "a", "b", "DB", "16")
	p.Do("COPY", "a", "b", "DB", "-1")
	p.Do("COPY", "a", "b", "DB", "x")
	p.Do("COPY", "a", "b", "DB", "x", "FOO")
	p.Do("COPY", "a", "b", "DB", "2147483648")
	p.Do("COPY", "a", "b", "DB", "-2147483649")
	p.Do("COPY", "a", "b", "FOO", "DB", "x")
	p.Do("COPY", "a", "b", "FOO")
	p.Do("COPY", "a")
	// Encodings survive; the copy is independent.
	p.Do("SET", "n", "12345")
	p.Do("COPY", "n", "n2")
	p.Do("INCR", "n2")
	p.Do("GET", "n")
	p.Do("SET", "s", "abc")
	p.Do("APPEND", "s", "def")
	p.Do("COPY", "s", "s2")
	p.Do("APPEND", "s2", "ghi")
	p.Do("GET", "s")
	p.Do("GET", "s2")
	p.Do("SELECT", "1")
	p.Do("GET", "a")
	p.Do("FLUSHDB")
	p.Do("SELECT", "0")
}

func TestKeysDBSIZEFLUSH(t *testing.T) {
	p := NewPair(t)
	p.Do("DBSIZE")
	p.Do("MSET", "a", "1", "b", "2", "c", "3")
	p.Do("DBSIZE")
	p.Do("DBSIZE", "x")
	p.Do("SELECT", "2")
	p.Do("SET", "x", "1")
	p.Do("FLUSHDB", "ASYNC")
	p.Do("DBSIZE")
	p.Do("SET", "x", "1")
	p.Do("FLUSHDB", "sync")
	p.Do("FLUSHDB", "foo")
	p.Do("FLUSHDB", "sync", "async")
	p.Do("SET", "x", "1")
	p.Do("SELECT", "0")
	p.Do("DBSIZE")
	p.Do("FLUSHDB")
	p.Do("DBSIZE")
	p.Do("SELECT", "2")
	p.Do("DBSIZE")
	p.Do("FLUSHALL", "x")
	p.Do("FLUSHALL", "ASYNC", "x")
	p.Do("FLUSHALL", "SYNC")
	p.Do("DBSIZE")
	p.Do("FLUSHALL", "ASYNC")
	p.Do("FLUSHALL")
	p.Do("SELECT", "0")
}

func TestKeysSWAPDB(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "a", "db0", "EX", "100")
	p.Do("SELECT", "1")
	p.Do("SET", "b", "db1")
	p.Do("SWAPDB", "0", "1")
	p.Do("GET", "a")
	p.DoApprox(1, "TTL", "a")
	p.Do("GET", "b")
	p.Do("SWAPDB", "1", "1")
	p.Do("SWAPDB", "x", "1")
	p.Do("SWAPDB", "1", "x")
	p.Do("SWAPDB", "x", "y")
	p.Do("SWAPDB", "0", "16")
	p.Do("SWAPDB", "-1", "0")
	p.Do("SWAPDB", "2147483648", "0")
	p.Do("SWAPDB", "0")
	p.Do("SWAPDB", "1", "0")
	p.Do("GET", "b")
	p.Do("FLUSHDB")
	p.Do("SELECT", "0")
	p.Do("GET", "a")
}

func TestKeysRANDOMKEY(t *testing.T) {
	p := NewPair(t)
	p.Do("RANDOMKEY")
	p.Do("SET", "only", "1")
	p.Do("RANDOMKEY")
	p.Do("RANDOMKEY", "x")
	p.Do("MSET", "a", "1", "b", "2")
	p.DoShape("RANDOMKEY")
	// All keys expired: nothing to return.
	p.Do("FLUSHALL")
	var expiring []string
	for i := 0; i < 20; i++ {
		p.Do("SET", "e"+strconv.Itoa(i), "1", "PX", "1")
		expiring = append(expiring, "e"+strconv.Itoa(i))
	}
	p.waitExpired(expiring...)
	p.Do("RANDOMKEY")
	p.Do("SET", "live", "1")
	p.Do("RANDOMKEY")
}

func TestKeysEXPIRE(t *testing.T) {
	p := NewPair(t)
	p.Do("EXPIRE", "nosuch", "100")
	p.Do("SET", "k", "v")
	p.Do("EXPIRE", "k", "100")
	p.DoApprox(1, "TTL", "k")
	p.DoApprox(1000, "PTTL", "k")
	p.Do("PEXPIRE", "k", "200000")
	p.DoApprox(1, "TTL", "k")
	p.Do("EXPIRE", "k", "abc")
	p.Do("EXPIRE", "k", "1.5")
	p.Do("EXPIRE", "k", "")
	p.Do("EXPIRE", "k")
	p.Do("PEXPIRE", "k")
	// Overflow checks.
	p.Do("EXPIRE", "k", "9223372036854775807")
	p.Do("EXPIRE", "k", "9223372036854775")
	p.Do("EXPIRE", "k", "9223372036854776")
	p.Do("EXPIRE", "k", "-9223372036854775")
	p.Do("EXPIRE", "k", "-9223372036854776")
	p.Do("EXPIRE", "k", "-9223372036854775808")
	p.Do("EXPIRE", "k", "9223372036854775808")
	p.Do("PEXPIRE", "k", "9223372036854775807")
	p.Do("PEXPIRE", "k", "9223372036854775000")
	p.Do("EXPIREAT", "k", "9223372036854775807")
	p.Do("EXPIREAT", "k", "9223372036854775")
	p.Do("EXPIREAT", "k", "9223372036854776")
	p.Do("PEXPIREAT", "k", "9223372036854775807")
	p.DoApprox(5000, "PEXPIRETIME", "k")
	p.Do("SET", "k", "v")
	p.Do("PEXPIREAT", "k", "-9223372036854775808")
	p.Do("EXISTS", "k")
	// Negative and past deadlines delete the key.
	p.Do("SET", "k", "v")
	p.Do("EXPIRE", "k", "-1")
	p.Do("EXISTS", "k")
	p.Do("SET", "k", "v")
	p.Do("EXPIRE", "k", "0")
	p.Do("EXISTS", "k")
	p.Do("SET", "k", "v")
	p.Do("PEXPIRE", "k", "0")
	p.Do("EXISTS", "k")
	p.Do("SET", "k", "v")
	p.Do("EXPIREAT", "k", "1")
	p.Do("EXISTS", "k")
	p.Do("SET", "k", "v")
	p.Do("PEXPIREAT", "k", "1000")
	p.Do("EXISTS", "k")
	p.Do("SET", "k", "v")
	p.Do("EXPIREAT", "k", strconv.FormatInt(time.Now().Unix()+100, 10))
	p.DoApprox(2, "TTL", "k")
	p.Do("PEXPIREAT", "k", strconv.FormatInt(time.Now().UnixMilli()+100000, 10))
	p.DoApprox(2, "TTL", "k")
	p.DoApprox(2, "EXPIRETIME", "k")
	// A key that expires.
	p.Do("SET", "short", "v", "PX", "20")
	p.waitExpired("short")
	p.Do("GET", "short")
	p.Do("TTL", "short")
	p.Do("EXPIRE", "short", "100")
}

func TestKeysEXPIREOptions(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "k", "v")
	p.Do("EXPIRE", "k", "100", "XX")
	p.Do("EXPIRE", "k", "100", "GT")
	p.Do("EXPIRE", "k", "100", "LT")
	p.Do("TTL", "k")
	p.Do("EXPIRE", "k", "100", "NX")
	p.Do("EXPIRE", "k", "200", "NX")
	p.DoApprox(1, "TTL", "k")
	p.Do("EXPIRE", "k", "200", "XX")
	p.DoApprox(1, "TTL", "k")
	p.Do("EXPIRE", "k", "100", "GT")
	p.Do("EXPIRE", "k", "300", "GT")
	p.DoApprox(1, "TTL", "k")
	p.Do("EXPIRE", "k", "400", "LT")
	p.Do("EXPIRE", "k", "50", "LT")
	p.DoApprox(1, "TTL", "k")
	p.Do("EXPIRE", "k", "40", "xx", "gt")
	p.Do("EXPIRE", "k", "60", "xx", "gt")
	p.DoApprox(1, "TTL", "k")
	p.Do("EXPIRE", "k", "-1", "LT")
	p.Do("EXISTS", "k")
	p.Do("SET", "k", "v")
	p.Do("EXPIRE", "k", "-1", "GT")
	p.Do("EXPIRE", "k", "-1", "XX")
	p.Do("EXISTS", "k")
	p.Do("EXPIRE", "k", "-1", "NX")
	p.Do("EXISTS", "k")
	// Option errors come before the time is parsed.
	p.Do("EXPIRE", "k", "100", "NX", "XX")
	p.Do("EXPIRE", "k", "100", "NX", "GT")
	p.Do("EXPIRE", "k", "100", "NX", "LT")
	p.Do("EXPIRE", "k", "100", "GT", "LT")
	p.Do("EXPIRE", "k", "100", "FOO")
	p.Do("EXPIRE", "k", "abc", "FOO")
	p.Do("EXPIRE", "k", "abc", "NX", "XX")
	p.Do("EXPIRE", "k", "100", "NX", "NX")
	p.Do("PEXPIRE", "k", "100", "bar")
	p.Do("EXPIREAT", "k", "100", "NXX")
	p.Do("PEXPIREAT", "k", "100", "GT", "LT", "FOO")
	p.Do("EXPIRE", "nosuch", "100", "XX")
	p.Do("EXPIRE", "nosuch", "100", "FOO")
}

func TestKeysTTL(t *testing.T) {
	p := NewPair(t)
	p.Do("TTL", "nosuch")
	p.Do("PTTL", "nosuch")
	p.Do("EXPIRETIME", "nosuch")
	p.Do("PEXPIRETIME", "nosuch")
	p.Do("SET", "k", "v")
	p.Do("TTL", "k")
	p.Do("PTTL", "k")
	p.Do("EXPIRETIME", "k")
	p.Do("PEXPIRETIME", "k")
	p.Do("PEXPIREAT", "k", "33177117420000")
	p.Do("PEXPIRETIME", "k")
	p.Do("EXPIRETIME", "k")
	p.Do("PEXPIREAT", "k", "33177117420499")
	p.Do("EXPIRETIME", "k")
	p.Do("PEXPIREAT", "k", "33177117420500")
	p.Do("EXPIRETIME", "k")
	p.Do("PEXPIRE", "k", "1499")
	p.DoApprox(1, "TTL", "k")
	p.Do("PEXPIRE", "k", "100000")
	p.DoApprox(1, "TTL", "k")
	p.DoApprox(1000, "PTTL", "k")
	p.Do("TTL")
	p.Do("PTTL", "a", "b")
	p.Do("EXPIRETIME")
	p.Do("PEXPIRETIME", "a", "b")
}

func TestKeysPERSIST(t *testing.T) {
	p := NewPair(t)
	p.Do("PERSIST", "nosuch")
	p.Do("SET", "k", "v")
	p.Do("PERSIST", "k")
	p.Do("EXPIRE", "k", "100")
	p.Do("PERSIST", "k")
	p.Do("TTL", "k")
	p.Do("PERSIST", "k")
	p.Do("PERSIST")
	p.Do("PERSIST", "a", "b")
}

func TestKeysTOUCH(t *testing.T) {
	p := NewPair(t)
	p.Do("TOUCH", "a")
	p.Do("MSET", "a", "1", "b", "2")
	p.Do("TOUCH", "a", "b", "c", "a")
	p.Do("TOUCH")
}

// waitExpired polls both servers until none of keys exists any more (their
// short deadlines are over), failing after two seconds.
func (p *Pair) waitExpired(keys ...string) {
	p.t.Helper()
	for _, c := range []*Conn{p.L, p.R} {
		testutil.Eventually(p.t, 2*time.Second, func() error {
			if v := c.MustDo(p.t, append([]string{"EXISTS"}, keys...)...); v.Str != "0" {
				return fmt.Errorf("%s: %v still exist (EXISTS: %v)", c.Addr, keys, v)
			}
			return nil
		})
	}
}

// TestKeysOtherTypes runs the generic commands against every other type.
func TestKeysOtherTypes(t *testing.T) {
	p := NewPair(t)
	keys := otherTypes(t, p)
	p.Do("SET", "str", "v")
	for _, k := range keys {
		p.Do("TYPE", k)
		p.Do("EXISTS", k)
		p.Do("EXPIRE", k, "100")
		p.DoApprox(1, "TTL", k)
		p.Do("PERSIST", k)
		p.Do("RENAME", k, k+"2")
		p.Do("TYPE", k+"2")
		p.Do("COPY", k+"2", k)
		p.Do("TYPE", k)
		p.Do("COPY", k, "str", "REPLACE")
		p.Do("TYPE", "str")
		p.Do("MOVE", k+"2", "1")
		p.Do("SET", "str", "v")
	}
	p.DoSorted("KEYS", "*")
	for _, typ := range []string{"string", "hash", "set", "list", "zset", "HASH", "none"} {
		p.ScanEqual(t, "SCAN", "{cursor}", "TYPE", typ)
	}
	p.Do("SELECT", "1")
	p.DoSorted("KEYS", "*")
	p.Do("FLUSHDB")
	p.Do("SELECT", "0")
	p.Do(append([]string{"DEL"}, keys...)...)
	p.DoSorted("KEYS", "*")
}

// TestKeysSWAPDBWakesBlocked: a client blocked on a list key is served
// when SWAPDB brings in a database where that list exists.
func TestKeysSWAPDBWakesBlocked(t *testing.T) {
	p := NewPair(t)
	q := Connect(t)
	p.Do("SELECT", "1")
	p.Do("LPUSH", "queue", "job1")
	q.Send("BLPOP", "queue", "5")
	q.NoReply(100 * time.Millisecond)
	p.Do("SWAPDB", "0", "1")
	q.Receive()
	p.Do("LLEN", "queue")
	p.Do("SELECT", "0")
	p.Do("LLEN", "queue")
	// A zset too, with BZPOPMIN.
	p.Do("SELECT", "1")
	p.Do("FLUSHDB")
	p.Do("ZADD", "z", "1", "m")
	q.Send("BZPOPMIN", "z", "5")
	q.NoReply(100 * time.Millisecond)
	p.Do("SWAPDB", "1", "0")
	q.Receive()
	p.Do("FLUSHALL")
}

// TestKeysRenameMoveCopyWakeBlocked: RENAME, MOVE and COPY that create a
// list under a key a client is blocked on serve that client.
func TestKeysRenameMoveCopyWakeBlocked(t *testing.T) {
	p := NewPair(t)
	q := Connect(t)
	p.Do("LPUSH", "src", "a", "b")
	q.Send("BLPOP", "dst", "5")
	q.NoReply(50 * time.Millisecond)
	p.Do("RENAME", "src", "dst")
	q.Receive()
	q.Send("BRPOP", "copy", "5")
	q.NoReply(50 * time.Millisecond)
	p.Do("COPY", "dst", "copy")
	q.Receive()
	p.Do("EXISTS", "copy")
	q.Do("SELECT", "3")
	q.Send("BLPOP", "dst", "5")
	q.NoReply(50 * time.Millisecond)
	p.Do("MOVE", "dst", "3")
	q.Receive()
	q.Do("EXISTS", "dst")
	p.Do("LPUSH", "l", "x")
	q.Send("BLPOP", "c3", "5")
	q.NoReply(50 * time.Millisecond)
	p.Do("COPY", "l", "c3", "DB", "3")
	q.Receive()
	q.Do("SELECT", "0")
	p.Do("FLUSHALL")
}
