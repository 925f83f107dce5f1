package conformance

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestStringGETSET(t *testing.T) {
	p := NewPair(t)
	p.Do("GET", "k")
	p.Do("SET", "k", "v")
	p.Do("GET", "k")
	p.Do("SET", "k", "")
	p.Do("GET", "k")
	p.Do("SET", "k", "bin\x00ary\r\n")
	p.Do("GET", "k")
	p.Do("SET", "", "")
	p.Do("GET", "")
	big := strings.Repeat("x", 100000)
	p.Do("SET", "big", big)
	p.Do("GET", "big")
	p.Do("STRLEN", "big")
	p.Do("GET")
	p.Do("GET", "a", "b")
	p.Do("SET", "k")
	p.Do("SET")
}

func TestStringSETOptions(t *testing.T) {
	p := NewPair(t)
	p.Do("SET", "k", "v", "NX")
	p.Do("SET", "k", "w", "NX")
	p.Do("GET", "k")
	p.Do("SET", "k", "x", "XX")
	p.Do("GET", "k")
	p.Do("SET", "nk", "x", "XX")
	p.Do("EXISTS", "nk")
	p.Do("SET", "k", "v", "EX", "100")
	p.DoApprox(1, "TTL", "k")
	p.Do("SET", "k", "v", "PX", "100000")
	p.DoApprox(1, "TTL", "k")
	p.Do("SET", "k", "v2", "KEEPTTL")
	p.DoApprox(1, "TTL", "k")
	p.Do("SET", "k", "v3")
	p.Do("TTL", "k")
	p.Do("SET", "k", "v", "EXAT", strconv.FormatInt(time.Now().Unix()+100, 10))
	p.DoApprox(2, "TTL", "k")
	p.Do("SET", "k", "v", "PXAT", strconv.FormatInt(time.Now().UnixMilli()+100000, 10))
	p.DoApprox(2, "TTL", "k")
	p.Do("SET", "k", "v", "PXAT", "33177117420000")
	p.Do("PEXPIRETIME", "k")
	// A deadline in the past: the key is set already expired.
	p.Do("SET", "past", "v", "EXAT", "1")
	p.Do("GET", "past")
	p.Do("EXISTS", "past")
	p.Do("SET", "past", "v", "PXAT", "1")
	p.Do("GET", "past")
	// GET.
	p.Do("SET", "g", "old")
	p.Do("SET", "g", "new", "GET")
	p.Do("GET", "g")
	p.Do("SET", "g2", "new", "GET")
	p.Do("SET", "g", "n", "NX", "GET")
	p.Do("SET", "g", "n2", "XX", "GET")
	p.Do("SET", "g3", "n", "XX", "GET")
	p.Do("EXISTS", "g3")
	p.Do("SET", "g4", "n", "NX", "GET")
	p.Do("SET", "g", "v", "GET", "EX", "100")
	p.DoApprox(1, "TTL", "g")
	p.Do("SET", "g", "v", "GET", "GET")
	// Case and repetition.
	p.Do("SET", "k", "v", "ex", "100", "EX", "200")
	p.DoApprox(1, "TTL", "k")
	p.Do("SET", "k", "v", "nx", "NX")
	p.Do("SET", "k", "v", "xx", "XX", "keepttl", "KEEPTTL")
	// Incompatible combinations and syntax errors.
	for _, opts := range [][]string{
		{"NX", "XX"}, {"XX", "NX"}, {"EX", "10", "PX", "100"}, {"PX", "10", "EX", "100"},
		{"EX", "10", "EXAT", "100"}, {"EXAT", "10", "PXAT", "100"}, {"PXAT", "10", "PX", "100"},
		{"EX", "10", "KEEPTTL"}, {"KEEPTTL", "EX", "10"}, {"KEEPTTL", "PXAT", "10"},
		{"PERSIST"}, {"EX"}, {"PX"}, {"EXAT"}, {"PXAT"}, {"FOO"}, {"NX", "FOO"},
		{"EX", "10", "FOO"}, {"EXX", "10"}, {"N"}, {"GET", "NX", "XX"},
		{"EX", "abc"}, {"EX", "1.5"}, {"EX", "0"}, {"EX", "-1"}, {"PX", "0"}, {"PX", "-100"},
		{"EXAT", "0"}, {"PXAT", "-1"}, {"EX", "9223372036854775807"}, {"EX", "9223372036854775"},
		{"EX", "9223372036854776"}, {"PX", "9223372036854775807"}, {"PXAT", "9223372036854775807"},
		{"EXAT", "9223372036854775"}, {"EX", "99999999999999999999"},
		{"NX", "EX", "abc"}, {"EX", "abc", "NX", "XX"}, {"GET", "EX", "0"},
	} {
		p.Do(append([]string{"SET", "opt", "v"}, opts...)...)
	}
	p.Do("EXISTS", "opt")
	// Wrong type with GET.
	p.Do("SET", "s", "v")
	p.Do("SET", "s", "w", "GET", "EX", "0")
}

