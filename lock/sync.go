package lock

import (
	"context"
	"encoding/hex"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

var (
	semAcquire        = newScript(scriptSemAcquire)
	semRelease        = newScript(scriptSemRelease)
	semTrySetPermits  = newScript(scriptSemTrySetPermits)
	semAddPermits     = newScript(scriptSemAddPermits)
	semDrain          = newScript(scriptSemDrain)
	pesAcquire        = newScript(scriptPESAcquire)
	pesRelease        = newScript(scriptPESRelease)
	pesTrySetPermits  = newScript(scriptPESTrySetPermits)
	pesAddPermits     = newScript(scriptPESAddPermits)
	pesAvailable      = newScript(scriptPESAvailable)
	latchTrySetCount  = newScript(scriptLatchTrySetCount)
	latchCountDown    = newScript(scriptLatchCountDown)
	latchDeleteScript = newScript(scriptLatchDelete)
)

// Semaphore is Redisson's RSemaphore: a counter of permits under the name,
// a release publishing the new count on redisson_sc:{name}. Permits are
// not owned: any caller may release them.
type Semaphore struct {
	c    *Client
	name string
}

// Semaphore returns the semaphore name (getSemaphore).
func (c *Client) Semaphore(name string) *Semaphore { return &Semaphore{c: c, name: name} }

func (s *Semaphore) channel() string { return prefixName("redisson_sc", s.name) }

// TrySetPermits sets the number of permits if none is set yet.
func (s *Semaphore) TrySetPermits(ctx context.Context, n int) (bool, error) {
	return semTrySetPermits.run(ctx, s.c, []string{s.name, s.channel()}, n, s.c.publishCommand()).Bool()
}

// AddPermits adds n permits (n may be negative).
func (s *Semaphore) AddPermits(ctx context.Context, n int) error {
	return ignoreNil(semAddPermits.run(ctx, s.c, []string{s.name, s.channel()}, n, s.c.publishCommand()).Err())
}

// AvailablePermits is the number of permits left.
func (s *Semaphore) AvailablePermits(ctx context.Context) (int, error) {
	n, err := s.c.rdb.Get(ctx, s.name).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

// DrainPermits takes every permit left and returns how many.
func (s *Semaphore) DrainPermits(ctx context.Context) (int, error) {
	return semDrain.run(ctx, s.c, []string{s.name}).Int()
}

// Acquire takes n permits, waiting until they are there or ctx ends.
func (s *Semaphore) Acquire(ctx context.Context, n int) error {
	_, err := s.TryAcquire(ctx, n, -1)
	return err
}

// TryAcquire takes n permits, waiting up to wait for them (0: once; < 0:
// no limit). A waiter sleeps until a release publishes.
func (s *Semaphore) TryAcquire(ctx context.Context, n int, wait time.Duration) (bool, error) {
	if n < 0 {
		return false, errors.New("lock: permits amount can't be negative")
	}
	if n == 0 {
		return true, nil
	}
	try := func() (bool, error) { return semAcquire.run(ctx, s.c, []string{s.name}, n).Bool() }
	return waitFor(ctx, s.c, s.channel(), wakeCount, wait, try)
}

// Release returns n permits and tells waiters.
func (s *Semaphore) Release(ctx context.Context, n int) error {
	if n < 0 {
		return errors.New("lock: permits amount can't be negative")
	}
	if n == 0 {
		return nil
	}
	return ignoreNil(semRelease.run(ctx, s.c, []string{s.name, s.channel()}, n, s.c.publishCommand()).Err())
}

// waitFor is the wait of the objects without a lease: try; on refusal
// subscribe and try again on every message, until wait passes.
func waitFor(ctx context.Context, c *Client, channel string, rule wakeRule, wait time.Duration, try func() (bool, error)) (bool, error) {
	var deadline time.Time
	if wait >= 0 {
		deadline = time.Now().Add(wait)
	}
	ok, err := try()
	if err != nil || ok || wait == 0 {
		return ok, err
	}
	w, err := c.subs.startWait(ctx, channel, rule)
	if err != nil {
		return false, err
	}
	defer w.stop()
	for {
		ok, err := try()
		if err != nil || ok {
			return ok, err
		}
		sleep := time.Duration(-1)
		if !deadline.IsZero() {
			if sleep = time.Until(deadline); sleep <= 0 {
				return false, nil
			}
		}
		if err := w.wait(ctx, sleep); err != nil {
			return false, err
		}
	}
}

func ignoreNil(err error) error {
	if errors.Is(err, redis.Nil) {
		return nil
	}
	return err
}

// PermitExpirableSemaphore is Redisson's RPermitExpirableSemaphore: the
// available count under the name and every permit taken in the zset
// {name}:timeout, scored by the moment it expires (922337203685477 when
// it does not). An acquisition returns the permit's ID (32 hex digits);
// a permit whose lease passed goes back to the pool at the next
// acquisition.
type PermitExpirableSemaphore struct {
	c    *Client
	name string
}

// nonExpirable is Redisson's nonExpirableTimeout.
const nonExpirable = 922337203685477

// PermitExpirableSemaphore returns the semaphore name
// (getPermitExpirableSemaphore).
func (c *Client) PermitExpirableSemaphore(name string) *PermitExpirableSemaphore {
	return &PermitExpirableSemaphore{c: c, name: name}
}

func (p *PermitExpirableSemaphore) channel() string  { return prefixName("redisson_sc", p.name) }
func (p *PermitExpirableSemaphore) timeouts() string { return suffixName(p.name, "timeout") }

// TrySetPermits sets the number of permits if none is set yet.
func (p *PermitExpirableSemaphore) TrySetPermits(ctx context.Context, n int) (bool, error) {
	return pesTrySetPermits.run(ctx, p.c, []string{p.name, p.channel()}, n, p.c.publishCommand()).Bool()
}

// AddPermits adds n permits.
func (p *PermitExpirableSemaphore) AddPermits(ctx context.Context, n int) error {
	return ignoreNil(pesAddPermits.run(ctx, p.c, []string{p.name, p.channel()}, n, p.c.publishCommand()).Err())
}

// AvailablePermits is the number of permits left, once the expired ones
// are back.
func (p *PermitExpirableSemaphore) AvailablePermits(ctx context.Context) (int, error) {
	return pesAvailable.run(ctx, p.c, []string{p.name, p.timeouts(), p.channel()},
		time.Now().UnixMilli(), p.c.publishCommand()).Int()
}

// Acquire takes a permit for lease (<= 0: until released), waiting until
// one is free or ctx ends, and returns its ID.
func (p *PermitExpirableSemaphore) Acquire(ctx context.Context, lease time.Duration) (string, error) {
	id, _, err := p.TryAcquire(ctx, -1, lease)
	return id, err
}

// TryAcquire takes a permit for lease, waiting up to wait (0: once; < 0:
// no limit). A waiter sleeps until a release publishes or the earliest
// permit's lease ends, whichever is first.
func (p *PermitExpirableSemaphore) TryAcquire(ctx context.Context, wait, lease time.Duration) (string, bool, error) {
	var deadline time.Time
	if wait >= 0 {
		deadline = time.Now().Add(wait)
	}
	var w *waiter
	defer func() {
		if w != nil {
			w.stop()
		}
	}()
	for {
		id, nearest, err := p.tryOnce(ctx, lease)
		if err != nil || id != "" {
			return id, id != "", err
		}
		sleep := time.Duration(-1)
		if nearest > 0 {
			sleep = time.Until(time.UnixMilli(nearest))
			if sleep < 0 {
				sleep = 0
			}
		}
		if !deadline.IsZero() {
			left := time.Until(deadline)
			if left <= 0 {
				return "", false, nil
			}
			if sleep < 0 || sleep > left {
				sleep = left
			}
		}
		if w == nil {
			if w, err = p.c.subs.startWait(ctx, p.channel(), wakeCount); err != nil {
				return "", false, err
			}
			continue // try again now that no release can be missed
		}
		if err := w.wait(ctx, sleep); err != nil {
			return "", false, err
		}
	}
}

// tryOnce is one acquisition: the permit's ID, or the moment the earliest
// permit taken expires (0 if none will).
func (p *PermitExpirableSemaphore) tryOnce(ctx context.Context, lease time.Duration) (string, int64, error) {
	timeoutDate := int64(nonExpirable)
	if lease > 0 {
		timeoutDate = time.Now().Add(lease).UnixMilli()
	}
	id := newID()
	raw, _ := hex.DecodeString(id)
	v, err := pesAcquire.run(ctx, p.c, []string{p.name, p.timeouts(), p.channel()},
		1, timeoutDate, time.Now().UnixMilli(), nonExpirable, p.c.publishCommand(), raw).Text()
	if errors.Is(err, redis.Nil) {
		return "", 0, nil
	}
	if err != nil {
		return "", 0, err
	}
	if v == "OK" {
		return id, 0, nil
	}
	if rest, ok := strings.CutPrefix(v, ":"); ok {
		f, err := strconv.ParseFloat(rest, 64)
		if err == nil {
			return "", int64(f), nil
		}
	}
	return "", 0, nil
}

// Release gives a permit back; ErrNotHeld if it was released already or
// does not exist (its lease passed and another acquisition reclaimed it).
func (p *PermitExpirableSemaphore) Release(ctx context.Context, id string) error {
	ok, err := p.TryRelease(ctx, id)
	if err == nil && !ok {
		return ErrNotHeld
	}
	return err
}

// TryRelease gives a permit back, reporting whether it was still held.
func (p *PermitExpirableSemaphore) TryRelease(ctx context.Context, id string) (bool, error) {
	raw, err := hex.DecodeString(id)
	if err != nil {
		return false, errors.New("lock: a permit ID is hexadecimal")
	}
	return pesRelease.run(ctx, p.c, []string{p.name, p.channel(), p.timeouts()},
		raw, 1, time.Now().UnixMilli(), p.c.publishCommand()).Bool()
}

// CountDownLatch is Redisson's RCountDownLatch: a count under the name;
// the count down that reaches zero deletes it and publishes on
// redisson_countdownlatch__channel__{name}.
type CountDownLatch struct {
	c    *Client
	name string
}

// CountDownLatch returns the latch name (getCountDownLatch).
func (c *Client) CountDownLatch(name string) *CountDownLatch {
	return &CountDownLatch{c: c, name: name}
}

// Redisson's messages on a latch's channel (CountDownLatchPubSub).
const (
	zeroCountMessage = "0"
	newCountMessage  = "1"
)

func (l *CountDownLatch) channel() string {
	return "redisson_countdownlatch__channel__{" + l.name + "}"
}

// TrySetCount sets the count if the latch is not set.
func (l *CountDownLatch) TrySetCount(ctx context.Context, n int64) (bool, error) {
	return latchTrySetCount.run(ctx, l.c, []string{l.name, l.channel()}, newCountMessage, n, l.c.publishCommand()).Bool()
}

// CountDown decrements the count; reaching zero opens the latch.
func (l *CountDownLatch) CountDown(ctx context.Context) error {
	return ignoreNil(latchCountDown.run(ctx, l.c, []string{l.name, l.channel()}, zeroCountMessage, l.c.publishCommand()).Err())
}

// Count is the count left (0 once open).
func (l *CountDownLatch) Count(ctx context.Context) (int64, error) {
	n, err := l.c.rdb.Get(ctx, l.name).Int64()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	return n, err
}

// Delete deletes the latch, telling waiters.
func (l *CountDownLatch) Delete(ctx context.Context) (bool, error) {
	return latchDeleteScript.run(ctx, l.c, []string{l.name, l.channel()}, newCountMessage, l.c.publishCommand()).Bool()
}

// Await waits until the count is zero or ctx ends.
func (l *CountDownLatch) Await(ctx context.Context) error {
	_, err := l.AwaitTimeout(ctx, -1)
	return err
}

// AwaitTimeout waits up to wait for the count to reach zero and reports
// whether it did.
func (l *CountDownLatch) AwaitTimeout(ctx context.Context, wait time.Duration) (bool, error) {
	try := func() (bool, error) {
		n, err := l.Count(ctx)
		return n <= 0 && err == nil, err
	}
	return waitFor(ctx, l.c, l.channel(), wakeAll, wait, try)
}
