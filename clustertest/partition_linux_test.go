package clustertest

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/internal/testutil"
)

// TestPartition: the leader is cut off from the others. Writes sent to it
// are never acknowledged; the majority elects a leader and serves; clients
// on both sides contend for the same locks and no two ever hold one; once
// healed, the old leader follows and holds the same keyspace as the rest.
func TestPartition(t *testing.T) {
	c := newCluster(t, 3)
	ctx := context.Background()
	l := c.Leader()
	const lease = 30 * time.Second
	holder := owner(1, 1)
	if held, _, err := acquire(ctx, c.client(l), "part:held", holder, lease); err != nil || !held {
		t.Fatalf("acquire before the cut: %v %v", held, err)
	}

	locks := []string{"part:lock:0", "part:lock:1", "part:lock:2", "part:held"}
	var mu sync.Mutex
	granted := map[string][]string{} // lock -> owners told they hold it
	var oldTries, oldAcked int
	var oldErrs []string
	stop := make(chan struct{})
	var wg sync.WaitGroup

	c.Partition(l)
	// Clients of the cut leader keep trying to write.
	for k := 0; k < 3; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := c.client(l)
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				octx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
				lock := locks[n%len(locks)]
				who := owner(10+k, n)
				held, _, err := acquire(octx, cl, lock, who, lease)
				setErr := cl.Set(octx, fmt.Sprintf("part:old:%d:%d", k, n), "x", 0).Err()
				cancel()
				mu.Lock()
				oldTries += 2
				if err == nil { // a script's reply comes after its commit
					oldAcked++
					if held {
						granted[lock] = append(granted[lock], who)
					}
					t.Errorf("the cut leader answered acquire %s by %s: held %v", lock, who, held)
				}
				if setErr == nil {
					oldAcked++
					t.Errorf("the cut leader acknowledged SET part:old:%d:%d", k, n)
				}
				for _, e := range []error{err, setErr} {
					if e != nil && len(oldErrs) < 5 {
						oldErrs = append(oldErrs, e.Error())
					}
				}
				mu.Unlock()
				if err != nil || setErr != nil {
					time.Sleep(20 * time.Millisecond) // an error is often immediate; don't spin
				}
			}
		}()
	}

	nl := c.Leader()
	if nl == l {
		t.Fatal("the cut node leads")
	}
	// Clients of the majority's leader contend for the same locks.
	var nwg sync.WaitGroup
	for k := 0; k < 3; k++ {
		nwg.Add(1)
		go func() {
			defer nwg.Done()
			cl := c.client(nl)
			for n := 0; n < 2*len(locks); n++ {
				lock := locks[n%len(locks)]
				who := owner(20+k, n)
				held, pttl, err := acquire(ctx, cl, lock, who, lease)
				// Should the majority change leaders under load, the same
				// owner asks the new one (a second entry by the same owner
				// only counts up its hold).
				if err != nil {
					err = testutil.Poll(20*time.Second, func() error {
						if i, lerr := c.waitLeader(5 * time.Second); lerr == nil {
							cl = c.client(i)
						}
						var err error
						held, pttl, err = acquire(ctx, cl, lock, who, lease)
						return err
					})
				}
				if err != nil {
					t.Errorf("acquire %s on the majority's side: %v", lock, err)
					return
				}
				if held {
					mu.Lock()
					granted[lock] = append(granted[lock], who)
					mu.Unlock()
				} else if pttl <= 0 {
					t.Errorf("acquire %s refused with pttl %d", lock, pttl)
				}
			}
		}()
	}
	nwg.Wait()
	// Let the cut side try for a while longer against the new leader's
	// progress.
	time.Sleep(time.Second) // the cut clients are running: this is load, not a wait for a condition
	close(stop)
	wg.Wait()
	c.Heal()

	mu.Lock()
	t.Logf("cut leader: %d writes tried, %d acknowledged; errors seen: %q", oldTries, oldAcked, oldErrs)
	for _, lock := range locks {
		t.Logf("%s granted to %q", lock, granted[lock])
	}
	mu.Unlock()
	if oldTries == 0 {
		t.Fatal("the cut side tried nothing")
	}
	for _, lock := range locks {
		want := 1
		if lock == "part:held" {
			want = 0 // held since before the cut
		}
		if len(granted[lock]) != want {
			t.Errorf("%s granted to %q; want %d owner(s)", lock, granted[lock], want)
		}
	}

	// The old leader follows again and converges.
	testutil.Eventually(t, 30*time.Second, func() error { // until the old leader follows
		m, err := c.info(l)
		if err != nil {
			return err
		}
		if m["raft_state"] != "follower" && m["raft_state"] != "leader" {
			return fmt.Errorf("%s is %s", c.nodes[l].id, m["raft_state"])
		}
		_, why := c.leaderNow()
		if why != "" {
			return fmt.Errorf("%s", why)
		}
		return nil
	})
	final := c.Leader()
	d := c.waitConverged(30 * time.Second)
	if strings.Contains(d, "part:old:") {
		t.Errorf("a write the cut leader never acknowledged survives:\n%s", d)
	}
	cl := c.client(final)
	for _, lock := range locks {
		m, err := cl.HGetAll(ctx, lock).Result()
		if err != nil && err != redis.Nil {
			t.Fatal(err)
		}
		var owners []string
		for o := range m {
			owners = append(owners, o)
		}
		sort.Strings(owners)
		want := granted[lock]
		if lock == "part:held" {
			want = []string{holder}
		}
		if strings.Join(owners, ",") != strings.Join(want, ",") {
			t.Errorf("%s held by %q after healing; want %q", lock, owners, want)
		}
	}

	// The old leader dropped the entries it could not commit from its log
	// (a suffix truncation); it must still restart from that log.
	c.Kill(l)
	c.Restart(l)
	if d2 := c.waitConverged(30 * time.Second); d2 != d {
		t.Errorf("keyspace after restarting the old leader:\n%s\nbefore:\n%s", d2, d)
	}
}
