package conformance

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/engine"
)

// zsetBig fills key with n members "m000".. scored by index, in one ZADD.
func zsetBig(p *Pair, key string, n int, score func(i int) string) {
	args := []string{"ZADD", key}
	for i := 0; i < n; i++ {
		args = append(args, score(i), fmt.Sprintf("m%03d", i))
	}
	p.Do(args...)
}

func zsetEncoding(p *Pair, key string) {
	p.t.Helper()
	p.Do("OBJECT", "ENCODING", key)
}

var long65 = strings.Repeat("x", 65)
var long64 = strings.Repeat("y", 64)

// forEachEncoding runs f on a fresh pair with key "z" prepared in both
// encodings: as given (listpack when small) and forced to skiplist by a
// 65-byte member that is then removed (a zset never converts back).
func forEachEncoding(t *testing.T, f func(t *testing.T, p *Pair, setup func(args ...string))) {
	for _, enc := range []string{"listpack", "skiplist"} {
		t.Run(enc, func(t *testing.T) {
			p := NewPair(t)
			setup := func(args ...string) {
				if enc == "skiplist" {
					p.Do("ZADD", "z", "0", long65)
				}
				p.Do(append([]string{"ZADD", "z"}, args...)...)
				if enc == "skiplist" {
					p.Do("ZREM", "z", long65)
				}
				zsetEncoding(p, "z")
			}
			f(t, p, setup)
		})
	}
}

func TestZsetZADD(t *testing.T) {
	p := NewPair(t)
	p.Do("ZADD", "z", "1", "a")
	p.Do("ZADD", "z", "1", "a", "2", "b", "3", "c")
	p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
	p.Do("ZADD", "z", "1.1", "a")
	p.Do("ZSCORE", "z", "a")
	p.Do("ZADD", "z", "CH", "1.1", "a", "5", "b", "9", "d")
	p.Do("ZADD", "z", "nx", "100", "a", "100", "e")
	p.Do("ZADD", "z", "XX", "100", "a", "100", "f")
	p.Do("ZADD", "z", "XX", "CH", "100", "a", "100", "g")
	p.Do("ZADD", "z", "GT", "CH", "50", "a", "200", "b")
	p.Do("ZADD", "z", "LT", "CH", "60", "a", "300", "b", "7", "h")
	p.Do("ZADD", "z", "XX", "GT", "CH", "61", "a", "1", "b")
	p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
	// INCR.
	p.Do("ZADD", "z", "INCR", "5", "a")
	p.Do("ZADD", "z", "INCR", "5", "new")
	p.Do("ZADD", "z", "NX", "INCR", "5", "a")
	p.Do("ZADD", "z", "XX", "INCR", "5", "nosuch")
	p.Do("ZADD", "z", "GT", "INCR", "-5", "a")
	p.Do("ZADD", "z", "LT", "INCR", "-5", "a")
	p.Do("ZADD", "z", "INCR", "0", "a")
	p.Do("ZADD", "nokey", "XX", "INCR", "1", "a")
	p.Do("ZADD", "nokey", "XX", "1", "a")
	p.Do("EXISTS", "nokey")
	// Option errors, in Redis's order.
	p.Do("ZADD", "z", "NX", "XX", "1", "a")
	p.Do("ZADD", "z", "NX", "GT", "1", "a")
	p.Do("ZADD", "z", "NX", "LT", "1", "a")
	p.Do("ZADD", "z", "GT", "LT", "1", "a")
	p.Do("ZADD", "z", "INCR", "1", "a", "2", "b")
	p.Do("ZADD", "z", "NX", "XX", "INCR", "1", "a", "2", "b")
	p.Do("ZADD", "z", "1", "a", "2")
	p.Do("ZADD", "z", "NX", "XX")
	p.Do("ZADD", "z", "1")
	p.Do("ZADD", "z", "nx")
	p.Do("ZADD", "z", "FOO", "1", "a")
	p.Do("ZADD", "z", "ch\x00", "1", "a")
	p.Do("ZADD", "z", "1", "a", "NX", "b")
	p.Do("ZADD", "z")
	p.Do("ZADD", "z", "x")
	// Scores.
	for _, s := range []string{"abc", "", " 1", "1 ", "nan", "NaN", "-nan", "1e400", "-1e400",
		"1e-400", "1e-310", "0x10", "0X1p3", "0x", "1_0", ".5", "5.", "+.5e1", "1e", "1e+",
		"inf", "+inf", "-inf", "Infinity", "-INFINITY", "infx", "-0", "+0", "007", "1\x00",
		"17179869184", "1.7976931348623157e308", "4.9e-324", "0.1", "-1.5e-7", "123456789012345678901234567890",
		"1.70000003E12", "1E12", "-1.0E-5", "2.2250738585072011e-308", "0x1.fffffffffffffp1023", "0x1p-1074", "0x1p-1080", "1e-324", "00.5e+0001"} {
		p.Do("ZADD", "s", s, "m")
		p.Do("ZSCORE", "s", "m")
	}
	p.Do("ZADD", "z", "1", "a", "x", "b")
	p.Do("ZADD", "z", "INCR", "inf", "inc")
	p.Do("ZADD", "z", "INCR", "-inf", "inc")
	p.Do("ZSCORE", "z", "inc")
	p.Do("ZINCRBY", "z", "-inf", "inc")
	p.Do("ZINCRBY", "z", "+inf", "inc")
	p.Do("ZSCORE", "z", "inc")
	// Wrong type, arity.
	p.Do("SET", "str", "x")
	p.Do("ZADD", "str", "1", "a")
	p.Do("ZADD", "str", "XX", "1", "a")
	p.Do("ZADD", "str", "1", "a", "x", "b")
	p.Do("ZADD", "z", "1")
	p.Do("ZINCRBY", "z", "1")
	p.Do("ZINCRBY", "z", "1", "a", "b")
}

func TestZsetZINCRBY(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b")
		p.Do("ZINCRBY", "z", "1.5", "a")
		p.Do("ZINCRBY", "z", "-10", "b")
		p.Do("ZINCRBY", "z", "3", "c")
		p.Do("ZINCRBY", "z", "0.1", "c")
		p.Do("ZINCRBY", "z", "0.2", "c")
		p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
		p.Do("ZINCRBY", "z", "x", "c")
		p.Do("ZINCRBY", "z", "nx", "c")
		p.Do("ZINCRBY", "z", "incr", "c")
		p.Do("ZINCRBY", "z", "ch", "c")
		p.Do("ZINCRBY", "new", "2", "m")
		p.Do("ZRANGE", "new", "0", "-1", "WITHSCORES")
		p.Do("SET", "str", "x")
		p.Do("ZINCRBY", "str", "1", "a")
	})
}

func TestZsetNegativeZero(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("-0", "a", "1", "b")
		p.Do("ZSCORE", "z", "a")
		p.Do("ZADD", "z", "-0", "c")
		p.Do("ZSCORE", "z", "c")
		p.Do("ZINCRBY", "z", "0", "c")
		p.Do("ZSCORE", "z", "c")
		p.Do("ZINCRBY", "z", "-0", "d")
		p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
		zsetScanCompare(t, p, "z")
	})
}

func TestZsetZREM(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "3", "c")
		p.Do("ZREM", "z", "a", "x", "a")
		p.Do("ZREM", "z", "x")
		p.Do("ZCARD", "z")
		p.Do("ZREM", "z", "b", "c", "d")
		p.Do("EXISTS", "z")
		p.Do("ZREM", "z", "a")
		p.Do("ZREM", "z")
		p.Do("SET", "str", "x")
		p.Do("ZREM", "str", "a")
	})
}

func TestZsetPointReads(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "2", "c", "3", "d", "-inf", "lo", "inf", "hi")
		for _, m := range []string{"a", "b", "c", "d", "lo", "hi", "x"} {
			p.Do("ZSCORE", "z", m)
			p.Do("ZRANK", "z", m)
			p.Do("ZREVRANK", "z", m)
		}
		p.Do("ZMSCORE", "z", "a", "x", "hi", "lo")
		p.Do("ZMSCORE", "nokey", "a", "b")
		p.Do("ZMSCORE", "z")
		p.Do("ZCARD", "z")
		p.Do("ZCARD", "nokey")
		p.Do("ZSCORE", "nokey", "a")
		p.Do("ZRANK", "nokey", "a")
		p.Do("ZREVRANK", "nokey", "a")
		p.Do("ZRANK", "z", "a", "withscore")
		p.Do("ZSCORE", "z")
		p.Do("ZCARD", "z", "x")
		p.Do("SET", "str", "x")
		p.Do("ZSCORE", "str", "a")
		p.Do("ZMSCORE", "str", "a")
		p.Do("ZCARD", "str")
		p.Do("ZRANK", "str", "a")
		p.Do("ZREVRANK", "str", "a")
	})
}