func TestStringSETNXSETEX(t *testing.T) {
	p := NewPair(t)
	p.Do("SETNX", "k", "1")
	p.Do("SETNX", "k", "2")
	p.Do("GET", "k")
	p.Do("SETNX", "k")
	p.Do("SETEX", "k", "100", "v")
	p.DoApprox(1, "TTL", "k")
	p.Do("GET", "k")
	p.Do("SETEX", "k", "0", "v")
	p.Do("SETEX", "k", "-1", "v")
	p.Do("SETEX", "k", "abc", "v")
	p.Do("SETEX", "k", "9223372036854775", "v")
	p.Do("SETEX", "k", "10")
	p.Do("PSETEX", "k", "100000", "v")
	p.DoApprox(1, "TTL", "k")
	p.Do("PSETEX", "k", "0", "v")
	p.Do("PSETEX", "k", "-5", "v")
	p.Do("PSETEX", "k", "9223372036854775807", "v")
	p.Do("PSETEX", "k", "x", "v")
	p.Do("GET", "k")
	p.Do("SETEX", "n", "1", "v", "extra")
}

func TestStringGETSETGETDEL(t *testing.T) {
	p := NewPair(t)
	p.Do("GETSET", "k", "1")
	p.Do("GETSET", "k", "2")
	p.Do("GET", "k")
	p.Do("SET", "t", "v", "EX", "100")
	p.Do("GETSET", "t", "w")
	p.Do("TTL", "t")
	p.Do("GETSET", "k")
	p.Do("GETDEL", "k")
	p.Do("GETDEL", "k")
	p.Do("EXISTS", "k")
	p.Do("GETDEL")
	p.Do("GETDEL", "a", "b")
}

func TestStringGETEX(t *testing.T) {
	p := NewPair(t)
	p.Do("GETEX", "nosuch")
	p.Do("GETEX", "nosuch", "EX", "-5")
	p.Do("GETEX", "nosuch", "FOO")
	p.Do("SET", "k", "v")
	p.Do("GETEX", "k")
	p.Do("TTL", "k")
	p.Do("GETEX", "k", "EX", "100")
	p.DoApprox(1, "TTL", "k")
	p.Do("GETEX", "k", "PX", "200000")
	p.DoApprox(1, "TTL", "k")
	p.Do("GETEX", "k", "EXAT", strconv.FormatInt(time.Now().Unix()+300, 10))
	p.DoApprox(2, "TTL", "k")
	p.Do("GETEX", "k", "PXAT", strconv.FormatInt(time.Now().UnixMilli()+400000, 10))
	p.DoApprox(2, "TTL", "k")
	p.Do("GETEX", "k", "PERSIST")
	p.Do("TTL", "k")
	p.Do("GETEX", "k", "PERSIST")
	p.Do("GETEX", "k", "persist", "PERSIST")
	p.Do("GETEX", "k", "EX", "0")
	p.Do("GETEX", "k", "EX", "-1")
	p.Do("GETEX", "k", "PX", "abc")
	p.Do("GETEX", "k", "EX", "9223372036854775")
	p.Do("GETEX", "k", "EX")
	p.Do("GETEX", "k", "EX", "10", "PX", "10")
	p.Do("GETEX", "k", "EX", "10", "PERSIST")
	p.Do("GETEX", "k", "PERSIST", "EX", "10")
	p.Do("GETEX", "k", "KEEPTTL")
	p.Do("GETEX", "k", "NX")
	p.Do("GETEX", "k", "GET")
	p.Do("GETEX", "k", "FOO")
	p.Do("TTL", "k")
	// A past absolute deadline deletes the key after replying.
	p.Do("GETEX", "k", "EXAT", "1")
	p.Do("EXISTS", "k")
	p.Do("SET", "k", "v")
	p.Do("GETEX", "k", "PXAT", "1")
	p.Do("EXISTS", "k")
	p.Do("GETEX")
}

