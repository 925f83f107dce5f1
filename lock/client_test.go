package lock_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

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
