package lock_test

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/lock"
)

// commands is a go-redis hook that records the names of the commands a
// client sends.
type commands struct {
	mu    sync.Mutex
	names []string
}

func (c *commands) DialHook(next redis.DialHook) redis.DialHook { return next }
func (c *commands) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}
func (c *commands) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		// Only the commands lock calls send: not a connection's HELLO
		// and CLIENT SETINFO.
		if name := cmd.Name(); name != "hello" && name != "client" {
			c.mu.Lock()
			c.names = append(c.names, name)
			c.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}

// take returns the names recorded since the last take.
func (c *commands) take() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.names
	c.names = nil
	return n
}

// scripts counts the script runs among names.
func scripts(names []string) int {
	n := 0
	for _, name := range names {
		if name == "evalsha" || name == "eval" {
			n++
		}
	}
	return n
}

// recorded is a lock.Client of s whose commands are recorded.
func (s *server) recorded(t *testing.T, opts *lock.Options) (*lock.Client, *commands) {
	t.Helper()
	rdb := s.rdb(t)
	rec := &commands{}
	rdb.AddHook(rec)
	c := lock.New(rdb, opts)
	t.Cleanup(func() { c.Close() })
	return c, rec
}

// TestScriptsByDigest: a script is sent as EVALSHA; a server that does not
// have it (SCRIPT FLUSH) answers NOSCRIPT and gets it once with EVAL, after
// which EVALSHA finds it.
func TestScriptsByDigest(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		rdb := s.rdb(t)
		bg := context.Background()
		if err := rdb.ScriptFlush(bg).Err(); err != nil {
			t.Fatal(err)
		}
		c, rec := s.recorded(t, nil)
		a := holderCtx(c)
		if ok, err := c.Lock("digest").TryLock(a, 0, time.Minute); !ok || err != nil {
			t.Fatalf("TryLock = %v, %v", ok, err)
		}
		if got := rec.take(); !slices.Equal(got, []string{"evalsha", "eval"}) {
			t.Fatalf("first acquire sent %v, want [evalsha eval] (NOSCRIPT, then the source)", got)
		}
		sum := sha1.Sum([]byte(lock.RedissonLockAcquire))
		if ok, err := rdb.ScriptExists(bg, hex.EncodeToString(sum[:])).Result(); err != nil || !ok[0] {
			t.Fatalf("SCRIPT EXISTS of the acquire script = %v, %v", ok, err)
		}
		if ok, err := c.Lock("digest").TryLock(holderCtx(c), 0, time.Minute); ok || err != nil {
			t.Fatalf("another holder's TryLock = %v, %v", ok, err)
		}
		if got := rec.take(); !slices.Equal(got, []string{"evalsha"}) {
			t.Fatalf("second acquire sent %v, want [evalsha]", got)
		}
	})
}

// TestOneSubscriptionPerName: a client's waiters on one lock share one
// subscription to its channel, and each unlock message lets one of them
// in: every waiter gets the lock in turn, and the subscription ends with
// the last of them.
func TestOneSubscriptionPerName(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		rdb := s.rdb(t)
		holder := s.client(t, nil)
		h := holderCtx(holder)
		if err := holder.Lock("shared-sub").LockLease(h, time.Minute); err != nil {
			t.Fatal(err)
		}
		c := s.client(t, nil)
		const waiters = 5
		got := make(chan error, waiters)
		var inside atomic.Int32
		for range waiters {
			a := holderCtx(c)
			go func() {
				l := c.Lock("shared-sub")
				// The watchdog's 30 s lease: only unlock messages wake them.
				err := l.Lock(a)
				if err == nil {
					if inside.Add(1) != 1 {
						err = errors.New("two holders at once")
					}
					inside.Add(-1)
					err = errors.Join(err, l.Unlock(a))
				}
				got <- err
			}()
		}
		// Each waiter has tried and is waiting once a waiter of another
		// client would see them all queued; we cannot see that, so wait for
		// the subscription and then give them time to join it.
		waitSubscribed(t, rdb, "redisson_lock__channel:{shared-sub}", 1)
		none(t, got, 200*time.Millisecond, "waiters while the lock is held")
		if n := subscribers(t, rdb, "redisson_lock__channel:{shared-sub}"); n != 1 {
			t.Fatalf("%d subscriptions for %d waiters of one client, want 1", n, waiters)
		}
		if err := holder.Lock("shared-sub").Unlock(h); err != nil {
			t.Fatal(err)
		}
		for range waiters {
			if err := recv(t, got, 15*time.Second, "a waiter"); err != nil {
				t.Fatal(err)
			}
		}
		testutil.Eventually(t, 5*time.Second, func() error { // until unsubscribed
			if n := subscribers(t, rdb, "redisson_lock__channel:{shared-sub}"); n != 0 {
				return fmt.Errorf("%d subscribers", n)
			}
			return nil
		})
	})
}