func TestStringMGETMSET(t *testing.T) {
	p := NewPair(t)
	p.Do("MGET", "a", "b")
	p.Do("MSET", "a", "1", "b", "2", "a", "3")
	p.Do("MGET", "a", "b", "c", "a")
	p.Do("MSET", "a")
	p.Do("MSET", "a", "1", "b")
	p.Do("MSET")
	p.Do("MGET")
	p.Do("SET", "t", "v", "EX", "100")
	p.Do("MSET", "t", "w")
	p.Do("TTL", "t")
	p.Do("MSETNX", "x", "1", "y", "2")
	p.Do("MSETNX", "y", "3", "z", "4")
	p.Do("MGET", "x", "y", "z")
	p.Do("MSETNX", "d", "1", "d", "2")
	p.Do("GET", "d")
	p.Do("MSETNX", "q")
	p.Do("MSETNX", "q", "1", "r")
}

func TestStringINCR(t *testing.T) {
	p := NewPair(t)
	p.Do("INCR", "n")
	p.Do("INCR", "n")
	p.Do("DECR", "n")
	p.Do("DECR", "m")
	p.Do("INCRBY", "n", "100")
	p.Do("INCRBY", "n", "-300")
	p.Do("DECRBY", "n", "-5")
	p.Do("DECRBY", "n", "5")
	p.Do("GET", "n")
	p.Do("INCRBY", "n", "abc")
	p.Do("INCRBY", "n", "1.5")
	p.Do("INCRBY", "n", "")
	p.Do("INCRBY", "n", "9223372036854775808")
	p.Do("DECRBY", "n", "-9223372036854775808")
	p.Do("DECRBY", "n", "x")
	// Overflow.
	p.Do("SET", "max", "9223372036854775807")
	p.Do("INCR", "max")
	p.Do("INCRBY", "max", "0")
	p.Do("DECRBY", "max", "-1")
	p.Do("SET", "min", "-9223372036854775808")
	p.Do("DECR", "min")
	p.Do("INCRBY", "min", "-1")
	p.Do("INCRBY", "min", "9223372036854775807")
	p.Do("GET", "min")
	// Values that are not integers.
	for _, v := range []string{"abc", "1.0", " 1", "1 ", "+1", "01", "-0", "", "9223372036854775808", "0x10", "1e3"} {
		p.Do("SET", "v", v)
		p.Do("INCR", "v")
		p.Do("DECRBY", "v", "1")
	}
	// The deadline is kept.
	p.Do("SET", "t", "5", "EX", "100")
	p.Do("INCR", "t")
	p.DoApprox(1, "TTL", "t")
	// Raw strings become integers again.
	p.Do("SET", "r", "1")
	p.Do("APPEND", "r", "2")
	p.Do("INCR", "r")
	p.Do("GET", "r")
	p.Do("INCR")
	p.Do("INCR", "a", "b")
	p.Do("INCRBY", "a")
	p.Do("DECRBY", "a", "1", "2")
}

