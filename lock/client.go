package lock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Errors a lock reports.
var (
	// ErrNotHeld is Redisson's IllegalMonitorStateException: the holder
	// unlocked or released something it does not hold.
	ErrNotHeld = errors.New("lock: not held by this holder")
	// ErrNoHolder says the context carries no Holder (see WithHolder).
	ErrNoHolder = errors.New("lock: the context carries no holder (use lock.WithHolder)")
	// ErrLost is the cause a lock's Lost channel reports: the watchdog
	// found the lock gone, or could not renew it before its lease ran out.
	ErrLost = errors.New("lock: lost (the watchdog could not renew it)")
	// ErrClosed is returned once the Client is closed.
	ErrClosed = errors.New("lock: client closed")
)

// Options configure a Client. The zero value is Redisson's defaults.
type Options struct {
	// ID names this client in every lock it holds: a holder's hash field
	// is "<ID>:<holder>", as Redisson's is "<UUID>:<thread id>". Default:
	// a random UUID, as Redisson's ServiceManager makes. Two clients must
	// never share one.
	ID string
	// WatchdogTimeout is the lease a lock taken without one gets, renewed
	// every third of it while held (Redisson's lockWatchdogTimeout, 30 s).
	WatchdogTimeout time.Duration
	// FairWaitTimeout is how long a fair lock's waiter may stay queued
	// when Lock waits without a deadline (Redisson's threadWaitTime, 5 min).
	FairWaitTimeout time.Duration
	// UnlockLatchTimeout is how long the idempotency key of an unlock
	// lives (Redisson's (timeout + retryInterval) * retryAttempts with its
	// defaults: 13.5 s).
	UnlockLatchTimeout time.Duration
	// ShardedPubSub makes scripts publish with SPUBLISH and waiters listen
	// with SSUBSCRIBE, as Redisson does on a Redis Cluster 7.0+ in its
	// default subscription mode. Both sides of a shared lock must agree.
	ShardedPubSub bool
}

// Client takes Redisson's locks through a go-redis UniversalClient: a
// single node, Sentinel (FailoverClient) or cluster (ClusterClient), of
// Redis or lockkv. It shares one subscription per channel among its
// waiters and runs the watchdogs of the locks its holders hold. A Client
// is safe for concurrent use; Close it when done.
type Client struct {
	rdb  redis.UniversalClient
	id   string
	opts Options
	subs *hub

	mu      sync.Mutex
	holds   map[string]*hold
	sweepAt int // holds' size at which acquired next sweeps them
	closed  bool
}

// New returns a Client over rdb. opts may be nil.
func New(rdb redis.UniversalClient, opts *Options) *Client {
	c := &Client{rdb: rdb, holds: map[string]*hold{}, sweepAt: minSweep}
	if opts != nil {
		c.opts = *opts
	}
	if c.opts.WatchdogTimeout <= 0 {
		c.opts.WatchdogTimeout = 30 * time.Second
	}
	if c.opts.FairWaitTimeout <= 0 {
		c.opts.FairWaitTimeout = 5 * time.Minute
	}
	if c.opts.UnlockLatchTimeout <= 0 {
		c.opts.UnlockLatchTimeout = 13500 * time.Millisecond
	}
	c.id = c.opts.ID
	if c.id == "" {
		c.id = newUUID()
	}
	c.subs = newHub(rdb, c.opts.ShardedPubSub)
	return c
}

// ID is the client's ID, the first part of every hash field it writes.
func (c *Client) ID() string { return c.id }

// Close stops every watchdog and closes the Lost channels of their locks
// (the locks stay until their leases end, renewed by no one), and closes
// the subscriptions. Waiters return ErrClosed.
func (c *Client) Close() error {
	c.mu.Lock()
	c.closed = true
	holds := c.holds
	c.holds = map[string]*hold{}
	c.mu.Unlock()
	for _, h := range holds {
		h.stopWatchdog()
		h.markLost()
	}
	return c.subs.close()
}

func (c *Client) publishCommand() string {
	if c.opts.ShardedPubSub {
		return "spublish"
	}
	return "publish"
}

