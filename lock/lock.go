package lock

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/redis/go-redis/v9"
)

// Redisson's messages on a lock's channel (LockPubSub).
const (
	unlockMessage     = "0" // UNLOCK_MESSAGE: one waiter may go
	readUnlockMessage = "1" // READ_UNLOCK_MESSAGE: every waiter may try
)

var (
	lockAcquire        = newScript(scriptLockAcquire)
	lockRelease        = newScript(scriptLockRelease)
	lockRenew          = newScript(scriptRenew)
	lockForceRelease   = newScript(scriptLockForceRelease)
	fairAcquire        = newScript(scriptFairAcquire)
	fairAcquireFailed  = newScript(scriptFairAcquireFailed)
	fairRelease        = newScript(scriptFairRelease)
	fairForceRelease   = newScript(scriptFairForceRelease)
	readAcquire        = newScript(scriptReadAcquire)
	readRelease        = newScript(scriptReadRelease)
	readRenew          = newScript(scriptReadRenew)
	readForceRelease   = newScript(scriptReadForceRelease)
	readIsLocked       = newScript(scriptReadIsLocked)
	writeAcquire       = newScript(scriptWriteAcquire)
	writeRelease       = newScript(scriptWriteRelease)
	writeForceRelease  = newScript(scriptWriteForceRelease)
	spinAcquire        = newScript(scriptSpinAcquire)
	spinRelease        = newScript(scriptSpinRelease)
	spinForceRelease   = newScript(scriptSpinForceRelease)
	fencedAcquireToken = newScript(scriptFencedAcquire)
)

type kind int

const (
	kindReentrant kind = iota // RLock
	kindFair                  // RFairLock
	kindRead                  // RReadWriteLock.readLock()
	kindWrite                 // RReadWriteLock.writeLock()
	kindSpin                  // RSpinLock
	kindFenced                // RFencedLock
)

func (k kind) String() string {
	return [...]string{"lock", "fair lock", "read lock", "write lock", "spin lock", "fenced lock"}[k]
}

// Lock is one of Redisson's reentrant locks on a name: the plain lock
// (RLock), the fair lock, either side of a read-write lock, the spin lock
// or the fenced lock (FencedLock adds its token). Its methods find the
// Holder in their context (see Holder).
//
// Taken without a lease (Lock, or TryLock with lease <= 0), a lock gets
// the client's WatchdogTimeout (30 s) and a watchdog renews it every
// third of that until Unlock, until the context it was taken with ends,
// or until it is lost, which Lost reports. Taken with a lease, it is
// renewed by no one and ends with the lease.
type Lock struct {
	c    *Client
	name string
	kind kind
}

// Lock returns the reentrant lock name (Redisson's getLock).
func (c *Client) Lock(name string) *Lock { return &Lock{c: c, name: name, kind: kindReentrant} }

// FairLock returns the fair lock name (getFairLock): holders get it in the
// order they asked, through Redisson's queue redisson_lock_queue:{name}
// and its deadlines redisson_lock_timeout:{name}.
func (c *Client) FairLock(name string) *Lock { return &Lock{c: c, name: name, kind: kindFair} }

// SpinLock returns the spin lock name (getSpinLock): the reentrant lock's
// layout, waited for by exponential back-off instead of pub/sub, as
// Redisson's RSpinLock does for very large clusters.
func (c *Client) SpinLock(name string) *Lock { return &Lock{c: c, name: name, kind: kindSpin} }

// ReadWriteLock is Redisson's RReadWriteLock: one hash with a mode field
// ("read" or "write"), readers sharing it, a writer alone (and a writer
// may also read).
type ReadWriteLock struct {
	c    *Client
	name string
}

// ReadWriteLock returns the read-write lock name (getReadWriteLock).
func (c *Client) ReadWriteLock(name string) *ReadWriteLock { return &ReadWriteLock{c: c, name: name} }

// ReadLock is the shared side.
func (rw *ReadWriteLock) ReadLock() *Lock { return &Lock{c: rw.c, name: rw.name, kind: kindRead} }