func TestStringINCRBYFLOAT(t *testing.T) {
	p := NewPair(t)
	p.Do("INCRBYFLOAT", "f", "1.5")
	p.Do("INCRBYFLOAT", "f", "0.1")
	p.Do("SET", "f", "10.5")
	p.Do("INCRBYFLOAT", "f", "0.1")
	p.Do("INCRBYFLOAT", "f", "-5")
	p.Do("SET", "f", "3.0e3")
	p.Do("INCRBYFLOAT", "f", "0")
	p.Do("INCRBYFLOAT", "f", "5.0e-3")
	p.Do("INCRBYFLOAT", "f", "1e30")
	p.Do("INCRBYFLOAT", "f", "1e400")
	p.Do("INCRBYFLOAT", "f", "-1e400")
	p.Do("SET", "f", "0")
	p.Do("INCRBYFLOAT", "f", "1e-20")
	p.Do("INCRBYFLOAT", "f", "-1e-20")
	p.Do("INCRBYFLOAT", "f", "-1e-5")
	p.Do("INCRBYFLOAT", "f", "3.3e-10")
	p.Do("INCRBYFLOAT", "f", "0x1p3")
	p.Do("INCRBYFLOAT", "f", "0X1.8P1")
	p.Do("INCRBYFLOAT", "f", ".5")
	p.Do("INCRBYFLOAT", "f", "5.")
	p.Do("INCRBYFLOAT", "f", "+2")
	p.Do("INCRBYFLOAT", "f", "1.7976931348623157e308")
	p.Do("INCRBYFLOAT", "f", "1e4000")
	p.Do("INCRBYFLOAT", "f", "1e4933")
	p.Do("INCRBYFLOAT", "f", "1e-4940")
	p.Do("INCRBYFLOAT", "f", "0e999999999")
	p.Do("SET", "f", "1")
	p.Do("INCRBYFLOAT", "f", "0.1")
	p.Do("INCRBYFLOAT", "f", "0.2")
	p.Do("INCRBYFLOAT", "f", "-1.3")
	p.Do("INCRBYFLOAT", "f", "123456789012345678901234567890")
	p.Do("INCRBYFLOAT", "f", "-123456789012345678901234567890")
	p.Do("SET", "f", "5")
	p.Do("INCRBYFLOAT", "f", "-5")
	p.Do("SET", "f", "-0.5")
	p.Do("INCRBYFLOAT", "f", "0.25")
	for _, bad := range []string{"", " 1", "1 ", "abc", "1e", "1e+", ".", "inf", "-inf", "+inf", "infinity", "nan", "NaN", "1_0", "0b1", "0x", "0xg", "1e5000", "-1e5000", "1e-5000", "1..2", "--1", "1.5.5"} {
		p.Do("INCRBYFLOAT", "f", bad)
	}
	p.Do("GET", "f")
	for _, v := range []string{"abc", "", " 1", "1e5000", "inf", "0x1p3", "1e400"} {
		p.Do("SET", "v", v)
		p.Do("INCRBYFLOAT", "v", "1")
	}
	p.Do("SET", "v", strings.Repeat("1", 5119))
	p.Do("INCRBYFLOAT", "v", "1")
	p.Do("SET", "v", "1")
	p.Do("INCRBYFLOAT", "v", strings.Repeat("1", 5120))
	p.Do("SET", "t", "1", "EX", "100")
	p.Do("INCRBYFLOAT", "t", "1")
	p.DoApprox(1, "TTL", "t")
	p.Do("INCRBYFLOAT", "t")
	p.Do("INCRBYFLOAT", "t", "1", "2")
}

