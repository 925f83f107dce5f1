package lock_test

import (
	"context"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/lockkv/lockkv"
	"github.com/lockkv/lockkv/lock"
)

// exampleServer starts an embedded lockkv for an example; point the
// go-redis client at Redis, a lockkv node or cluster instead.
func exampleServer() (redis.UniversalClient, func()) {
	srv, err := lockkv.NewServer(lockkv.Config{})
	if err == nil {
		err = srv.Start()
	}
	if err != nil {
		panic(err)
	}
	rdb := redis.NewClient(&redis.Options{Addr: srv.Addr()})
	return rdb, func() { rdb.Close(); srv.Close() }
}

// The reentrant lock: a holder takes it, may take it again, and must
// leave it as often. Without a lease the watchdog keeps it while the
// holder works; Lost tells the holder if it is gone all the same.
func ExampleLock() {
	rdb, stop := exampleServer()
	defer stop()
	c := lock.New(rdb, nil)
	defer c.Close()

	ctx := lock.WithHolder(context.Background(), c.NewHolder())
	l := c.Lock("orders:42")
	if err := l.Lock(ctx); err != nil {
		panic(err)
	}
	l.Lock(ctx) // reentry by the same holder
	n, _ := l.HoldCount(ctx)
	fmt.Println("hold count:", n)

	select {
	case <-l.Lost(ctx):
		fmt.Println("lost: stop working")
	default:
		fmt.Println("still held")
	}

	// Another holder is refused at once, or waits with TryLock.
	other := lock.WithHolder(context.Background(), c.NewHolder())
	ok, _ := l.TryLock(other, 0, 0)
	fmt.Println("other holder got it:", ok)

	l.Unlock(ctx)
	l.Unlock(ctx)
	locked, _ := l.IsLocked(ctx)
	fmt.Println("locked:", locked)
	// Output:
	// hold count: 2
	// still held
	// other holder got it: false
	// locked: false
}

// The fair lock hands the lock out in the order holders asked for it.
func ExampleClient_FairLock() {
	rdb, stop := exampleServer()
	defer stop()
	c := lock.New(rdb, nil)
	defer c.Close()

	first := lock.WithHolder(context.Background(), c.NewHolder())
	second := lock.WithHolder(context.Background(), c.NewHolder())
	fair := c.FairLock("printer")
	fair.Lock(first)
	done := make(chan bool)
	go func() {
		ok, _ := fair.TryLock(second, 10*time.Second, 0) // queues behind first
		done <- ok
	}()
	for rdb.LLen(context.Background(), "redisson_lock_queue:{printer}").Val() == 0 {
		time.Sleep(time.Millisecond)
	}
	fair.Unlock(first) // tells the head of the queue
	fmt.Println("second got it:", <-done)
	fair.Unlock(second)
	// Output: second got it: true
}

// Readers share a read-write lock; a writer has it alone.
func ExampleReadWriteLock() {
	rdb, stop := exampleServer()
	defer stop()
	c := lock.New(rdb, nil)
	defer c.Close()

	rw := c.ReadWriteLock("catalog")
	r1 := lock.WithHolder(context.Background(), c.NewHolder())
	r2 := lock.WithHolder(context.Background(), c.NewHolder())
	w := lock.WithHolder(context.Background(), c.NewHolder())
	a, _ := rw.ReadLock().TryLock(r1, 0, 0)
	b, _ := rw.ReadLock().TryLock(r2, 0, 0)
	x, _ := rw.WriteLock().TryLock(w, 0, 0)
	fmt.Println("readers:", a, b, "writer:", x)
	rw.ReadLock().Unlock(r1)
	rw.ReadLock().Unlock(r2)
	x, _ = rw.WriteLock().TryLock(w, 0, 0)
	fmt.Println("writer once readers left:", x)
	rw.WriteLock().Unlock(w)
	// Output:
	// readers: true true writer: false
	// writer once readers left: true
}

// The spin lock waits by back-off instead of a subscription.
func ExampleClient_SpinLock() {
	rdb, stop := exampleServer()
	defer stop()
	c := lock.New(rdb, nil)
	defer c.Close()

	ctx := lock.WithHolder(context.Background(), c.NewHolder())
	s := c.SpinLock("batch")
	ok, _ := s.TryLock(ctx, time.Second, 5*time.Second) // a 5 s lease, no watchdog
	fmt.Println("acquired:", ok)
	s.Unlock(ctx)
	// Output: acquired: true
}