func TestZsetZCOUNT(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "2", "c", "3", "d", "-inf", "lo", "inf", "hi", "2.5", "e")
		for _, r := range [][2]string{{"-inf", "+inf"}, {"1", "2"}, {"(1", "2"}, {"(1", "(2"}, {"2", "2"},
			{"(2", "2"}, {"3", "1"}, {"-inf", "-inf"}, {"inf", "inf"}, {"(-inf", "(inf"}, {"", ""},
			{"(", "5"}, {" 2", "3"}, {"2.5", "1e400"}, {"0x2", "0x3"}, {"((1", "2"}, {"1 ", "2"},
			{"nan", "1"}, {"1", "x"}, {"1\x00z", "2"}, {"-1e400", "(2"}} {
			p.Do("ZCOUNT", "z", r[0], r[1])
			p.Do("ZRANGEBYSCORE", "z", r[0], r[1], "WITHSCORES")
			p.Do("ZREVRANGEBYSCORE", "z", r[1], r[0], "WITHSCORES")
		}
		p.Do("ZCOUNT", "nokey", "0", "1")
		p.Do("ZCOUNT", "nokey", "x", "1")
		p.Do("SET", "str", "x")
		p.Do("ZCOUNT", "str", "0", "1")
		p.Do("ZCOUNT", "str", "x", "1")
	})
}

func TestZsetZRANGE(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "2", "c", "3", "d", "4", "e", "5", "f")
		for _, r := range [][2]string{{"0", "-1"}, {"0", "0"}, {"1", "3"}, {"-2", "-1"}, {"-100", "100"},
			{"3", "1"}, {"6", "10"}, {"-1", "-2"}, {"5", "5"}, {"-7", "-6"}} {
			p.Do("ZRANGE", "z", r[0], r[1])
			p.Do("ZRANGE", "z", r[0], r[1], "WITHSCORES")
			p.Do("ZRANGE", "z", r[0], r[1], "REV", "withscores")
			p.Do("ZREVRANGE", "z", r[0], r[1])
			p.Do("ZREVRANGE", "z", r[0], r[1], "WITHSCORES")
		}
		p.Do("ZRANGE", "z", "x", "1")
		p.Do("ZRANGE", "z", "0", "1.5")
		p.Do("ZRANGE", "z", "0", "-1", "LIMIT", "0", "1")
		p.Do("ZREVRANGE", "z", "0", "-1", "LIMIT", "0", "1")
		p.Do("ZRANGE", "z", "0", "-1", "LIMIT", "0")
		p.Do("ZRANGE", "z", "0", "-1", "REV", "REV")
		p.Do("ZREVRANGE", "z", "0", "-1", "REV")
		p.Do("ZRANGE", "z", "0", "-1", "BYSCORE", "BYLEX")
		p.Do("ZRANGE", "z", "0", "-1", "foo")
		p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES", "WITHSCORES")
		p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES\x00x")
		p.Do("ZRANGE", "z", "-inf", "inf", "byscore\x00", "limit\x00", "1", "1")
		p.Do("ZRANGE", "z", "0", "-1", "LIMIT", "x", "1", "BYSCORE")
		p.Do("ZRANGE", "z", "0", "-1", "LIMIT", "0", "1.5", "BYSCORE")
		p.Do("ZRANGE", "nokey", "0", "-1")
		p.Do("ZRANGE", "nokey", "x", "-1")
		p.Do("ZRANGE", "nokey", "0", "-1", "LIMIT", "0", "1")
		// BYSCORE / REV / LIMIT.
		p.Do("ZRANGE", "z", "2", "4", "BYSCORE")
		p.Do("ZRANGE", "z", "(2", "+inf", "BYSCORE", "WITHSCORES")
		p.Do("ZRANGE", "z", "4", "2", "BYSCORE", "REV", "WITHSCORES")
		p.Do("ZRANGE", "z", "2", "4", "BYSCORE", "REV")
		p.Do("ZRANGE", "z", "-inf", "+inf", "BYSCORE", "LIMIT", "1", "2")
		p.Do("ZRANGE", "z", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "1", "2", "WITHSCORES")
		p.Do("ZRANGE", "z", "x", "1", "BYSCORE")
		for _, l := range [][2]string{{"0", "0"}, {"0", "-1"}, {"-1", "2"}, {"1", "-1"}, {"5", "10"},
			{"6", "1"}, {"100", "1"}, {"2", "1"}, {"0", "100"}, {"-5", "-5"}} {
			p.Do("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", l[0], l[1])
			p.Do("ZRANGEBYSCORE", "z", "2", "4", "WITHSCORES", "LIMIT", l[0], l[1])
			p.Do("ZREVRANGEBYSCORE", "z", "+inf", "-inf", "LIMIT", l[0], l[1], "WITHSCORES")
			p.Do("ZREVRANGEBYSCORE", "z", "4", "(2", "LIMIT", l[0], l[1])
		}
		p.Do("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "0", "1", "LIMIT", "1", "1")
		p.Do("ZRANGEBYSCORE", "z", "-inf", "+inf", "REV")
		p.Do("ZRANGEBYSCORE", "z", "-inf", "+inf", "BYSCORE")
		p.Do("ZRANGEBYSCORE", "z", "-inf", "+inf", "LIMIT", "1")
		p.Do("ZRANGEBYSCORE", "z", "-inf")
		p.Do("ZRANGEBYSCORE", "nokey", "-inf", "+inf")
		p.Do("ZRANGEBYSCORE", "nokey", "x", "+inf")
		p.Do("SET", "str", "x")
		p.Do("ZRANGE", "str", "0", "-1")
		p.Do("ZRANGE", "str", "x", "-1")
		p.Do("ZRANGEBYSCORE", "str", "0", "1")
		p.Do("ZREVRANGE", "str", "0", "1")
		p.Do("ZRANGE", "z", "0")
	})
}

func TestZsetLex(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("0", "a", "0", "b", "0", "c", "0", "d", "0", "e", "0", "aa", "0", "", "0", "f\x00g", "0", "f")
		ranges := [][2]string{{"-", "+"}, {"[a", "[c"}, {"(a", "(c"}, {"[aa", "+"}, {"-", "(b"},
			{"+", "-"}, {"-", "-"}, {"+", "+"}, {"[c", "[a"}, {"[b", "[b"}, {"(b", "[b"}, {"[", "[a"},
			{"(", "+"}, {"[f", "[f\x00h"}, {"a", "[b"}, {"[a", "b"}, {"", "+"}, {"+x", "+"}, {"-\x00", "+"},
			{"[z", "+"}, {"-", "(\x00"}}
		for _, r := range ranges {
			p.Do("ZLEXCOUNT", "z", r[0], r[1])
			p.Do("ZRANGEBYLEX", "z", r[0], r[1])
			p.Do("ZREVRANGEBYLEX", "z", r[1], r[0])
			p.Do("ZRANGE", "z", r[0], r[1], "BYLEX")
			p.Do("ZRANGE", "z", r[1], r[0], "BYLEX", "REV")
		}
		for _, l := range [][2]string{{"0", "2"}, {"1", "-1"}, {"-1", "1"}, {"3", "0"}, {"8", "3"}, {"20", "1"}} {
			p.Do("ZRANGEBYLEX", "z", "-", "+", "LIMIT", l[0], l[1])
			p.Do("ZREVRANGEBYLEX", "z", "+", "-", "LIMIT", l[0], l[1])
			p.Do("ZRANGEBYLEX", "z", "[b", "(f", "LIMIT", l[0], l[1])
			p.Do("ZREVRANGEBYLEX", "z", "(f", "[b", "LIMIT", l[0], l[1])
		}
		p.Do("ZRANGEBYLEX", "z", "-", "+", "WITHSCORES")
		p.Do("ZRANGE", "z", "-", "+", "BYLEX", "WITHSCORES")
		p.Do("ZRANGEBYLEX", "z", "-", "+", "LIMIT", "x", "1")
		p.Do("ZRANGEBYLEX", "z", "-", "+", "LIMIT", "1")
		p.Do("ZRANGEBYLEX", "nokey", "-", "+")
		p.Do("ZRANGEBYLEX", "nokey", "x", "+")
		p.Do("ZLEXCOUNT", "nokey", "-", "+")
		p.Do("ZREMRANGEBYLEX", "z", "[b", "(d")
		p.Do("ZRANGE", "z", "0", "-1")
		p.Do("ZREMRANGEBYLEX", "z", "x", "(d")
		p.Do("ZREMRANGEBYLEX", "z", "(z", "+")
		p.Do("ZREMRANGEBYLEX", "z", "-", "+")
		p.Do("EXISTS", "z")
		p.Do("ZREMRANGEBYLEX", "nokey", "-", "+")
		p.Do("SET", "str", "x")
		p.Do("ZLEXCOUNT", "str", "-", "+")
		p.Do("ZRANGEBYLEX", "str", "-", "+")
		p.Do("ZREMRANGEBYLEX", "str", "-", "+")
		p.Do("ZREMRANGEBYLEX", "str", "x", "+")
	})
}

