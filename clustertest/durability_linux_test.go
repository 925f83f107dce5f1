package clustertest

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// TestRestartDurability: writes and locks acknowledged by the leader
// survive SIGKILL of every node and a restart of all, with the same
// keyspace on every node as before. Nodes snapshot every 200 entries, so a
// restart restores a snapshot plus the log after it.
func TestRestartDurability(t *testing.T) {
	c := newCluster(t, 3, snapshotOften)
	l := c.Leader()
	ctx := context.Background()
	const lease = 60 * time.Second
	type lockAck struct {
		name, owner string
		call, ret   time.Time
	}
	var mu sync.Mutex
	values := map[string]string{}
	var locks []lockAck
	var wg sync.WaitGroup
	for k := 0; k < 4; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := c.client(l)
			for n := 0; n < 50; n++ {
				key, val := fmt.Sprintf("d:%d:%d", k, n), fmt.Sprintf("v%d", n*k)
				if err := cl.Set(ctx, key, val, 0).Err(); err != nil {
					t.Errorf("SET %s: %v", key, err)
					return
				}
				mu.Lock()
				values[key] = val
				mu.Unlock()
				if n%5 == 0 {
					a := lockAck{name: fmt.Sprintf("d:lock:%d:%d", k, n), owner: owner(k, n), call: time.Now()}
					held, _, err := acquire(ctx, cl, a.name, a.owner, lease)
					a.ret = time.Now()
					if err != nil || !held {
						t.Errorf("acquire %s: %v %v", a.name, held, err)
						return
					}
					mu.Lock()
					locks = append(locks, a)
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	// Every node has taken a snapshot: the restart restores it, then
	// replays the log after it. Concurrent writes share entries (group
	// commit), so how many entries the writes above made varies: more
	// writes follow until every node has passed its snapshot threshold.
	filler := c.client(l)
	fill := 0
	testutil.Eventually(t, 30*time.Second, func() error { // until a snapshot on every node
		for i := 0; i < 20; i++ {
			key := fmt.Sprintf("d:fill:%d", fill)
			fill++
			if err := filler.Set(ctx, key, "x", 0).Err(); err != nil {
				return err
			}
			mu.Lock()
			values[key] = "x"
			mu.Unlock()
		}
		for i := range c.nodes {
			m, err := c.info(i)
			if err != nil {
				return err
			}
			if m["raft_last_snapshot_index"] == "0" || m["raft_last_snapshot_index"] == "" {
				return fmt.Errorf("%s has no snapshot", c.nodes[i].id)
			}
		}
		return nil
	})
	before := c.waitConverged(30 * time.Second)
	for i := range c.nodes {
		c.Kill(i)
	}
	for i := range c.nodes {
		c.Restart(i)
	}
	nl := c.Leader()
	cl := c.client(nl)
	for key, val := range values {
		if got, err := cl.Get(ctx, key).Result(); err != nil || got != val {
			t.Errorf("GET %s = %q, %v after the restart; want %q", key, got, err, val)
		}
	}
	for _, a := range locks {
		if n, err := cl.HGet(ctx, a.name, a.owner).Int64(); err != nil || n != 1 {
			t.Errorf("%s: HGET %s = %d, %v after the restart", a.name, a.owner, n, err)
		}
		call2 := time.Now()
		pttl, err := cl.PTTL(ctx, a.name).Result()
		ret2 := time.Now()
		lo := a.call.Add(lease).Sub(ret2).Milliseconds() - 50
		hi := a.ret.Add(lease).Sub(call2).Milliseconds() + 50
		if err != nil || pttl.Milliseconds() < lo || pttl.Milliseconds() > hi {
			t.Errorf("%s: PTTL %v, %v after the restart; want %d..%d ms", a.name, pttl, err, lo, hi)
		}
	}
	t.Logf("%d acknowledged writes and %d locks checked after SIGKILL of all %d nodes", len(values), len(locks), len(c.nodes))
	if after := c.waitConverged(30 * time.Second); after != before {
		t.Errorf("keyspace after the restart differs:\n%s\nbefore:\n%s", after, before)
	}
}
