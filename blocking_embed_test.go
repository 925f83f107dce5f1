package lockkv_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/testutil"
)

// waitBlockedClients polls the engine until n clients are blocked.
func waitBlockedClients(t *testing.T, srv *lockkv.Server, n int) {
	t.Helper()
	testutil.Eventually(t, 3*time.Second, func() error {
		var got int
		srv.Do(func(e *engine.Engine) { got = e.BlockedClients() })
		if got != n {
			return fmt.Errorf("%d blocked clients, want %d", got, n)
		}
		return nil
	})
}

// TestBlockingFastForward: a blocking command's timeout follows the
// server's clock, so a test can make a 30 s BLPOP time out at once.
func TestBlockingFastForward(t *testing.T) {
	srv := lockkv.RunT(t)
	a := testutil.MustDial(t, srv.Addr())
	if err := a.Send("BLPOP", "jobs", "30"); err != nil {
		t.Fatal(err)
	}
	waitBlockedClients(t, srv, 1)
	var timed int
	srv.Do(func(e *engine.Engine) { timed = e.ClientsInTimeoutTable() })
	if timed != 1 {
		t.Fatalf("clients_in_timeout_table = %d, want 1", timed)
	}
	srv.Clock().FastForward(29 * time.Second)
	if v, err := a.Read(30 * time.Millisecond); err == nil {
		t.Fatalf("BLPOP answered %v before its timeout", v)
	}
	srv.Clock().FastForward(2 * time.Second)
	v, err := a.Read(2 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if got := v.String(); got != "(nil array)" {
		t.Fatalf("BLPOP timed out with %s, want (nil array)", got)
	}
	waitBlockedClients(t, srv, 0)
	// Then a push serves a waiting client at once.
	if err := a.Send("BRPOP", "jobs", "0"); err != nil {
		t.Fatal(err)
	}
	waitBlockedClients(t, srv, 1)
	b := testutil.MustDial(t, srv.Addr())
	mustDo(t, b, ":2", "RPUSH", "jobs", "j1", "j2")
	if v, err = a.Read(2 * time.Second); err != nil || v.String() != `*["jobs", "j2"]` {
		t.Fatalf("BRPOP served %v, %v", v, err)
	}
	mustDo(t, b, `*["j1"]`, "LRANGE", "jobs", "0", "-1")
}

// TestBlockingWorkQueue runs a go-redis work queue: consumers block in
// BLPOP (and move items with BLMOVE) while producers push; every item is
// delivered exactly once and the blocked consumers all end by timeout.
func TestBlockingWorkQueue(t *testing.T) {
	srv := lockkv.RunT(t)
	ctx := context.Background()
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), PoolSize: 32})
	defer rdb.Close()
	const producers, consumers, perProducer = 4, 8, 250
	var wg sync.WaitGroup
	got := make(chan string, producers*perProducer)
	for i := 0; i < consumers; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			for {
				var v string
				if i%2 == 0 {
					// go-redis rounds typed timeouts up to 1 s; Do keeps 0.3 s.
					kv, err := rdb.Do(ctx, "BLPOP", "q", "0.3").StringSlice()
					if err == redis.Nil {
						return
					}
					if err != nil {
						t.Errorf("BLPOP: %v", err)
						return
					}
					v = kv[1]
				} else {
					s, err := rdb.Do(ctx, "BLMOVE", "q", "q:"+strconv.Itoa(i), "RIGHT", "LEFT", "0.3").Text()
					if err == redis.Nil {
						return
					}
					if err != nil {
						t.Errorf("BLMOVE: %v", err)
						return
					}
					if err := rdb.LRem(ctx, "q:"+strconv.Itoa(i), 1, s).Err(); err != nil {
						t.Errorf("LREM: %v", err)
						return
					}
					v = s
				}
				got <- v
			}
		}(i)
	}
	for p := 0; p < producers; p++ {
		wg.Add(1)
		go func(p int) {
			defer wg.Done()
			for j := 0; j < perProducer; j += 5 {
				args := make([]any, 0, 5)
				for k := j; k < j+5; k++ {
					args = append(args, fmt.Sprintf("%d-%d", p, k))
				}
				if err := rdb.RPush(ctx, "q", args...).Err(); err != nil {
					t.Errorf("RPUSH: %v", err)
					return
				}
			}
		}(p)
	}
	wg.Wait()
	close(got)
	seen := map[string]bool{}
	for v := range got {
		if seen[v] {
			t.Fatalf("%s delivered twice", v)
		}
		seen[v] = true
	}
	if len(seen) != producers*perProducer {
		t.Fatalf("%d items delivered, want %d", len(seen), producers*perProducer)
	}
	if n, _ := rdb.Exists(ctx, "q").Result(); n != 0 {
		t.Fatalf("queue not drained")
	}
	waitBlockedClients(t, srv, 0)
}