// Holder is who holds a lock: what a Java thread is to Redisson. Go has
// no thread IDs, so the caller makes one with Client.NewHolder and carries
// it in the context (WithHolder); every lock call finds it there. A lock
// is reentrant for the same Holder only, and only its Holder may unlock
// it. In the lock's hash the holder is the field "<client ID>:<holder>",
// exactly as Redisson writes "<UUID>:<thread ID>", so Java and Go holders
// exclude each other. A Holder is a number unique within the process,
// whichever Client made it, so the same Holder may be used with several
// Clients (a MultiLock over independent servers does) without ever
// meeting another holder's field on any of them.
type Holder uint64

// nextHolder numbers the process's holders: per Client numbers would let
// a holder made by one Client, used with another, share a field with a
// holder that other Client made.
var nextHolder atomic.Uint64

// NewHolder returns a Holder no other call in this process returned (of
// this Client or any other).
func (c *Client) NewHolder() Holder { return Holder(nextHolder.Add(1)) }

type holderKey struct{}

// WithHolder returns ctx carrying h.
func WithHolder(ctx context.Context, h Holder) context.Context {
	return context.WithValue(ctx, holderKey{}, h)
}

// HolderFrom returns the Holder ctx carries.
func HolderFrom(ctx context.Context) (Holder, bool) {
	h, ok := ctx.Value(holderKey{}).(Holder)
	return h, ok
}

// field is the hash field naming h in this client's locks.
func (c *Client) field(h Holder) string {
	return c.id + ":" + strconv.FormatUint(uint64(h), 10)
}

func (c *Client) holderField(ctx context.Context) (string, error) {
	h, ok := HolderFrom(ctx)
	if !ok {
		return "", ErrNoHolder
	}
	return c.field(h), nil
}

// script is one of Redisson's scripts: EVALSHA with the SHA-1 computed
// once, EVAL when the server answers NOSCRIPT (go-redis's Script.Run).
type script struct{ *redis.Script }

func newScript(src string) script { return script{redis.NewScript(src)} }

func (s script) run(ctx context.Context, c *Client, keys []string, args ...any) *redis.Cmd {
	return s.Run(ctx, c.rdb, keys, args...)
}

func ms(d time.Duration) int64 {
	m := d.Milliseconds()
	if m <= 0 && d > 0 {
		m = 1
	}
	return m
}

// Redisson's names around an object (RedissonObject.prefixName and
// suffixName): a name with a hash tag keeps it, others get one, so every
// key of an object lands in the object's slot.
func prefixName(prefix, name string) string {
	if containsBrace(name) {
		return prefix + ":" + name
	}
	return prefix + ":{" + name + "}"
}

func suffixName(name, suffix string) string {
	if containsBrace(name) {
		return name + ":" + suffix
	}
	return "{" + name + "}:" + suffix
}

func containsBrace(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '{' {
			return true
		}
	}
	return false
}