// WriteLock is the exclusive side.
func (rw *ReadWriteLock) WriteLock() *Lock { return &Lock{c: rw.c, name: rw.name, kind: kindWrite} }

// Name is the lock's name: its hash's key.
func (l *Lock) Name() string { return l.name }

// channel is the channel its unlocks publish on, and waiters listen to.
func (l *Lock) channel() string {
	switch l.kind {
	case kindRead, kindWrite:
		return prefixName("redisson_rwlock", l.name)
	}
	return prefixName("redisson_lock__channel", l.name)
}

// field is the holder's hash field; a writer's has ":write" appended.
func (l *Lock) field(ctx context.Context) (string, error) {
	f, err := l.c.holderField(ctx)
	if err == nil && l.kind == kindWrite {
		f += ":write"
	}
	return f, err
}

func (l *Lock) holdKey(field string) string {
	return l.kind.String() + "\x00" + l.name + "\x00" + field
}

func (l *Lock) queueName() string   { return prefixName("redisson_lock_queue", l.name) }
func (l *Lock) timeoutName() string { return prefixName("redisson_lock_timeout", l.name) }
func (l *Lock) tokenName() string   { return prefixName("redisson_lock_token", l.name) }
func (l *Lock) latchName() string   { return prefixName("redisson_unlock_latch", l.name) + ":" + newID() }

// readTimeoutPrefix is RedissonReadLock.getReadWriteTimeoutNamePrefix:
// the keys "<prefix>:<n>" hold each of a reader's entries' leases.
func (l *Lock) readTimeoutPrefix(field string) string {
	return suffixName(l.name, field) + ":rwlock_timeout"
}

// readKeyPrefix is RedissonReadLock.getKeyPrefix: the name's part of
// readTimeoutPrefix.
func (l *Lock) readKeyPrefix() string {
	if containsBrace(l.name) {
		return l.name
	}
	return "{" + l.name + "}"
}

// attempt is one try: ttl < 0 and acquired, or the lock's remaining lease
// (-1: it has none) that the wait may sleep for.
type attempt struct {
	acquired bool
	ttl      int64
	token    int64
}

func (l *Lock) tryOnce(ctx context.Context, field string, lease, wait time.Duration) (attempt, error) {
	c := l.c
	switch l.kind {
	case kindFair:
		allowance := c.opts.FairWaitTimeout
		if wait > 0 {
			allowance = wait
		}
		v, err := fairAcquire.run(ctx, c, []string{l.name, l.queueName(), l.timeoutName()},
			ms(lease), field, ms(allowance), time.Now().UnixMilli()).Result()
		return ttlReply(v, err)
	case kindRead:
		v, err := readAcquire.run(ctx, c, []string{l.name, l.readTimeoutPrefix(field)},
			ms(lease), field, field+":write").Result()
		return ttlReply(v, err)
	case kindWrite:
		v, err := writeAcquire.run(ctx, c, []string{l.name}, ms(lease), field).Result()
		return ttlReply(v, err)
	case kindSpin:
		v, err := spinAcquire.run(ctx, c, []string{l.name}, ms(lease), field).Result()
		return ttlReply(v, err)
	case kindFenced:
		v, err := fencedAcquireToken.run(ctx, c, []string{l.name, l.tokenName()}, ms(lease), field).Int64Slice()
		if err != nil {
			return attempt{}, err
		}
		if len(v) != 2 {
			return attempt{}, fmt.Errorf("lock: fenced acquire answered %v", v)
		}
		if v[0] == -1 {
			return attempt{acquired: true, token: v[1]}, nil
		}
		return attempt{ttl: v[0]}, nil
	default:
		v, err := lockAcquire.run(ctx, c, []string{l.name}, ms(lease), field).Result()
		return ttlReply(v, err)
	}
}

// ttlReply reads an acquire script's reply: nil when acquired, else the
// remaining lease.
func ttlReply(v any, err error) (attempt, error) {
	if errors.Is(err, redis.Nil) {
		return attempt{acquired: true}, nil
	}
	if err != nil {
		return attempt{}, err
	}
	n, ok := v.(int64)
	if !ok {
		return attempt{}, fmt.Errorf("lock: acquire answered %#v", v)
	}
	return attempt{ttl: n}, nil
}

