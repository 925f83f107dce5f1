package lock_test

import (
	"context"
	"errors"
	"sync"
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