func TestZsetLexMixedScoresListpack(t *testing.T) {
	// Lex ranges over different scores are "undefined" but deterministic
	// for listpacks: Redis scans from the head.
	p := NewPair(t)
	p.Do("ZADD", "z", "1", "d", "2", "a", "3", "c", "4", "b", "5", "e")
	for _, r := range [][2]string{{"-", "+"}, {"[b", "[d"}, {"(a", "(e"}, {"[c", "+"}, {"-", "[c"}} {
		p.Do("ZRANGEBYLEX", "z", r[0], r[1])
		p.Do("ZREVRANGEBYLEX", "z", r[1], r[0])
		p.Do("ZLEXCOUNT", "z", r[0], r[1])
		p.Do("ZRANGEBYLEX", "z", r[0], r[1], "LIMIT", "1", "2")
	}
	p.Do("ZREMRANGEBYLEX", "z", "[b", "[d")
	p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
}

func TestZsetZREMRANGE(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f")
		p.Do("ZREMRANGEBYSCORE", "z", "(1", "2")
		p.Do("ZREMRANGEBYSCORE", "z", "10", "20")
		p.Do("ZREMRANGEBYSCORE", "z", "5", "2")
		p.Do("ZREMRANGEBYSCORE", "z", "x", "2")
		p.Do("ZREMRANGEBYSCORE", "z", "(5", "(5")
		p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
		p.Do("ZREMRANGEBYRANK", "z", "-1", "-1")
		p.Do("ZREMRANGEBYRANK", "z", "5", "10")
		p.Do("ZREMRANGEBYRANK", "z", "2", "1")
		p.Do("ZREMRANGEBYRANK", "z", "x", "1")
		p.Do("ZREMRANGEBYRANK", "z", "0", "1.0")
		p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
		p.Do("ZREMRANGEBYRANK", "z", "-100", "0")
		p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
		p.Do("ZREMRANGEBYRANK", "z", "0", "-1")
		p.Do("EXISTS", "z")
		setup("1", "a", "2", "b")
		p.Do("ZREMRANGEBYSCORE", "z", "-inf", "+inf")
		p.Do("EXISTS", "z")
		p.Do("ZREMRANGEBYSCORE", "nokey", "-inf", "+inf")
		p.Do("ZREMRANGEBYRANK", "nokey", "0", "-1")
		p.Do("ZREMRANGEBYSCORE", "nokey", "x", "+inf")
		p.Do("SET", "str", "x")
		p.Do("ZREMRANGEBYSCORE", "str", "-inf", "+inf")
		p.Do("ZREMRANGEBYRANK", "str", "0", "-1")
		p.Do("ZREMRANGEBYRANK", "str", "x", "-1")
		p.Do("ZREMRANGEBYRANK", "z", "0")
	})
}

func TestZsetZPOP(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f")
		p.Do("ZPOPMIN", "z")
		p.Do("ZPOPMAX", "z")
		p.Do("ZPOPMIN", "z", "2")
		p.Do("ZPOPMAX", "z", "0")
		p.Do("ZPOPMAX", "z", "1")
		p.Do("ZPOPMIN", "z", "-1")
		p.Do("ZPOPMIN", "z", "x")
		p.Do("ZPOPMIN", "z", "1", "2")
		p.Do("ZPOPMAX", "z", "100")
		p.Do("EXISTS", "z")
		p.Do("ZPOPMIN", "z")
		p.Do("ZPOPMIN", "z", "0")
		p.Do("ZPOPMIN", "z", "-1")
		p.Do("SET", "str", "x")
		p.Do("ZPOPMIN", "str")
		p.Do("ZPOPMAX", "str", "0")
		p.Do("ZPOPMIN")
	})
}

func TestZsetZMPOP(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "3", "c", "4", "d", "5", "e", "6", "f")
		p.Do("ZMPOP", "1", "z", "MIN")
		p.Do("ZMPOP", "1", "z", "max")
		p.Do("ZMPOP", "1", "z", "max\x00", "count\x00", "1")
		p.Do("ZMPOP", "2", "nokey", "z", "MIN", "COUNT", "2")
		p.Do("ZMPOP", "2", "nokey", "nokey2", "MIN")
		p.Do("ZMPOP", "1", "z", "MAX", "COUNT", "100")
		p.Do("EXISTS", "z")
		for _, bad := range [][]string{
			{"0", "z", "MIN"}, {"-1", "z", "MIN"}, {"x", "z", "MIN"}, {"1", "z"}, {"2", "z", "MIN"},
			{"1", "z", "MID"}, {"1", "z", "MIN", "COUNT"}, {"1", "z", "MIN", "COUNT", "0"},
			{"1", "z", "MIN", "COUNT", "-1"}, {"1", "z", "MIN", "COUNT", "x"},
			{"1", "z", "MIN", "COUNT", "1", "COUNT", "1"}, {"1", "z", "MIN", "FOO"},
			{"100", "z", "MIN"}, {"9223372036854775807", "z", "MIN"}, {"1", "z", "MIN", "count", "1.5"},
		} {
			p.Do(append([]string{"ZMPOP"}, bad...)...)
		}
		p.Do("SET", "str", "x")
		p.Do("ZADD", "z2", "1", "a")
		p.Do("ZMPOP", "2", "str", "z2", "MIN")
		p.Do("ZMPOP", "2", "z2", "str", "MIN")
		p.Do("ZMPOP", "2", "nokey", "str", "MIN")
		p.Do("ZMPOP", "1", "z")
	})
}

func TestZsetEncodings(t *testing.T) {
	p := NewPair(t)
	// 128 entries stay a listpack, the 129th converts.
	zsetBig(p, "z", 128, func(i int) string { return strconv.Itoa(i % 7) })
	zsetEncoding(p, "z")
	p.Do("ZSCAN", "z", "0")
	p.Do("ZADD", "z", "3", "extra")
	zsetEncoding(p, "z")
	p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
	p.Do("ZRANGE", "z", "50", "60")
	p.Do("ZREVRANGE", "z", "10", "20", "WITHSCORES")
	p.Do("ZRANGEBYSCORE", "z", "(2", "4", "LIMIT", "5", "10")
	p.Do("ZREVRANGEBYSCORE", "z", "4", "(2", "LIMIT", "5", "10", "WITHSCORES")
	p.Do("ZCOUNT", "z", "(2", "4")
	p.Do("ZRANK", "z", "m077")
	p.Do("ZREVRANK", "z", "m077")
	p.Do("ZREM", "z", "extra", "m000")
	zsetEncoding(p, "z") // never converts back
	// Members of 64 bytes stay, 65 convert.
	p.Do("ZADD", "y", "1", long64)
	zsetEncoding(p, "y")
	p.Do("ZADD", "y", "2", long65)
	zsetEncoding(p, "y")
	p.Do("ZADD", "x", "1", long65, "2", "b")
	zsetEncoding(p, "x")
	// Duplicates within one ZADD count once (7.0 creates a listpack and
	// converts on the 129th distinct member only).
	args := []string{"ZADD", "d"}
	for i := 0; i < 200; i++ {
		args = append(args, "1", "same")
	}
	p.Do(args...)
	zsetEncoding(p, "d")
	p.Do("ZSCAN", "d", "0")
	// Listpack ZSCAN formats integral scores as integers.
	p.Do("ZADD", "f", "1e17", "a", "4611686018427387904", "b", "9223372036854775808", "c",
		"1.5", "d", "-4611686018427387904", "e", "-inf", "f", "inf", "g", "0.1", "h", "1e300", "i")
	p.Do("ZSCAN", "f", "0")
	p.Do("ZRANGE", "f", "0", "-1", "WITHSCORES")
}