// TestNoBusyPolling: a waiter tries when it starts, once subscribed, and
// again only when woken (a message, the lock's PTTL or its own deadline):
// a refused TryLock over 1.5 s on a lock with a minute left runs the
// acquire script a handful of times, not once a millisecond; and a
// waiter for a lock whose 400 ms lease runs out with no publish takes it
// on the try its PTTL timer wakes.
func TestNoBusyPolling(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		holder := s.client(t, nil)
		if err := holder.Lock("poll").LockLease(holderCtx(holder), time.Minute); err != nil {
			t.Fatal(err)
		}
		c, rec := s.recorded(t, nil)
		ok, err := c.Lock("poll").TryLock(holderCtx(c), 1500*time.Millisecond, 0)
		if ok || err != nil {
			t.Fatalf("TryLock = %v, %v; want false", ok, err)
		}
		if n := scripts(rec.take()); n < 2 || n > 4 {
			t.Fatalf("%d acquire attempts in a 1.5 s wait with no message, want 2 to 4", n)
		}

		if err := holder.Lock("expiring").LockLease(holderCtx(holder), 400*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		ok, err = c.Lock("expiring").TryLock(holderCtx(c), 20*time.Second, time.Minute)
		if !ok || err != nil {
			t.Fatalf("TryLock = %v, %v", ok, err)
		}
		// Two tries before the sleep, one after it, and a few more if the
		// PTTL timer fires within the millisecond PTTL rounds off (one, if
		// a loaded machine let the lease pass before the first).
		if n := scripts(rec.take()); n > 6 {
			t.Fatalf("%d acquire attempts to outwait a 400 ms lease, want at most 6", n)
		}
	})
}

// TestWatchdogStopsAtUnlock: the watchdog renews while the holder holds
// the lock (a reentered lock stays renewed after one Unlock) and stops at
// the last Unlock: the client sends nothing more.
func TestWatchdogStopsAtUnlock(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		const lease = 1200 * time.Millisecond // renewed every 400 ms
		c, rec := s.recorded(t, &lock.Options{WatchdogTimeout: lease})
		rdb := s.rdb(t)
		a := holderCtx(c)
		l := c.Lock("dog-unlock")
		if err := l.Lock(a); err != nil {
			t.Fatal(err)
		}
		if err := l.Lock(a); err != nil {
			t.Fatal(err)
		}
		if err := l.Unlock(a); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		for time.Since(start) < 2*lease {
			if n := rdb.Exists(context.Background(), "dog-unlock").Val(); n != 1 {
				t.Fatalf("the reentered lock expired %v after one of two unlocks", time.Since(start))
			}
			time.Sleep(50 * time.Millisecond)
		}
		// Two acquires, an unlock, and at least two renewals.
		if n := scripts(rec.take()); n < 3+2 {
			t.Fatalf("%d scripts: no renewals while held", n)
		}
		if err := l.Unlock(a); err != nil {
			t.Fatal(err)
		}
		// A renewal already under way when Unlock stopped the watchdog may
		// still land: let it, then listen for several intervals.
		time.Sleep(lease / 3)
		rec.take()
		time.Sleep(lease) // three renewal intervals
		if got := rec.take(); len(got) != 0 {
			t.Fatalf("the client sent %v after the last Unlock, want nothing", got)
		}
	})
}

