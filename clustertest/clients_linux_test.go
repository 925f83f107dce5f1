package clustertest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestClusterClients: go-redis's ClusterClient (seeded with every node)
// and FailoverClient (every node as a Sentinel) find the leader, and their
// SET/GET and lock script loop carries on after the leader is killed.
func TestClusterClients(t *testing.T) {
	c := newCluster(t, 3)
	l := c.Leader()
	ctx := context.Background()
	// go-redis reloads its slot map on MOVED and every
	// ClusterStateReloadInterval (60s by default); a killed master answers
	// no MOVED (as in Redis Cluster), so the client reloads every second.
	cc := redis.NewClusterClient(&redis.ClusterOptions{
		Addrs:                      c.addrs(),
		ClusterStateReloadInterval: time.Second,
		DialTimeout:                time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
	})
	fc := redis.NewFailoverClient(&redis.FailoverOptions{
		MasterName:    "mymaster",
		SentinelAddrs: c.addrs(),
		DialTimeout:   time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
	})
	t.Cleanup(func() { cc.Close(); fc.Close() })
	clients := []struct {
		name string
		cl   redis.UniversalClient
	}{{"cluster", cc}, {"failover", fc}}

	// step writes n, reads it back, and takes and gives back a lock.
	step := func(name string, cl redis.UniversalClient, n int) error {
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		key := "cl:" + name
		if err := cl.Set(sctx, key, n, 0).Err(); err != nil {
			return fmt.Errorf("SET: %w", err)
		}
		if v, err := cl.Get(sctx, key).Int(); err != nil || v != n {
			return fmt.Errorf("GET = %d, %v; want %d", v, err, n)
		}
		lock, who := fmt.Sprintf("cl:lock:%s:%d", name, n), owner(n, 1)
		if held, pttl, err := acquire(sctx, cl, lock, who, 30*time.Second); err != nil || !held {
			return fmt.Errorf("acquire: held %v pttl %d: %v", held, pttl, err)
		}
		// A retried acquire may have entered twice: 0 or 1 both say the
		// owner held it.
		if r, err := release(sctx, cl, lock, who, 30*time.Second); err != nil || r < 0 {
			return fmt.Errorf("release = %d, %v", r, err)
		}
		return nil
	}
	for _, k := range clients {
		for n := 0; n < 20; n++ {
			if err := step(k.name, k.cl, n); err != nil {
				t.Fatalf("%s client before the kill, step %d: %v", k.name, n, err)
			}
		}
	}

	killed := time.Now()
	c.Kill(l)
	var wg sync.WaitGroup
	for _, k := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var lastErr error
			errs, first := 0, time.Time{}
			ok := 0
			for n := 20; ok < 20; n++ {
				if time.Since(killed) > 30*time.Second {
					t.Errorf("%s client: 20 steps in a row not done 30s after the kill; %d errors, last: %v", k.name, errs, lastErr)
					return
				}
				if err := step(k.name, k.cl, n); err != nil {
					errs++
					lastErr = err
					ok = 0
					time.Sleep(50 * time.Millisecond) // the client's own back-off between attempts
					continue
				}
				if first.IsZero() {
					first = time.Now()
				}
				ok++
			}
			t.Logf("%s client: working again %v after the kill of %s (%d failed steps on the way, last: %v)",
				k.name, first.Sub(killed).Round(time.Millisecond), c.nodes[l].id, errs, lastErr)
		}()
	}
	wg.Wait()
	nl := c.Leader()
	if nl == l {
		t.Fatal("the killed node leads")
	}
}