func TestStringAPPEND(t *testing.T) {
	p := NewPair(t)
	p.Do("APPEND", "k", "hello")
	p.Do("APPEND", "k", " world")
	p.Do("GET", "k")
	p.Do("APPEND", "k", "")
	p.Do("APPEND", "e", "")
	p.Do("EXISTS", "e")
	p.Do("SET", "n", "1")
	p.Do("APPEND", "n", "2")
	p.Do("GET", "n")
	p.Do("SET", "t", "v", "EX", "100")
	p.Do("APPEND", "t", "w")
	p.DoApprox(1, "TTL", "t")
	p.Do("APPEND", "k")
	p.Do("APPEND", "k", "a", "b")
}

func TestStringSTRLEN(t *testing.T) {
	p := NewPair(t)
	p.Do("STRLEN", "k")
	p.Do("SET", "k", "hello")
	p.Do("STRLEN", "k")
	p.Do("SET", "k", "-12345")
	p.Do("STRLEN", "k")
	p.Do("SET", "k", "")
	p.Do("STRLEN", "k")
	p.Do("STRLEN")
}

func TestStringGETRANGE(t *testing.T) {
	p := NewPair(t)
	p.Do("GETRANGE", "k", "0", "-1")
	p.Do("SET", "k", "Hello World")
	for _, r := range [][2]string{
		{"0", "4"}, {"0", "-1"}, {"-5", "-1"}, {"-1", "-5"}, {"5", "3"}, {"0", "100"}, {"100", "200"},
		{"-100", "-50"}, {"-100", "2"}, {"3", "-100"}, {"-1", "-1"}, {"0", "0"}, {"10", "10"}, {"11", "11"},
		{"-9223372036854775808", "9223372036854775807"}, {"9223372036854775807", "-9223372036854775808"},
		{"-9223372036854775808", "-9223372036854775808"},
	} {
		p.Do("GETRANGE", "k", r[0], r[1])
		p.Do("SUBSTR", "k", r[0], r[1])
	}
	p.Do("GETRANGE", "k", "a", "1")
	p.Do("GETRANGE", "k", "1", "b")
	p.Do("GETRANGE", "nosuch", "a", "1")
	p.Do("SET", "n", "12345")
	p.Do("GETRANGE", "n", "1", "2")
	p.Do("SET", "e", "")
	p.Do("GETRANGE", "e", "0", "-1")
	p.Do("GETRANGE", "e", "0", "0")
	p.Do("GETRANGE", "k", "0")
	p.Do("SUBSTR", "k", "0")
}

func TestStringSETRANGE(t *testing.T) {
	p := NewPair(t)
	p.Do("SETRANGE", "k", "0", "")
	p.Do("EXISTS", "k")
	p.Do("SETRANGE", "k", "5", "abc")
	p.Do("GET", "k")
	p.Do("SETRANGE", "k", "0", "XY")
	p.Do("GET", "k")
	p.Do("SETRANGE", "k", "1", "")
	p.Do("SETRANGE", "k", "20", "z")
	p.Do("GET", "k")
	p.Do("SETRANGE", "k", "-1", "x")
	p.Do("SETRANGE", "nosuch", "-1", "")
	p.Do("SETRANGE", "k", "abc", "x")
	p.Do("SETRANGE", "k", "1.5", "x")
	p.Do("SETRANGE", "k", "536870912", "x")
	p.Do("SETRANGE", "k", "536870911", "xy")
	p.Do("SETRANGE", "new", "536870912", "x")
	p.Do("SETRANGE", "new", "9223372036854775807", "x")
	p.Do("SETRANGE", "k", "9223372036854775807", "x")
	p.Do("SETRANGE", "k", "9223372036854775807", "")
	p.Do("EXISTS", "new")
	p.Do("SET", "n", "12345")
	p.Do("SETRANGE", "n", "1", "9")
	p.Do("GET", "n")
	p.Do("SET", "t", "hello", "EX", "100")
	p.Do("SETRANGE", "t", "0", "J")
	p.DoApprox(1, "TTL", "t")
	p.Do("SETRANGE", "k", "0")
}

