package engine_test

import (
	"strings"
	"testing"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/engine/enginetest"
)

// The expected numbers in these tests are worked from Redis 7.0's code
// for the injected durations (see internal/hdrhist's tests for the bucket
// arithmetic of hdr_init(1, 1e9, 2)):
//
//	500 ns  → 0 µs, recorded as 1 ns (LATENCY_HISTOGRAM_MIN_VALUE): bucket [1, 1]
//	3 µs    → 3000 ns: bucket [2992, 3007]
//	17 µs   → 17000 ns: bucket [16896, 17023]
//	25 µs   → 25000 ns: bucket [24960, 25087]
//	2 s     → clamped to 1e9 ns: bucket [998244352, 1002438655]
//
// fillCommandCDF's log iterator (from 1024 ns, doubling) stops on the
// buckets whose highest values are 1031, 2063, 4127, 8255, 16511, 33023,
// ... ns, keyed 1, 2, 4, 8, 16, 33 µs; 1e9 is only reached after the
// last level below 1 s, on the last counts index (highest 1073741823 ns,
// key 1073741, as redis-server 7.0.15 answers after DEBUG SLEEP 0.6).

// injectLatency counts calls of the command named name (e.g. "client|id")
// that took the given nanoseconds, as endCall does.
func injectLatency(t *testing.T, e *engine.Engine, name string, ns ...int64) {
	t.Helper()
	s := e.LookupFullName(name)
	if s == nil {
		t.Fatalf("no command %s", name)
	}
	for _, n := range ns {
		e.CountCallForTest(s, n)
	}
}