// zsetFullScan iterates ZSCAN to the end on one connection.
func zsetFullScan(t *testing.T, c *Conn, key string, extra ...string) (map[string]string, error) {
	out := map[string]string{}
	cur := "0"
	for i := 0; i < 100000; i++ {
		v, err := c.Do(append([]string{"ZSCAN", key, cur}, extra...)...)
		if err != nil {
			return nil, err
		}
		if v.Kind != '*' || len(v.Elems) != 2 {
			return nil, fmt.Errorf("bad reply %v", v)
		}
		for j := 0; j+1 < len(v.Elems[1].Elems); j += 2 {
			out[v.Elems[1].Elems[j].Str] = v.Elems[1].Elems[j+1].Str
		}
		cur = v.Elems[0].Str
		if cur == "0" {
			return out, nil
		}
	}
	return nil, fmt.Errorf("scan did not finish")
}

func zsetScanCompare(t *testing.T, p *Pair, key string, extra ...string) {
	t.Helper()
	lm, err := zsetFullScan(t, p.L, key, extra...)
	if err != nil {
		t.Fatalf("lockkv: %v", err)
	}
	rm, err := zsetFullScan(t, p.R, key, extra...)
	if err != nil {
		t.Fatalf("redis: %v", err)
	}
	flat := func(m map[string]string) Value {
		var ks []string
		for k, v := range m {
			ks = append(ks, k+"="+v)
		}
		sort.Strings(ks)
		return Value{Kind: '+', Str: strings.Join(ks, ",")}
	}
	lv, rv := flat(lm), flat(rm)
	p.check(append([]string{"full ZSCAN", key}, extra...), lv, rv, lv.Str == rv.Str)
}

func TestZsetZSCAN(t *testing.T) {
	p := NewPair(t)
	p.Do("ZADD", "small", "1", "a", "2", "b", "1.5", "c", "-inf", "d", "1e20", "e")
	p.Do("ZSCAN", "small", "0")
	p.Do("ZSCAN", "small", "0", "MATCH", "[ab]")
	p.Do("ZSCAN", "small", "0", "COUNT", "1")
	p.Do("ZSCAN", "small", "0", "MATCH", "*", "COUNT", "100")
	p.Do("ZSCAN", "small", "17")
	p.Do("ZSCAN", "small", "x")
	p.Do("ZSCAN", "small", "0", "COUNT", "0")
	p.Do("ZSCAN", "small", "0", "COUNT", "x")
	p.Do("ZSCAN", "small", "0", "MATCH")
	p.Do("ZSCAN", "small", "0", "TYPE", "zset")
	p.Do("ZSCAN", "small", "0", "FOO", "bar")
	p.Do("ZSCAN", "nokey", "0")
	p.Do("ZSCAN", "nokey", "0", "FOO")
	p.Do("ZSCAN", "nokey", "x")
	p.Do("SET", "str", "x")
	p.Do("ZSCAN", "str", "0")
	p.Do("ZSCAN", "str", "x")
	p.Do("ZSCAN", "small")
	zsetBig(p, "big", 1000, func(i int) string { return strconv.FormatFloat(float64(i)/7, 'g', -1, 64) })
	p.Do("ZADD", "big", "-0", "negzero", "1e17", "int17")
	zsetScanCompare(t, p, "big")
	zsetScanCompare(t, p, "big", "COUNT", "3")
	zsetScanCompare(t, p, "big", "MATCH", "m1*", "COUNT", "50")
	zsetScanCompare(t, p, "big", "MATCH", "*zero")
}

func TestZsetTies(t *testing.T) {
	p := NewPair(t)
	// Equal scores order by member bytes: shorter prefix first, binary.
	p.Do("ZADD", "z", "1", "b", "1", "a", "1", "ab", "1", "B", "1", "", "1", "\xff", "1", "a\x00", "0", "zz", "2", "0")
	p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
	p.Do("ZREVRANGE", "z", "0", "-1")
	p.Do("ZRANK", "z", "a\x00")
	p.Do("ZRANGEBYSCORE", "z", "1", "1", "LIMIT", "2", "3")
	zsetBig(p, "big", 300, func(i int) string { return strconv.Itoa(i % 3) })
	p.Do("ZRANGE", "big", "0", "-1", "WITHSCORES")
	p.Do("ZRANGEBYSCORE", "big", "1", "1", "LIMIT", "10", "20")
	p.Do("ZREVRANGEBYSCORE", "big", "1", "1", "LIMIT", "10", "20")
	p.Do("ZRANK", "big", "m150")
	p.Do("ZREVRANK", "big", "m150")
	p.Do("ZCOUNT", "big", "1", "1")
	p.Do("ZREMRANGEBYSCORE", "big", "(0", "(2")
	p.Do("ZRANGE", "big", "95", "105", "WITHSCORES")
	p.Do("ZREMRANGEBYRANK", "big", "50", "149")
	p.Do("ZRANGE", "big", "0", "-1")
	p.Do("ZPOPMIN", "big", "3")
	p.Do("ZPOPMAX", "big", "3")
	p.Do("ZCARD", "big")
}

// TestZsetRedissonFairLock replays, with plain commands, what Redisson's
// fair lock does with its timeout zset: waiters' deadlines in Unix ms.
func TestZsetRedissonFairLock(t *testing.T) {
	p := NewPair(t)
	ts := "redisson_lock_timeout:{lock}"
	now := int64(1700000000000)
	threads := []string{"b7f2c1d4-6a1e-4a8e-9f62-1:1", "b7f2c1d4-6a1e-4a8e-9f62-1:2", "c0ffee00-0000-4000-8000-2:77"}
	for i, th := range threads {
		p.Do("ZADD", ts, strconv.FormatInt(now+30000+int64(i)*5000, 10), th)
	}
	p.Do("ZRANGE", ts, "0", "-1")
	p.Do("ZRANGE", ts, "0", "-1", "WITHSCORES")
	for _, th := range threads {
		p.Do("ZSCORE", ts, th)
	}
	// First waiter times out: remove the stale ones.
	p.Do("ZRANGEBYSCORE", ts, "-inf", strconv.FormatInt(now+31000, 10))
	p.Do("ZREMRANGEBYSCORE", ts, "-inf", strconv.FormatInt(now+31000, 10))
	p.Do("ZREM", ts, threads[0])
	p.Do("ZADD", ts, "XX", strconv.FormatInt(now+40000, 10), threads[1])
	p.Do("ZADD", ts, "NX", strconv.FormatInt(now+1, 10), threads[1])
	p.Do("ZRANGE", ts, "0", "0", "WITHSCORES")
	p.Do("ZINCRBY", ts, "-5000", threads[2])
	p.Do("ZSCORE", ts, threads[2])
	p.Do("ZREM", ts, threads[1], threads[2])
	p.Do("EXISTS", ts)
	p.Do("ZRANGE", ts, "0", "-1")
	p.Do("ZSCORE", ts, threads[1])
	// Permit-expirable semaphore: permits with expiry, reclaimed by score.
	sem := "redisson_sc:{sem}"
	for i := 0; i < 5; i++ {
		p.Do("ZADD", sem, strconv.FormatInt(now+int64(i)*1000, 10), fmt.Sprintf("permit-%d", i))
	}
	p.Do("ZRANGEBYSCORE", sem, "0", strconv.FormatInt(now+2000, 10), "LIMIT", "0", "2")
	p.Do("ZCOUNT", sem, "-inf", strconv.FormatInt(now+2000, 10))
	p.Do("ZREMRANGEBYSCORE", sem, "0", strconv.FormatInt(now+2000, 10))
	p.Do("ZCARD", sem)
	p.Do("ZADD", sem, "GT", strconv.FormatInt(now+9000, 10), "permit-3")
	p.Do("ZRANGE", sem, "-inf", "+inf", "BYSCORE", "WITHSCORES")
}

