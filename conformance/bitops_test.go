package conformance

import (
	"math/rand/v2"
	"strconv"
	"testing"
)

func TestBitGETBITSETBIT(t *testing.T) {
	p := NewPair(t)
	p.Do("GETBIT", "k", "0")
	p.Do("GETBIT", "k", "100")
	p.Do("SETBIT", "k", "7", "1")
	p.Do("GET", "k")
	p.Do("SETBIT", "k", "7", "1")
	p.Do("SETBIT", "k", "7", "0")
	p.Do("SETBIT", "k", "100", "1")
	p.Do("GET", "k")
	p.Do("STRLEN", "k")
	for _, off := range []string{"0", "7", "8", "100", "101", "1000", "-1", "x", "4294967295", "4294967296", "9223372036854775807"} {
		p.Do("GETBIT", "k", off)
	}
	for _, v := range []string{"2", "-1", "x", "", "01", "1.0"} {
		p.Do("SETBIT", "k", "1", v)
	}
	p.Do("SETBIT", "k", "-1", "1")
	p.Do("SETBIT", "k", "4294967296", "1")
	p.Do("SETBIT", "k", "x", "1")
	p.Do("SETBIT", "k", "x", "2")
	p.Do("SET", "n", "12")
	p.Do("GETBIT", "n", "2")
	p.Do("GETBIT", "n", "7")
	p.Do("SETBIT", "n", "6", "0")
	p.Do("GET", "n")
	p.Do("OBJECT", "ENCODING", "n")
	p.Do("SET", "e", "abc")
	p.Do("SETBIT", "e", "0", "0")
	p.Do("OBJECT", "ENCODING", "e")
	p.Do("SET", "t", "a", "EX", "100")
	p.Do("SETBIT", "t", "100", "1")
	p.DoApprox(1, "TTL", "t")
	p.Do("GETBIT", "k")
	p.Do("SETBIT", "k", "1")
	p.Do("LPUSH", "list", "a")
	p.Do("GETBIT", "list", "0")
	p.Do("GETBIT", "list", "x")
	p.Do("SETBIT", "list", "0", "1")
	p.Do("SETBIT", "list", "0", "2")
}

func TestBitBITCOUNT(t *testing.T) {
	p := NewPair(t)
	p.Do("BITCOUNT", "nosuch")
	p.Do("BITCOUNT", "nosuch", "a", "b")
	p.Do("BITCOUNT", "nosuch", "0")
	p.Do("SET", "s", "foobar")
	p.Do("BITCOUNT", "s")
	p.Do("BITCOUNT", "s", "0")
	p.Do("BITCOUNT", "s", "0", "0", "BIT", "x")
	p.Do("BITCOUNT", "s", "a", "1")
	p.Do("BITCOUNT", "s", "1", "b")
	p.Do("BITCOUNT", "s", "0", "1", "FOO")
	p.Do("BITCOUNT", "s", "0", "1", "bit")
	p.Do("BITCOUNT", "s", "0", "1", "BYTE")
	p.Do("SET", "n", "-12345")
	p.Do("BITCOUNT", "n")
	p.Do("SET", "e", "")
	p.Do("BITCOUNT", "e")
	p.Do("BITCOUNT", "e", "0", "-1")
	p.Do("BITCOUNT", "e", "0", "-1", "BIT")
	p.Do("LPUSH", "list", "a")
	p.Do("BITCOUNT", "list")
	p.Do("BITCOUNT", "list", "x", "y")
	p.Do("BITCOUNT")
	ranges := []string{"0", "1", "2", "5", "6", "7", "8", "9", "15", "16", "40", "47", "48", "100", "-1", "-2", "-5", "-6", "-7", "-8", "-9", "-47", "-48", "-49", "-100",
		"9223372036854775807", "-9223372036854775808"}
	for _, a := range ranges {
		for _, b := range ranges {
			p.Do("BITCOUNT", "s", a, b)
			p.Do("BITCOUNT", "s", a, b, "BIT")
		}
	}
}

func TestBitBITPOS(t *testing.T) {
	p := NewPair(t)
	p.Do("BITPOS", "nosuch", "0")
	p.Do("BITPOS", "nosuch", "1")
	p.Do("BITPOS", "nosuch", "2")
	p.Do("BITPOS", "nosuch", "x")
	p.Do("BITPOS", "nosuch", "1", "x")
	p.Do("SET", "e", "")
	p.Do("BITPOS", "e", "0")
	p.Do("BITPOS", "e", "1")
	p.Do("BITPOS", "e", "0", "0")
	p.Do("BITPOS", "e", "0", "0", "-1", "BIT")
	p.Do("SET", "s", "\xff\xf0\x00")
	p.Do("BITPOS", "s", "0")
	p.Do("BITPOS", "s", "1", "2")
	p.Do("BITPOS", "s", "0", "a")
	p.Do("BITPOS", "s", "0", "0", "b")
	p.Do("BITPOS", "s", "0", "0", "1", "FOO")
	p.Do("BITPOS", "s", "0", "0", "1", "BIT", "x")
	p.Do("BITPOS", "s", "0", "a", "1", "FOO")
	p.Do("BITPOS", "s", "0", "0", "b", "FOO")
	p.Do("SET", "ones", "\xff\xff\xff")
	p.Do("BITPOS", "ones", "0")
	p.Do("BITPOS", "ones", "0", "0")
	p.Do("BITPOS", "ones", "0", "0", "-1")
	p.Do("BITPOS", "ones", "0", "3", "BIT")
	p.Do("BITPOS", "ones", "1", "3", "BIT")
	p.Do("SET", "zeros", "\x00\x00\x00")
	p.Do("BITPOS", "zeros", "1")
	p.Do("BITPOS", "zeros", "0")
	p.Do("BITPOS", "zeros", "0", "1")
	p.Do("LPUSH", "list", "a")
	p.Do("BITPOS", "list", "1")
	p.Do("BITPOS", "list", "x")
	p.Do("BITPOS", "s")
}