// TestCloseEndsWaits: closing a Client ends every wait of its holders
// (on a lock, a semaphore, a spin lock) with ErrClosed at once, not when
// the lease or the wait runs out, and closes Lost for the locks its
// watchdog no longer renews.
func TestCloseEndsWaits(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		rdb := s.rdb(t)
		holder := s.client(t, nil)
		h := holderCtx(holder)
		for _, name := range []string{"closing", "closing-spin"} {
			if err := holder.Lock(name).LockLease(h, time.Minute); err != nil {
				t.Fatal(err)
			}
		}
		c := lock.New(s.rdb(t), nil)
		defer c.Close()
		a := holderCtx(c)
		if err := c.Lock("dog").Lock(a); err != nil {
			t.Fatal(err)
		}
		lost := c.Lock("dog").Lost(a)
		got := make(chan error, 3)
		go func() {
			_, err := c.Lock("closing").TryLock(holderCtx(c), 30*time.Second, 0)
			got <- err
		}()
		go func() {
			_, err := c.SpinLock("closing-spin").TryLock(holderCtx(c), 30*time.Second, 0)
			got <- err
		}()
		go func() {
			_, err := c.Semaphore("closing-sem").TryAcquire(context.Background(), 1, 30*time.Second)
			got <- err
		}()
		waitSubscribed(t, rdb, "redisson_lock__channel:{closing}", 1)
		waitSubscribed(t, rdb, "redisson_sc:{closing-sem}", 1)
		none(t, got, 50*time.Millisecond, "waits before Close")
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			if err := recv(t, got, 5*time.Second, "a wait after Close"); !errors.Is(err, lock.ErrClosed) {
				t.Fatalf("wait after Close = %v, want ErrClosed", err)
			}
		}
		recv(t, lost, 5*time.Second, "Lost after Close")
		if _, err := c.Lock("closing").TryLock(holderCtx(c), time.Second, 0); !errors.Is(err, lock.ErrClosed) {
			t.Fatalf("TryLock after Close = %v, want ErrClosed", err)
		}
	})
}

// TestSemaphoreExclusion: goroutines of two clients share a semaphore of
// two permits: never more than two inside, and every acquisition gets in.
func TestSemaphoreExclusion(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		clients := []*lock.Client{s.client(t, nil), s.client(t, nil)}
		bg := context.Background()
		if ok, err := clients[0].Semaphore("permits").TrySetPermits(bg, 2); !ok || err != nil {
			t.Fatalf("TrySetPermits = %v, %v", ok, err)
		}
		var inside, most, done atomic.Int32
		var wg sync.WaitGroup
		for g := range 6 {
			sem := clients[g%2].Semaphore("permits")
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(bg, 30*time.Second)
				defer cancel()
				for range 8 {
					if err := sem.Acquire(ctx, 1); err != nil {
						t.Errorf("Acquire: %v", err)
						return
					}
					n := inside.Add(1)
					for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
					}
					time.Sleep(time.Millisecond)
					inside.Add(-1)
					done.Add(1)
					if err := sem.Release(ctx, 1); err != nil {
						t.Errorf("Release: %v", err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if most.Load() > 2 || done.Load() != 48 {
			t.Fatalf("at most %d inside at once (limit 2); %d of 48 acquisitions", most.Load(), done.Load())
		}
		if n, _ := clients[0].Semaphore("permits").AvailablePermits(bg); n != 2 {
			t.Fatalf("%d permits left, want 2", n)
		}
	})
}

// TestMultiLockExclusion: holders on goroutines take a MultiLock of three
// locks whose middle one is also a plain lock other holders take: no two
// holders are ever inside at once, and nothing is left held.
func TestMultiLockExclusion(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		clients := []*lock.Client{s.client(t, nil), s.client(t, nil), s.client(t, nil)}
		var inside, most, done atomic.Int32
		enter := func() {
			n := inside.Add(1)
			for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
			}
			time.Sleep(time.Millisecond)
			inside.Add(-1)
			done.Add(1)
		}
		var wg sync.WaitGroup
		for g := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := clients[g%3]
				ctx, cancel := context.WithTimeout(lock.WithHolder(context.Background(), c.NewHolder()), 60*time.Second)
				defer cancel()
				for range 5 {
					if g%2 == 0 {
						m := lock.NewMultiLock(clients[0].Lock("ma"), clients[1].Lock("mb"), clients[2].Lock("mc"))
						if err := m.Lock(ctx); err != nil {
							t.Errorf("MultiLock.Lock: %v", err)
							return
						}
						enter()
						if err := m.Unlock(ctx); err != nil {
							t.Errorf("MultiLock.Unlock: %v", err)
							return
						}
						continue
					}
					l := c.Lock("mb")
					if err := l.Lock(ctx); err != nil {
						t.Errorf("Lock: %v", err)
						return
					}
					enter()
					if err := l.Unlock(ctx); err != nil {
						t.Errorf("Unlock: %v", err)
						return
					}
				}
			}()
		}
		wg.Wait()
		if most.Load() != 1 || done.Load() != 20 {
			t.Fatalf("at most %d holders at once (want 1); %d of 20", most.Load(), done.Load())
		}
		if n := s.rdb(t).Exists(context.Background(), "ma", "mb", "mc").Val(); n != 0 {
			t.Fatalf("%d locks left held", n)
		}
	})
}

