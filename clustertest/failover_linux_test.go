package clustertest

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lockkv/lockkv/internal/testutil"
)

// heldLock is a lock a client was told it holds.
type heldLock struct {
	name, owner string
	count       int64 // hold count (reentries)
	fair        bool
	waiter      string // who asks for the lock next
	lease       time.Duration
	call, ret   time.Time // of the acquire that set the lease last
}

// TestFailover: clients hold reentrant and fair locks on the leader; the
// leader is SIGKILLed; on the new leader every acknowledged lock is held by
// its owner with the lease it had left, a lease that ran out is gone, and
// each lock passes to a waiter once released, the unlock message reaching
// subscribers on the followers.
func TestFailover(t *testing.T) {
	c := newCluster(t, 3)
	ctx := context.Background()
	l := c.Leader()
	const lease = 30 * time.Second

	// Several clients take locks at once: reentrant ones (some twice) and
	// fair ones with a second client queued behind.
	const nReentrant, nFair = 6, 2
	locks := make([]heldLock, nReentrant+nFair)
	var wg sync.WaitGroup
	errs := make(chan error, len(locks))
	for k := range locks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cl := c.client(l)
			h := &locks[k]
			h.lease = lease
			h.owner, h.waiter = owner(k, 1), owner(100+k, 7)
			if k < nReentrant {
				h.name = fmt.Sprintf("lock:%d", k)
				h.count = int64(1 + k%2)
				for n := int64(0); n < h.count; n++ {
					h.call = time.Now()
					held, pttl, err := acquire(ctx, cl, h.name, h.owner, lease)
					h.ret = time.Now()
					if err != nil || !held {
						errs <- fmt.Errorf("acquire %s by %s: held %v pttl %d err %v", h.name, h.owner, held, pttl, err)
						return
					}
				}
				return
			}
			h.name, h.fair, h.count = fmt.Sprintf("fair:%d", k), true, 1
			h.call = time.Now()
			held, w, err := fairAcquire(ctx, cl, h.name, h.owner, lease, 5*time.Second)
			h.ret = time.Now()
			if err != nil || !held {
				errs <- fmt.Errorf("fair acquire %s by %s: held %v wait %d err %v", h.name, h.owner, held, w, err)
				return
			}
			// The waiter queues behind the owner.
			held, w, err = fairAcquire(ctx, cl, h.name, h.waiter, lease, 5*time.Minute)
			if err != nil || held || w <= 0 {
				errs <- fmt.Errorf("fair acquire %s by the waiter %s: held %v wait %d err %v", h.name, h.waiter, held, w, err)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	// A lock with a short lease: it runs out during or soon after the
	// failover and must then be gone.
	const short = 1500 * time.Millisecond
	shortOwner := owner(99, 1)
	if held, _, err := acquire(ctx, c.client(l), "lock:short", shortOwner, short); err != nil || !held {
		t.Fatalf("acquire lock:short: %v %v", held, err)
	}
	shortRet := time.Now()

	// Waiters subscribe on both followers for the unlock messages.
	var channels []string
	for _, h := range locks {
		if h.fair {
			channels = append(channels, lockChannel(h.name)+":"+h.waiter)
		} else {
			channels = append(channels, lockChannel(h.name))
		}
	}
	var survivors []int
	subs := map[int]*subscriber{}
	for i := range c.nodes {
		if i != l {
			survivors = append(survivors, i)
			subs[i] = c.subscribe(t, i, channels...)
		}
	}

	killed := time.Now()
	c.Kill(l)
	// The failover time: from the kill to the first write a survivor
	// acknowledges.
	var nl int
	var firstWrite time.Time
	testutil.Eventually(t, 30*time.Second, func() error { // until a write acknowledged after the kill
		var errs []error
		for _, i := range survivors {
			wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			err := c.admin[i].Set(wctx, "failover:probe", "1", 0).Err()
			cancel()
			if err == nil {
				nl, firstWrite = i, time.Now()
				return nil
			}
			errs = append(errs, err)
		}
		return fmt.Errorf("%v", errs)
	})
	failover := firstWrite.Sub(killed)
	t.Logf("failover: %v from SIGKILL of %s to the first write acknowledged by %s", failover.Round(time.Millisecond), c.nodes[l].id, c.nodes[nl].id)
	if got := c.Leader(); got != nl {
		// Possible on a loaded machine: another election since.
		t.Logf("leader %s now; %s acknowledged the first write", c.nodes[got].id, c.nodes[nl].id)
		nl = got
	}
	cl := c.client(nl)

	// Every acknowledged lock is still its owner's, with its lease: the
	// deadline was set between the acquire's call and return, so PTTL read
	// between call2 and ret2 lies in [call+lease-ret2, ret+lease-call2].
	const tol = 50 // ms, for millisecond rounding
	for _, h := range locks {
		n, err := cl.HGet(ctx, h.name, h.owner).Int64()
		if err != nil || n != h.count {
			t.Errorf("%s: HGET %s = %d, %v; want %d", h.name, h.owner, n, err, h.count)
		}
		call2 := time.Now()
		pttl, err := cl.PTTL(ctx, h.name).Result()
		ret2 := time.Now()
		lo := h.call.Add(h.lease).Sub(ret2).Milliseconds() - tol
		hi := h.ret.Add(h.lease).Sub(call2).Milliseconds() + tol
		if err != nil || pttl.Milliseconds() < lo || pttl.Milliseconds() > hi {
			t.Errorf("%s: PTTL %v, %v after the failover; want %d..%d ms", h.name, pttl, err, lo, hi)
		}
		if h.fair {
			q, err := cl.LRange(ctx, fairQueue(h.name), 0, -1).Result()
			if err != nil || len(q) != 1 || q[0] != h.waiter {
				t.Errorf("%s: queue %q, %v; want the waiter %s", h.name, q, err, h.waiter)
			}
			continue
		}
		// Someone else is refused, and told the remaining lease.
		held, left, err := acquire(ctx, cl, h.name, h.waiter, lease)
		if err != nil || held || left <= 0 || left > hi {
			t.Errorf("%s: the waiter's acquire: held %v, pttl %d, %v; want refused with 0..%d", h.name, held, left, err, hi)
		}
	}
	if t.Failed() {
		t.FailNow()
	}

	// The short lease ran out: the lock is gone, and anyone gets it.
	time.Sleep(time.Until(shortRet.Add(short + 50*time.Millisecond))) // a deadline to pass, not a condition
	if n, err := cl.Exists(ctx, "lock:short").Result(); err != nil || n != 0 {
		t.Fatalf("lock:short exists (%d, %v) after its lease ran out across the failover", n, err)
	}
	if held, pttl, err := acquire(ctx, cl, "lock:short", owner(99, 2), lease); err != nil || !held {
		t.Fatalf("acquire of the expired lock:short: held %v pttl %d: %v", held, pttl, err)
	}

	// Each owner releases; the waiters hear it on the followers and take
	// the lock.
	for k, h := range locks {
		ch := lockChannel(h.name)
		if h.fair {
			ch += ":" + h.waiter
			r, err := fairRelease(ctx, cl, h.name, h.owner, lease)
			if err != nil || r != 1 {
				t.Fatalf("%s: fair release by %s = %d, %v; want 1", h.name, h.owner, r, err)
			}
		} else {
			for n := h.count; n > 0; n-- {
				want := int64(0)
				if n == 1 {
					want = 1
				}
				r, err := release(ctx, cl, h.name, h.owner, lease)
				if err != nil || r != want {
					t.Fatalf("%s: release by %s (hold count %d) = %d, %v; want %d", h.name, h.owner, n, r, err, want)
				}
			}
		}
		for _, i := range survivors {
			subs[i].waitMessage(t, 10*time.Second, ch, unlockMessage)
		}
		var held bool
		var err error
		if h.fair {
			held, _, err = fairAcquire(ctx, cl, h.name, h.waiter, lease, 5*time.Second)
		} else {
			held, _, err = acquire(ctx, c.client(nl), h.name, h.waiter, lease)
		}
		if err != nil || !held {
			t.Fatalf("lock %d %s: the waiter %s does not get it after the release: %v", k, h.name, h.waiter, err)
		}
		if n, err := cl.HGet(ctx, h.name, h.waiter).Int64(); err != nil || n != 1 {
			t.Fatalf("%s: HGET waiter = %d, %v", h.name, n, err)
		}
	}
	for _, i := range survivors {
		if i != nl {
			t.Logf("unlock messages reached the follower %s's subscriber", c.nodes[i].id)
		}
	}

	// The killed leader comes back as a follower and catches up.
	c.Restart(l)
	if d := c.waitConverged(30 * time.Second); !strings.Contains(d, `"failover:probe" string 1`) {
		t.Fatalf("keyspace after the old leader's return:\n%s", d)
	}
}
