package lock_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/lock"
)

// TestMutualExclusion: holders on goroutines of two clients take one lock
// in turn; a counter of holders inside never sees two. Waiters sleep on
// the unlock channel (the lease is the watchdog's 30 s, so nothing but
// the unlock message can wake them in time).
func TestMutualExclusion(t *testing.T) {
	for _, kind := range []string{"lock", "fair", "spin", "fenced", "write"} {
		t.Run(kind, func(t *testing.T) {
			eachServer(t, func(t *testing.T, s *server) {
				clients := []*lock.Client{s.client(t, nil), s.client(t, nil)}
				get := func(c *lock.Client) *lock.Lock {
					switch kind {
					case "fair":
						return c.FairLock("counter")
					case "spin":
						return c.SpinLock("counter")
					case "fenced":
						return c.FencedLock("counter").Lock
					case "write":
						return c.ReadWriteLock("counter").WriteLock()
					}
					return c.Lock("counter")
				}
				var inside, most, done atomic.Int32
				var wg sync.WaitGroup
				for g := 0; g < 6; g++ {
					c := clients[g%2]
					wg.Add(1)
					go func() {
						defer wg.Done()
						ctx, cancel := context.WithTimeout(holderCtx(c), 30*time.Second)
						defer cancel()
						l := get(c)
						for i := 0; i < 8; i++ {
							if err := l.Lock(ctx); err != nil {
								t.Errorf("Lock: %v", err)
								return
							}
							n := inside.Add(1)
							for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
							}
							time.Sleep(time.Millisecond)
							inside.Add(-1)
							done.Add(1)
							if err := l.Unlock(ctx); err != nil {
								t.Errorf("Unlock: %v", err)
								return
							}
						}
					}()
				}
				wg.Wait()
				if most.Load() != 1 || done.Load() != 48 {
					t.Fatalf("at most %d holders at once (want 1); %d of 48 critical sections", most.Load(), done.Load())
				}
				if n, _ := s.rdb(t).Exists(context.Background(), "counter").Result(); n != 0 {
					t.Fatal("the lock is still there after every holder left")
				}
			})
		})
	}
}

// TestReentry: the same holder enters again (from any goroutine), another
// holder of the same client cannot, and only the holder may unlock.
func TestReentry(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c := s.client(t, nil)
		a, b := holderCtx(c), holderCtx(c)
		l := c.Lock("re")
		if err := l.Lock(a); err != nil {
			t.Fatal(err)
		}
		done := make(chan error)
		go func() { done <- l.Lock(a) }() // same holder, other goroutine
		if err := recv(t, done, 5*time.Second, "reentry"); err != nil {
			t.Fatal(err)
		}
		if n, err := l.HoldCount(a); n != 2 || err != nil {
			t.Fatalf("HoldCount = %d, %v; want 2", n, err)
		}
		if ok, err := l.TryLock(b, 0, 0); ok || err != nil {
			t.Fatalf("another holder's TryLock = %v, %v; want false", ok, err)
		}
		if err := l.Unlock(b); !errors.Is(err, lock.ErrNotHeld) {
			t.Fatalf("another holder's Unlock = %v, want ErrNotHeld", err)
		}
		if held, _ := l.IsHeldByCurrent(b); held {
			t.Fatal("IsHeldByCurrent for a holder that does not hold it")
		}
		if err := l.Unlock(a); err != nil {
			t.Fatal(err)
		}
		if held, _ := l.IsHeldByCurrent(a); !held {
			t.Fatal("released after one of two entries")
		}
		if err := l.Unlock(a); err != nil {
			t.Fatal(err)
		}
		if locked, _ := l.IsLocked(a); locked {
			t.Fatal("still locked after the last leave")
		}
		if err := l.Unlock(a); !errors.Is(err, lock.ErrNotHeld) {
			t.Fatalf("Unlock of a free lock = %v, want ErrNotHeld", err)
		}
		if err := l.Lock(context.Background()); !errors.Is(err, lock.ErrNoHolder) {
			t.Fatalf("Lock without a holder = %v, want ErrNoHolder", err)
		}
	})
}