// newID is ServiceManager.generateId: 16 random bytes in hex.
func newID() string {
	var b [16]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// A hold is one holder's hold on one lock as this client sees it: how
// many times it entered (Redisson's ExpirationEntry counts the same) and
// the watchdog renewing it when it was taken without a lease.
type hold struct {
	count int
	lease time.Duration // the lease the lock was last entered with
	// expires is when the lease of the last entry ends, for a hold with
	// no watchdog: after it the server has let the lock go.
	expires time.Time

	// The watchdog; nil when the lock has an explicit lease.
	stop     chan struct{}
	stopOnce sync.Once
	lost     chan struct{}
	lostOnce sync.Once
}

func (h *hold) stopWatchdog() {
	if h.stop != nil {
		h.stopOnce.Do(func() { close(h.stop) })
	}
}

// markLost closes lost: the holder can no longer count on the lock.
func (h *hold) markLost() {
	if h.lost != nil {
		h.lostOnce.Do(func() { close(h.lost) })
	}
}

// renewFunc renews a lock for a holder: true while it still holds it.
type renewFunc func(ctx context.Context) (bool, error)

// stale reports whether the server has let the hold's lock go without the
// holder unlocking it: its explicit lease passed, or its watchdog found it
// gone (or could not renew it in time).
func (h *hold) stale(now time.Time) bool {
	if h.stop == nil {
		return !h.expires.IsZero() && now.After(h.expires)
	}
	select {
	case <-h.lost:
		return true
	default:
		return false
	}
}

// minSweep is the fewest holds a sweep looks at.
const minSweep = 64

// sweep forgets, each time the holds have doubled since the last sweep,
// those whose explicit lease has passed: a holder may let such a lock end
// with its lease and never unlock it, and its hold must not stay forever.
// (A hold whose watchdog lost the lock stays until Unlock, so that Lost
// keeps answering.)
func (c *Client) sweep(now time.Time) {
	if len(c.holds) < c.sweepAt {
		return
	}
	for k, h := range c.holds {
		if h.stop == nil && h.stale(now) {
			delete(c.holds, k)
		}
	}
	c.sweepAt = max(2*len(c.holds), minSweep)
}

// acquired records that the holder named key entered a lock. A hold whose
// lock the server has let go (stale) is replaced: this entry is a new
// acquisition. An entry without an explicit lease starts the hold's
// watchdog unless it runs already (Redisson's scheduleExpirationRenewal):
// it renews the lock every third of the lease until the holder leaves it
// (released), holderCtx ends, or a renewal finds the lock gone: then the
// hold's lost channel is closed. A renewal that fails (the server
// unreachable, a failover) is retried every second until the lease the
// last good renewal gave has run out; only then is the lock given up as
// lost, because by then another holder may have it.
func (c *Client) acquired(holderCtx context.Context, key string, lease time.Duration, watchdog bool, renew renewFunc) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now()
	h := c.holds[key]
	if h != nil && h.stale(now) {
		h.stopWatchdog()
		h = nil
	}
	if h == nil {
		c.sweep(now)
		h = &hold{}
		c.holds[key] = h
	}
	h.count++
	h.lease = lease
	if !watchdog {
		if h.stop == nil {
			h.expires = now.Add(lease)
		}
		return
	}
	if h.stop != nil || c.closed {
		return
	}
	h.expires = time.Time{}
	h.stop = make(chan struct{})
	h.lost = make(chan struct{})
	go c.watchdog(holderCtx, key, h, renew)
}

func (c *Client) watchdog(holderCtx context.Context, key string, h *hold, renew renewFunc) {
	lease := c.opts.WatchdogTimeout
	interval := lease / 3
	validUntil := time.Now().Add(lease)
	t := time.NewTimer(interval)
	defer t.Stop()
	for {
		select {
		case <-h.stop:
			return
		case <-holderCtx.Done():
			// The holder is gone: stop renewing; the lock ends with its
			// lease unless unlocked.
			c.forget(key, h)
			return
		case <-t.C:
		}
		sent := time.Now()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(holderCtx), interval)
		ok, err := renew(rctx)
		cancel()
		switch {
		case err == nil && ok:
			validUntil = sent.Add(lease)
			t.Reset(interval)
		case err == nil || !time.Now().Before(validUntil):
			// The lock is gone, or the lease may have run out while the
			// server could not be reached.
			h.markLost()
			return
		default:
			t.Reset(min(time.Second, time.Until(validUntil)))
		}
	}
}

// released records that the holder named key left a lock once; the last
// leave stops the watchdog. Redisson does this whatever the unlock
// answered.
func (c *Client) released(key string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.holds[key]
	if h == nil {
		return
	}
	if h.count--; h.count <= 0 {
		h.stopWatchdog()
		delete(c.holds, key)
	}
}

// releasedAll forgets every hold on a lock (a forced unlock): their
// watchdogs stop, and their holders learn from Lost that the lock is no
// longer theirs.
func (c *Client) releasedAll(prefix string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, h := range c.holds {
		if len(k) > len(prefix) && k[:len(prefix)] == prefix {
			h.stopWatchdog()
			h.markLost()
			delete(c.holds, k)
		}
	}
}

func (c *Client) forget(key string, h *hold) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.holds[key] == h {
		delete(c.holds, key)
	}
}

func (c *Client) holdLease(key string) time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.holds[key]; h != nil && h.lease > 0 {
		return h.lease
	}
	return c.opts.WatchdogTimeout
}

func (c *Client) lostChan(key string) <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if h := c.holds[key]; h != nil {
		return h.lost
	}
	return nil
}

func (c *Client) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}
