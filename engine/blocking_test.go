package engine_test

import (
	"math"
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// parseTimeoutMs follows Redis 7.0's getTimeoutFromObjectOrReply on x86:
// strtold, ceil(seconds*1000), out-of-int64 values become LLONG_MIN.
func TestParseTimeoutMs(t *testing.T) {
	cases := []struct {
		in string
		ms int64
		ok bool
	}{
		{"0", 0, true}, {"1", 1000, true}, {"0.1", 100, true}, {"0.0001", 1, true},
		{"1e-400", 1, true}, {"-0.0001", 0, true}, {"-0", 0, true}, {"-1", -1000, true},
		{"1.5", 1500, true}, {"0x10", 16000, true}, {"+2", 2000, true},
		{"inf", math.MinInt64, true}, {"-inf", math.MinInt64, true}, {"1e20", math.MinInt64, true},
		{"1e400", math.MinInt64, true}, {"-1e400", math.MinInt64, true},
		{"9223372036854775", 9223372036854775000, true},
		{"1e5000", 0, false}, {"1e-5000", 0, false}, {"nan", 0, false}, {"", 0, false},
		{" 1", 0, false}, {"1 ", 0, false}, {"abc", 0, false}, {"1_0", 0, false},
	}
	for _, c := range cases {
		ms, ok := engine.ParseTimeoutMs([]byte(c.in))
		if ok != c.ok || (ok && ms != c.ms) {
			t.Errorf("engine.ParseTimeoutMs(%q) = %d, %v; want %d, %v", c.in, ms, ok, c.ms, c.ok)
		}
	}
}

func TestParseTimeoutDeadline(t *testing.T) {
	e := enginetest.New(t).E
	c := &engine.Ctx{E: e, C: e.NewClient(nil), Now: 1000}
	c.W = &c.C.W
	if d, ok := c.ParseTimeout([]byte("0")); !ok || d != 0 {
		t.Fatalf("0: %d %v", d, ok)
	}
	if d, ok := c.ParseTimeout([]byte("2.5")); !ok || d != 3500 {
		t.Fatalf("2.5: %d %v", d, ok)
	}
	// now+timeout wraps in Redis 7.0 and never fires.
	if d, ok := c.ParseTimeout([]byte("9223372036854775")); !ok || d != engine.NeverDeadline {
		t.Fatalf("huge: %d %v", d, ok)
	}
	if _, ok := c.ParseTimeout([]byte("-1")); ok || string(c.W.B) != "-"+engine.ErrTimeoutNegative+"\r\n" {
		t.Fatalf("-1: %q", c.W.B)
	}
}