// TestShardedPubSub: with ShardedPubSub, as Redisson runs on a Redis
// Cluster 7.0+, waiters listen with SSUBSCRIBE and unlocks and releases
// publish with SPUBLISH; a waiter wakes on the message.
func TestShardedPubSub(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		rdb := s.rdb(t)
		bg := context.Background()
		opts := &lock.Options{ShardedPubSub: true}
		c1, c2 := s.client(t, opts), s.client(t, opts)
		a := holderCtx(c1)
		if err := c1.Lock("sharded").LockLease(a, time.Minute); err != nil {
			t.Fatal(err)
		}
		got := make(chan error, 1)
		go func() { got <- c2.Lock("sharded").Lock(holderCtx(c2)) }()
		testutil.Eventually(t, 10*time.Second, func() error { // until SSUBSCRIBE
			m, err := rdb.PubSubShardNumSub(bg, "redisson_lock__channel:{sharded}").Result()
			if err != nil || m["redisson_lock__channel:{sharded}"] != 1 {
				return fmt.Errorf("SHARDNUMSUB %v, %v", m, err)
			}
			return nil
		})
		if n := subscribers(t, rdb, "redisson_lock__channel:{sharded}"); n != 0 {
			t.Fatalf("%d plain subscriptions, want none", n)
		}
		none(t, got, 50*time.Millisecond, "waiter while the lock is held")
		if err := c1.Lock("sharded").Unlock(a); err != nil {
			t.Fatal(err)
		}
		if err := recv(t, got, 10*time.Second, "waiter after the SPUBLISHed unlock"); err != nil {
			t.Fatal(err)
		}

		sem := c1.Semaphore("sharded-sem")
		sem.TrySetPermits(bg, 0)
		acquired := make(chan error, 1)
		go func() { acquired <- c2.Semaphore("sharded-sem").Acquire(bg, 1) }()
		testutil.Eventually(t, 10*time.Second, func() error { // until SSUBSCRIBE
			m, err := rdb.PubSubShardNumSub(bg, "redisson_sc:{sharded-sem}").Result()
			if err != nil || m["redisson_sc:{sharded-sem}"] != 1 {
				return fmt.Errorf("SHARDNUMSUB %v, %v", m, err)
			}
			return nil
		})
		if err := sem.Release(bg, 1); err != nil {
			t.Fatal(err)
		}
		if err := recv(t, acquired, 10*time.Second, "semaphore waiter after the release"); err != nil {
			t.Fatal(err)
		}
	})
}