// otherTypes creates, on both servers, one key of each non-string type
// and returns their names.
func otherTypes(t *testing.T, p *Pair) []string {
	t.Helper()
	var keys []string
	for _, c := range [][]string{
		{"HSET", "hash", "f", "v"}, {"SADD", "set", "m"}, {"LPUSH", "list", "a"}, {"ZADD", "zset", "1", "m"},
	} {
		p.Do(c...)
		keys = append(keys, c[1])
	}
	return keys
}

// TestStringWrongType runs every string command against keys of the other
// types.
func TestStringWrongType(t *testing.T) {
	p := NewPair(t)
	for _, k := range otherTypes(t, p) {
		for _, cmd := range [][]string{
			{"GET", k}, {"SET", k, "v", "GET"}, {"GETSET", k, "v"}, {"GETDEL", k},
			{"GETEX", k}, {"GETEX", k, "EX", "0"}, {"GETEX", k, "FOO"}, {"GETEX", "nosuch", "EX", "0"},
			{"MGET", k, "nosuch", k}, {"INCR", k}, {"DECR", k}, {"INCRBY", k, "1"},
			{"INCRBY", k, "x"}, {"DECRBY", k, "1"}, {"INCRBYFLOAT", k, "1"},
			{"INCRBYFLOAT", k, "x"}, {"APPEND", k, "x"}, {"STRLEN", k},
			{"GETRANGE", k, "0", "1"}, {"GETRANGE", k, "x", "1"}, {"SETRANGE", k, "0", "x"},
			{"SETRANGE", k, "0", ""}, {"SETRANGE", k, "-1", "x"}, {"TYPE", k},
			{"SET", k, "v", "NX"}, {"SETNX", k, "v"}, {"MSETNX", k, "v"}, {"SET", k, "v", "GET", "NX"},
		} {
			p.Do(cmd...)
		}
	}
	// SET overwrites any type.
	p.Do("SET", "hash", "v")
	p.Do("GET", "hash")
	p.Do("TYPE", "hash")
}