// TestBitRandomRanges compares BITCOUNT and BITPOS over random strings and
// ranges (fixed seed).
func TestBitRandomRanges(t *testing.T) {
	p := NewPair(t)
	rnd := rand.New(rand.NewPCG(3, 5))
	for round := 0; round < 40; round++ {
		n := rnd.IntN(7)
		b := make([]byte, n)
		for i := range b {
			switch rnd.IntN(4) {
			case 0:
				b[i] = 0
			case 1:
				b[i] = 0xff
			default:
				b[i] = byte(rnd.IntN(256))
			}
		}
		p.Do("SET", "r", string(b))
		idx := func() string { return strconv.Itoa(rnd.IntN(2*8*n+20) - (8*n + 10)) }
		for i := 0; i < 25; i++ {
			s, e := idx(), idx()
			p.Do("BITCOUNT", "r", s, e, "BIT")
			p.Do("BITCOUNT", "r", s, e)
			for _, bit := range []string{"0", "1"} {
				p.Do("BITPOS", "r", bit, s)
				p.Do("BITPOS", "r", bit, s, e)
				p.Do("BITPOS", "r", bit, s, e, "BIT")
				p.Do("BITPOS", "r", bit, s, e, "BYTE")
			}
		}
		p.Do("BITPOS", "r", "0")
		p.Do("BITPOS", "r", "1")
	}
}

func TestBitBITOP(t *testing.T) {
	p := NewPair(t)
	p.Do("MSET", "a", "\x0f\xf0abc", "b", "\xff", "c", "")
	for _, op := range []string{"AND", "OR", "XOR", "and", "Or"} {
		p.Do("BITOP", op, "d", "a", "b")
		p.Do("GET", "d")
		p.Do("BITOP", op, "d", "a", "b", "nosuch")
		p.Do("GET", "d")
		p.Do("BITOP", op, "d", "a")
		p.Do("GET", "d")
	}
	p.Do("BITOP", "NOT", "d", "a")
	p.Do("GET", "d")
	p.Do("OBJECT", "ENCODING", "d")
	p.Do("BITOP", "NOT", "d", "a", "b")
	p.Do("BITOP", "NOT", "d", "nosuch")
	p.Do("EXISTS", "d")
	p.Do("SET", "d", "x", "EX", "100")
	p.Do("BITOP", "AND", "d", "c", "nosuch")
	p.Do("EXISTS", "d")
	p.Do("SET", "d", "x", "EX", "100")
	p.Do("BITOP", "OR", "d", "a")
	p.Do("TTL", "d")
	p.Do("BITOP", "NAND", "d", "a")
	p.Do("BITOP", "AND", "d")
	p.Do("LPUSH", "list", "x")
	p.Do("BITOP", "AND", "d", "a", "list")
	p.Do("BITOP", "AND", "list", "a")
	p.Do("TYPE", "list")
	p.Do("SET", "n", "123")
	p.Do("BITOP", "XOR", "d", "n", "a")
	p.Do("GET", "d")
}

