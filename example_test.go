package lockkv_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/lockscripts"
)

// In a test, RunT starts a real server on a free loopback port with a
// TestClock and closes it when the test ends:
//
//	func TestCheckout(t *testing.T) {
//		srv := lockkv.RunT(t)
//		...
//	}
func ExampleRunT() {
	t := &exampleT{} // a test's *testing.T
	defer t.cleanup()

	srv := lockkv.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	rdb.Set(ctx, "greeting", "hello", 0)
	fmt.Println(rdb.Get(ctx, "greeting").Val())
	// Output: hello
}

// A lease runs out when the test says so: FastForward moves the server's
// clock and expires what is due at once, without sleeping.
func ExampleTestClock_FastForward() {
	t := &exampleT{}
	defer t.cleanup()

	srv := lockkv.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	fmt.Println(rdb.SetNX(ctx, "lock:order:42", "worker-1", 30*time.Second).Val())
	fmt.Println(rdb.SetNX(ctx, "lock:order:42", "worker-2", 30*time.Second).Val())
	srv.Clock().FastForward(31 * time.Second) // the lease is gone now
	fmt.Println(rdb.SetNX(ctx, "lock:order:42", "worker-2", 30*time.Second).Val())
	// Output:
	// true
	// false
	// true
}

// Redisson's reentrant lock, as a Redisson client runs it: a hash of
// holders with a millisecond lease, taken and left by Lua scripts. A
// refused holder learns the remaining lease (PTTL); a release publishes
// on the lock's channel.
func Example_redissonLock() {
	t := &exampleT{}
	defer t.cleanup()

	srv := lockkv.RunT(t)
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	defer rdb.Close()
	ctx := context.Background()
	acquire := redis.NewScript(lockscripts.Acquire)
	release := redis.NewScript(lockscripts.Release)
	keys := []string{"orders:42", "redisson_lock__channel:{orders:42}"}
	srv.Clock().Freeze() // PTTL below is exact

	err := acquire.Run(ctx, rdb, keys[:1], 30000, "client-a:1").Err()
	fmt.Println("a takes it:", err == redis.Nil) // nil reply: granted
	ttl, _ := acquire.Run(ctx, rdb, keys[:1], 30000, "client-b:1").Int64()
	fmt.Println("b waits, lease left ms:", ttl)
	err = acquire.Run(ctx, rdb, keys[:1], 30000, "client-a:1").Err()
	fmt.Println("a re-enters:", err == redis.Nil, rdb.HGet(ctx, "orders:42", "client-a:1").Val())
	for range 2 {
		n, _ := release.Run(ctx, rdb, keys, 0, 30000, "client-a:1").Int64()
		fmt.Println("a leaves, released:", n)
	}
	// Output:
	// a takes it: true
	// b waits, lease left ms: 30000
	// a re-enters: true 2
	// a leaves, released: 0
	// a leaves, released: 1
}

// exampleT stands in for the *testing.T an example has not got.
type exampleT struct {
	testing.TB
	cleanups []func()
}

func (t *exampleT) Helper()                   {}
func (t *exampleT) Cleanup(f func())          { t.cleanups = append(t.cleanups, f) }
func (t *exampleT) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (t *exampleT) Fatal(a ...any)            { panic(fmt.Sprint(a...)) }
func (t *exampleT) Errorf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }
func (t *exampleT) Logf(string, ...any)       {}
func (t *exampleT) Name() string              { return "Example" }
func (t *exampleT) TempDir() string           { panic("no TempDir in an example") }
func (t *exampleT) cleanup() {
	for i := len(t.cleanups) - 1; i >= 0; i-- {
		t.cleanups[i]()
	}
}