func TestStringLCS(t *testing.T) {
	p := NewPair(t)
	p.Do("MSET", "key1", "ohmytext", "key2", "mynewtext")
	p.Do("LCS", "key1", "key2")
	p.Do("LCS", "key1", "key2", "LEN")
	p.Do("LCS", "key1", "key2", "IDX")
	p.Do("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4")
	p.Do("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "4", "WITHMATCHLEN")
	p.Do("LCS", "key1", "key2", "idx", "withmatchlen")
	p.Do("LCS", "key1", "key2", "IDX", "MINMATCHLEN", "-5")
	p.Do("LCS", "key1", "key2", "WITHMATCHLEN")
	p.Do("LCS", "key1", "key2", "MINMATCHLEN", "2")
	p.Do("LCS", "key1", "key2", "LEN", "IDX")
	p.Do("LCS", "key1", "key2", "LEN", "LEN")
	p.Do("LCS", "key1", "key2", "MINMATCHLEN")
	p.Do("LCS", "key1", "key2", "MINMATCHLEN", "x")
	p.Do("LCS", "key1", "key2", "FOO")
	p.Do("LCS", "key1", "nosuch")
	p.Do("LCS", "nosuch", "nosuch2", "IDX")
	p.Do("LCS", "key1", "key1", "IDX", "WITHMATCHLEN")
	p.Do("MSET", "a", "rosettacode", "b", "raisethysword")
	p.Do("LCS", "a", "b", "IDX", "WITHMATCHLEN")
	p.Do("LCS", "b", "a", "IDX", "WITHMATCHLEN")
	p.Do("LCS", "a", "b")
	p.Do("MSET", "x", "ACCGGTCGAGTGCGCGGAAGCCGGCCGAA", "y", "GTCGTTCGGAATGCCGTTGCTCTGTAAA")
	p.Do("LCS", "x", "y")
	p.Do("LCS", "x", "y", "IDX", "WITHMATCHLEN")
	p.Do("LCS", "x", "y", "IDX", "MINMATCHLEN", "3")
	p.Do("SET", "n", "12345")
	p.Do("SET", "m", "2340")
	p.Do("LCS", "n", "m", "IDX")
	p.Do("SET", "big1", strings.Repeat("ab", 2000))
	p.Do("SET", "big2", strings.Repeat("ba", 2000))
	p.Do("LCS", "big1", "big2", "LEN")
	p.Do("LCS", "big1", "big2", "IDX", "MINMATCHLEN", "100")
	p.Do("SET", "huge", strings.Repeat("x", 12000))
	p.Do("LCS", "huge", "huge", "LEN")
	p.Do("LCS", "huge", "big2", "LEN")
	p.Do("LCS", "key1")
	keys := otherTypes(t, p)
	p.Do("LCS", keys[0], "key1")
	p.Do("LCS", "key1", keys[0], "FOO")
	p.Do("LCS", "nosuch", keys[0], "LEN", "IDX")
}

// TestStringRandomStream sends the same random stream of string and
// generic key commands (fixed seed) to both servers.
func TestStringRandomStream(t *testing.T) {
	p := NewPair(t)
	rnd := rand.New(rand.NewPCG(7, 11))
	keys := []string{"a", "b", "c", "d", "n"}
	key := func() string { return keys[rnd.IntN(len(keys))] }
	num := func() string {
		return []string{"0", "1", "-1", "2", "5", "-3", "10", "100", "x", "1.5", "9223372036854775807", "-9223372036854775808"}[rnd.IntN(12)]
	}
	val := func() string {
		return []string{"", "v", "hello", "12", "-7", "3.5", "abc def", "0", "99999999999999999999", "1e3"}[rnd.IntN(10)]
	}
	for i := 0; i < 3000; i++ {
		var cmd []string
		switch rnd.IntN(24) {
		case 0:
			cmd = []string{"SET", key(), val()}
		case 1:
			cmd = []string{"GET", key()}
		case 2:
			cmd = []string{"APPEND", key(), val()}
		case 3:
			cmd = []string{"SETRANGE", key(), num(), val()}
		case 4:
			cmd = []string{"GETRANGE", key(), num(), num()}
		case 5:
			cmd = []string{"INCR", key()}
		case 6:
			cmd = []string{"INCRBY", key(), num()}
		case 7:
			cmd = []string{"DECRBY", key(), num()}
		case 8:
			cmd = []string{"INCRBYFLOAT", key(), val()}
		case 9:
			cmd = []string{"DEL", key(), key()}
		case 10:
			cmd = []string{"EXPIRE", key(), []string{"100", "-1", "0", "1000", "x"}[rnd.IntN(5)]}
		case 11:
			cmd = []string{"PERSIST", key()}
		case 12:
			cmd = []string{"RENAME", key(), key()}
		case 13:
			cmd = []string{"RENAMENX", key(), key()}
		case 14:
			cmd = []string{"COPY", key(), key()}
		case 15:
			cmd = []string{"MSET", key(), val(), key(), val()}
		case 16:
			cmd = []string{"MGET", key(), key(), key()}
		case 17:
			cmd = []string{"STRLEN", key()}
		case 18:
			cmd = []string{"GETDEL", key()}
		case 19:
			cmd = []string{"GETEX", key(), []string{"PERSIST", "EX", "EX", "PXAT"}[rnd.IntN(4)], "100"}
			if cmd[2] == "PERSIST" {
				cmd = cmd[:3]
			}
		case 20:
			cmd = []string{"SET", key(), val(), []string{"NX", "XX", "GET", "KEEPTTL", "EX"}[rnd.IntN(5)], "50"}
			if cmd[3] != "EX" {
				cmd = cmd[:4]
			}
		case 21:
			cmd = []string{"EXISTS", key(), key()}
		case 22:
			cmd = []string{"TYPE", key()}
		case 23:
			cmd = []string{"SETNX", key(), val()}
		}
		p.Do(cmd...)
		if rnd.IntN(10) == 0 {
			p.DoApprox(1, "TTL", key())
		}
	}
	p.DoSorted("KEYS", "*")
}
