package clustertest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/lock"
)

// TestLockClientFailover: the lock/ package on a 3-node cluster through
// go-redis's ClusterClient. A holder keeps its lock across a SIGKILL of
// the leader, the watchdog renewing it on the new leader for several
// leases (another client is refused all along, and Lost stays open), and
// a fencing token issued after the failover is greater than every token
// issued before it; and a waiter on a lock with a minute left wakes on
// the unlock's message after the failover.
func TestLockClientFailover(t *testing.T) {
	c := newCluster(t, 3)
	leader := c.Leader()
	newClient := func() *redis.ClusterClient {
		cc := redis.NewClusterClient(&redis.ClusterOptions{
			Addrs:                      c.addrs(),
			ClusterStateReloadInterval: time.Second,
			DialTimeout:                time.Second, ReadTimeout: 2 * time.Second, WriteTimeout: 2 * time.Second,
		})
		t.Cleanup(func() { cc.Close() })
		return cc
	}
	const lease = 6 * time.Second // renewed every 2 s
	lc := lock.New(newClient(), &lock.Options{WatchdogTimeout: lease})
	other := lock.New(newClient(), nil)
	t.Cleanup(func() { lc.Close(); other.Close() })
	bg := context.Background()

	fenced := lc.FencedLock("fenced")
	var before int64
	for i := 0; i < 20; i++ {
		h := lock.WithHolder(bg, lc.NewHolder())
		tok, err := fenced.LockAndGetToken(h)
		if err != nil {
			t.Fatal(err)
		}
		if tok <= before {
			t.Fatalf("token %d after %d", tok, before)
		}
		before = tok
		if err := fenced.Unlock(h); err != nil {
			t.Fatal(err)
		}
	}

	ctx := lock.WithHolder(bg, lc.NewHolder())
	held := lc.Lock("held")
	if err := held.Lock(ctx); err != nil {
		t.Fatal(err)
	}
	lost := held.Lost(ctx)
	if lost == nil {
		t.Fatal("no watchdog on a lock taken without a lease")
	}

	killed := time.Now()
	c.Kill(leader)
	octx := lock.WithHolder(bg, other.NewHolder())
	var checks int
	for time.Since(killed) < 2*lease+3*time.Second {
		select {
		case <-lost:
			t.Fatalf("the watchdog gave the lock up %v after the kill", time.Since(killed))
		default:
		}
		cctx, cancel := context.WithTimeout(octx, 2*time.Second)
		ok, err := other.Lock("held").TryLock(cctx, 0, 0)
		cancel()
		if ok {
			t.Fatalf("another client took the held lock %v after the kill", time.Since(killed))
		}
		if err == nil {
			checks++
		}
		time.Sleep(200 * time.Millisecond)
	}
	if checks == 0 {
		t.Fatal("no attempt of the other client reached a leader after the kill")
	}
	nl := c.Leader()
	if nl == leader {
		t.Fatal("the killed node leads")
	}
	if ok, err := held.IsHeldByCurrent(ctx); !ok || err != nil {
		t.Fatalf("held after the failover: %v, %v", ok, err)
	}
	if d, err := held.RemainingLease(ctx); err != nil || d <= 0 || d > lease {
		t.Fatalf("lease %v, %v after %v: the watchdog does not renew on the new leader", d, err, time.Since(killed))
	}
	if err := held.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	if ok, err := other.Lock("held").TryLock(octx, 0, 0); !ok || err != nil {
		t.Fatalf("the other client after the unlock: %v, %v", ok, err)
	}

	// After the failover a waiter sleeps on the unlock channel: the lock's
	// lease is a minute, so only the unlock's message, published by the
	// new leader's script and delivered on whichever node the waiter's
	// subscription is, wakes it in time.
	wake := lc.Lock("wake")
	if err := wake.LockLease(ctx, time.Minute); err != nil {
		t.Fatal(err)
	}
	woke := make(chan error, 1)
	go func() {
		ok, err := other.Lock("wake").TryLock(octx, 40*time.Second, 0)
		if err == nil && !ok {
			err = errors.New("not acquired")
		}
		woke <- err
	}()
	testutil.Eventually(t, 10*time.Second, func() error { // until the waiter's subscription
		var n int64
		for i, a := range c.admin {
			if i == leader {
				continue // killed
			}
			m, err := a.PubSubNumSub(bg, "redisson_lock__channel:{wake}").Result()
			if err != nil {
				return err
			}
			n += m["redisson_lock__channel:{wake}"]
		}
		if n == 0 {
			return errors.New("no node has a subscriber")
		}
		return nil
	})
	if err := wake.Unlock(ctx); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-woke:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the waiter did not wake within 20s of the unlock (its lock had a minute left)")
	}

	var after int64
	testutil.Eventually(t, 20*time.Second, func() error { // until a fenced lock after the failover
		tok, err := fenced.TryLockAndGetToken(lock.WithHolder(bg, lc.NewHolder()), 2*time.Second, 10*time.Second)
		if err != nil {
			return err
		}
		if tok == 0 {
			return errors.New("not acquired")
		}
		after = tok
		return nil
	})
	if after <= before {
		t.Fatalf("token %d after the failover, %d before it", after, before)
	}
	t.Logf("tokens: last before the kill %d, first after it %d; %d refusals of the other client", before, after, checks)
}