func TestZsetRESP3(t *testing.T) {
	p := NewPair(t)
	p.Do("HELLO", "3")
	p.Do("ZADD", "z", "1.1", "a", "2", "b", "3", "c", "4", "d")
	p.Do("ZADD", "z", "INCR", "1", "a")
	p.Do("ZADD", "z", "NX", "INCR", "1", "a")
	p.Do("ZINCRBY", "z", "1", "b")
	p.Do("ZSCORE", "z", "a")
	p.Do("ZSCORE", "z", "x")
	p.Do("ZSCORE", "nokey", "x")
	p.Do("ZMSCORE", "z", "a", "x")
	p.Do("ZRANK", "z", "x")
	p.Do("ZRANK", "nokey", "x")
	p.Do("ZRANGE", "z", "0", "-1")
	p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
	p.Do("ZRANGE", "z", "0", "-1", "REV", "WITHSCORES")
	p.Do("ZRANGEBYSCORE", "z", "-inf", "+inf", "WITHSCORES", "LIMIT", "1", "2")
	p.Do("ZREVRANGEBYSCORE", "z", "+inf", "-inf", "WITHSCORES")
	p.Do("ZREVRANGE", "z", "0", "1", "WITHSCORES")
	p.Do("ZRANGE", "nokey", "0", "-1", "WITHSCORES")
	p.Do("ZSCAN", "z", "0")
	p.Do("ZPOPMIN", "z")
	p.Do("ZPOPMIN", "z", "1")
	p.Do("ZPOPMAX", "z", "0")
	p.Do("ZPOPMIN", "nokey")
	p.Do("ZMPOP", "1", "z", "MAX", "COUNT", "2")
	p.Do("ZMPOP", "1", "nokey", "MAX")
	p.Do("ZADD", "inf", "inf", "a", "-inf", "b")
	p.Do("ZRANGE", "inf", "0", "-1", "WITHSCORES")
	p.Do("ZSCORE", "inf", "b")
	// Both encodings, -0 kept by the skiplist, set operations, random.
	p.Do("ZADD", "sk", "-0", "n", "0.1", "t", "1e20", "e", "1", long65)
	p.Do("ZRANGE", "sk", "0", "-1", "WITHSCORES")
	p.Do("ZSCORE", "sk", "n")
	p.Do("ZMSCORE", "sk", "n", "e", "nosuch")
	p.Do("ZPOPMIN", "sk")
	p.Do("ZADD", "a", "1", "x", "2", "y")
	p.Do("ZADD", "b", "10", "y", "20", "z")
	p.Do("ZUNION", "2", "a", "b", "WITHSCORES")
	p.Do("ZINTER", "2", "a", "b", "WITHSCORES")
	p.Do("ZDIFF", "2", "a", "b", "WITHSCORES")
	p.Do("ZUNION", "2", "a", "b")
	p.Do("ZINTERCARD", "2", "a", "b")
	p.Do("ZRANDMEMBER", "a", "10", "WITHSCORES")
	p.Do("ZRANDMEMBER", "a", "10")
	p.DoShape("ZRANDMEMBER", "a", "-3", "WITHSCORES")
	p.DoShape("ZRANDMEMBER", "a")
	p.Do("ZRANDMEMBER", "nokey")
	p.Do("ZRANDMEMBER", "nokey", "1", "WITHSCORES")
	p.Do("ZRANGESTORE", "c", "a", "0", "-1")
	p.Do("ZREVRANGEBYLEX", "a", "+", "-")
	p.Do("ZCOUNT", "a", "-inf", "inf")
	p.Do("ZRANK", "a", "y")
	p.Do("ZINCRBY", "a", "0.5", "x")
	p.Do("ZADD", "a", "CH", "GT", "0", "x", "9", "y")
	p.Do("ZMPOP", "2", "nokey", "a", "MIN")
	p.Do("ZSCAN", "a", "0")
}

func TestZsetNotifications(t *testing.T) {
	for _, flags := range []string{"KEA", "KEAn", "Ez"} {
		t.Run(flags, func(t *testing.T) { zsetNotifications(t, flags) })
	}
}

func zsetNotifications(t *testing.T, flags string) {
	p := NewPair(t)
	p.Do("CONFIG", "SET", "notify-keyspace-events", flags)
	t.Cleanup(func() { p.Do("CONFIG", "SET", "notify-keyspace-events", "") })
	sub := Connect(t)
	sub.Do("PSUBSCRIBE", "__key*__:*")
	for _, cmd := range [][]string{
		{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"},
		{"ZADD", "z", "1", "a"},
		{"ZADD", "z", "5", "a"},
		{"ZINCRBY", "z", "1", "a"},
		{"ZINCRBY", "z", "0", "a"},
		{"ZADD", "z", "INCR", "1", "b"},
		{"ZREM", "z", "x"},
		{"ZREM", "z", "a"},
		{"ZREMRANGEBYSCORE", "z", "100", "200"},
		{"ZREMRANGEBYSCORE", "z", "2", "2"},
		{"ZPOPMIN", "z"},
		{"ZPOPMAX", "z", "5"},
		{"ZADD", "y", "1", "a", "2", "b"},
		{"ZREMRANGEBYRANK", "y", "0", "0"},
		{"ZREMRANGEBYLEX", "y", "-", "+"},
		{"ZADD", "y", "1", "a"},
		{"ZMPOP", "1", "y", "MIN"},
		{"ZADD", "src", "1", "a", "2", "b"},
		{"ZRANGESTORE", "dst", "src", "0", "-1"},
		{"ZRANGESTORE", "dst", "src", "0", "0"},
		{"ZRANGESTORE", "dst", "src", "5", "9"},
		{"ZUNIONSTORE", "u", "1", "src"},
		{"ZINTERSTORE", "u", "2", "src", "nokey"},
		{"ZDIFFSTORE", "d", "1", "src"},
		{"ZADD", "src", "XX", "1", "nosuch"},
		{"ZADD", "src", "NX", "5", "a"},
		{"ZREMRANGEBYRANK", "src", "0", "-1"},
	} {
		p.Do(cmd...)
		p.Do("PING") // fence: the events of cmd precede this reply
		sub.Send("PING")
		for {
			v := sub.Receive()
			if v.Kind == '+' || (len(v.Elems) > 0 && v.Elems[0].Str == "pong") {
				break
			}
		}
	}
}

func TestZsetKeyspace(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "-0", "c", "1.5", "d")
		p.Do("TYPE", "z")
		p.Do("COPY", "z", "c1")
		p.Do("ZADD", "c1", "9", "e")
		p.Do("ZRANGE", "c1", "0", "-1", "WITHSCORES")
		p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
		zsetScanCompare(t, p, "c1")
		p.Do("RENAME", "c1", "c2")
		p.Do("ZCARD", "c2")
		p.Do("EXPIRE", "z", "100")
		p.Do("ZADD", "z", "3", "e")
		p.Do("ZREM", "z", "a")
		p.Do("ZINCRBY", "z", "1", "b")
		p.Do("ZPOPMIN", "z")
		p.DoApprox(1, "TTL", "z")
		p.Do("ZREMRANGEBYRANK", "z", "0", "-1")
		p.Do("TTL", "z")
		p.Do("ZADD", "z", "1", "a")
		p.Do("TTL", "z")
		p.Do("DEL", "c2")
		p.Do("ZCARD", "c2")
		p.Do("SET", "s", "x")
		p.Do("ZADD", "s", "1", "a")
		p.Do("ZRANGE", "s", "0", "-1")
		p.Do("ZSCAN", "s", "0")
		p.Do("ZPOPMIN", "s")
	})
}

