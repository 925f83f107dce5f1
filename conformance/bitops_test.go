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
