package lockkv

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/engine"
)

// TestOnSlowRequest: Config.OnSlowRequest gets the pipelines held past
// SlowRequestThreshold, through the public API.
func TestOnSlowRequest(t *testing.T) {
	reports := make(chan SlowRequest, 16)
	s := RunTWith(t, Config{
		SlowRequestThreshold: 20 * time.Millisecond,
		OnSlowRequest:        func(r SlowRequest) { reports <- r },
	})
	c := redis.NewClient(&redis.Options{Addr: s.Addr(), PoolSize: 1})
	defer c.Close()
	ctx := context.Background()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	started := make(chan struct{})
	go s.Do(func(*engine.Engine) {
		close(started)
		time.Sleep(50 * time.Millisecond)
	})
	<-started
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-reports:
		if r.Commands != 1 || r.Took < 20*time.Millisecond || r.Read+r.Queued+r.Run+r.Reply != r.Took {
			t.Errorf("report %+v", r)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the held SET was not reported")
	}
}
