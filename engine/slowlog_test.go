package engine_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lockkv/lockkv/engine/enginetest"
)

// LATENCY GRAPH with several samples, as Redis's sparkline.c draws them
// (worked out by hand from its algorithm: 4 rows of "_o#" steps, '|'
// below a column's top, then a blank line and the labels downwards), and
// samples of one second kept as its worst. The parity suite compares the
// one-sample graph with redis-server's.
func TestLatencyGraphSparkline(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	te.E.LatencySample("command", 10)
	te.E.LatencySample("command", 7) // same second: the worst stays
	te.Advance(2 * time.Second)
	te.E.LatencySample("command", 40)
	out := te.Do(cl, conn, "LATENCY", "GRAPH", "command")
	want := "command - high 40 ms, low 10 ms (all time high 40 ms)\n" + strings.Repeat("-", 80) + "\n" +
		" #\n |\n |\n_|\n  \n20\nss\n"
	if out != bulk(want) {
		t.Fatalf("LATENCY GRAPH =\n%q\nwant\n%q", out, bulk(want))
	}
	out = te.Do(cl, conn, "LATENCY", "HISTORY", "command")
	if want := "*2\r\n*2\r\n:1000\r\n:10\r\n*2\r\n:1002\r\n:40\r\n"; out != want {
		t.Fatalf("LATENCY HISTORY = %q, want %q", out, want)
	}
}

// slowlog-max-len trims on the next entry, and entries are newest first
// with increasing ids.
func TestSlowlogTrim(t *testing.T) {
	te := enginetest.New(t)
	cl, conn := te.Client()
	te.E.Config.SlowlogLogSlowerThan = 0
	te.E.Config.SlowlogMaxLen = 2
	for _, k := range []string{"a", "b", "c"} {
		te.Do(cl, conn, "SET", k, "1")
	}
	if n := te.E.SlowlogLen(); n != 2 {
		t.Fatalf("SLOWLOG LEN = %d, want 2", n)
	}
	if ids, args := te.E.SlowlogForTest(); args[0][1] != "c" || args[1][1] != "b" || ids[0] != ids[1]+1 {
		t.Fatalf("entries %v %q", ids, args)
	}
	te.E.Config.SlowlogLogSlowerThan = -1
	te.Do(cl, conn, "SET", "d", "1")
	if ids, args := te.E.SlowlogForTest(); args[0][1] != "c" {
		t.Fatalf("logged with the slow log off: %v %q", ids, args)
	}
}

func bulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }
