// Package lock is a Go client for Redisson's locks and synchronizers, on
// go-redis's UniversalClient (a single node, Sentinel or cluster), against
// lockkv and Redis alike.
//
// It runs Redisson 3.27.0's own Lua scripts, byte for byte (EVALSHA, and
// EVAL when the server answers NOSCRIPT), over Redisson's keys, hash
// fields, channels and messages, so a Go service using this package and a
// Java service using Redisson exclude each other on the same names:
//
//	c := lock.New(rdb, nil)
//	ctx = lock.WithHolder(ctx, c.NewHolder())
//	l := c.Lock("orders:42")
//	if err := l.Lock(ctx); err != nil { ... }
//	defer l.Unlock(context.WithoutCancel(ctx))
//	select {
//	case <-l.Lost(ctx): // the watchdog could not keep it: stop
//	case <-work:
//	}
//
// Go has no thread IDs: a Holder, made by Client.NewHolder and carried in
// the context, takes Redisson's thread's place. Locks are reentrant for
// the same Holder only, and the hash field is "<client ID>:<holder>" as
// Redisson's is "<UUID>:<thread ID>".
//
// A refused waiter subscribes to the lock's channel (one subscription per
// channel per Client, shared by its waiters) and sleeps until the unlock
// message or the lock's remaining lease, whichever comes first, then tries
// again, until its wait or its context ends: it never polls. A lock taken
// without a lease gets a 30 s one that a watchdog renews every 10 s while
// the holder holds it; the watchdog stops at Unlock or when the context
// the lock was taken with ends, and closes Lost when a renewal finds the
// lock gone (or cannot renew it before the lease runs out).
//
// Types: Lock (reentrant, fair, read-write, spin), FencedLock, Semaphore,
// PermitExpirableSemaphore, CountDownLatch, MultiLock and RedLock.
package lock