// TestWakeByPublish: a waiter on a lock with a minute left gets it within
// seconds of the unlock: only the unlock message can have woken it.
func TestWakeByPublish(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c1, c2 := s.client(t, nil), s.client(t, nil)
		a := holderCtx(c1)
		if err := c1.Lock("pub").LockLease(a, time.Minute); err != nil {
			t.Fatal(err)
		}
		got := make(chan error, 1)
		go func() {
			ok, err := c2.Lock("pub").TryLock(holderCtx(c2), 20*time.Second, time.Minute)
			if err == nil && !ok {
				err = errors.New("not acquired")
			}
			got <- err
		}()
		rdb := s.rdb(t)
		waitSubscribed(t, rdb, "redisson_lock__channel:{pub}", 1)
		none(t, got, 50*time.Millisecond, "waiter while the lock is held")
		if err := c1.Lock("pub").Unlock(a); err != nil {
			t.Fatal(err)
		}
		if err := recv(t, got, 15*time.Second, "waiter after the unlock"); err != nil {
			t.Fatal(err)
		}
		if pttl := rdb.PTTL(context.Background(), "pub").Val(); pttl < 50*time.Second {
			t.Fatalf("PTTL %v: the waiter's lease is not the one it asked for", pttl)
		}
		// The waiter left: the client unsubscribed.
		testutil.Eventually(t, 5*time.Second, func() error { // until unsubscribe
			if n := subscribers(t, rdb, "redisson_lock__channel:{pub}"); n != 0 {
				return fmt.Errorf("%d subscribers", n)
			}
			return nil
		})
	})
}

// TestWakeByLeaseExpiry: a holder that never unlocks publishes nothing;
// the waiter sleeps for the lease it was told and takes the lock once it
// has run out.
func TestWakeByLeaseExpiry(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c1, c2 := s.client(t, nil), s.client(t, nil)
		if err := c1.Lock("exp").LockLease(holderCtx(c1), 300*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		b := holderCtx(c2)
		ok, err := c2.Lock("exp").TryLock(b, 20*time.Second, 0)
		if !ok || err != nil {
			t.Fatalf("TryLock = %v, %v", ok, err)
		}
		if held, _ := c2.Lock("exp").IsHeldByCurrent(b); !held {
			t.Fatal("not held by the waiter")
		}
		// A TryLock whose wait ends before the lease gives up.
		ok, err = c1.Lock("exp").TryLock(holderCtx(c1), 100*time.Millisecond, 0)
		if ok || err != nil {
			t.Fatalf("TryLock with a short wait = %v, %v; want false", ok, err)
		}
		// ctx ends the wait too.
		ctx, cancel := context.WithTimeout(holderCtx(c1), 100*time.Millisecond)
		defer cancel()
		if err := c1.Lock("exp").Lock(ctx); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("Lock with an ending ctx = %v", err)
		}
	})
}