// A fenced lock's token grows with every acquisition: storage guarded by
// the lock refuses writes carrying a token lower than one it has seen.
func ExampleFencedLock() {
	rdb, stop := exampleServer()
	defer stop()
	c := lock.New(rdb, nil)
	defer c.Close()

	f := c.FencedLock("ledger")
	for i := 0; i < 3; i++ {
		ctx := lock.WithHolder(context.Background(), c.NewHolder())
		token, _ := f.LockAndGetToken(ctx)
		fmt.Println("token", token)
		f.Unlock(ctx)
	}
	// Output:
	// token 1
	// token 2
	// token 3
}

// A semaphore's permits are shared by anyone; a release wakes waiters.
func ExampleSemaphore() {
	rdb, stop := exampleServer()
	defer stop()
	c := lock.New(rdb, nil)
	defer c.Close()

	ctx := context.Background()
	s := c.Semaphore("connections")
	s.TrySetPermits(ctx, 2)
	s.Acquire(ctx, 2)
	ok, _ := s.TryAcquire(ctx, 1, 0)
	fmt.Println("third permit:", ok)
	s.Release(ctx, 1)
	ok, _ = s.TryAcquire(ctx, 1, time.Second)
	fmt.Println("after a release:", ok)
	// Output:
	// third permit: false
	// after a release: true
}

// A permit-expirable semaphore's permits have IDs and leases.
func ExamplePermitExpirableSemaphore() {
	rdb, stop := exampleServer()
	defer stop()
	c := lock.New(rdb, nil)
	defer c.Close()

	ctx := context.Background()
	p := c.PermitExpirableSemaphore("slots")
	p.TrySetPermits(ctx, 1)
	id, _ := p.Acquire(ctx, 100*time.Millisecond) // back in the pool after 100 ms
	_, ok, _ := p.TryAcquire(ctx, 2*time.Second, 0)
	fmt.Println("second permit once the first expired:", ok)
	fmt.Println("release of the expired permit:", p.Release(ctx, id))
	// Output:
	// second permit once the first expired: true
	// release of the expired permit: lock: not held by this holder
}

// A countdown latch opens its waiters when the count reaches zero.
func ExampleCountDownLatch() {
	rdb, stop := exampleServer()
	defer stop()
	c := lock.New(rdb, nil)
	defer c.Close()

	ctx := context.Background()
	l := c.CountDownLatch("workers")
	l.TrySetCount(ctx, 2)
	for i := 0; i < 2; i++ {
		go l.CountDown(ctx)
	}
	fmt.Println("await:", l.Await(ctx))
	// Output: await: <nil>
}

// A MultiLock takes several locks, on independent servers, all or none.
func ExampleMultiLock() {
	rdb1, stop1 := exampleServer()
	defer stop1()
	rdb2, stop2 := exampleServer()
	defer stop2()
	c1, c2 := lock.New(rdb1, nil), lock.New(rdb2, nil)
	defer c1.Close()
	defer c2.Close()

	ctx := lock.WithHolder(context.Background(), c1.NewHolder())
	m := lock.NewMultiLock(c1.Lock("account:1"), c2.Lock("account:2"))
	ok, _ := m.TryLock(ctx, time.Second, 10*time.Second)
	fmt.Println("both held:", ok)
	fmt.Println("unlock:", m.Unlock(ctx))
	// Output:
	// both held: true
	// unlock: <nil>
}

// A RedLock holds when a majority of independent servers granted it.
func ExampleRedLock() {
	var locks []*lock.Lock
	var first *lock.Client
	for i := 0; i < 3; i++ {
		rdb, stop := exampleServer()
		defer stop()
		c := lock.New(rdb, nil)
		defer c.Close()
		if first == nil {
			first = c
		}
		locks = append(locks, c.Lock("job"))
	}
	ctx := lock.WithHolder(context.Background(), first.NewHolder())
	r := lock.NewRedLock(locks...)
	ok, _ := r.TryLock(ctx, time.Second, 10*time.Second)
	fmt.Println("majority held:", ok)
	r.Unlock(ctx)
	// Output: majority held: true
}
