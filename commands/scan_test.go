package commands

import (
	"math"
	"testing"
)

func TestParseScanCursor(t *testing.T) {
	cases := []struct {
		in   string
		want uint64
		ok   bool
	}{
		{"0", 0, true}, {"", 0, true}, {"17", 17, true}, {"007", 7, true},
		{"+5", 5, true}, {"-1", math.MaxUint64, true}, {"-0", 0, true},
		{"18446744073709551615", math.MaxUint64, true},
		{"-18446744073709551615", 1, true},
		{"18446744073709551616", 0, false}, {"-18446744073709551616", 0, false},
		{"x", 0, false}, {" 1", 0, false}, {"1 ", 0, false}, {"-", 0, false},
		{"+", 0, false}, {"0x1", 0, false}, {"1.0", 0, false}, {"+-1", 0, false},
	}
	for _, c := range cases {
		got, ok := ParseScanCursor([]byte(c.in))
		if ok != c.ok || (ok && got != c.want) {
			t.Errorf("ParseScanCursor(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func FuzzParseScanCursor(f *testing.F) {
	f.Add("123")
	f.Add("-1")
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseScanCursor([]byte(s))
		if ok && len(s) > 0 && s[0] >= '0' && s[0] <= '9' {
			// Plain decimal: must round-trip modulo leading zeros.
			var w uint64
			for i := 0; i < len(s); i++ {
				w = w*10 + uint64(s[i]-'0')
			}
			if w != v {
				t.Fatalf("%q: %d != %d", s, v, w)
			}
		}
	})
}
