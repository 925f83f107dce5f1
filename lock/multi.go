package lock

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"
)

// MultiLock is Redisson's RedissonMultiLock: several locks, typically on
// independent servers (each Lock from its own Client), taken as one: all
// or none. The holder in the context is the holder on every server.
type MultiLock struct {
	locks []*Lock
	// failedLimit is how many locks may fail (MultiLock: none).
	failedLimit int
	redlock     bool
}

// NewMultiLock groups locks (at least one).
func NewMultiLock(locks ...*Lock) *MultiLock {
	if len(locks) == 0 {
		panic("lock: NewMultiLock needs a lock")
	}
	return &MultiLock{locks: locks}
}

// RedLock is Redisson's RedissonRedLock, the Redlock algorithm over N
// independent servers: it holds when a majority (N/2+1) of the locks were
// taken within their validity time, the lease less the time the taking
// took and the clock drift allowed (1% of the lease plus 2 ms, as the
// Redlock description has it). Redisson deprecates it in favour of RLock
// and RFencedLock; on a lockkv cluster a single FencedLock is the safer
// choice, since Raft replicates it.
type RedLock struct{ MultiLock }

// NewRedLock groups locks, one per independent server.
func NewRedLock(locks ...*Lock) *RedLock {
	if len(locks) == 0 {
		panic("lock: NewRedLock needs a lock")
	}
	return &RedLock{MultiLock{locks: locks, failedLimit: len(locks) - (len(locks)/2 + 1), redlock: true}}
}

// clockDrift is the Redlock drift allowance for a lease.
func clockDrift(lease time.Duration) time.Duration { return lease/100 + 2*time.Millisecond }

// Lock takes every lock (MultiLock) or a majority (RedLock), retrying as
// Redisson does, until ctx ends. Without a lease the locks get their
// watchdogs.
func (m *MultiLock) Lock(ctx context.Context) error { return m.LockLease(ctx, 0) }

// LockLease is Lock with an explicit lease.
func (m *MultiLock) LockLease(ctx context.Context, lease time.Duration) error {
	base := time.Duration(len(m.locks)) * 1500 * time.Millisecond
	for {
		wait := base
		if lease > 0 {
			wait = lease
			switch {
			case wait <= 2*time.Second:
				wait = 2 * time.Second
			case wait <= base:
				wait = wait/2 + rand.N(wait/2)
			default:
				wait = base + rand.N(wait-base)
			}
		}
		ok, err := m.TryLock(ctx, wait, lease)
		if err != nil || ok {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
}

// TryLock is RedissonMultiLock.tryLock: take the locks one after the
// other, each for at most its share of what is left of wait; when one
// fails and no more may, give back those taken and start over until wait
// is spent (wait <= 0: one round). With a lease and a wait, each lock is
// first taken for twice the wait and cut to the lease once all are held,
// so none runs out while the others are taken. A RedLock also gives up
// when the majority took longer than the lease's validity allows.
func (m *MultiLock) TryLock(ctx context.Context, wait, lease time.Duration) (bool, error) {
	takeLease := lease
	if lease > 0 && wait > 0 {
		takeLease = 2 * wait
	}
	start := time.Now()
	remain := time.Duration(-1)
	if wait > 0 {
		remain = wait
	}
	lockWait := remain
	if m.redlock && remain > 0 {
		lockWait = max(remain/time.Duration(len(m.locks)), time.Millisecond)
	}
	failedLimit := m.failedLimit
	var acquired []*Lock
	roundStart := time.Now()
	for i := 0; i < len(m.locks); i++ {
		l := m.locks[i]
		var ok bool
		var err error
		if wait <= 0 && lease <= 0 {
			ok, err = l.TryLock(ctx, 0, 0)
		} else {
			w := lockWait
			if remain >= 0 && (w < 0 || remain < w) {
				w = remain
			}
			if w < 0 {
				w = 0
			}
			ok, err = l.TryLock(ctx, w, takeLease)
		}
		if err != nil {
			if ctx.Err() != nil {
				m.unlockAll(ctx, acquired)
				return false, ctx.Err()
			}
			if errors.Is(err, ErrNoHolder) {
				return false, err
			}
			// Unreachable or failing server: the lock counts as not
			// taken; give back whatever the attempt may have done.
			m.unlockAll(ctx, []*Lock{l})
			ok = false
		}
		if ok {
			acquired = append(acquired, l)
		} else {
			if len(m.locks)-len(acquired) == m.failedLimit {
				break
			}
			if failedLimit == 0 {
				m.unlockAll(ctx, acquired)
				if wait <= 0 {
					return false, nil
				}
				failedLimit = m.failedLimit
				acquired = acquired[:0]
				i = -1
				roundStart = time.Now()
			} else {
				failedLimit--
			}
		}
		if remain > 0 {
			remain = wait - time.Since(start)
			if remain <= 0 {
				m.unlockAll(ctx, acquired)
				return false, nil
			}
		}
	}
	if len(acquired) < len(m.locks)-m.failedLimit {
		m.unlockAll(ctx, acquired)
		return false, nil
	}
	if m.redlock {
		validityLease := lease
		if validityLease <= 0 {
			validityLease = m.locks[0].c.opts.WatchdogTimeout
		}
		if time.Since(roundStart)+clockDrift(validityLease) >= validityLease {
			m.unlockAll(ctx, acquired)
			return false, nil
		}
	}
	if lease > 0 && takeLease != lease {
		for _, l := range acquired {
			if err := l.c.rdb.PExpire(ctx, l.name, lease).Err(); err != nil && !m.redlock {
				m.unlockAll(ctx, acquired)
				return false, err
			}
			l.c.setHoldLease(ctx, l, lease)
		}
	}
	return true, nil
}

// Unlock gives every lock back. A MultiLock reports the first error (a
// lock not held is ErrNotHeld); a RedLock, which may hold only a
// majority, ignores the ones it does not hold.
func (m *MultiLock) Unlock(ctx context.Context) error {
	errs := m.unlockAll(ctx, m.locks)
	if m.redlock {
		return nil
	}
	return errors.Join(errs...)
}

func (m *MultiLock) unlockAll(ctx context.Context, locks []*Lock) []error {
	errs := make([]error, len(locks))
	done := make(chan struct{})
	for i, l := range locks {
		go func() {
			errs[i] = l.Unlock(context.WithoutCancel(ctx))
			done <- struct{}{}
		}()
	}
	for range locks {
		<-done
	}
	return errs
}

// setHoldLease records the lease a multilock cut a lock's to, so that a
// reentrant unlock keeps it.
func (c *Client) setHoldLease(ctx context.Context, l *Lock, lease time.Duration) {
	field, err := l.field(ctx)
	if err != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.holds[l.holdKey(field)]; h != nil {
		h.lease = lease
		if h.stop == nil {
			h.expires = time.Now().Add(lease)
		}
	}
}
