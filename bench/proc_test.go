package bench

import (
	"encoding/binary"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseCounts(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []int
	}{
		{"50", []int{50}},
		{"50,200,1000", []int{50, 200, 1000}},
		{" 1000 , 50", []int{1000, 50}},
	} {
		got, err := ParseCounts(c.in)
		if err != nil || !slices.Equal(got, c.want) {
			t.Errorf("ParseCounts(%q) = %v, %v; want %v", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{"", "0", "-5", "50,", ",50", "50,,200", "5x", "50,200,50", "1e3", "9999999999999999999999"} {
		if got, err := ParseCounts(in); err == nil {
			t.Errorf("ParseCounts(%q) = %v, want an error", in, got)
		}
	}
}

func TestParseStatCPU(t *testing.T) {
	// Fields 14 and 15 (utime 250, stime 31) after a command name that
	// holds spaces and parentheses, as a process may name itself.
	line := "4242 (a) b (c)) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 31 7 9 20 0 3 0 12345 1000 10 18446744073709551615\n"
	got, err := parseStatCPU([]byte(line), 10*time.Millisecond)
	if err != nil || got != 2810*time.Millisecond {
		t.Fatalf("parseStatCPU = %v, %v; want 2.81s", got, err)
	}
	if got, err := parseStatCPU([]byte(line), time.Millisecond); err != nil || got != 281*time.Millisecond {
		t.Fatalf("parseStatCPU at 1000 Hz = %v, %v; want 281ms", got, err)
	}
	for _, bad := range []string{
		"",
		"4242 no parentheses S 1 2 3 4 5 6 7 8 9 10 11 12 13 14",
		"4242 (short) S 1 4242 4242 0 -1 4194560 100 0 0 0 250",
		"4242 (neg) S 1 4242 4242 0 -1 4194560 100 0 0 0 -250 31 7 9",
		"4242 (word) S 1 4242 4242 0 -1 4194560 100 0 0 0 250 x 7 9",
	} {
		if got, err := parseStatCPU([]byte(bad), 10*time.Millisecond); err == nil {
			t.Errorf("parseStatCPU(%q) = %v, want an error", bad, got)
		}
	}
}

func TestAuxvValue(t *testing.T) {
	for _, size := range []int{4, 8} {
		var b []byte
		put := func(v uint64) {
			if size == 4 {
				b = binary.NativeEndian.AppendUint32(b, uint32(v))
			} else {
				b = binary.NativeEndian.AppendUint64(b, v)
			}
		}
		for _, kv := range [][2]uint64{{6, 4096}, {17, 250}, {25, 0xdead}, {0, 0}, {18, 7}} {
			put(kv[0])
			put(kv[1])
		}
		if v, ok := auxvValue(b, 17, size); !ok || v != 250 {
			t.Errorf("%d-byte words: AT_CLKTCK = %d, %v; want 250", size, v, ok)
		}
		// After AT_NULL nothing counts; a truncated vector ends the walk.
		if v, ok := auxvValue(b, 18, size); ok {
			t.Errorf("%d-byte words: key 18 after AT_NULL found: %d", size, v)
		}
		if v, ok := auxvValue(b[:3*size], 17, size); ok {
			t.Errorf("%d-byte words: key 17 in a cut vector found: %d", size, v)
		}
	}
}

// TestProcessCPU reads this very process's /proc stat around a getrusage
// of it after it has burnt some CPU: both count the same user and system
// time, /proc's in clock ticks, so a wrong field or a wrong tick length
// puts the getrusage figure outside the /proc readings (give or take the
// ticks /proc truncates).
func TestProcessCPU(t *testing.T) {
	start, err := SelfCPU()
	if err != nil {
		t.Fatal(err)
	}
	x := 0
	for {
		for i := range 1 << 20 {
			x += i ^ x
		}
		now, err := SelfCPU()
		if err != nil {
			t.Fatal(err)
		}
		if now-start > 300*time.Millisecond {
			break
		}
	}
	before, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	ru, err := SelfCPU()
	if err != nil {
		t.Fatal(err)
	}
	after, err := ProcessCPU(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	// /proc truncates utime and stime to whole ticks each: up to two
	// ticks below getrusage's microseconds.
	if ru < before-clockTick || ru > after+2*clockTick || before < 250*time.Millisecond {
		t.Fatalf("/proc stat says %v then %v, getrusage %v in between (tick %v, %d)", before, after, ru, clockTick, x&1)
	}

	// A process that has exited and been reaped has no /proc entry.
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	if got, err := ProcessCPU(cmd.Process.Pid); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Fatalf("ProcessCPU of a reaped process = %v, %v; want no such file", got, err)
	}
}