func TestZsetZRANGESTORE(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "3", "c", "4", "d", "-0", "e", "5", "f")
		p.Do("ZRANGESTORE", "d1", "z", "0", "-1")
		p.Do("ZRANGE", "d1", "0", "-1", "WITHSCORES")
		zsetScanCompare(t, p, "d1")
		p.Do("ZRANGESTORE", "d1", "z", "1", "2", "REV")
		p.Do("ZRANGE", "d1", "0", "-1", "WITHSCORES")
		p.Do("ZRANGESTORE", "d2", "z", "(1", "+inf", "BYSCORE", "LIMIT", "1", "2")
		p.Do("ZRANGE", "d2", "0", "-1", "WITHSCORES")
		p.Do("ZRANGESTORE", "d2", "z", "+inf", "-inf", "BYSCORE", "REV", "LIMIT", "0", "3")
		p.Do("ZRANGE", "d2", "0", "-1", "WITHSCORES")
		// (Lex ranges over mixed scores are undefined for skiplists.)
		p.Do("ZADD", "lexk", "0", "a", "0", "b", "0", "c")
		p.Do("ZRANGESTORE", "d3", "lexk", "[b", "+", "BYLEX")
		p.Do("ZRANGE", "d3", "0", "-1", "WITHSCORES")
		// Empty results delete the destination, whatever it held.
		p.Do("SET", "str", "x")
		p.Do("EXPIRE", "str", "100")
		p.Do("ZRANGESTORE", "str", "z", "0", "0")
		p.Do("TYPE", "str")
		p.Do("TTL", "str")
		p.Do("ZRANGESTORE", "str", "z", "10", "20")
		p.Do("EXISTS", "str")
		p.Do("ZRANGESTORE", "d1", "nokey", "0", "-1")
		p.Do("EXISTS", "d1")
		p.Do("ZRANGESTORE", "d2", "z", "100", "200", "BYSCORE")
		p.Do("EXISTS", "d2")
		// Errors.
		p.Do("ZRANGESTORE", "d1", "z", "0", "-1", "WITHSCORES")
		p.Do("ZRANGESTORE", "d1", "z", "0", "-1", "LIMIT", "0", "1")
		p.Do("ZRANGESTORE", "d1", "z", "a", "b", "BYLEX")
		p.Do("ZRANGESTORE", "d1", "z", "x", "1")
		p.Do("ZRANGESTORE", "d1", "str2", "0", "-1")
		p.Do("SET", "str2", "x")
		p.Do("ZRANGESTORE", "d1", "str2", "0", "-1")
		p.Do("ZRANGESTORE", "d1", "z", "0")
		p.Do("ZRANGESTORE", "z", "z", "0", "1")
		p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
	})
	p := NewPair(t)
	// A rank range over 128 members is stored as a skiplist from the start
	// (so -0 survives), a score range as a listpack first.
	args := []string{"ZADD", "big", "0", long65}
	for i := 0; i < 200; i++ {
		args = append(args, "-0", fmt.Sprintf("m%03d", i))
	}
	p.Do(args...)
	p.Do("ZRANGESTORE", "r", "big", "0", "-1")
	zsetScanCompare(t, p, "r")
	p.Do("ZRANGESTORE", "s", "big", "-inf", "+inf", "BYSCORE")
	zsetScanCompare(t, p, "s")
	p.Do("ZRANGESTORE", "t", "big", "0", "9")
	p.Do("ZSCAN", "t", "0")
}

func TestZsetZRANDMEMBER(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "3", "c", "-0", "d", "1.5", "e")
		p.Do("ZRANDMEMBER", "z", "5")
		p.Do("ZRANDMEMBER", "z", "100", "WITHSCORES")
		p.DoShape("ZRANDMEMBER", "z")
		p.DoShape("ZRANDMEMBER", "z", "1")
		p.DoShape("ZRANDMEMBER", "z", "3")
		p.DoShape("ZRANDMEMBER", "z", "4", "WITHSCORES")
		p.DoShape("ZRANDMEMBER", "z", "-3")
		p.DoShape("ZRANDMEMBER", "z", "-20", "withscores")
		p.Do("ZRANDMEMBER", "z", "0")
		p.Do("ZRANDMEMBER", "nokey")
		p.Do("ZRANDMEMBER", "nokey", "5")
		p.Do("ZRANDMEMBER", "nokey", "0", "WITHSCORES")
		for _, bad := range [][]string{{"x"}, {"1.5"}, {"-9223372036854775808"}, {"9223372036854775807", "WITHSCORES"},
			{"-4611686018427387904", "WITHSCORES"}, {"1", "WITHSCORE"}, {"1", "WITHSCORES", "x"}} {
			p.Do(append([]string{"ZRANDMEMBER", "z"}, bad...)...)
			p.Do(append([]string{"ZRANDMEMBER", "nokey"}, bad...)...)
		}
		p.Do("SET", "str", "x")
		p.Do("ZRANDMEMBER", "str")
		p.Do("ZRANDMEMBER", "str", "0")
		p.Do("ZRANDMEMBER", "str", "-1")
	})
}

func TestZsetSetOps(t *testing.T) {
	forEachEncoding(t, func(t *testing.T, p *Pair, setup func(args ...string)) {
		setup("1", "a", "2", "b", "3", "c", "-0", "d", "inf", "e")
		p.Do("ZADD", "y", "10", "b", "20", "c", "30", "x", "-inf", "e")
		p.Do("SADD", "s", "a", "x", "q")
		p.Do("SADD", "is", "1", "2", "3")
		p.Do("ZADD", "n", "1", "1", "5", "5")
		for _, cmd := range []string{"ZUNION", "ZINTER", "ZDIFF"} {
			p.Do(cmd, "2", "z", "y")
			p.Do(cmd, "2", "z", "y", "WITHSCORES")
			p.Do(cmd, "3", "z", "y", "s", "withscores")
			p.Do(cmd, "2", "z", "nokey", "WITHSCORES")
			p.Do(cmd, "2", "nokey", "z", "WITHSCORES")
			p.Do(cmd, "1", "z", "WITHSCORES")
			p.Do(cmd, "2", "z", "z", "WITHSCORES")
			p.Do(cmd, "2", "is", "n", "WITHSCORES")
			p.Do(cmd, "1", "nokey")
			p.Do(cmd, "2", "z", "y", "WEIGHTS", "2", "0.5", "WITHSCORES")
			p.Do(cmd, "2", "z", "y", "WEIGHTS", "0", "-1", "AGGREGATE", "MIN", "WITHSCORES")
			p.Do(cmd, "2", "z", "y", "AGGREGATE", "max", "WITHSCORES")
			p.Do(cmd, "2", "z", "y", "AGGREGATE", "sum", "WEIGHTS", "1", "1", "WITHSCORES")
			p.Do(cmd, "2", "z", "y", "WEIGHTS", "inf", "1", "WITHSCORES")
			// Errors.
			p.Do(cmd, "0", "z")
			p.Do(cmd, "-1", "z")
			p.Do(cmd, "x", "z")
			p.Do(cmd, "3", "z", "y")
			p.Do(cmd, "2", "z", "y", "WEIGHTS", "1")
			p.Do(cmd, "2", "z", "y", "WEIGHTS", "1", "x")
			p.Do(cmd, "2", "z", "y", "AGGREGATE", "avg")
			p.Do(cmd, "2", "z", "y", "AGGREGATE")
			p.Do(cmd, "2", "z", "y", "FOO")
			p.Do(cmd, "2", "z", "y", "LIMIT", "1")
			p.Do("SET", "str", "x")
			p.Do(cmd, "2", "z", "str")
			p.Do(cmd, "2", "z", "str", "FOO")
			p.Do(cmd, "1")
			store := cmd + "STORE"
			p.Do(store, "dst", "2", "z", "y")
			p.Do("ZRANGE", "dst", "0", "-1", "WITHSCORES")
			zsetScanCompare(t, p, "dst")
			p.Do(store, "dst", "3", "z", "y", "s", "WEIGHTS", "1", "2", "3", "AGGREGATE", "MAX")
			p.Do(store, "dst", "3", "z", "y", "s", "AGGREGATE", "MIN")
			p.Do("ZRANGE", "dst", "0", "-1", "WITHSCORES")
			p.Do(store, "dst", "2", "z", "y", "WITHSCORES")
			p.Do(store, "str", "1", "z")
			p.Do("TYPE", "str")
			p.Do(store, "dst", "1", "nokey")
			p.Do("EXISTS", "dst")
			p.Do(store, "dst", "0", "z")
			p.Do(store, "dst", "1")
			p.Do(store, "z", "2", "z", "y")
			p.Do("ZRANGE", "z", "0", "-1", "WITHSCORES")
		}
		p.Do("ZINTERCARD", "2", "z", "y")
		p.Do("ZINTERCARD", "2", "z", "y", "LIMIT", "1")
		p.Do("ZINTERCARD", "2", "z", "y", "LIMIT", "0")
		p.Do("ZINTERCARD", "2", "z", "y", "LIMIT", "-1")
		p.Do("ZINTERCARD", "2", "z", "y", "LIMIT", "x")
		p.Do("ZINTERCARD", "2", "z", "y", "WITHSCORES")
		p.Do("ZINTERCARD", "2", "z", "y", "WEIGHTS", "1", "1")
		p.Do("ZINTERCARD", "1", "nokey")
		p.Do("ZINTERCARD", "0", "z")
		p.Do("ZINTERCARD", "2", "z", "str")
	})
	// A big union stays a skiplist, a small one becomes a listpack (so -0
	// turns into 0, visible through ZSCAN).
	p := NewPair(t)
	zsetBig(p, "a", 200, func(i int) string { return "-0" })
	p.Do("ZADD", "b", "-0", "x")
	p.Do("ZUNIONSTORE", "u", "2", "a", "b")
	zsetScanCompare(t, p, "u")
	p.Do("ZINTERSTORE", "i", "2", "b", "b")
	p.Do("ZSCAN", "i", "0")
	p.Do("ZUNION", "1", "b", "WITHSCORES")
	p.Do("ZADD", "long", "1", long65)
	p.Do("ZUNIONSTORE", "l", "1", "long")
	p.Do("ZUNIONSTORE", "l2", "2", "long", "b")
	zsetScanCompare(t, p, "l2")
}

