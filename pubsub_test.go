package lockkv_test

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
)

// TestGoRedisPubSubUnlockWakeup is the Redisson-style wait for a lock: the
// waiter subscribes to the lock's channel, the holder deletes the lock and
// publishes, the waiter is woken and takes the lock. Both RESP versions.
func TestGoRedisPubSubUnlockWakeup(t *testing.T) {
	srv := lockkv.RunT(t)
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), Protocol: proto})
		defer rdb.Close()
		channel := "redisson_lock__channel:{lock" + strconv.Itoa(proto) + "}"
		lock := "lock" + strconv.Itoa(proto)
		if err := rdb.Set(ctx, lock, "holder", 30*time.Second).Err(); err != nil {
			t.Fatal(err)
		}
		sub := rdb.Subscribe(ctx, channel)
		if _, err := sub.Receive(ctx); err != nil { // the confirmation
			t.Fatalf("RESP%d subscribe: %v", proto, err)
		}
		unlock := redis.NewScript(`if redis.call('get', KEYS[1]) == ARGV[1] then
			redis.call('del', KEYS[1]); redis.call('publish', KEYS[2], 0); return 1 end; return 0`)
		if n, err := unlock.Run(ctx, rdb, []string{lock, channel}, "holder").Int(); err != nil || n != 1 {
			t.Fatalf("RESP%d unlock: %d %v", proto, n, err)
		}
		select {
		case m := <-sub.Channel():
			if m.Channel != channel || m.Payload != "0" {
				t.Fatalf("RESP%d message %+v", proto, m)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("RESP%d: waiter not woken", proto)
		}
		if ok, err := rdb.SetNX(ctx, lock, "waiter", 30*time.Second).Result(); err != nil || !ok {
			t.Fatalf("RESP%d take lock: %v %v", proto, ok, err)
		}
		sub.Close()
	}
}

// TestGoRedisWatchCAS runs go-redis's optimistic transaction (WATCH, GET,
// MULTI/EXEC) from many goroutines: every increment lands exactly once.
func TestGoRedisWatchCAS(t *testing.T) {
	srv := lockkv.RunT(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 8})
	defer rdb.Close()
	const workers, each = 8, 25
	incr := func() error {
		for {
			err := rdb.Watch(ctx, func(tx *redis.Tx) error {
				n, err := tx.Get(ctx, "counter").Int()
				if err != nil && err != redis.Nil {
					return err
				}
				_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
					p.Set(ctx, "counter", n+1, 0)
					return nil
				})
				return err
			}, "counter")
			if errors.Is(err, redis.TxFailedErr) {
				continue // someone else won: retry
			}
			return err
		}
	}
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < each; i++ {
				if err := incr(); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if n, err := rdb.Get(ctx, "counter").Int(); err != nil || n != workers*each {
		t.Fatalf("counter %d %v, want %d", n, err, workers*each)
	}
}

// TestGoRedisKeyspaceEvents waits for a lease to run out through the
// "expired" keyspace event, with the test clock moving time.
func TestGoRedisKeyspaceEvents(t *testing.T) {
	clock := lockkv.NewTestClock()
	srv := lockkv.RunTWith(t, lockkv.Config{Clock: clock})
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	if err := rdb.ConfigSet(ctx, "notify-keyspace-events", "Ex").Err(); err != nil {
		t.Fatal(err)
	}
	sub := rdb.Subscribe(ctx, "__keyevent@0__:expired")
	if _, err := sub.Receive(ctx); err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if err := rdb.Set(ctx, "lease", "owner", 30*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	clock.FastForward(31 * time.Second)
	select {
	case m := <-sub.Channel():
		if m.Payload != "lease" {
			t.Fatalf("message %+v", m)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("no expired event")
	}
}