// TestLeaseClock: on lockkv's test clock an explicit lease runs out when
// the server's time passes it, and the watchdog's 30 s lease is in place
// (the watchdog renews it on the wall clock).
func TestLeaseClock(t *testing.T) {
	s := lockkvServer(t)
	s.kv.Clock().Freeze()
	c := s.client(t, nil)
	a := holderCtx(c)
	if err := c.Lock("leased").LockLease(a, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := c.Lock("dog").Lock(a); err != nil {
		t.Fatal(err)
	}
	if d, _ := c.Lock("dog").RemainingLease(a); d != 30*time.Second {
		t.Fatalf("watchdog lease %v, want 30s", d)
	}
	if c.Lock("leased").Lost(a) != nil || c.Lock("dog").Lost(a) == nil {
		t.Fatal("Lost: want a channel for the watchdog's lock only")
	}
	s.kv.Clock().FastForward(11 * time.Second)
	if locked, _ := c.Lock("leased").IsLocked(a); locked {
		t.Fatal("the leased lock outlived its lease")
	}
	if err := c.Lock("leased").Unlock(a); !errors.Is(err, lock.ErrNotHeld) {
		t.Fatalf("Unlock after the lease = %v, want ErrNotHeld", err)
	}
	if d, _ := c.Lock("dog").RemainingLease(a); d != 19*time.Second {
		t.Fatalf("watchdog lock's lease %v, want 19s", d)
	}
}

// lockkvServer is an embedded lockkv alone, for the cases that take its
// clock.
func lockkvServer(t *testing.T) *server {
	kv := lockkv.RunT(t)
	return &server{addr: kv.Addr(), kv: kv}
}

// TestWatchdog: a lock taken without a lease outlives several leases
// while its holder lives, its renewals stop with the holder's context (the
// lock then ends with its lease), and a holder whose lock is deleted under
// it learns so from Lost.
func TestWatchdog(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		// Renewed every 400 ms: a renewal may run 800 ms late on a loaded
		// machine before the lock expires.
		const lease = 1200 * time.Millisecond
		c := s.client(t, &lock.Options{WatchdogTimeout: lease})
		rdb := s.rdb(t)
		ctx, stop := context.WithCancel(holderCtx(c))
		defer stop()
		l := c.Lock("dog")
		if err := l.Lock(ctx); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for time.Since(start) < 3*lease {
			if held, err := l.IsHeldByCurrent(ctx); !held || err != nil {
				t.Fatalf("lost after %v (%v)", time.Since(start), err)
			}
			time.Sleep(50 * time.Millisecond)
		}
		select {
		case <-l.Lost(ctx):
			t.Fatal("Lost closed while the lock is held")
		default:
		}
		stop()
		testutil.Eventually(t, 5*time.Second, func() error { // until lock expiry once the holder's ctx ended
			if n := rdb.Exists(context.Background(), "dog").Val(); n != 0 {
				return errors.New("still there")
			}
			return nil
		})

		// Deleted under its holder: the next renewal finds out.
		b := holderCtx(c)
		if err := l.Lock(b); err != nil {
			t.Fatal(err)
		}
		lost := l.Lost(b)
		other := s.client(t, nil)
		if ok, err := other.Lock("dog").ForceUnlock(b); !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v", ok, err)
		}
		recv(t, lost, 5*time.Second, "Lost after the lock was deleted")
		if err := l.Unlock(b); !errors.Is(err, lock.ErrNotHeld) {
			t.Fatalf("Unlock of a lost lock = %v, want ErrNotHeld", err)
		}
	})
}

// TestFairOrder: waiters get a fair lock in the order they asked.
func TestFairOrder(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c := s.client(t, nil)
		rdb := s.rdb(t)
		first := holderCtx(c)
		if err := c.FairLock("fair").Lock(first); err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var order []int
		var wg sync.WaitGroup
		for i := 1; i <= 4; i++ {
			ctx := holderCtx(c)
			wg.Add(1)
			go func() {
				defer wg.Done()
				if err := c.FairLock("fair").Lock(ctx); err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				order = append(order, i)
				mu.Unlock()
				c.FairLock("fair").Unlock(ctx)
			}()
			// The next asks once this one is queued.
			testutil.Eventually(t, 10*time.Second, func() error { // until queued
				if n := rdb.LLen(context.Background(), "redisson_lock_queue:{fair}").Val(); n != int64(i) {
					return fmt.Errorf("queue length %d", n)
				}
				return nil
			})
		}
		if err := c.FairLock("fair").Unlock(first); err != nil {
			t.Fatal(err)
		}
		wg.Wait()
		if fmt.Sprint(order) != "[1 2 3 4]" {
			t.Fatalf("order %v, want [1 2 3 4]", order)
		}
		for _, k := range []string{"fair", "redisson_lock_queue:{fair}", "redisson_lock_timeout:{fair}"} {
			if rdb.Exists(context.Background(), k).Val() != 0 {
				t.Errorf("%s is left over", k)
			}
		}
	})
}

