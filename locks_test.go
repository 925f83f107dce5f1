package lockkv

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv/lockscripts"
)

// LOCKKV.LOCKS lists each lock layout the lock clients write, once, with
// its holders, counts, lease and waiters, and nothing that is no lock.
func TestLockkvLocks(t *testing.T) {
	srv := RunT(t)
	ctx := context.Background()
	for _, proto := range []int{2, 3} {
		t.Run("RESP"+strconv.Itoa(proto), func(t *testing.T) {
			rdb := redis.NewClient(&redis.Options{Addr: srv.Addr(), Protocol: proto})
			defer rdb.Close()
			rdb.FlushAll(ctx)
			now := srv.Clock().Now().UnixMilli()
			ev := func(script string, keys []string, args ...any) {
				t.Helper()
				if err := rdb.Eval(ctx, script, keys, args...).Err(); err != nil && err != redis.Nil {
					t.Fatalf("%v: %v", keys, err)
				}
			}
			ev(lockscripts.Acquire, []string{"re"}, 30000, "c1:1")
			ev(lockscripts.Acquire, []string{"re"}, 30000, "c1:1")
			ev(lockscripts.RWReadAcquire, []string{"rw"}, 30000, "c2:1", "c2:1:write")
			ev(lockscripts.RWReadAcquire, []string{"rw"}, 30000, "c3:4", "c3:4:write")
			ev(lockscripts.FairAcquire, []string{"fair", "redisson_lock_queue:{fair}", "redisson_lock_timeout:{fair}"}, 30000, "c4:1", 5000, now)
			ev(lockscripts.FairAcquire, []string{"fair", "redisson_lock_queue:{fair}", "redisson_lock_timeout:{fair}"}, 30000, "c5:1", 5000, now)
			// A free fair lock with a waiter left behind.
			rdb.RPush(ctx, "redisson_lock_queue:{free}", "c6:1")
			rdb.Set(ctx, "pes", 2, 0)
			ev(lockscripts.PESTryAcquire, []string{"pes", "redisson__timeout__set:{pes}"}, 1, "permit-a", now+9000, now)
			rdb.Set(ctx, "nx", "tok", 20*time.Second)
			// Not locks.
			rdb.Set(ctx, "{rw}:c2:1:rwlock_timeout:1", 1, 30*time.Second) // Redisson's read-hold lease
			rdb.Set(ctx, "counter", 5, 0)
			rdb.HSet(ctx, "user", "name", "x")
			rdb.HSet(ctx, "mixed", "c:1", "1", "note", "x")
			rdb.RPush(ctx, "list", "a")

			got := map[string]string{}
			cursor := "0"
			for {
				v, err := rdb.Do(ctx, "LOCKKV.LOCKS", cursor, "COUNT", "3").Result()
				if err != nil {
					t.Fatal(err)
				}
				r := v.([]any)
				for _, l := range r[1].([]any) {
					var name, desc string
					add := func(k string, val any) {
						if k == "name" {
							name = val.(string)
						}
						if k == "lease_ms" {
							if n := val.(int64); n > 0 {
								val = "set"
							}
						}
						if k == "holders" || k == "waiters" {
							var hs []string
							for _, h := range val.([]any) {
								f := h.([]any)
								s := fmt.Sprint(f[0])
								for _, x := range f[1:] {
									if n := x.(int64); n > 100 {
										x = "ms"
									}
									s += fmt.Sprint(" ", x)
								}
								hs = append(hs, s)
							}
							val = hs
						}
						desc += fmt.Sprintf("%s=%v ", k, val)
					}
					switch m := l.(type) {
					case []any:
						for i := 0; i+1 < len(m); i += 2 {
							add(m[i].(string), m[i+1])
						}
					case map[any]any:
						for _, k := range []string{"name", "type", "mode", "permits", "lease_ms", "holders", "waiters"} {
							if val, ok := m[k]; ok {
								add(k, val)
							}
						}
					}
					if _, dup := got[name]; dup {
						t.Errorf("%s listed twice", name)
					}
					got[name] = desc
				}
				cursor = r[0].(string)
				if cursor == "0" {
					break
				}
			}
			want := map[string]string{
				"re":   "name=re type=reentrant lease_ms=set holders=[c1:1 2 -1] waiters=[] ",
				"rw":   "name=rw type=readwrite mode=read lease_ms=set holders=[c2:1 1 -1 c3:4 1 -1] waiters=[] ",
				"fair": "name=fair type=fair lease_ms=set holders=[c4:1 1 -1] waiters=[c5:1 ms] ",
				"free": "name=free type=fair lease_ms=-1 holders=[] waiters=[c6:1 -1] ",
				"pes":  "name=pes type=semaphore permits=1 lease_ms=-1 holders=[permit-a 1 ms] waiters=[] ",
				"nx":   "name=nx type=string lease_ms=set holders=[tok 1 -1] waiters=[] ",
			}
			for k, w := range want {
				if got[k] != w {
					t.Errorf("%s:\n got %q\nwant %q", k, got[k], w)
				}
			}
			if len(got) != len(want) {
				t.Errorf("listed %d locks, want %d: %v", len(got), len(want), got)
			}
			v, err := rdb.Do(ctx, "LOCKKV.LOCKS", "0", "COUNT", "1000", "MATCH", "f*", "TYPE", "fair").Result()
			if err != nil || len(v.([]any)[1].([]any)) != 2 {
				t.Errorf("MATCH f* TYPE fair: %v, %v", v, err)
			}
			if err := rdb.Do(ctx, "LOCKKV.LOCKS", "x").Err(); err == nil || err.Error() != "ERR invalid cursor" {
				t.Errorf("bad cursor: %v", err)
			}
			if err := rdb.Do(ctx, "LOCKKV.LOCKS", "0", "COUNT", "0").Err(); err == nil || err.Error() != "ERR syntax error" {
				t.Errorf("COUNT 0: %v", err)
			}
		})
	}
}
