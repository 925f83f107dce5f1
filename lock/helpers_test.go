package lock_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/conformance"
	"github.com/lockkv/lockkv/internal/testutil"
	"github.com/lockkv/lockkv/lock"
)

// server is what a case runs against: an embedded lockkv (kv set) or a
// real redis-server.
type server struct {
	addr string
	kv   *lockkv.Server
}

// eachServer runs f against an embedded lockkv and against a real
// redis-server (conformance's launcher, on a free port).
func eachServer(t *testing.T, f func(t *testing.T, s *server)) {
	t.Run("lockkv", func(t *testing.T) {
		kv := lockkv.RunT(t)
		f(t, &server{addr: kv.Addr(), kv: kv})
	})
	t.Run("redis", func(t *testing.T) {
		f(t, &server{addr: conformance.StartRedisServer(t)})
	})
}

// rdb is a plain client of s, closed when the test ends.
func (s *server) rdb(t *testing.T) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.addr, DialTimeout: 2 * time.Second})
	t.Cleanup(func() { c.Close() })
	return c
}

// client is a lock.Client of s, closed when the test ends.
func (s *server) client(t *testing.T, opts *lock.Options) *lock.Client {
	t.Helper()
	c := lock.New(s.rdb(t), opts)
	t.Cleanup(func() { c.Close() })
	return c
}

// holderCtx is a context carrying a new holder of c.
func holderCtx(c *lock.Client) context.Context {
	return lock.WithHolder(context.Background(), c.NewHolder())
}

// subscribers is PUBSUB NUMSUB channel: how many connections wait on it.
func subscribers(t *testing.T, rdb *redis.Client, channel string) int64 {
	t.Helper()
	m, err := rdb.PubSubNumSub(context.Background(), channel).Result()
	if err != nil {
		t.Fatal(err)
	}
	return m[channel]
}

// waitSubscribed waits until n connections listen on channel.
func waitSubscribed(t *testing.T, rdb *redis.Client, channel string, n int64) {
	t.Helper()
	testutil.Eventually(t, 10*time.Second, func() error {
		if got := subscribers(t, rdb, channel); got < n {
			return fmt.Errorf("%d subscribers to %s", got, channel)
		}
		return nil
	})
}

// result is what a goroutine reports back.
func recv[T any](t *testing.T, ch <-chan T, d time.Duration, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatalf("%s: nothing within %v", what, d)
		var zero T
		return zero
	}
}

// none requires that ch yields nothing for d.
func none[T any](t *testing.T, ch <-chan T, d time.Duration, what string) {
	t.Helper()
	select {
	case v := <-ch:
		t.Fatalf("%s: got %v, want nothing yet", what, v)
	case <-time.After(d):
	}
}

// down stops the server: a lockkv is closed, a Redis shut down.
func (s *server) down(t *testing.T) {
	t.Helper()
	if s.kv != nil {
		s.kv.Close()
		return
	}
	c := redis.NewClient(&redis.Options{Addr: s.addr, MaxRetries: -1, DialerRetries: 1})
	defer c.Close()
	c.Do(context.Background(), "shutdown", "nosave")      // answers nothing: the connection closes
	testutil.Eventually(t, 10*time.Second, func() error { // until redis-server down
		if c.Ping(context.Background()).Err() == nil {
			return fmt.Errorf("%s still answers", s.addr)
		}
		return nil
	})
}

// eachServerN is eachServer with n independent servers of each kind.
func eachServerN(t *testing.T, n int, f func(t *testing.T, ss []*server)) {
	t.Run("lockkv", func(t *testing.T) {
		var ss []*server
		for range n {
			kv := lockkv.RunT(t)
			ss = append(ss, &server{addr: kv.Addr(), kv: kv})
		}
		f(t, ss)
	})
	t.Run("redis", func(t *testing.T) {
		var ss []*server
		for range n {
			ss = append(ss, &server{addr: conformance.StartRedisServer(t)})
		}
		f(t, ss)
	})
}
