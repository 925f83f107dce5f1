package engine

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// LATENCY GRAPH with several samples, as Redis's sparkline.c draws them
// (worked out by hand from its algorithm: 4 rows of "_o#" steps, '|'
// below a column's top, then a blank line and the labels downwards), and
// samples of one second kept as its worst. The parity suite compares the
// one-sample graph with redis-server's.
func TestLatencyGraphSparkline(t *testing.T) {
	te := newTestEngine(t)
	cl, conn := te.client()
	te.e.LatencySample("command", 10)
	te.e.LatencySample("command", 7) // same second: the worst stays
	te.advance(2 * time.Second)
	te.e.LatencySample("command", 40)
	out := te.do(cl, conn, "LATENCY", "GRAPH", "command")
	want := "command - high 40 ms, low 10 ms (all time high 40 ms)\n" + strings.Repeat("-", 80) + "\n" +
		" #\n |\n |\n_|\n  \n20\nss\n"
	if out != bulk(want) {
		t.Fatalf("LATENCY GRAPH =\n%q\nwant\n%q", out, bulk(want))
	}
	out = te.do(cl, conn, "LATENCY", "HISTORY", "command")
	if want := "*2\r\n*2\r\n:1000\r\n:10\r\n*2\r\n:1002\r\n:40\r\n"; out != want {
		t.Fatalf("LATENCY HISTORY = %q, want %q", out, want)
	}
}

// slowlog-max-len trims on the next entry, and entries are newest first
// with increasing ids.
func TestSlowlogTrim(t *testing.T) {
	te := newTestEngine(t)
	cl, conn := te.client()
	te.e.Config.SlowlogLogSlowerThan = 0
	te.e.Config.SlowlogMaxLen = 2
	for _, k := range []string{"a", "b", "c"} {
		te.do(cl, conn, "SET", k, "1")
	}
	if n := te.e.SlowlogLen(); n != 2 {
		t.Fatalf("SLOWLOG LEN = %d, want 2", n)
	}
	if e := te.e.slow.entries; e[0].args[1] != "c" || e[1].args[1] != "b" || e[0].id != e[1].id+1 {
		t.Fatalf("entries %+v", e)
	}
	te.e.Config.SlowlogLogSlowerThan = -1
	te.do(cl, conn, "SET", "d", "1")
	if e := te.e.slow.entries; e[0].args[1] != "c" {
		t.Fatalf("logged with the slow log off: %+v", e)
	}
}

func bulk(s string) string { return fmt.Sprintf("$%d\r\n%s\r\n", len(s), s) }
