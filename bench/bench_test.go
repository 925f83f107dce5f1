package bench_test

import (
	"slices"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/bench"
)

func TestExchange(t *testing.T) {
	srv := lockkv.RunT(t)
	c, err := bench.Dial(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var buf []byte
	for _, args := range [][]string{
		{"SET", "k", "v"},
		{"INCR", "n"},
		{"GET", "missing"},
		{"GET", "k"},
		{"HINCRBY", "k", "f", "1"},
		{"EVAL", "return {1, {2, 'x'}, redis.call('incr', 'n')}", "0"},
		{"EVAL", "return nil", "0"},
	} {
		bs := make([][]byte, len(args))
		for i, a := range args {
			bs[i] = []byte(a)
		}
		buf = bench.AppendCommand(buf, bs...)
	}
	out := make([]bench.Reply, 7)
	if err := c.Exchange(buf, out); err != nil {
		t.Fatal(err)
	}
	want := []bench.Reply{
		{Kind: '+'},
		{Kind: ':', Int: 1},
		{Kind: '$', Null: true},
		{Kind: '$'},
		{Kind: '-', Err: "WRONGTYPE Operation against a key holding the wrong kind of value"},
		{Kind: '*'},
		{Kind: '$', Null: true},
	}
	if !slices.Equal(out, want) {
		t.Fatalf("replies\n got %+v\nwant %+v", out, want)
	}
	// The connection is still in step: the next reply is PING's.
	if s, err := c.Do("PING"); err != nil || s != "PONG" {
		t.Fatalf("PING after Exchange: %q, %v", s, err)
	}
}

func TestReadStrings(t *testing.T) {
	srv := lockkv.RunT(t)
	sub, err := bench.Dial(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	pub, err := bench.Dial(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	sub.SetDeadline(time.Now().Add(10 * time.Second))
	if err := sub.Exchange(bench.AppendCommand(nil, []byte("SUBSCRIBE"), []byte("ch")), nil); err != nil {
		t.Fatal(err)
	}
	got, err := sub.ReadStrings()
	if err != nil || !slices.Equal(got, []string{"subscribe", "ch", "1"}) {
		t.Fatalf("confirmation %q, %v", got, err)
	}
	if n, err := pub.Do("PUBLISH", "ch", "0"); err != nil || n != "1" {
		t.Fatalf("PUBLISH: %q, %v", n, err)
	}
	got, err = sub.ReadStrings()
	if err != nil || !slices.Equal(got, []string{"message", "ch", "0"}) {
		t.Fatalf("message %q, %v", got, err)
	}
}

// TestWorkloads runs every workload briefly against lockkv: each one's
// setup and commands are answered without an error reply, and the result
// is filled in.
func TestWorkloads(t *testing.T) {
	srv := lockkv.RunT(t)
	for _, w := range bench.Workloads() {
		t.Run(w.Name, func(t *testing.T) {
			if w.Preload != nil {
				c, err := bench.Dial(srv.Addr())
				if err != nil {
					t.Fatal(err)
				}
				defer c.Close()
				if err := w.Preload(c); err != nil {
					t.Fatalf("preload: %v", err)
				}
			}
			marks := 0
			res, err := bench.Run(srv.Addr(), w, 4, 2, 50*time.Millisecond, func() { marks++ })
			if err != nil {
				t.Fatal(err)
			}
			if marks != 2 {
				t.Fatalf("mark called %d times, want 2 (window opens, window closes)", marks)
			}
			if res.Ops == 0 || res.P50 <= 0 || res.P99 < res.P50 || res.Max < res.P99 {
				t.Fatalf("result %+v: want operations and 0 < p50 <= p99 <= max", res)
			}
		})
	}
}
