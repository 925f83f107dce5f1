package commands

import (
	"math"
	"strconv"
	"testing"
	"time"
)

func TestParseScore(t *testing.T) {
	negz := math.Copysign(0, -1)
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1", 1, true}, {"-1", -1, true}, {"1.5", 1.5, true}, {".5", .5, true}, {"5.", 5, true},
		{"+.5e1", 5, true}, {"1e3", 1000, true}, {"1E-3", 0.001, true}, {"007", 7, true},
		{"0x10", 16, true}, {"0X1p3", 8, true}, {"-0x1.8p1", -3, true}, {"0x.8", 0.5, true},
		{"inf", math.Inf(1), true}, {"+inf", math.Inf(1), true}, {"-inf", math.Inf(-1), true},
		{"Infinity", math.Inf(1), true}, {"-INFINITY", math.Inf(-1), true}, {"-0", negz, true},
		{"1e-310", 1e-310, true}, {"1.7976931348623157e308", math.MaxFloat64, true},
		{"", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"nan", 0, false}, {"-nan", 0, false},
		{"nan(123)", 0, false}, {"1e400", 0, false}, {"-1e400", 0, false}, {"1e-400", 0, false},
		{"0x", 0, false}, {"1_0", 0, false}, {"1e", 0, false}, {"1e+", 0, false}, {"infx", 0, false},
		{"inity", 0, false}, {"1\x00", 0, false}, {"+", 0, false}, {"-", 0, false}, {".", 0, false},
		{"0x1p", 0, false}, {"abc", 0, false}, {"1.2.3", 0, false},
	}
	for _, c := range cases {
		got, ok := parseScore([]byte(c.in))
		if ok != c.ok || (ok && (got != c.want || math.Signbit(got) != math.Signbit(c.want))) {
			t.Errorf("parseScore(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestParseRangeScore(t *testing.T) {
	cases := []struct {
		in     string
		want   float64
		ex, ok bool
	}{
		{"1", 1, false, true}, {"(1", 1, true, true}, {"", 0, false, true}, {"(", 0, true, true},
		{" 1", 1, false, true}, {"( 2", 2, true, true}, {"1e400", math.Inf(1), false, true},
		{"1\x00junk", 1, false, true}, {"1 ", 0, false, false}, {"((1", 0, false, false},
		{"nan", 0, false, false}, {"x", 0, false, false}, {" ", 0, false, false},
	}
	for _, c := range cases {
		got, ex, ok := parseRangeScore([]byte(c.in))
		if ok != c.ok || (ok && (got != c.want || ex != c.ex)) {
			t.Errorf("parseRangeScore(%q) = %v, %v, %v; want %v, %v, %v", c.in, got, ex, ok, c.want, c.ex, c.ok)
		}
	}
}

// FuzzParseScore checks that every decimal string strconv accepts in C
// syntax gives the same value, and that parsing never panics.
func FuzzParseScore(f *testing.F) {
	for _, s := range []string{"1", "-1.5e10", "0x1p3", "inf", ".5", "1e-400", "nan"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := parseScore([]byte(s))
		if !ok {
			return
		}
		if got != got {
			t.Fatalf("parseScore(%q) accepted NaN", s)
		}
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(isDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
				return // hex, inf: checked by the table
			}
		}
		want, err := strconv.ParseFloat(s, 64)
		if err == nil && want != got {
			t.Fatalf("parseScore(%q) = %v, strconv says %v", s, got, want)
		}
	})
}

type benchClock struct{}

func (benchClock) Now() time.Time { return time.Unix(1700000000, 0) }

// BenchmarkZAddZRangeByScore measures the lock-queue pattern on 1k-member
// sets: update one member's deadline, then read the members due by now.
func BenchmarkZAddZRangeByScore(b *testing.B) {
	e := NewEngine(nil, benchClock{})
	cl := e.NewClient(nil)
	const n = 1000
	for i := 0; i < n; i++ {
		e.Call(cl, [][]byte{[]byte("ZADD"), []byte("q"), []byte(strconv.Itoa(1700000000000 + i*10)), []byte("member:" + strconv.Itoa(i))})
	}
	cl.W.Reset()
	zadd := [][]byte{[]byte("ZADD"), []byte("q"), nil, nil}
	zr := [][]byte{[]byte("ZRANGEBYSCORE"), []byte("q"), []byte("-inf"), nil, []byte("LIMIT"), []byte("0"), []byte("10")}
	members := make([][]byte, n)
	for i := range members {
		members[i] = []byte("member:" + strconv.Itoa(i))
	}
	var sbuf, mbuf [24]byte
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		k := i % n
		zadd[2] = strconv.AppendInt(sbuf[:0], 1700000000000+int64((i*7919)%(n*10)), 10)
		zadd[3] = members[k]
		e.Call(cl, zadd)
		zr[3] = strconv.AppendInt(mbuf[:0], 1700000000000+int64((i*31)%(n*10)), 10)
		e.Call(cl, zr)
		cl.W.Reset()
	}
}

// BenchmarkZScoreZRank measures point reads on a 1k-member set.
func BenchmarkZScoreZRank(b *testing.B) {
	e := NewEngine(nil, benchClock{})
	cl := e.NewClient(nil)
	const n = 1000
	for i := 0; i < n; i++ {
		e.Call(cl, [][]byte{[]byte("ZADD"), []byte("q"), []byte(strconv.Itoa(i)), []byte("member:" + strconv.Itoa(i))})
	}
	cl.W.Reset()
	zs := [][]byte{[]byte("ZSCORE"), []byte("q"), []byte("member:500")}
	zk := [][]byte{[]byte("ZRANK"), []byte("q"), []byte("member:500")}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.Call(cl, zs)
		e.Call(cl, zk)
		cl.W.Reset()
	}
}