func TestBitBITFIELD(t *testing.T) {
	p := NewPair(t)
	p.Do("BITFIELD", "k")
	p.Do("BITFIELD", "k", "GET", "u8", "0")
	p.Do("EXISTS", "k")
	p.Do("BITFIELD", "k", "SET", "i8", "0", "100", "GET", "u4", "0", "GET", "i4", "4", "GET", "u8", "#0")
	p.Do("GET", "k")
	p.Do("BITFIELD", "k", "INCRBY", "u2", "100", "1", "OVERFLOW", "SAT", "incrby", "u2", "102", "1")
	p.Do("BITFIELD", "k", "INCRBY", "u2", "100", "1", "OVERFLOW", "SAT", "incrby", "u2", "102", "1")
	p.Do("BITFIELD", "k", "OVERFLOW", "FAIL", "INCRBY", "u2", "102", "1", "GET", "u2", "102")
	p.Do("BITFIELD", "k", "SET", "u8", "#1", "255", "GET", "u8", "#1", "SET", "i5", "#3", "-1")
	p.Do("GET", "k")
	p.Do("OBJECT", "ENCODING", "k")
	p.Do("BITFIELD_RO", "k", "GET", "i8", "0", "GET", "u63", "3")
	p.Do("BITFIELD_RO", "k", "SET", "i8", "0", "1")
	p.Do("BITFIELD_RO", "k", "GET", "i8")
	p.Do("BITFIELD_RO", "k")
	p.Do("BITFIELD_RO", "k", "FOO")
	p.Do("BITFIELD_RO", "nosuch", "GET", "u8", "0")
	// Errors, in parse order.
	for _, args := range [][]string{
		{"GET"}, {"GET", "u8"}, {"SET", "u8", "0"}, {"INCRBY", "u8", "0"}, {"FOO"}, {"OVERFLOW"},
		{"OVERFLOW", "FOO"}, {"OVERFLOW", "wrap", "GET", "u8", "0"}, {"GET", "u64", "0"}, {"GET", "i65", "0"},
		{"GET", "i0", "0"}, {"GET", "u0", "0"}, {"GET", "U8", "0"}, {"GET", "I8", "0"}, {"GET", "x8", "0"},
		{"GET", "", "0"}, {"GET", "i", "0"}, {"GET", "i08", "0"}, {"GET", "u8", "-1"}, {"GET", "u8", "x"},
		{"GET", "u8", "#"}, {"GET", "u8", "#-1"}, {"GET", "u8", "#x"}, {"GET", "u8", "4294967296"},
		{"GET", "u8", "#536870912"}, {"SET", "u8", "0", "x"}, {"INCRBY", "u8", "0", "1.5"},
		{"SET", "u8", "0", "1", "GET"}, {"GET", "u8", "0", "FOO", "bar"}, {"GET", "u8", "0", "SET", "u8", "0", "x"},
	} {
		p.Do(append([]string{"BITFIELD", "err"}, args...)...)
	}
	p.Do("EXISTS", "err")
	// Overflow behaviour, signed and unsigned, every mode.
	for _, ow := range []string{"WRAP", "SAT", "FAIL"} {
		for _, ty := range []string{"u1", "u2", "u7", "u8", "u32", "u63", "i1", "i2", "i8", "i32", "i63", "i64"} {
			for _, v := range []string{"0", "1", "-1", "127", "128", "-128", "-129", "255", "256", "9223372036854775807", "-9223372036854775808", "4611686018427387904"} {
				p.Do("BITFIELD", "ov", "OVERFLOW", ow, "SET", ty, "3", v, "GET", ty, "3")
				p.Do("BITFIELD", "ov", "OVERFLOW", ow, "INCRBY", ty, "3", v, "INCRBY", ty, "3", v)
			}
		}
	}
	p.Do("GET", "ov")
	// FAIL everywhere still creates the key.
	p.Do("BITFIELD", "f", "OVERFLOW", "FAIL", "SET", "u2", "100", "8")
	p.Do("GET", "f")
	p.Do("SET", "n", "12")
	p.Do("BITFIELD", "n", "GET", "u8", "0", "GET", "u16", "0", "GET", "i64", "0")
	p.Do("BITFIELD", "n", "INCRBY", "u8", "0", "1")
	p.Do("GET", "n")
	p.Do("SET", "t", "abc", "EX", "100")
	p.Do("BITFIELD", "t", "SET", "u8", "100", "1")
	p.DoApprox(1, "TTL", "t")
	p.Do("LPUSH", "list", "a")
	p.Do("BITFIELD", "list", "GET", "u8", "0")
	p.Do("BITFIELD", "list", "SET", "u8", "0", "1")
	p.Do("BITFIELD", "list", "GET", "u8", "x")
	p.Do("BITFIELD_RO", "list", "GET", "u8", "0")
	p.Do("BITFIELD")
	p.Do("BITFIELD_RO")
}

// TestBitBITFIELDRandom runs random BITFIELD operations (fixed seed).
func TestBitBITFIELDRandom(t *testing.T) {
	p := NewPair(t)
	rnd := rand.New(rand.NewPCG(4, 4))
	ows := []string{"WRAP", "SAT", "FAIL"}
	for i := 0; i < 400; i++ {
		signed := rnd.IntN(2) == 0
		var ty string
		if signed {
			ty = "i" + strconv.Itoa(1+rnd.IntN(64))
		} else {
			ty = "u" + strconv.Itoa(1+rnd.IntN(63))
		}
		off := strconv.Itoa(rnd.IntN(100))
		v := strconv.FormatInt(int64(rnd.Uint64()>>uint(rnd.IntN(64))), 10)
		if rnd.IntN(2) == 0 {
			v = "-" + v
		}
		switch rnd.IntN(3) {
		case 0:
			p.Do("BITFIELD", "r", "OVERFLOW", ows[rnd.IntN(3)], "SET", ty, off, v)
		case 1:
			p.Do("BITFIELD", "r", "OVERFLOW", ows[rnd.IntN(3)], "INCRBY", ty, off, v)
		case 2:
			p.Do("BITFIELD_RO", "r", "GET", ty, off)
		}
	}
	p.Do("GET", "r")
}