func TestLatencyHistogramInjected(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	injectLatency(t, te.E, "set", 500, 3000, 17000, 25000)
	injectLatency(t, te.E, "client|id", 3000)
	injectLatency(t, te.E, "get", 2000000000)

	te.Expect(cl, conn, "*2\r\n$3\r\nset\r\n*4\r\n$5\r\ncalls\r\n:4\r\n$14\r\nhistogram_usec\r\n*6\r\n:1\r\n:1\r\n:4\r\n:2\r\n:33\r\n:4\r\n",
		"LATENCY", "HISTOGRAM", "set")
	// Unknown names skipped, a container answers for its subcommands, a
	// subcommand by its full name, a name twice twice.
	te.Expect(cl, conn, "*6\r\n$9\r\nclient|id\r\n*4\r\n$5\r\ncalls\r\n:1\r\n$14\r\nhistogram_usec\r\n*2\r\n:4\r\n:1\r\n"+
		"$9\r\nclient|id\r\n*4\r\n$5\r\ncalls\r\n:1\r\n$14\r\nhistogram_usec\r\n*2\r\n:4\r\n:1\r\n"+
		"$3\r\nget\r\n*4\r\n$5\r\ncalls\r\n:1\r\n$14\r\nhistogram_usec\r\n*2\r\n:1073741\r\n:1\r\n",
		"LATENCY", "HISTOGRAM", "nosuch", "CLIENT", "client|ID", "client|nosuch", "get|x", "GET")
	te.Expect(cl, conn, "*0\r\n", "LATENCY", "HISTOGRAM", "hset", "nosuch")
	te.Do(cl, conn, "HELLO", "3")
	te.Expect(cl, conn, "%1\r\n$3\r\nset\r\n%2\r\n$5\r\ncalls\r\n:4\r\n$14\r\nhistogram_usec\r\n%3\r\n:1\r\n:1\r\n:4\r\n:2\r\n:33\r\n:4\r\n",
		"LATENCY", "HISTOGRAM", "set")

	// INFO latencystats: hdr_value_at_percentile, "%.3f" µs. set: 4
	// calls; p50 needs (0.5*4+0.5) = 2 calls (3007 ns), p99 and p99.9 4
	// (25087 ns).
	info := te.Do(cl, conn, "INFO", "latencystats")
	for _, want := range []string{
		"latency_percentiles_usec_set:p50=3.007,p99=25.087,p99.9=25.087\r\n",
		"latency_percentiles_usec_client|id:p50=3.007,p99=3.007,p99.9=3.007\r\n",
		"latency_percentiles_usec_get:p50=1002438.655,p99=1002438.655,p99.9=1002438.655\r\n",
	} {
		if !strings.Contains(info, want) {
			t.Errorf("INFO latencystats lacks %q:\n%s", want, info)
		}
	}
	// Percentile 0 is the lowest value of its bucket; a count under 1 is
	// raised to 1; numbers shown as "%f" trimmed.
	te.Expect(cl, conn, "+OK\r\n", "CONFIG", "SET", "latency-tracking-info-percentiles", "0 0.1 25.50 100")
	info = te.Do(cl, conn, "INFO", "latencystats")
	// 25.5% of 4: (1.02+0.5) = 1 call: the 1 ns one.
	if want := "latency_percentiles_usec_set:p0=0.001,p0.1=0.001,p25.5=0.001,p100=25.087\r\n"; !strings.Contains(info, want) {
		t.Errorf("INFO latencystats lacks %q:\n%s", want, info)
	}
	te.Expect(cl, conn, "+OK\r\n", "CONFIG", "SET", "latency-tracking-info-percentiles", "")
	info = te.Do(cl, conn, "INFO", "latencystats")
	if !strings.Contains(info, "latency_percentiles_usec_set:\r\n") {
		t.Errorf("no percentiles: %q", info)
	}

	// latency-tracking no: nothing recorded, INFO latencystats empty,
	// LATENCY HISTOGRAM still answers with what was recorded.
	te.Expect(cl, conn, "+OK\r\n", "CONFIG", "SET", "latency-tracking", "no")
	injectLatency(t, te.E, "set", 3000)
	injectLatency(t, te.E, "hset", 3000)
	if info := te.Do(cl, conn, "INFO", "latencystats"); info != "=20\r\ntxt:# Latencystats\r\n\r\n" {
		t.Errorf("INFO latencystats with tracking off: %q", info)
	}
	te.Expect(cl, conn, "%1\r\n$3\r\nset\r\n%2\r\n$5\r\ncalls\r\n:4\r\n$14\r\nhistogram_usec\r\n%3\r\n:1\r\n:1\r\n:4\r\n:2\r\n:33\r\n:4\r\n",
		"LATENCY", "HISTOGRAM", "set", "hset")

	// CONFIG RESETSTAT drops every histogram.
	te.Expect(cl, conn, "+OK\r\n", "CONFIG", "SET", "latency-tracking", "yes")
	te.Expect(cl, conn, "+OK\r\n", "CONFIG", "RESETSTAT")
	te.Expect(cl, conn, "%0\r\n", "LATENCY", "HISTOGRAM", "set", "client", "get")
}

// TestLatencyTrackingCalls: real commands are tracked by default, each
// call once, subcommands under their full names; the /metrics buckets
// derive from the same histogram.
func TestLatencyTrackingCalls(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	for i := 0; i < 3; i++ {
		te.Do(cl, conn, "SET", "k", "v")
	}
	te.Do(cl, conn, "CLIENT", "ID")
	got := te.Do(cl, conn, "LATENCY", "HISTOGRAM", "set", "client")
	for _, want := range []string{"$3\r\nset\r\n*4\r\n$5\r\ncalls\r\n:3\r\n", "$9\r\nclient|id\r\n*4\r\n$5\r\ncalls\r\n:1\r\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("LATENCY HISTOGRAM lacks %q: %q", want, got)
		}
	}
	var set *engine.CommandStat
	stats := te.E.CommandStats(nil)
	for i := range stats {
		if stats[i].Name == "set" {
			set = &stats[i]
		}
	}
	if set == nil || len(set.Buckets) != len(engine.LatencyBounds) {
		t.Fatalf("set's stats: %+v", set)
	}
	if last := set.Buckets[len(set.Buckets)-1]; last != 3 {
		t.Errorf("set's last bucket counts %d calls", last)
	}
	if engine.LatencyBounds[0] != 1031 || engine.LatencyBounds[len(engine.LatencyBounds)-1] != 1024<<19+1<<22-1 {
		t.Errorf("bounds %v", engine.LatencyBounds)
	}
}
