package conformance

import (
	"bufio"
	"net"
	"strconv"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/lockscripts"
)

// BenchmarkEvalshaLockPair measures the reentrant lock's acquire+release
// pair by EVALSHA on lockkv and on redis-server in the same run, with the
// same client, and reports the ratio lockkv/Redis (below 1 means lockkv is
// faster). "rtt" sends one pair per round trip; "pipe" sends 64 pairs per
// round trip, which shows the server's own cost.
//
//	go test ./conformance/ -run '^$' -bench EvalshaLockPair -benchtime 20000x
func BenchmarkEvalshaLockPair(b *testing.B) {
	if RedisAddr() == "" {
		b.Skip("no redis-server")
	}
	for _, mode := range []struct {
		name  string
		depth int
	}{{"rtt", 1}, {"pipe", 64}} {
		b.Run(mode.name, func(b *testing.B) {
			lk := newBenchConn(b, LockkvAddr())
			rd := newBenchConn(b, RedisAddr())
			// Warm up both, then alternate in slices so that machine noise
			// hits both sides alike.
			lk.pairs(200, mode.depth)
			rd.pairs(200, mode.depth)
			var tl, tr time.Duration
			const slice = 500
			b.ResetTimer()
			for done := 0; done < b.N; done += slice {
				n := min(slice, b.N-done)
				t0 := time.Now()
				lk.pairs(n, mode.depth)
				t1 := time.Now()
				rd.pairs(n, mode.depth)
				tr += time.Since(t1)
				tl += t1.Sub(t0)
			}
			b.StopTimer()
			b.ReportMetric(float64(tl.Nanoseconds())/float64(b.N), "lockkv-ns/pair")
			b.ReportMetric(float64(tr.Nanoseconds())/float64(b.N), "redis-ns/pair")
			b.ReportMetric(float64(tl)/float64(tr), "lockkv/redis")
		})
	}
}

type benchConn struct {
	b       *testing.B
	nc      net.Conn
	r       *bufio.Reader
	acquire []byte
	release []byte
	buf     []byte
}

func newBenchConn(b *testing.B, addr string) *benchConn {
	c, err := Dial(addr)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { c.Close() })
	acq, err := c.Do("SCRIPT", "LOAD", lockscripts.Acquire)
	if err != nil || acq.Kind != '$' {
		b.Fatalf("script load on %s: %v %v", addr, acq, err)
	}
	rel, err := c.Do("SCRIPT", "LOAD", lockscripts.Release)
	if err != nil || rel.Kind != '$' {
		b.Fatalf("script load on %s: %v %v", addr, rel, err)
	}
	const owner = "8743c9c0-0795-4907-87fd-6c719a6b4586:1"
	bc := &benchConn{b: b, nc: c.NetConn(), r: c.Reader()}
	bc.acquire = testutil.Command("EVALSHA", acq.Str, "1", "bench:{lock}", "30000", owner)
	bc.release = testutil.Command("EVALSHA", rel.Str, "2", "bench:{lock}", "redisson_lock__channel:{bench:{lock}}", "0", "30000", owner)
	return bc
}

// pairs runs n acquire+release pairs, depth pairs per round trip.
func (c *benchConn) pairs(n, depth int) {
	for n > 0 {
		d := min(depth, n)
		c.buf = c.buf[:0]
		for i := 0; i < d; i++ {
			c.buf = append(c.buf, c.acquire...)
			c.buf = append(c.buf, c.release...)
		}
		if _, err := c.nc.Write(c.buf); err != nil {
			c.b.Fatal(err)
		}
		for i := 0; i < 2*d; i++ {
			v, err := testutil.ReadValue(c.r)
			if err != nil {
				c.b.Fatal(err)
			}
			if v.Kind == '-' {
				c.b.Fatalf("script error: %s", v.Str)
			}
			if i%2 == 1 && v.Str != "1" {
				c.b.Fatalf("release answered %v, want 1 ("+strconv.Itoa(i)+")", v)
			}
		}
		n -= d
	}
}