func (l *Lock) renewFunc(field string) renewFunc {
	c := l.c
	return func(ctx context.Context) (bool, error) {
		lease := ms(c.opts.WatchdogTimeout)
		switch l.kind {
		case kindRead:
			return readRenew.run(ctx, c, []string{l.name, l.readKeyPrefix()}, lease, field).Bool()
		case kindWrite:
			// RedissonWriteLock: a writer that has let go of the write
			// side may still read; renew that.
			ok, err := lockRenew.run(ctx, c, []string{l.name}, lease, field).Bool()
			if err != nil || ok {
				return ok, err
			}
			read := field[:len(field)-len(":write")]
			return readRenew.run(ctx, c, []string{l.name, l.readKeyPrefix()}, lease, read).Bool()
		}
		return lockRenew.run(ctx, c, []string{l.name}, lease, field).Bool()
	}
}

// Lock takes the lock, waiting as long as it takes (or until ctx ends),
// with the watchdog's lease. The watchdog runs until Unlock or until ctx
// ends, so take the lock with a context that lives as long as the work
// it guards.
func (l *Lock) Lock(ctx context.Context) error {
	_, err := l.acquire(ctx, -1, 0)
	return err
}

// LockLease takes the lock with an explicit lease: no watchdog.
func (l *Lock) LockLease(ctx context.Context, lease time.Duration) error {
	_, err := l.acquire(ctx, -1, lease)
	return err
}

// TryLock tries to take the lock for up to wait (0: once; < 0: without a
// limit). lease <= 0 means the watchdog's lease, renewed while held. It
// reports whether the holder now holds it.
func (l *Lock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	a, err := l.acquire(ctx, wait, lease)
	return a.acquired, err
}

// acquire is Redisson's tryLock: try; on refusal subscribe to the
// lock's channel and, until the deadline, sleep until an unlock message or
// the lock's remaining lease (whichever comes first) and try again.
func (l *Lock) acquire(ctx context.Context, wait, lease time.Duration) (attempt, error) {
	field, err := l.field(ctx)
	if err != nil {
		return attempt{}, err
	}
	if l.c.isClosed() {
		return attempt{}, ErrClosed
	}
	watchdog := lease <= 0
	if watchdog {
		lease = l.c.opts.WatchdogTimeout
	}
	var deadline time.Time
	if wait >= 0 {
		deadline = time.Now().Add(wait)
	}
	try := func() (attempt, error) {
		a, err := l.tryOnce(ctx, field, lease, wait)
		if err == nil && a.acquired {
			l.c.acquired(ctx, l.holdKey(field), lease, watchdog, l.renewFunc(field))
		}
		return a, err
	}
	a, err := try()
	if err != nil || a.acquired {
		return a, err
	}
	if wait == 0 {
		l.acquireFailed(ctx, field, wait)
		return a, nil
	}
	if l.kind == kindSpin {
		return l.spin(ctx, deadline, try, field, wait)
	}
	channel := l.channel()
	if l.kind == kindFair {
		// A fair waiter is told on a channel of its own when its turn
		// comes.
		channel += ":" + field
	}
	w, err := l.c.subs.startWait(ctx, channel, wakeLock)
	if err != nil {
		l.acquireFailed(ctx, field, wait)
		return attempt{}, err
	}
	defer w.stop()
	for {
		a, err := try()
		if err != nil || a.acquired {
			return a, err
		}
		sleep := time.Duration(-1)
		if a.ttl >= 0 {
			// PTTL answers 0 through the last millisecond of a lease:
			// sleep that millisecond rather than retry at once through it.
			sleep = max(time.Duration(a.ttl)*time.Millisecond, time.Millisecond)
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				l.acquireFailed(ctx, field, wait)
				return a, nil
			}
			if sleep < 0 || sleep > left {
				sleep = left
			}
		}
		if err := w.wait(ctx, sleep); err != nil {
			l.acquireFailed(ctx, field, wait)
			return attempt{}, err
		}
	}
}