// TestFairGiveUp: a fair waiter that gives up leaves the queue.
func TestFairGiveUp(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c := s.client(t, nil)
		rdb := s.rdb(t)
		if err := c.FairLock("fair").Lock(holderCtx(c)); err != nil {
			t.Fatal(err)
		}
		ok, err := c.FairLock("fair").TryLock(holderCtx(c), 200*time.Millisecond, 0)
		if ok || err != nil {
			t.Fatalf("TryLock = %v, %v; want false", ok, err)
		}
		if n := rdb.LLen(context.Background(), "redisson_lock_queue:{fair}").Val(); n != 0 {
			t.Fatalf("queue length %d after the waiter gave up", n)
		}
		if n := rdb.ZCard(context.Background(), "redisson_lock_timeout:{fair}").Val(); n != 0 {
			t.Fatalf("%d deadlines after the waiter gave up", n)
		}
	})
}

// TestReadWrite: readers share, a writer excludes readers and writers, a
// writer may read, and readers waiting on a writer all go when it leaves.
func TestReadWrite(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c := s.client(t, nil)
		rw := c.ReadWriteLock("rw")
		r1, r2, w := holderCtx(c), holderCtx(c), holderCtx(c)
		for _, r := range []context.Context{r1, r2} {
			if ok, err := rw.ReadLock().TryLock(r, 0, 0); !ok || err != nil {
				t.Fatalf("reader TryLock = %v, %v", ok, err)
			}
		}
		if ok, _ := rw.WriteLock().TryLock(w, 0, 0); ok {
			t.Fatal("a writer got the lock readers hold")
		}
		wrote := make(chan error, 1)
		go func() { wrote <- rw.WriteLock().Lock(w) }()
		waitSubscribed(t, s.rdb(t), "redisson_rwlock:{rw}", 1)
		rw.ReadLock().Unlock(r1)
		none(t, wrote, 100*time.Millisecond, "writer while a reader holds")
		rw.ReadLock().Unlock(r2)
		if err := recv(t, wrote, 10*time.Second, "writer"); err != nil {
			t.Fatal(err)
		}
		if locked, _ := rw.WriteLock().IsLocked(w); !locked {
			t.Fatal("write side not locked")
		}
		// Readers wait on the writer; its unlock (READ_UNLOCK_MESSAGE) lets
		// them all in at once.
		read := make(chan error, 2)
		for _, r := range []context.Context{r1, r2} {
			go func() {
				ok, err := rw.ReadLock().TryLock(r, 20*time.Second, time.Minute)
				if err == nil && !ok {
					err = errors.New("not acquired")
				}
				read <- err
			}()
		}
		waitSubscribed(t, s.rdb(t), "redisson_rwlock:{rw}", 1)
		none(t, read, 100*time.Millisecond, "readers while the writer holds")
		if err := rw.WriteLock().Unlock(w); err != nil {
			t.Fatal(err)
		}
		for range 2 {
			if err := recv(t, read, 10*time.Second, "reader after the writer left"); err != nil {
				t.Fatal(err)
			}
		}
		if locked, _ := rw.ReadLock().IsLocked(r1); !locked {
			t.Fatal("read side not locked")
		}
		rw.ReadLock().Unlock(r1)
		rw.ReadLock().Unlock(r2)
		// A writer may read too, and keeps reading once it stops writing.
		rw.WriteLock().Lock(w)
		if ok, err := rw.ReadLock().TryLock(w, 0, 0); !ok || err != nil {
			t.Fatalf("writer's read = %v, %v", ok, err)
		}
		if ok, _ := rw.ReadLock().TryLock(r1, 0, 0); ok {
			t.Fatal("another reader got in while a writer holds")
		}
		rw.WriteLock().Unlock(w)
		if ok, err := rw.ReadLock().TryLock(r1, 0, 0); !ok || err != nil {
			t.Fatalf("a reader beside the downgraded writer = %v, %v", ok, err)
		}
		if ok, _ := rw.WriteLock().TryLock(r2, 0, 0); ok {
			t.Fatal("a writer got in beside readers")
		}
	})
}