// TestZsetRandomized sends the same pseudo-random command stream (fixed
// seed) to both servers: small domains make collisions, ties, empty
// results and deleted keys frequent. Key "big" is pushed past the listpack
// limits; "lex" keeps equal scores so lex ranges are defined.
func TestZsetRandomized(t *testing.T) {
	p := NewPair(t)
	r := newTestRand(7)
	keys := []string{"small", "big", "lex"}
	scores := []string{"0", "1", "2", "-1", "1.5", "-0", "inf", "-inf", "3", "10", "2.25"}
	bounds := []string{"-inf", "+inf", "0", "(0", "1", "(1", "2", "(2.25", "10", "(inf", "-1", "1.5"}
	lexb := []string{"-", "+", "[m1", "(m1", "[m5", "(m9", "[", "(m", "[m15"}
	ints := []string{"0", "1", "-1", "2", "-2", "5", "-5", "100", "3"}
	member := func(k string) string {
		n := r.Intn(20)
		if k == "big" {
			n = r.Intn(200)
			if r.Intn(50) == 0 {
				return long65 + strconv.Itoa(n%3)
			}
		}
		return "m" + strconv.Itoa(n)
	}
	pick := func(a []string) string { return a[r.Intn(len(a))] }
	for step := 0; step < 4000; step++ {
		k := pick(keys)
		sc := pick(scores)
		if k == "lex" {
			sc = "0"
		}
		switch r.Intn(16) {
		case 0, 1, 2:
			args := []string{"ZADD", k}
			if r.Intn(3) == 0 {
				args = append(args, pick([]string{"NX", "XX", "GT", "LT", "CH", "XX", "INCR"}))
			}
			n := 1 + r.Intn(4)
			if args[len(args)-1] == "INCR" {
				n = 1
			}
			for i := 0; i < n; i++ {
				args = append(args, sc, member(k))
				sc = pick(scores)
				if k == "lex" {
					sc = "0"
				}
			}
			p.Do(args...)
		case 3:
			if k != "lex" {
				p.Do("ZINCRBY", k, sc, member(k))
			}
		case 4:
			p.Do("ZREM", k, member(k), member(k))
		case 5:
			p.Do("ZSCORE", k, member(k))
			p.Do("ZRANK", k, member(k))
			p.Do("ZREVRANK", k, member(k))
		case 6:
			args := []string{"ZRANGE", k, pick(ints), pick(ints)}
			if r.Intn(2) == 0 {
				args = append(args, "REV")
			}
			if r.Intn(2) == 0 {
				args = append(args, "WITHSCORES")
			}
			p.Do(args...)
		case 7, 8:
			args := []string{"ZRANGEBYSCORE", k, pick(bounds), pick(bounds)}
			if r.Intn(2) == 0 {
				args[0] = "ZREVRANGEBYSCORE"
			}
			if r.Intn(2) == 0 {
				args = append(args, "WITHSCORES")
			}
			if r.Intn(2) == 0 {
				args = append(args, "LIMIT", pick(ints), pick(ints))
			}
			p.Do(args...)
			p.Do("ZCOUNT", k, pick(bounds), pick(bounds))
		case 9:
			if k == "lex" {
				args := []string{"ZRANGEBYLEX", k, pick(lexb), pick(lexb)}
				if r.Intn(2) == 0 {
					args[0] = "ZREVRANGEBYLEX"
				}
				if r.Intn(2) == 0 {
					args = append(args, "LIMIT", pick(ints), pick(ints))
				}
				p.Do(args...)
				p.Do("ZLEXCOUNT", k, pick(lexb), pick(lexb))
			}
		case 10:
			if r.Intn(4) == 0 {
				p.Do("ZREMRANGEBYSCORE", k, pick(bounds), pick(bounds))
			}
		case 11:
			if r.Intn(4) == 0 {
				p.Do("ZREMRANGEBYRANK", k, pick(ints), pick(ints))
			}
		case 12:
			if k == "lex" && r.Intn(4) == 0 {
				p.Do("ZREMRANGEBYLEX", k, pick(lexb), pick(lexb))
			}
		case 13:
			cmd := pick([]string{"ZPOPMIN", "ZPOPMAX"})
			if r.Intn(2) == 0 {
				p.Do(cmd, k)
			} else {
				p.Do(cmd, k, pick(ints[:6]))
			}
		case 14:
			p.Do("ZMPOP", "2", k, pick(keys), pick([]string{"MIN", "MAX"}), "COUNT", pick([]string{"1", "2", "5"}))
		case 15:
			p.Do("ZCARD", k)
			if k == "small" {
				p.Do("ZSCAN", k, "0")
			}
			p.Do("ZUNION", "3", "small", "big", "lex", "WITHSCORES", "AGGREGATE", pick([]string{"SUM", "MIN", "MAX"}))
		}
	}
	for _, k := range keys {
		p.Do("ZRANGE", k, "0", "-1", "WITHSCORES")
	}
}

type testRand struct{ x uint64 }

func newTestRand(seed uint64) *testRand { return &testRand{x: seed*2654435761 + 1} }

func (r *testRand) Intn(n int) int {
	r.x ^= r.x << 13
	r.x ^= r.x >> 7
	r.x ^= r.x << 17
	return int(r.x % uint64(n))
}

// TestZsetCommandTable checks the zset specs (arity, flags, key positions,
// ACL categories) against Redis's COMMAND INFO.
func TestZsetCommandTable(t *testing.T) {
	p := NewPair(t)
	for _, name := range []string{"zadd", "zincrby", "zrem", "zscore", "zmscore", "zcard", "zcount", "zlexcount",
		"zrank", "zrevrank", "zrange", "zrevrange", "zrangebyscore", "zrevrangebyscore", "zrangebylex",
		"zrevrangebylex", "zremrangebyscore", "zremrangebyrank", "zremrangebylex", "zpopmin", "zpopmax",
		"zmpop", "zscan", "zrangestore", "zrandmember", "zunion", "zinter", "zdiff", "zintercard",
		"zunionstore", "zinterstore", "zdiffstore", "bzpopmin", "bzpopmax", "bzmpop"} {
		v, err := p.R.Do("COMMAND", "INFO", name)
		if err != nil || len(v.Elems) != 1 || len(v.Elems[0].Elems) < 7 {
			t.Fatalf("COMMAND INFO %s: %v %v", name, v, err)
		}
		info := v.Elems[0].Elems
		spec := engine.Lookup([]byte(name))
		if spec == nil {
			t.Errorf("%s: not registered", name)
			continue
		}
		var rflags []string
		movable := false
		for _, f := range info[2].Elems {
			if f.Str == "movablekeys" {
				movable = true
				continue
			}
			rflags = append(rflags, f.Str)
		}
		var racl []string
		for _, a := range info[6].Elems {
			racl = append(racl, a.Str)
		}
		var lacl []string
		for _, a := range spec.Categories() {
			lacl = append(lacl, "@"+a)
		}
		first, last, step := spec.KeyRange()
		got := fmt.Sprintf("arity=%d flags=%v movable=%v keys=%d,%d,%d acl=%v", spec.Arity, spec.Flags.Names(),
			spec.Keys != nil, first, last, step, lacl)
		want := fmt.Sprintf("arity=%s flags=%v movable=%v keys=%s,%s,%s acl=%v", info[1].Str, rflags, movable,
			info[3].Str, info[4].Str, info[5].Str, racl)
		p.check([]string{"COMMAND INFO", name}, Value{Kind: '+', Str: got}, Value{Kind: '+', Str: want}, got == want)
	}
}