// spin is RedissonSpinLock's wait: exponential back-off from 1 ms to
// 128 ms with jitter (LockOptions' defaults), no subscription.
func (l *Lock) spin(ctx context.Context, deadline time.Time, try func() (attempt, error), field string, wait time.Duration) (attempt, error) {
	delay := time.Millisecond
	for {
		d := delay + rand.N(delay/4+1)
		if !deadline.IsZero() && time.Until(deadline) < d {
			d = max(time.Until(deadline), 0)
		}
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return attempt{}, ctx.Err()
		case <-l.c.subs.done:
			t.Stop()
			return attempt{}, ErrClosed
		case <-t.C:
		}
		a, err := try()
		if err != nil || a.acquired {
			return a, err
		}
		if !deadline.IsZero() && !time.Now().Before(deadline) {
			return a, nil
		}
		delay = min(delay*2, 128*time.Millisecond)
	}
}

// acquireFailed is RedissonFairLock.acquireFailedAsync: a fair waiter that
// gives up leaves the queue. The other kinds have nothing to undo.
func (l *Lock) acquireFailed(ctx context.Context, field string, wait time.Duration) {
	if l.kind != kindFair {
		return
	}
	allowance := l.c.opts.FairWaitTimeout
	if wait > 0 {
		allowance = wait
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	fairAcquireFailed.run(ctx, l.c, []string{l.queueName(), l.timeoutName()}, field, ms(allowance))
}

// Unlock leaves the lock once: the last leave of a reentrant hold
// deletes it and publishes Redisson's unlock message to its waiters.
// ErrNotHeld if the holder does not hold it.
func (l *Lock) Unlock(ctx context.Context) error {
	field, err := l.field(ctx)
	if err != nil {
		return err
	}
	c := l.c
	key := l.holdKey(field)
	lease := ms(c.holdLease(key))
	latch := l.latchName()
	timeout := ms(c.opts.UnlockLatchTimeout)
	var res *redis.Cmd
	switch l.kind {
	case kindFair:
		res = fairRelease.run(ctx, c, []string{l.name, l.queueName(), l.timeoutName(), l.channel(), latch},
			unlockMessage, lease, field, time.Now().UnixMilli(), c.publishCommand(), timeout)
	case kindRead:
		res = readRelease.run(ctx, c, []string{l.name, l.channel(), l.readTimeoutPrefix(field), l.readKeyPrefix(), latch},
			unlockMessage, field, c.publishCommand(), timeout)
	case kindWrite:
		res = writeRelease.run(ctx, c, []string{l.name, l.channel(), latch},
			readUnlockMessage, lease, field, c.publishCommand(), timeout)
	case kindSpin:
		res = spinRelease.run(ctx, c, []string{l.name, latch}, lease, field, timeout)
	default:
		res = lockRelease.run(ctx, c, []string{l.name, l.channel(), latch},
			unlockMessage, lease, field, c.publishCommand(), timeout)
	}
	_, err = res.Result()
	c.released(key)
	// RedissonBaseLock deletes the latch once the reply is in.
	c.rdb.Del(context.WithoutCancel(ctx), latch)
	if errors.Is(err, redis.Nil) {
		return ErrNotHeld
	}
	return err
}

// ForceUnlock deletes the lock whoever holds it, publishing the unlock
// message; it reports whether there was one to delete. This Client's
// holders of the lock lose it: their watchdogs stop and Lost closes.
func (l *Lock) ForceUnlock(ctx context.Context) (bool, error) {
	c := l.c
	c.releasedAll(l.kind.String() + "\x00" + l.name + "\x00")
	switch l.kind {
	case kindFair:
		return fairForceRelease.run(ctx, c, []string{l.name, l.queueName(), l.timeoutName(), l.channel()},
			unlockMessage, time.Now().UnixMilli(), c.publishCommand()).Bool()
	case kindRead:
		return readForceRelease.run(ctx, c, []string{l.name, l.channel()}, unlockMessage, c.publishCommand()).Bool()
	case kindWrite:
		return writeForceRelease.run(ctx, c, []string{l.name, l.channel()}, readUnlockMessage, c.publishCommand()).Bool()
	case kindSpin:
		return spinForceRelease.run(ctx, c, []string{l.name}).Bool()
	}
	return lockForceRelease.run(ctx, c, []string{l.name, l.channel()}, unlockMessage, c.publishCommand()).Bool()
}

// IsLocked reports whether anyone holds the lock. For the read side it is
// whether readers hold it; for the write side, whether a writer does.
func (l *Lock) IsLocked(ctx context.Context) (bool, error) {
	switch l.kind {
	case kindRead:
		return readIsLocked.run(ctx, l.c, []string{l.name}).Bool()
	case kindWrite:
		mode, err := l.c.rdb.HGet(ctx, l.name, "mode").Result()
		if errors.Is(err, redis.Nil) {
			return false, nil
		}
		return mode == "write", err
	}
	n, err := l.c.rdb.Exists(ctx, l.name).Result()
	return n == 1, err
}

// IsHeldByCurrent reports whether the context's holder holds the lock.
func (l *Lock) IsHeldByCurrent(ctx context.Context) (bool, error) {
	field, err := l.field(ctx)
	if err != nil {
		return false, err
	}
	return l.c.rdb.HExists(ctx, l.name, field).Result()
}

// HoldCount is how many times the context's holder entered the lock.
func (l *Lock) HoldCount(ctx context.Context) (int, error) {
	field, err := l.field(ctx)
	if err != nil {
		return 0, err
	}
	n, err := l.c.rdb.HGet(ctx, l.name, field).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

// RemainingLease is the lock's remaining lease (PTTL): -2 ms when it is
// not held, -1 ms when it has no lease.
func (l *Lock) RemainingLease(ctx context.Context) (time.Duration, error) {
	n, err := l.c.rdb.Do(ctx, "pttl", l.name).Int64()
	return time.Duration(n) * time.Millisecond, err
}

// Lost returns a channel closed when the watchdog of the context's
// holder's hold on this lock finds the lock gone, or cannot renew it
// before its lease runs out, or stops because the Client is closed or
// forced the lock open (ForceUnlock): the holder must stop the work the
// lock guards (ErrLost). It is nil when the holder does not hold the lock
// through a watchdog (not held, or held with an explicit lease).
func (l *Lock) Lost(ctx context.Context) <-chan struct{} {
	field, err := l.field(ctx)
	if err != nil {
		return nil
	}
	return l.c.lostChan(l.holdKey(field))
}

// FencedLock is Redisson's RFencedLock: the reentrant lock's layout plus
// a counter, redisson_lock_token:{name}, that every acquisition
// increments and returns. Hand the token to the storage the lock guards
// and have it refuse any write with a token lower than one it has seen:
// a holder that lost its lock while paused then cannot overwrite its
// successor's work. On a lockkv cluster the counter is replicated with
// the lock, so tokens keep growing across failovers.
type FencedLock struct{ *Lock }

// FencedLock returns the fenced lock name (getFencedLock).
func (c *Client) FencedLock(name string) *FencedLock {
	return &FencedLock{&Lock{c: c, name: name, kind: kindFenced}}
}

// LockAndGetToken takes the lock (waiting as Lock does) and returns the
// fencing token of this acquisition.
func (f *FencedLock) LockAndGetToken(ctx context.Context) (int64, error) {
	a, err := f.acquire(ctx, -1, 0)
	return a.token, err
}

// TryLockAndGetToken is TryLock returning the token; 0 when not acquired.
func (f *FencedLock) TryLockAndGetToken(ctx context.Context, wait, lease time.Duration) (int64, error) {
	a, err := f.acquire(ctx, wait, lease)
	if !a.acquired {
		return 0, err
	}
	return a.token, err
}

// Token returns the last token issued (0 before any).
func (f *FencedLock) Token(ctx context.Context) (int64, error) {
	n, err := f.c.rdb.Get(ctx, f.tokenName()).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}
