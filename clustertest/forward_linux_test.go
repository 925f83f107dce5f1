package clustertest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestForward: with --forward, a plain client of a follower writes, reads,
// runs the lock scripts and transactions through it, and keeps working
// when the leader is killed.
func TestForward(t *testing.T) {
	c := newCluster(t, 3, clusterOpts{extra: []string{"--forward"}})
	ctx := context.Background()
	l := c.Leader()
	f := (l + 1) % len(c.nodes)
	cl := c.client(f)
	step := func(n int) error {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := cl.Set(sctx, "fw:key", n, 0).Err(); err != nil {
			return fmt.Errorf("SET: %w", err)
		}
		if v, err := cl.Get(sctx, "fw:key").Int(); err != nil || v != n {
			return fmt.Errorf("GET = %d, %v; want %d", v, err, n)
		}
		lock, who := fmt.Sprintf("fw:lock:%d", n), owner(n, 1)
		if held, pttl, err := acquire(sctx, cl, lock, who, 30*time.Second); err != nil || !held {
			return fmt.Errorf("acquire: held %v pttl %d: %v", held, pttl, err)
		}
		if r, err := release(sctx, cl, lock, who, 30*time.Second); err != nil || r != 1 {
			return fmt.Errorf("release = %d, %v", r, err)
		}
		cmds, err := cl.TxPipelined(sctx, func(p redis.Pipeliner) error {
			p.Incr(sctx, "fw:counter")
			p.Get(sctx, "fw:key")
			return nil
		})
		if err != nil || len(cmds) != 2 || cmds[1].(*redis.StringCmd).Val() != fmt.Sprint(n) {
			return fmt.Errorf("MULTI/EXEC: %v %v", cmds, err)
		}
		return nil
	}
	sub := c.subscribe(t, f, lockChannel("fw:lock:0"))
	for n := 0; n < 10; n++ {
		if err := step(n); err != nil {
			t.Fatalf("through the follower %s, step %d: %v", c.nodes[f].id, n, err)
		}
	}
	sub.waitMessage(t, 10*time.Second, lockChannel("fw:lock:0"), unlockMessage)

	killed := time.Now()
	c.Kill(l)
	var lastErr error
	fails := 0
	for n, ok := 10, 0; ok < 10; n++ {
		if time.Since(killed) > 30*time.Second {
			t.Fatalf("10 steps in a row not done through %s 30s after the kill; %d errors, last: %v", c.nodes[f].id, fails, lastErr)
		}
		if err := step(n); err != nil {
			fails++
			lastErr = err
			ok = 0
			time.Sleep(50 * time.Millisecond) // a client's back-off between attempts
			continue
		}
		ok++
	}
	t.Logf("through the follower %s: working again after the kill of %s (%d failed steps on the way, last: %v), %v after the kill",
		c.nodes[f].id, c.nodes[l].id, fails, lastErr, time.Since(killed).Round(time.Millisecond))
	if n, err := c.client(c.Leader()).Get(ctx, "fw:counter").Int(); err != nil || n < 20 {
		t.Fatalf("fw:counter = %d, %v; want at least 20", n, err)
	}
}