// TestSemaphore: permits run out, a waiter sleeps until a release.
func TestSemaphore(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c := s.client(t, nil)
		ctx := context.Background()
		sem := c.Semaphore("sem")
		if ok, err := sem.TrySetPermits(ctx, 2); !ok || err != nil {
			t.Fatalf("TrySetPermits = %v, %v", ok, err)
		}
		if ok, _ := sem.TrySetPermits(ctx, 5); ok {
			t.Fatal("permits set twice")
		}
		if err := sem.Acquire(ctx, 2); err != nil {
			t.Fatal(err)
		}
		if ok, _ := sem.TryAcquire(ctx, 1, 0); ok {
			t.Fatal("a permit beyond the count")
		}
		got := make(chan error, 2)
		for range 2 {
			go func() { got <- sem.Acquire(ctx, 1) }()
		}
		waitSubscribed(t, s.rdb(t), "redisson_sc:{sem}", 1)
		none(t, got, 50*time.Millisecond, "acquire with no permit left")
		if err := sem.Release(ctx, 1); err != nil {
			t.Fatal(err)
		}
		recv(t, got, 10*time.Second, "acquire after one release")
		none(t, got, 50*time.Millisecond, "second acquire after one release")
		sem.Release(ctx, 1)
		recv(t, got, 10*time.Second, "acquire after the second release")
		if n, _ := sem.AvailablePermits(ctx); n != 0 {
			t.Fatalf("AvailablePermits = %d", n)
		}
		sem.AddPermits(ctx, 3)
		if n, _ := sem.DrainPermits(ctx); n != 3 {
			t.Fatalf("DrainPermits = %d", n)
		}
	})
}

// TestPermitExpirableSemaphore: a permit's lease returns it to the pool;
// a waiter sleeps until the earliest lease ends.
func TestPermitExpirableSemaphore(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c := s.client(t, nil)
		ctx := context.Background()
		p := c.PermitExpirableSemaphore("pes")
		if ok, err := p.TrySetPermits(ctx, 1); !ok || err != nil {
			t.Fatalf("TrySetPermits = %v, %v", ok, err)
		}
		// A lease long enough that the next line runs before it ends, even
		// on a loaded machine.
		id, err := p.Acquire(ctx, time.Second)
		if err != nil || len(id) != 32 {
			t.Fatalf("Acquire = %q, %v", id, err)
		}
		if _, ok, _ := p.TryAcquire(ctx, 0, 0); ok {
			t.Fatal("a second permit of one")
		}
		id2, ok, err := p.TryAcquire(ctx, 10*time.Second, 0)
		if !ok || err != nil {
			t.Fatalf("TryAcquire after the first lease = %v, %v", ok, err)
		}
		if err := p.Release(ctx, id); !errors.Is(err, lock.ErrNotHeld) {
			t.Fatalf("Release of an expired permit = %v, want ErrNotHeld", err)
		}
		if err := p.Release(ctx, id2); err != nil {
			t.Fatal(err)
		}
		if n, _ := p.AvailablePermits(ctx); n != 1 {
			t.Fatalf("AvailablePermits = %d, want 1", n)
		}
	})
}

// TestCountDownLatch: waiters go when the count reaches zero.
func TestCountDownLatch(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c := s.client(t, nil)
		ctx := context.Background()
		l := c.CountDownLatch("latch")
		if ok, err := l.TrySetCount(ctx, 2); !ok || err != nil {
			t.Fatalf("TrySetCount = %v, %v", ok, err)
		}
		done := make(chan error, 3)
		for range 3 {
			go func() { done <- l.Await(ctx) }()
		}
		waitSubscribed(t, s.rdb(t), "redisson_countdownlatch__channel__{latch}", 1)
		l.CountDown(ctx)
		none(t, done, 50*time.Millisecond, "await at count 1")
		l.CountDown(ctx)
		for range 3 {
			if err := recv(t, done, 10*time.Second, "await at zero"); err != nil {
				t.Fatal(err)
			}
		}
		if ok, _ := l.AwaitTimeout(ctx, 0); !ok {
			t.Fatal("AwaitTimeout on an open latch")
		}
		l.TrySetCount(ctx, 1)
		if ok, _ := l.AwaitTimeout(ctx, 50*time.Millisecond); ok {
			t.Fatal("AwaitTimeout passed a closed latch")
		}
	})
}

