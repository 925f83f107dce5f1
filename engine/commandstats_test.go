package engine_test

import (
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// cmdstatUsec returns the usec and usec_per_call INFO commandstats shows
// for a command.
func cmdstatUsec(t *testing.T, info, name string) (int64, string) {
	t.Helper()
	m := regexp.MustCompile(`cmdstat_` + regexp.QuoteMeta(name) + `:calls=(\d+),usec=(\d+),usec_per_call=([0-9.]+),`).FindStringSubmatch(info)
	if m == nil {
		t.Fatalf("no cmdstat_%s in %q", name, info)
	}
	usec, _ := strconv.ParseInt(m[2], 10, 64)
	return usec, m[3]
}

// TestDebugSleepStrtod: DEBUG SLEEP reads its time as Redis does, with
// strtod and no check of what follows: "0.03x" and " 0x.08" (hex) sleep.
func TestDebugSleepStrtod(t *testing.T) {
	te := enginetest.New(t)
	te.E.Config.EnableDebugCommand = config.ProtectedYes
	cl, conn := te.Client()
	for _, tc := range []struct {
		arg   string
		least time.Duration
	}{{"0.03x", 30 * time.Millisecond}, {" 0x.08", 31 * time.Millisecond}} {
		start := time.Now()
		te.Expect(cl, conn, "+OK\r\n", "DEBUG", "SLEEP", tc.arg)
		if d := time.Since(start); d < tc.least {
			t.Errorf("DEBUG SLEEP %q slept %v, want at least %v", tc.arg, d, tc.least)
		}
	}
}

// TestCommandStatsTime: INFO commandstats reports the time commands took,
// alone and in a pipeline (where one clock reading ends a command and
// starts the next), and usec_per_call is (float)usec/calls.
func TestCommandStatsTime(t *testing.T) {
	te := enginetest.New(t)
	te.E.Config.EnableDebugCommand = config.ProtectedYes
	cl, conn := te.Client()
	te.Do(cl, conn, "DEBUG", "SLEEP", "0.02")
	te.Do(cl, conn, "PING")
	info := te.Do(cl, conn, "INFO", "commandstats")
	if usec, _ := cmdstatUsec(t, info, "debug"); usec < 20000 || usec > 2000000 {
		t.Errorf("DEBUG SLEEP 0.02 took %d usec", usec)
	}
	if usec, _ := cmdstatUsec(t, info, "ping"); usec > 20000 {
		t.Errorf("PING took %d usec", usec)
	}

	// A pipeline: the sleep is charged to DEBUG, not to the PINGs around it.
	te.E.ProcessBatch(cl, [][][]byte{argv("PING"), argv("DEBUG", "SLEEP", "0.02"), argv("PING"), argv("PING")}, func() {})
	te.E.FlushOutputs()
	conn.Out = conn.Out[:0]
	info = te.Do(cl, conn, "INFO", "commandstats")
	if usec, _ := cmdstatUsec(t, info, "debug"); usec < 40000 {
		t.Errorf("two DEBUG SLEEP 0.02 took %d usec", usec)
	}
	if usec, _ := cmdstatUsec(t, info, "ping"); usec > 20000 {
		t.Errorf("four PINGs took %d usec", usec)
	}

	// (float)usec/calls, "%.2f".
	te.E.SetCommandStatForTest(engine.Lookup([]byte("ping")), 3, 10_000)
	if _, per := cmdstatUsec(t, te.Do(cl, conn, "INFO", "commandstats"), "ping"); per != "3.33" {
		t.Errorf("usec_per_call = %s, want 3.33", per)
	}
}
