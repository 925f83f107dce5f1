package lock_test

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/conformance"
	"github.com/lockkv/lockkv/lock"
)

// BenchmarkLockUnlock is one uncontended Lock (with its watchdog) and
// Unlock of the reentrant lock: two scripts and the latch's DEL, against
// an embedded lockkv and a real redis-server.
func BenchmarkLockUnlock(b *testing.B) {
	for _, srv := range []string{"lockkv", "redis"} {
		b.Run(srv, func(b *testing.B) {
			var addr string
			if srv == "lockkv" {
				addr = lockkv.RunT(b).Addr()
			} else {
				addr = conformance.StartRedisServer(b)
			}
			rdb := redis.NewClient(&redis.Options{Addr: addr})
			defer rdb.Close()
			c := lock.New(rdb, nil)
			defer c.Close()
			ctx := lock.WithHolder(context.Background(), c.NewHolder())
			l := c.Lock("bench")
			b.ResetTimer()
			for range b.N {
				if err := l.Lock(ctx); err != nil {
					b.Fatal(err)
				}
				if err := l.Unlock(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
