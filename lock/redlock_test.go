package lock_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/lock"
)

// TestRedLock: over three independent servers the RedLock holds with one
// of them down (two of three is a majority) and not with two down, and
// then leaves nothing held on the one left.
func TestRedLock(t *testing.T) {
	eachServerN(t, 3, func(t *testing.T, ss []*server) {
		var clients []*lock.Client
		var locks []*lock.Lock
		for _, s := range ss {
			// A down server must fail fast: no retries, a short dial.
			rdb := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialTimeout: 300 * time.Millisecond, DialerRetries: 1})
			t.Cleanup(func() { rdb.Close() })
			c := lock.New(rdb, nil)
			t.Cleanup(func() { c.Close() })
			clients = append(clients, c)
			locks = append(locks, c.Lock("red"))
		}
		ctx := lock.WithHolder(context.Background(), clients[0].NewHolder())
		rl := lock.NewRedLock(locks...)

		// All up; a competitor holding one of three does not stop it.
		other := ss[2].client(t, nil)
		if err := other.Lock("red").LockLease(holderCtx(other), time.Minute); err != nil {
			t.Fatal(err)
		}
		if ok, err := rl.TryLock(ctx, 0, 10*time.Second); !ok || err != nil {
			t.Fatalf("TryLock with 2 of 3 free = %v, %v", ok, err)
		}
		if err := rl.Unlock(ctx); err != nil {
			t.Fatal(err)
		}
		other.Lock("red").ForceUnlock(ctx)
		// A competitor on two of three: no majority, and the one it took
		// is given back.
		other2 := ss[1].client(t, nil)
		oc := holderCtx(other)
		other.Lock("red").LockLease(oc, time.Minute)
		other2.Lock("red").LockLease(lock.WithHolder(context.Background(), other2.NewHolder()), time.Minute)
		if ok, err := rl.TryLock(ctx, 0, 10*time.Second); ok || err != nil {
			t.Fatalf("TryLock with 1 of 3 free = %v, %v", ok, err)
		}
		if n := ss[0].rdb(t).Exists(context.Background(), "red").Val(); n != 0 {
			t.Fatal("the lock it took on the free server is still held")
		}
		other.Lock("red").ForceUnlock(ctx)
		other2.Lock("red").ForceUnlock(ctx)

		// Validity: a lease no longer than the clock drift it must allow
		// (1% + 2 ms) leaves no validity time, so even all three servers,
		// free and answering at once, do not make it hold.
		if ok, err := rl.TryLock(ctx, 0, 2*time.Millisecond); ok || err != nil {
			t.Fatalf("TryLock with a 2 ms lease = %v, %v; want false", ok, err)
		}

		ss[1].down(t)
		if ok, err := rl.TryLock(ctx, 0, 10*time.Second); !ok || err != nil {
			t.Fatalf("TryLock with one of three down = %v, %v", ok, err)
		}
		for _, i := range []int{0, 2} {
			if held, err := locks[i].IsHeldByCurrent(ctx); !held || err != nil {
				t.Fatalf("server %d: held %v, %v", i, held, err)
			}
		}
		if err := rl.Unlock(ctx); err != nil {
			t.Fatal(err)
		}

		ss[2].down(t)
		if ok, err := rl.TryLock(ctx, 0, 10*time.Second); ok || err != nil {
			t.Fatalf("TryLock with two of three down = %v, %v", ok, err)
		}
		if n := ss[0].rdb(t).Exists(context.Background(), "red").Val(); n != 0 {
			t.Fatal("a failed RedLock left its lock on the live server")
		}
		// With a wait it tries again until the wait is spent, then fails.
		if ok, err := rl.TryLock(ctx, 300*time.Millisecond, 10*time.Second); ok || err != nil {
			t.Fatalf("TryLock with a wait and two down = %v, %v", ok, err)
		}
	})
}
