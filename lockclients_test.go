package lockkv_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/bsm/redislock"
	"github.com/go-redsync/redsync/v4"
	"github.com/go-redsync/redsync/v4/redis/goredis/v9"
	"github.com/redis/go-redis/v9"
	"github.com/redis/rueidis"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/internal/testutil"
)

// Real lock clients, unchanged, against lockkv: redsync and redislock (Go's
// two common Redis lock libraries, each with its own Lua scripts) and
// rueidis with its default options (RESP3, client-side caching through
// CLIENT TRACKING). Leases are checked with the test clock, frozen, so
// expiry is exact and the tests do not sleep.

func TestRedsyncMutex(t *testing.T) {
	s := lockkv.RunT(t)
	s.Clock().Freeze() // time moves only by FastForward
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer c.Close()
	rs := redsync.New(goredis.NewPool(c))

	// Mutual exclusion among concurrent owners.
	var holders, max, done atomic.Int32
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			m := rs.NewMutex("counter", redsync.WithExpiry(time.Minute), redsync.WithTries(1000), redsync.WithRetryDelay(time.Millisecond))
			for j := 0; j < 10; j++ {
				if err := m.LockContext(ctx); err != nil {
					t.Errorf("lock: %v", err)
					return
				}
				n := holders.Add(1)
				for {
					cur := max.Load()
					if n <= cur || max.CompareAndSwap(cur, n) {
						break
					}
				}
				holders.Add(-1)
				done.Add(1)
				if ok, err := m.UnlockContext(ctx); !ok || err != nil {
					t.Errorf("unlock = %v, %v", ok, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if max.Load() != 1 || done.Load() != 80 {
		t.Fatalf("at most %d holders at once (want 1), %d of 80 critical sections", max.Load(), done.Load())
	}

	// A held lock is refused to others; extended; taken over once its
	// lease runs out on the server.
	m1 := rs.NewMutex("lease", redsync.WithExpiry(8*time.Second), redsync.WithTries(1))
	m2 := rs.NewMutex("lease", redsync.WithExpiry(8*time.Second), redsync.WithTries(1))
	if err := m1.Lock(); err != nil {
		t.Fatal(err)
	}
	var taken *redsync.ErrTaken
	if err := m2.Lock(); !errors.As(err, &taken) && !errors.Is(err, redsync.ErrFailed) {
		t.Fatalf("second owner's Lock = %v, want the lock taken", err)
	}
	s.Clock().FastForward(5 * time.Second)
	if ok, err := m1.Extend(); !ok || err != nil {
		t.Fatalf("Extend = %v, %v", ok, err)
	}
	if pttl := c.PTTL(ctx, "lease").Val(); pttl <= 7*time.Second || pttl > 8*time.Second {
		t.Fatalf("PTTL after Extend = %v, want the full 8s again", pttl)
	}
	s.Clock().FastForward(9 * time.Second)
	if err := m2.Lock(); err != nil {
		t.Fatalf("Lock after the lease ran out: %v", err)
	}
	if ok, _ := m1.Unlock(); ok {
		t.Fatal("the first owner released a lock it no longer holds")
	}
	if v := c.Get(ctx, "lease").Val(); v != m2.Value() {
		t.Fatalf("lease holds %q, want the second owner's %q", v, m2.Value())
	}
}

func TestRedislock(t *testing.T) {
	s := lockkv.RunT(t)
	s.Clock().Freeze() // time moves only by FastForward
	ctx := context.Background()
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer c.Close()
	locker := redislock.New(c)

	l, err := locker.Obtain(ctx, "job", 10*time.Second, &redislock.Options{Metadata: "worker-1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := locker.Obtain(ctx, "job", 10*time.Second, nil); !errors.Is(err, redislock.ErrNotObtained) {
		t.Fatalf("second Obtain = %v, want ErrNotObtained", err)
	}
	s.Clock().FastForward(4 * time.Second)
	if ttl, err := l.TTL(ctx); err != nil || ttl != 6*time.Second {
		t.Fatalf("TTL = %v, %v; want 6s", ttl, err)
	}
	if err := l.Refresh(ctx, 10*time.Second, nil); err != nil {
		t.Fatal(err)
	}
	if ttl, _ := l.TTL(ctx); ttl != 10*time.Second {
		t.Fatalf("TTL after Refresh = %v, want 10s", ttl)
	}
	if l.Metadata() != "worker-1" {
		t.Fatalf("metadata %q", l.Metadata())
	}
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	if err := l.Release(ctx); !errors.Is(err, redislock.ErrLockNotHeld) {
		t.Fatalf("second Release = %v, want ErrLockNotHeld", err)
	}

	// A waiter with a retry strategy gets the lock once its lease ends.
	l1, err := locker.Obtain(ctx, "job", 3*time.Second, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		l2, err := locker.Obtain(ctx, "job", time.Minute, &redislock.Options{RetryStrategy: redislock.LinearBackoff(5 * time.Millisecond)})
		if err == nil {
			err = l2.Release(ctx)
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("the waiter got the lock while it was held: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	s.Clock().FastForward(3 * time.Second)
	select {
	case err := <-got:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the waiter did not get the lock after the lease ran out")
	}
	if ttl, err := l1.TTL(ctx); err != nil || ttl != 0 {
		t.Fatalf("the expired owner's TTL = %v, %v; want 0 (not held)", ttl, err)
	}
}

func TestRueidisDefaults(t *testing.T) {
	s := lockkv.RunT(t)
	s.Clock().Freeze() // time moves only by FastForward
	ctx := context.Background()
	cl, err := rueidis.NewClient(rueidis.ClientOption{InitAddress: []string{s.Addr()}})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if err := cl.Do(ctx, cl.B().Set().Key("k").Value("v1").Build()).Error(); err != nil {
		t.Fatal(err)
	}
	get := func() rueidis.RedisResult { return cl.DoCache(ctx, cl.B().Get().Key("k").Cache(), time.Minute) }
	if v, err := get().ToString(); err != nil || v != "v1" {
		t.Fatalf("DoCache GET = %q, %v", v, err)
	}
	if r := get(); !r.IsCacheHit() {
		t.Fatal("the second DoCache GET was not served from the client's cache")
	}
	// Another client's write invalidates the cached value (a RESP3 push).
	other := redis.NewClient(&redis.Options{Addr: s.Addr()})
	defer other.Close()
	if err := other.Set(ctx, "k", "v2", 0).Err(); err != nil {
		t.Fatal(err)
	}
	testutil.Eventually(t, 5*time.Second, func() error {
		if v, err := get().ToString(); err != nil || v != "v2" {
			return fmt.Errorf("DoCache GET still %q, %v after another client's SET", v, err)
		}
		return nil
	})
	// Pipelines and a lock-style script.
	res := cl.DoMulti(ctx,
		cl.B().Hincrby().Key("lock").Field("owner:1").Increment(1).Build(),
		cl.B().Pexpire().Key("lock").Milliseconds(30000).Build(),
		cl.B().Pttl().Key("lock").Build())
	for i, r := range res {
		if err := r.Error(); err != nil {
			t.Fatalf("pipeline reply %d: %v", i, err)
		}
	}
	if n, _ := res[2].AsInt64(); n != 30000 {
		t.Fatalf("PTTL = %d, want 30000 (the test clock stands still)", n)
	}
	script := rueidis.NewLuaScript("if redis.call('hexists', KEYS[1], ARGV[1]) == 1 then return redis.call('hincrby', KEYS[1], ARGV[1], 1) end return redis.call('pttl', KEYS[1])")
	if n, err := script.Exec(ctx, cl, []string{"lock"}, []string{"owner:1"}).AsInt64(); err != nil || n != 2 {
		t.Fatalf("script (EVALSHA, then EVAL on NOSCRIPT) = %d, %v", n, err)
	}
}
