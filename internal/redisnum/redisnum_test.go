package redisnum

import (
	"math"
	"strconv"
	"strings"
	"testing"
)

func TestParseInt(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"0", 0, true}, {"1", 1, true}, {"-1", -1, true}, {"42", 42, true}, {"1700000000000", 1700000000000, true},
		{"123456789012345678", 123456789012345678, true}, {"-123456789012345678", -123456789012345678, true},
		{"1234567890123456789", 1234567890123456789, true}, {"-1234567890123456789", -1234567890123456789, true},
		{"9223372036854775807", math.MaxInt64, true}, {"-9223372036854775808", math.MinInt64, true},
		{"9223372036854775808", 0, false}, {"-9223372036854775809", 0, false},
		{"18446744073709551615", 0, false}, {"18446744073709551616", 0, false}, {"99999999999999999999", 0, false},
		{"-18446744073709551616", 0, false}, {"00000000000000000001", 0, false},
		{"", 0, false}, {"-", 0, false}, {"-0", 0, false}, {"00", 0, false}, {"01", 0, false}, {"-01", 0, false},
		{"+1", 0, false}, {"+0", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"1a", 0, false}, {"a1", 0, false},
		{"1\x00", 0, false}, {"1.0", 0, false}, {"1e3", 0, false}, {"0x10", 0, false}, {"--1", 0, false},
		{"1_000", 0, false}, {"\xd9", 0, false}, {"1/", 0, false}, {"1:", 0, false},
	} {
		got, ok := ParseInt([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseInt(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestParseInt32(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want int
		ok   bool
	}{
		{"0", 0, true}, {"2147483647", math.MaxInt32, true}, {"-2147483648", math.MinInt32, true},
		{"2147483648", 0, false}, {"-2147483649", 0, false}, {"01", 0, false}, {"x", 0, false},
	} {
		got, ok := ParseInt32([]byte(tc.in))
		if ok != tc.ok || got != tc.want {
			t.Errorf("ParseInt32(%q) = %d, %v; want %d, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestIsSpace(t *testing.T) {
	for c := 0; c < 256; c++ {
		want := strings.IndexByte(" \t\n\v\f\r", byte(c)) >= 0
		if IsSpace(byte(c)) != want {
			t.Errorf("IsSpace(%#x) = %v", c, !want)
		}
	}
}

// TestStrtod: the prefix glibc's strtod reads, its value and ERANGE.
func TestStrtod(t *testing.T) {
	for _, tc := range []struct {
		in     string
		want   float64
		n      int
		erange bool
	}{
		{"", 0, 0, false}, {"x", 0, 0, false}, {" ", 0, 0, false}, {"-", 0, 0, false}, {".", 0, 0, false},
		{"1", 1, 1, false}, {" \t\n1.5x", 1.5, 6, false}, {"+.5e1", 5, 5, false}, {"1e", 1, 1, false},
		{"1e+", 1, 1, false}, {"1e+2x", 100, 4, false}, {"5.", 5, 2, false}, {"1\x00" + "2", 1, 1, false},
		{"0x", 0, 1, false}, {"0x.", 0, 1, false}, {"0xg", 0, 1, false}, {"0x10", 16, 4, false}, {"0x1p", 1, 3, false},
		{"0X1.8P1z", 3, 7, false}, {"-0x.8", -0.5, 5, false}, {"0x1p-1080", 0, 9, true},
		{"inf", math.Inf(1), 3, false}, {"-Infinity!", math.Inf(-1), 9, false}, {"infinit", math.Inf(1), 3, false},
		{"1e400", math.Inf(1), 5, true}, {"-1e400", math.Inf(-1), 6, true}, {"1e-400", 0, 6, true},
		{"1e-310", 1e-310, 6, true}, {"0e-400", 0, 6, false}, {"4.9e-324", 5e-324, 8, true},
		{"2.2250738585072014e-308", 2.2250738585072014e-308, 23, false},
	} {
		f, n, erange := Strtod([]byte(tc.in))
		if f != tc.want || n != tc.n || erange != tc.erange {
			t.Errorf("Strtod(%q) = %v, %d, %v; want %v, %d, %v", tc.in, f, n, erange, tc.want, tc.n, tc.erange)
		}
	}
	for _, in := range []string{"nan", "-NaN", "nan(12_ab)", "nan(", "nan(x"} {
		f, n, _ := Strtod([]byte(in))
		want := len(in)
		if strings.HasSuffix(in, "(") || strings.HasSuffix(in, "(x") {
			want = strings.IndexByte(in, '(')
		}
		if f == f || n != want {
			t.Errorf("Strtod(%q) = %v, %d; want NaN, %d", in, f, n, want)
		}
	}
}

func TestParseFloat(t *testing.T) {
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
		got, ok := ParseFloat([]byte(c.in))
		if ok != c.ok || (ok && (got != c.want || math.Signbit(got) != math.Signbit(c.want))) {
			t.Errorf("ParseFloat(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
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
		got, ex, ok := ParseRangeScore([]byte(c.in))
		if ok != c.ok || (ok && (got != c.want || ex != c.ex)) {
			t.Errorf("ParseRangeScore(%q) = %v, %v, %v; want %v, %v, %v", c.in, got, ex, ok, c.want, c.ex, c.ok)
		}
	}
}

// FuzzParseFloat checks that every decimal string strconv accepts in C
// syntax gives the same value, and that parsing never panics.
func FuzzParseFloat(f *testing.F) {
	for _, s := range []string{"1", "-1.5e10", "0x1p3", "inf", ".5", "1e-400", "nan"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseFloat([]byte(s))
		if !ok {
			return
		}
		if got != got {
			t.Fatalf("ParseFloat(%q) accepted NaN", s)
		}
		for i := 0; i < len(s); i++ {
			c := s[i]
			if !(isDigit(c) || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
				return // hex, inf: checked by the table
			}
		}
		want, err := strconv.ParseFloat(s, 64)
		if err == nil && want != got {
			t.Fatalf("ParseFloat(%q) = %v, strconv says %v", s, got, want)
		}
	})
}

// FuzzParseInt checks ParseInt against strconv and the canonical-form
// rule string2ll follows: it accepts exactly the strings that are an
// int64 printed in decimal (no '+', no leading zero, no "-0", no spaces).
func FuzzParseInt(f *testing.F) {
	for _, s := range []string{"0", "-1", "1700000000000", "9223372036854775807", "-9223372036854775808"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := ParseInt([]byte(s))
		want, err := strconv.ParseInt(s, 10, 64)
		canonical := err == nil && strconv.FormatInt(want, 10) == s
		if ok != canonical || (ok && got != want) {
			t.Fatalf("ParseInt(%q) = %d, %v; strconv: %d, %v (canonical %v)", s, got, ok, want, err, canonical)
		}
		n32, ok32 := ParseInt32([]byte(s))
		if ok32 != (ok && want >= math.MinInt32 && want <= math.MaxInt32) || (ok32 && int64(n32) != want) {
			t.Fatalf("ParseInt32(%q) = %d, %v", s, n32, ok32)
		}
	})
}

var (
	benchInts = [][]byte{[]byte("1700000000000"), []byte("12345"), []byte("-42"), []byte("0"), []byte("abc"), []byte("9223372036854775807"), []byte("3.5")}
	sinkInt   int64
	sinkFloat float64
)

func BenchmarkParseInt(b *testing.B) {
	for i := 0; i < b.N; i++ {
		for _, in := range benchInts {
			v, _ := ParseInt(in)
			sinkInt += v
		}
	}
}

func BenchmarkParseFloat(b *testing.B) {
	for i := 0; i < b.N; i++ {
		for _, in := range benchInts {
			v, _ := ParseFloat(in)
			sinkFloat += v
		}
	}
}