// TestReacquiredAfterTheServerLetGo: a holder whose lock the server let
// go without an Unlock (its lease passed, or its watchdog lost it) and
// who takes it again holds a new lock: one taken without a lease gets a
// running watchdog and a fresh Lost. And a reentry without a lease into a
// lock taken with one starts the watchdog, as Redisson's does.
func TestReacquiredAfterTheServerLetGo(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		const lease = 1200 * time.Millisecond // the watchdog's, renewed every 400 ms
		c := s.client(t, &lock.Options{WatchdogTimeout: lease})
		rdb := s.rdb(t)
		bg := context.Background()
		held := func(name string, d time.Duration) {
			t.Helper()
			start := time.Now()
			for time.Since(start) < d {
				if rdb.Exists(bg, name).Val() != 1 {
					t.Fatalf("%s expired %v in: no watchdog renews it", name, time.Since(start))
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		open := func(ch <-chan struct{}, what string) {
			t.Helper()
			if ch == nil {
				t.Fatalf("%s: no Lost channel: no watchdog", what)
			}
			select {
			case <-ch:
				t.Fatalf("%s: Lost is closed", what)
			default:
			}
		}

		// An explicit lease runs out; the holder takes the lock again
		// without one.
		a := holderCtx(c)
		l := c.Lock("let-go")
		if err := l.LockLease(a, 100*time.Millisecond); err != nil {
			t.Fatal(err)
		}
		testutil.Eventually(t, 5*time.Second, func() error { // until the lease to pass
			if rdb.Exists(bg, "let-go").Val() != 0 {
				return errors.New("still there")
			}
			return nil
		})
		if err := l.Lock(a); err != nil {
			t.Fatal(err)
		}
		open(l.Lost(a), "retaken after its lease passed")
		held("let-go", 2*lease)
		if err := l.Unlock(a); err != nil {
			t.Fatal(err)
		}

		// Another client forces the lock open; the watchdog finds it gone,
		// and the holder takes it again.
		if err := l.Lock(a); err != nil {
			t.Fatal(err)
		}
		lost := l.Lost(a)
		if ok, err := s.client(t, nil).Lock("let-go").ForceUnlock(bg); !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v", ok, err)
		}
		recv(t, lost, 5*time.Second, "Lost after the lock was deleted")
		if err := l.Lock(a); err != nil {
			t.Fatal(err)
		}
		open(l.Lost(a), "retaken after the watchdog lost it")
		held("let-go", 2*lease)
		if err := l.Unlock(a); err != nil {
			t.Fatal(err)
		}

		// A reentry without a lease into a lock taken with one.
		if err := l.LockLease(a, time.Minute); err != nil {
			t.Fatal(err)
		}
		if l.Lost(a) != nil {
			t.Fatal("a Lost channel for a lock with an explicit lease")
		}
		if err := l.Lock(a); err != nil {
			t.Fatal(err)
		}
		open(l.Lost(a), "reentered without a lease")
		held("let-go", 2*lease)

		// This client forces it open: its holder's Lost closes at once.
		lost = l.Lost(a)
		if ok, err := l.ForceUnlock(bg); !ok || err != nil {
			t.Fatalf("ForceUnlock = %v, %v", ok, err)
		}
		select {
		case <-lost:
		default:
			t.Fatal("Lost still open after this client's ForceUnlock")
		}
	})
}

// TestLeasedHoldsForgotten: a client forgets the holds of locks whose
// explicit lease passed with no Unlock, instead of keeping every one.
func TestLeasedHoldsForgotten(t *testing.T) {
	s := lockkvServer(t)
	c := s.client(t, nil)
	a := holderCtx(c)
	take := func(prefix string) {
		for i := range 300 {
			if err := c.Lock(fmt.Sprint(prefix, i)).LockLease(a, time.Millisecond); err != nil {
				t.Fatal(err)
			}
		}
	}
	take("first")
	time.Sleep(10 * time.Millisecond) // every lease has passed
	take("second")
	if n := c.Holds(); n >= 300 {
		t.Fatalf("%d holds kept after 600 leased locks that ran out, want fewer than 300", n)
	}
}

// TestWatchdogEachKind: every kind of lock taken without a lease is
// renewed past its first lease by its own renewal script: the fair, spin
// and fenced locks' hash, the write lock's, and the read lock's hash with
// its per-entry lease key.
func TestWatchdogEachKind(t *testing.T) {
	eachServer(t, func(t *testing.T, s *server) {
		const lease = 1200 * time.Millisecond // renewed every 400 ms
		c := s.client(t, &lock.Options{WatchdogTimeout: lease})
		rdb := s.rdb(t)
		h := c.NewHolder()
		a := lock.WithHolder(context.Background(), h)
		field := fmt.Sprintf("%s:%d", c.ID(), h)
		locks := map[string]*lock.Lock{
			"wd-fair":   c.FairLock("wd-fair"),
			"wd-spin":   c.SpinLock("wd-spin"),
			"wd-fenced": c.FencedLock("wd-fenced").Lock,
			"wd-write":  c.ReadWriteLock("wd-write").WriteLock(),
			"wd-read":   c.ReadWriteLock("wd-read").ReadLock(),
		}
		for name, l := range locks {
			if err := l.Lock(a); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
		keys := []string{"{wd-read}:" + field + ":rwlock_timeout:1"}
		for name := range locks {
			keys = append(keys, name)
		}
		start := time.Now()
		for time.Since(start) < 2*lease {
			for _, k := range keys {
				if rdb.Exists(context.Background(), k).Val() != 1 {
					t.Fatalf("%s expired %v in: not renewed", k, time.Since(start))
				}
			}
			time.Sleep(50 * time.Millisecond)
		}
		for name, l := range locks {
			if err := l.Unlock(a); err != nil {
				t.Fatalf("%s: Unlock: %v", name, err)
			}
		}
		if n := rdb.Exists(context.Background(), keys...).Val(); n != 0 {
			t.Fatalf("%d keys left after the unlocks", n)
		}
	})
}