// TestFencedTokens: every acquisition, reentries too, gets a greater
// token, kept in redisson_lock_token:{name}.
func TestFencedTokens(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c := s.client(t, nil)
		f := c.FencedLock("fenced")
		var last int64
		for i := 0; i < 5; i++ {
			a := holderCtx(c)
			tok, err := f.LockAndGetToken(a)
			if err != nil || tok <= last {
				t.Fatalf("token %d after %d (%v)", tok, last, err)
			}
			last = tok
			if tok2, err := f.TryLockAndGetToken(a, 0, 0); err != nil || tok2 != last+1 {
				t.Fatalf("reentry token %d, want %d (%v)", tok2, last+1, err)
			}
			last++
			if tok, _ := f.TryLockAndGetToken(holderCtx(c), 0, 0); tok != 0 {
				t.Fatalf("another holder got token %d", tok)
			}
			f.Unlock(a)
			f.Unlock(a)
		}
		if n, _ := f.Token(context.Background()); n != last {
			t.Fatalf("Token = %d, want %d", n, last)
		}
		if v := s.rdb(t).Get(context.Background(), "redisson_lock_token:{fenced}").Val(); v != fmt.Sprint(last) {
			t.Fatalf("token key %q", v)
		}
	})
}

// TestMultiLock: all or none: one lock held elsewhere fails the group and
// leaves none of its locks held.
func TestMultiLock(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		other := s.client(t, nil)
		var cs []*lock.Client
		for range 3 {
			cs = append(cs, s.client(t, nil))
		}
		// One holder across three clients (independent servers in
		// production, one here).
		h := cs[0].NewHolder()
		ctx := lock.WithHolder(context.Background(), h)
		m := lock.NewMultiLock(cs[0].Lock("m1"), cs[1].Lock("m2"), cs[2].Lock("m3"))
		if err := other.Lock("m2").LockLease(holderCtx(other), time.Minute); err != nil {
			t.Fatal(err)
		}
		if ok, err := m.TryLock(ctx, 0, 0); ok || err != nil {
			t.Fatalf("TryLock with m2 taken = %v, %v", ok, err)
		}
		rdb := s.rdb(t)
		if n := rdb.Exists(context.Background(), "m1", "m3").Val(); n != 0 {
			t.Fatalf("%d of the group's other locks left held", n)
		}
		other.Lock("m2").ForceUnlock(ctx)
		if ok, err := m.TryLock(ctx, time.Second, 10*time.Second); !ok || err != nil {
			t.Fatalf("TryLock = %v, %v", ok, err)
		}
		for _, k := range []string{"m1", "m2", "m3"} {
			if d := rdb.PTTL(context.Background(), k).Val(); d <= 5*time.Second || d > 10*time.Second {
				t.Fatalf("%s lease %v, want cut to 10s", k, d)
			}
		}
		if err := m.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		if n := rdb.Exists(context.Background(), "m1", "m2", "m3").Val(); n != 0 {
			t.Fatalf("%d locks left after Unlock", n)
		}
	})
}

// TestHolderFieldLayout: the hash field is "<client ID>:<holder>".
func TestHolderFieldLayout(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		c := s.client(t, &lock.Options{ID: "8743c9c0-0795-4907-87fd-6c719a6b4586"})
		h := c.NewHolder()
		ctx := lock.WithHolder(context.Background(), h)
		if err := c.Lock("x").Lock(ctx); err != nil {
			t.Fatal(err)
		}
		m := s.rdb(t).HGetAll(ctx, "x").Val()
		want := fmt.Sprintf("8743c9c0-0795-4907-87fd-6c719a6b4586:%d", h)
		if len(m) != 1 || m[want] != "1" {
			t.Fatalf("HGETALL x = %v, want {%s: 1}", m, want)
		}
		if !strings.Contains(c.ID(), "-") {
			t.Fatalf("ID %q", c.ID())
		}
	})
}