func TestZsetConfigThresholds(t *testing.T) {
	p := NewPair(t)
	t.Cleanup(func() {
		p.Do("CONFIG", "SET", "zset-max-listpack-entries", "128")
		p.Do("CONFIG", "SET", "zset-max-listpack-value", "64")
	})
	p.Do("CONFIG", "SET", "zset-max-listpack-entries", "4")
	p.Do("ZADD", "a", "1", "a", "2", "b", "3", "c", "4", "d")
	p.Do("OBJECT", "ENCODING", "a")
	p.Do("ZADD", "a", "5", "e")
	p.Do("OBJECT", "ENCODING", "a")
	p.Do("ZADD", "b", "1", "a", "2", "b", "3", "c", "4", "d", "5", "e")
	p.Do("OBJECT", "ENCODING", "b")
	p.Do("ZUNIONSTORE", "u", "1", "b")
	p.Do("OBJECT", "ENCODING", "u")
	p.Do("ZRANGESTORE", "r", "b", "0", "2")
	p.Do("OBJECT", "ENCODING", "r")
	p.Do("ZRANGESTORE", "r", "b", "0", "-1")
	p.Do("OBJECT", "ENCODING", "r")
	p.Do("CONFIG", "SET", "zset-max-ziplist-entries", "0")
	p.Do("ZADD", "c", "-0", "a")
	p.Do("OBJECT", "ENCODING", "c")
	p.Do("ZSCORE", "c", "a")
	p.Do("ZRANGESTORE", "r2", "c", "0", "-1")
	p.Do("OBJECT", "ENCODING", "r2")
	p.Do("CONFIG", "SET", "zset-max-listpack-entries", "128")
	p.Do("CONFIG", "SET", "zset-max-listpack-value", "3")
	p.Do("ZADD", "d", "1", "abc")
	p.Do("OBJECT", "ENCODING", "d")
	p.Do("ZADD", "e", "1", "abcd", "2", "a")
	p.Do("OBJECT", "ENCODING", "e")
	p.Do("ZADD", "d", "2", "abcd")
	p.Do("OBJECT", "ENCODING", "d")
	p.Do("ZINTERSTORE", "i", "2", "e", "e")
	p.Do("OBJECT", "ENCODING", "i")
	p.Do("ZDIFFSTORE", "df", "1", "e")
	p.Do("OBJECT", "ENCODING", "df")
	p.Do("ZADD", "f", "1", "ab")
	p.Do("ZUNIONSTORE", "fu", "1", "f")
	p.Do("OBJECT", "ENCODING", "fu")
}

// TestZsetDirty compares how many changes each command counts
// (INFO rdb_changes_since_last_save).
func TestZsetDirty(t *testing.T) {
	p := NewPair(t)
	dirty := func(c *Conn) int64 {
		v, err := c.Do("INFO", "persistence")
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(v.Str, "\r\n") {
			if strings.HasPrefix(line, "rdb_changes_since_last_save:") {
				n, _ := strconv.ParseInt(strings.TrimPrefix(line, "rdb_changes_since_last_save:"), 10, 64)
				return n
			}
		}
		t.Fatalf("no rdb_changes_since_last_save in %q", v.Str)
		return 0
	}
	for _, cmd := range [][]string{
		{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"},
		{"ZADD", "z", "CH", "1", "a", "5", "b", "6", "e"},
		{"ZADD", "z", "1", "a"},
		{"ZINCRBY", "z", "1", "a"},
		{"ZINCRBY", "z", "0", "a"},
		{"ZREM", "z", "a", "b", "x"},
		{"ZREM", "z", "x"},
		{"ZREMRANGEBYSCORE", "z", "100", "200"},
		{"ZREMRANGEBYRANK", "z", "0", "1"},
		{"ZADD", "z", "1", "a", "2", "b", "3", "c", "4", "d"},
		{"ZPOPMIN", "z", "2"},
		{"ZPOPMAX", "z"},
		{"ZPOPMAX", "z", "0"},
		{"ZMPOP", "1", "z", "MIN", "COUNT", "5"},
		{"ZADD", "s", "1", "a", "2", "b"},
		{"ZRANGESTORE", "d", "s", "0", "-1"},
		{"ZRANGESTORE", "d", "s", "5", "9"},
		{"ZUNIONSTORE", "u", "1", "s"},
		{"ZREMRANGEBYLEX", "s", "-", "+"},
	} {
		lb, rb := dirty(p.L), dirty(p.R)
		p.Do(cmd...)
		ld, rd := dirty(p.L)-lb, dirty(p.R)-rb
		p.check(append([]string{"dirty"}, cmd...), Value{Kind: ':', Str: strconv.FormatInt(ld, 10)},
			Value{Kind: ':', Str: strconv.FormatInt(rd, 10)}, ld == rd)
	}
}

// TestZsetKeyspaceStats compares keyspace_hits/keyspace_misses deltas:
// which commands look keys up for reading (lookupKeyRead) or writing.
func TestZsetKeyspaceStats(t *testing.T) {
	p := NewPair(t)
	stat := func(c *Conn) string {
		v, err := c.Do("INFO", "stats")
		if err != nil {
			t.Fatal(err)
		}
		var hits, misses string
		for _, line := range strings.Split(v.Str, "\r\n") {
			if strings.HasPrefix(line, "keyspace_hits:") {
				hits = strings.TrimPrefix(line, "keyspace_hits:")
			}
			if strings.HasPrefix(line, "keyspace_misses:") {
				misses = strings.TrimPrefix(line, "keyspace_misses:")
			}
		}
		return hits + "/" + misses
	}
	delta := func(a, b string) string {
		pa, pb := strings.Split(a, "/"), strings.Split(b, "/")
		h1, _ := strconv.Atoi(pa[0])
		m1, _ := strconv.Atoi(pa[1])
		h2, _ := strconv.Atoi(pb[0])
		m2, _ := strconv.Atoi(pb[1])
		return fmt.Sprintf("hits+%d misses+%d", h2-h1, m2-m1)
	}
	p.Do("ZADD", "z", "1", "a", "2", "b")
	p.Do("ZADD", "y", "1", "a")
	for _, cmd := range [][]string{
		{"ZADD", "z", "3", "c"}, {"ZADD", "new", "1", "a"}, {"ZSCORE", "z", "a"}, {"ZSCORE", "nokey", "a"},
		{"ZMSCORE", "z", "a"}, {"ZMSCORE", "nokey", "a"}, {"ZCARD", "z"}, {"ZCOUNT", "z", "0", "1"},
		{"ZRANK", "z", "a"}, {"ZRANGE", "z", "0", "-1"}, {"ZRANGE", "nokey", "0", "-1"},
		{"ZRANGEBYSCORE", "z", "0", "1"}, {"ZLEXCOUNT", "z", "-", "+"}, {"ZSCAN", "z", "0"}, {"ZSCAN", "nokey", "0"},
		{"ZRANDMEMBER", "z"}, {"ZRANDMEMBER", "z", "3"}, {"ZREM", "z", "c"}, {"ZREM", "nokey", "c"},
		{"ZINCRBY", "z", "1", "a"}, {"ZPOPMIN", "new"}, {"ZPOPMIN", "nokey"},
		{"ZMPOP", "2", "nokey", "y", "MIN"}, {"ZADD", "y", "1", "a"},
		{"ZRANGESTORE", "d", "z", "0", "-1"}, {"ZRANGESTORE", "d", "nokey", "0", "-1"},
		{"ZUNIONSTORE", "u", "2", "z", "nokey"}, {"ZUNION", "2", "z", "nokey"}, {"ZINTER", "2", "z", "y"},
		{"ZDIFFSTORE", "u", "2", "z", "y"}, {"ZINTERCARD", "2", "z", "y"},
		{"ZREMRANGEBYSCORE", "nokey", "0", "1"}, {"ZREMRANGEBYRANK", "d", "0", "0"},
		{"BZPOPMIN", "y", "0"}, {"BZMPOP", "0", "1", "z", "MAX"},
	} {
		lb, rb := stat(p.L), stat(p.R)
		if len(cmd) == 2 && cmd[0] == "ZRANDMEMBER" {
			p.DoShape(cmd...)
		} else {
			p.Do(cmd...)
		}
		ld, rd := delta(lb, stat(p.L)), delta(rb, stat(p.R))
		p.check(append([]string{"keyspace stats"}, cmd...), Value{Kind: '+', Str: ld}, Value{Kind: '+', Str: rd}, ld == rd)
	}
}
