package lock

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// The waiting side of Redisson's locks (PublishSubscribe and its
// LockPubSub, SemaphorePubSub, CountDownLatchPubSub): a client subscribes
// to a channel once, however many of its waiters wait on it, and each
// message wakes as many waiters as it frees. A waiter is counted before it
// tries, so a message that arrives between its try and its wait still
// wakes it: wake-ups are tokens, not edges.

// wakeRule says how many waiters a message on a channel wakes.
type wakeRule int

const (
	// wakeLock is LockPubSub: "0" (UNLOCK_MESSAGE) wakes one waiter, "1"
	// (READ_UNLOCK_MESSAGE) every waiter.
	wakeLock wakeRule = iota
	// wakeCount is SemaphorePubSub: the message is a number of permits,
	// and wakes that many waiters.
	wakeCount
	// wakeAll is CountDownLatchPubSub: every message wakes every waiter
	// (each checks the count again).
	wakeAll
)

// maxWakeTokens bounds the wake-ups stored for one channel.
const maxWakeTokens = 1 << 12

type entry struct {
	channel string
	rule    wakeRule
	refs    int // subscribers (guarded by hub.mu)
	ready   chan struct{}
	readyOn sync.Once

	mu      sync.Mutex
	waiting int           // waiters between counting themselves and leaving
	wake    chan struct{} // wake-up tokens
	ps      *redis.PubSub // sharded mode: this channel's own subscription
}

func (e *entry) markReady() { e.readyOn.Do(func() { close(e.ready) }) }

// wakeN hands out n wake-ups, never more than there are waiters.
func (e *entry) wakeN(n int) {
	e.mu.Lock()
	if n > e.waiting {
		n = e.waiting
	}
	e.mu.Unlock()
	for i := 0; i < n; i++ {
		select {
		case e.wake <- struct{}{}:
		default:
			return
		}
	}
}

func (e *entry) wakeAll() { e.wakeN(maxWakeTokens) }

func (e *entry) onMessage(payload string) {
	switch e.rule {
	case wakeLock:
		if payload == "1" {
			e.wakeAll()
		} else {
			e.wakeN(1)
		}
	case wakeCount:
		n, err := strconv.Atoi(payload)
		if err != nil || n <= 0 {
			n = 1
		}
		e.wakeN(n)
	default:
		e.wakeAll()
	}
}

// hub holds a client's subscriptions: one shared PubSub connection for
// SUBSCRIBE, or one per channel for SSUBSCRIBE (shard channels of
// different slots may live on different nodes).
type hub struct {
	rdb     redis.UniversalClient
	sharded bool

	mu      sync.Mutex
	entries map[string]*entry
	ps      *redis.PubSub // the shared one (not sharded)
	closed  bool
	done    chan struct{} // closed by close: waiters return ErrClosed
}

func newHub(rdb redis.UniversalClient, sharded bool) *hub {
	return &hub{rdb: rdb, sharded: sharded, entries: map[string]*entry{}, done: make(chan struct{})}
}

// subscribe returns the channel's entry, subscribing if this is its first
// user. Every subscribe is matched by one unsubscribe.
func (h *hub) subscribe(ctx context.Context, channel string, rule wakeRule) (*entry, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil, ErrClosed
	}
	if e := h.entries[channel]; e != nil {
		e.refs++
		return e, nil
	}
	e := &entry{channel: channel, rule: rule, refs: 1, ready: make(chan struct{}), wake: make(chan struct{}, maxWakeTokens)}
	var err error
	switch {
	case h.sharded:
		e.ps = h.rdb.SSubscribe(ctx, channel)
		go h.receive(e.ps)
	case h.ps == nil:
		// The first channel picks the connection's node (a cluster
		// client's, by the channel's slot), so the shared PubSub is made
		// with it.
		h.ps = h.rdb.Subscribe(ctx, channel)
		go h.receive(h.ps)
	default:
		err = h.ps.Subscribe(ctx, channel)
	}
	if err != nil {
		return nil, err
	}
	h.entries[channel] = e
	return e, nil
}

func (h *hub) unsubscribe(e *entry) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if e.refs--; e.refs > 0 || h.entries[e.channel] != e {
		return
	}
	delete(h.entries, e.channel)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if e.ps != nil {
		e.ps.Close()
	} else if h.ps != nil && !h.closed {
		h.ps.Unsubscribe(ctx, e.channel)
	}
}

// receive dispatches a PubSub's messages until it is closed. A
// subscription confirmation marks the channel ready; one that comes again
// (go-redis resubscribed after a reconnection, so messages may have been
// missed) wakes every waiter to try again.
func (h *hub) receive(ps *redis.PubSub) {
	for m := range ps.ChannelWithSubscriptions(redis.WithChannelSize(1024)) {
		var channel, payload string
		confirm := false
		switch m := m.(type) {
		case *redis.Subscription:
			if m.Kind != "subscribe" && m.Kind != "ssubscribe" {
				continue
			}
			channel, confirm = m.Channel, true
		case *redis.Message:
			channel, payload = m.Channel, m.Payload
		default:
			continue
		}
		h.mu.Lock()
		e := h.entries[channel]
		h.mu.Unlock()
		if e == nil {
			continue
		}
		if confirm {
			select {
			case <-e.ready:
				e.wakeAll()
			default:
				e.markReady()
			}
			continue
		}
		e.onMessage(payload)
	}
}

func (h *hub) close() error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closed {
		return nil
	}
	h.closed = true
	close(h.done)
	var err error
	if h.ps != nil {
		err = h.ps.Close()
	}
	for _, e := range h.entries {
		if e.ps != nil {
			e.ps.Close()
		}
	}
	h.entries = map[string]*entry{}
	return err
}

// waiter waits on one channel for a caller that retries an attempt.
type waiter struct {
	h *hub
	e *entry
}

// startWait subscribes to channel and counts the caller as a waiter; the
// caller tries again only after this, so no wake-up is lost. It waits for
// the subscription to be confirmed for at most confirmWait: until then
// wait caps every sleep at confirmWait too.
func (h *hub) startWait(ctx context.Context, channel string, rule wakeRule) (*waiter, error) {
	e, err := h.subscribe(ctx, channel, rule)
	if err != nil {
		return nil, err
	}
	e.mu.Lock()
	e.waiting++
	e.mu.Unlock()
	w := &waiter{h: h, e: e}
	t := time.NewTimer(confirmWait)
	defer t.Stop()
	select {
	case <-e.ready:
	case <-t.C:
	case <-ctx.Done():
		w.stop()
		return nil, ctx.Err()
	case <-h.done:
		w.stop()
		return nil, ErrClosed
	}
	return w, nil
}

const confirmWait = time.Second

// wait sleeps until a wake-up, d passes (d < 0: no limit), or ctx ends
// (its error) or the client is closed (ErrClosed).
func (w *waiter) wait(ctx context.Context, d time.Duration) error {
	select {
	case <-w.e.ready:
	default:
		// Not subscribed yet: a message may be missed, so do not sleep
		// for long.
		if d < 0 || d > confirmWait {
			d = confirmWait
		}
	}
	var timeout <-chan time.Time
	if d >= 0 {
		t := time.NewTimer(d)
		defer t.Stop()
		timeout = t.C
	}
	select {
	case <-w.e.wake:
		return nil
	case <-timeout:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-w.h.done:
		return ErrClosed
	}
}

func (w *waiter) stop() {
	w.e.mu.Lock()
	w.e.waiting--
	w.e.mu.Unlock()
	w.h.unsubscribe(w.e)
}
