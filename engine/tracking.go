package engine

import (
	"sort"
	"strings"

	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/resp"
)

// Client-side caching: CLIENT TRACKING, CLIENT CACHING, CLIENT
// TRACKINGINFO, CLIENT GETREDIR and the invalidation messages, as Redis
// 7.0's tracking.c and networking.c clientCommand.
//
// The tracking table maps a key name (keys of every database share it, as
// in Redis) to the IDs of the clients that may cache it. Entries are
// dropped lazily: a client that turns tracking off or disconnects is
// skipped when an invalidation finds its ID. A client in BCAST mode is
// instead registered under prefixes; the keys modified under a prefix are
// collected and sent once per event-loop iteration (FlushOutputs, Redis's
// beforeSleep).
//
// An invalidation for the client whose command caused it is held until
// that command's reply is written (Redis 7.0's tracking_pending_keys), so
// a RESP3 push never lands inside a reply.

// tracking helpers

// trackingState holds client-side caching state.
type trackingState struct {
	// table is nil until a client first enables tracking (Redis's
	// TrackingTable == NULL), so writes cost nothing before that.
	table    map[string]*trackedKey
	items    int // client IDs across the table
	prefixes map[string]*bcastState
	clients  int // clients with tracking on
	// pending holds invalidations for the client executing a command,
	// sent once its reply is written.
	pending []pendingInvalidation
	// limitRounds counts calls that left the table over its limit.
	limitRounds int
}

type trackedKey struct{ ids []int64 }

type bcastState struct {
	// keys modified since the last broadcast, with the client that last
	// modified each (nil for none: expiry), for NOLOOP.
	keys    map[string]*Client
	clients []*Client
}

type pendingInvalidation struct {
	c    *Client
	key  string
	null bool // FLUSHALL/FLUSHDB: everything is invalid
}

// trackClient is a client's tracking configuration.
type trackClient struct {
	on          bool // CLIENT_TRACKING
	bcast       bool
	optin       bool
	optout      bool
	noloop      bool
	caching     bool // CLIENT_TRACKING_CACHING: CLIENT CACHING yes|no given
	brokenRedir bool // the redirection target went away
	redirect    int64
	prefixes    []string // BCAST prefixes, sorted
}

func (e *Engine) initTracking() {}

// Tracking reports whether c has tracking on (CLIENT LIST flag 't').
func (c *Client) Tracking() bool { return c.track.on }

// TrackingBCast reports whether c tracks in BCAST mode (flag 'B').
func (c *Client) TrackingBCast() bool { return c.track.bcast }

// TrackingBrokenRedirect reports whether c's redirection target is gone
// (flag 'R').
func (c *Client) TrackingBrokenRedirect() bool { return c.track.brokenRedir }

// TrackingRedirect is CLIENT LIST's redir= and CLIENT GETREDIR: -1 with
// tracking off, else the redirection client ID (0 for none).
func (c *Client) TrackingRedirect() int64 {
	if !c.track.on {
		return -1
	}
	return c.track.redirect
}

// TrackingStats returns INFO's tracking_clients, tracking_total_keys,
// tracking_total_items and tracking_total_prefixes.
func (e *Engine) TrackingStats() (clients, keys, items, prefixes int) {
	t := &e.tracking
	return t.clients, len(t.table), t.items, len(t.prefixes)
}

// enableTracking is Redis's enableTracking.
func (e *Engine) enableTracking(c *Client, redirect int64, bcast, optin, optout, noloop bool, prefixes [][]byte) {
	t := &c.track
	if !t.on {
		e.tracking.clients++
	}
	t.on = true
	t.brokenRedir, t.bcast, t.optin, t.optout, t.noloop = false, false, false, false, false
	t.redirect = redirect
	if e.tracking.table == nil {
		e.tracking.table = map[string]*trackedKey{}
		e.tracking.prefixes = map[string]*bcastState{}
	}
	if bcast {
		t.bcast = true
		if len(prefixes) == 0 {
			e.enableBcastPrefix(c, "")
		}
		for _, p := range prefixes {
			e.enableBcastPrefix(c, string(p))
		}
	}
	t.optin, t.optout, t.noloop = optin, optout, noloop
}

func (e *Engine) enableBcastPrefix(c *Client, p string) {
	bs := e.tracking.prefixes[p]
	if bs == nil {
		bs = &bcastState{keys: map[string]*Client{}}
		e.tracking.prefixes[p] = bs
	}
	for _, x := range bs.clients {
		if x == c {
			return
		}
	}
	bs.clients = append(bs.clients, c)
	i := sort.SearchStrings(c.track.prefixes, p)
	if i == len(c.track.prefixes) || c.track.prefixes[i] != p {
		c.track.prefixes = append(c.track.prefixes, "")
		copy(c.track.prefixes[i+1:], c.track.prefixes[i:])
		c.track.prefixes[i] = p
	}
}

// DisableTracking turns tracking off for c (CLIENT TRACKING OFF, RESET,
// disconnection), as Redis's disableTracking.
func (e *Engine) DisableTracking(c *Client) {
	t := &c.track
	if t.bcast {
		for _, p := range t.prefixes {
			bs := e.tracking.prefixes[p]
			if bs == nil {
				continue
			}
			for i, x := range bs.clients {
				if x == c {
					bs.clients = append(bs.clients[:i], bs.clients[i+1:]...)
					break
				}
			}
			if len(bs.clients) == 0 {
				delete(e.tracking.prefixes, p)
			}
		}
		t.prefixes = nil
	}
	if t.on {
		e.tracking.clients--
		t.on, t.brokenRedir, t.bcast, t.optin, t.optout, t.caching, t.noloop =
			false, false, false, false, false, false, false
	}
}

func (e *Engine) trackingFreeClient(c *Client) { e.DisableTracking(c) }

// trackingRememberKeys records the keys a read-only command of a tracking
// client read (Redis's trackingRememberKeys, called from call()).
func (c *Ctx) trackingRememberKeys(spec *Spec, args [][]byte) {
	cl := c.C
	if c.InScript && c.E.current != nil {
		cl = c.E.current // a script's reads count for the client running it
	}
	t := &cl.track
	if !t.on || t.bcast || (t.optin && !t.caching) || (t.optout && t.caching) {
		return
	}
	if spec.Script != ScriptNone {
		return // only the commands the script runs count
	}
	table := c.E.tracking.table
	id := cl.ID
	for _, pos := range spec.KeyPositions(args) {
		key := args[pos]
		tk := table[string(key)]
		if tk == nil {
			table[string(key)] = &trackedKey{ids: []int64{id}}
			c.E.tracking.items++
			continue
		}
		found := false
		for _, x := range tk.ids {
			if x == id {
				found = true
				break
			}
		}
		if !found {
			tk.ids = append(tk.ids, id)
			c.E.tracking.items++
		}
	}
}

// trackingInvalidate is called for every modified key (signalModifiedKey);
// the modifying client is the one whose command is executing.
func (e *Engine) trackingInvalidate(key string) { e.trackingInvalidateKey(e.current, key) }

// trackingInvalidateKey is Redis's trackingInvalidateKey: mod is the
// client that modified key (nil for expiry).
func (e *Engine) trackingInvalidateKey(mod *Client, key string) {
	t := &e.tracking
	if t.table == nil {
		return
	}
	for p, bs := range t.prefixes {
		if strings.HasPrefix(key, p) {
			bs.keys[key] = mod
		}
	}
	e.trackingInvalidateTableKey(key)
}

// trackingInvalidateTableKey tells the clients that read key, in the
// tracking table, that it changed, and forgets them.
func (e *Engine) trackingInvalidateTableKey(key string) {
	t := &e.tracking
	tk := t.table[key]
	if tk == nil {
		return
	}
	for _, id := range tk.ids {
		target := e.clients[id]
		if target == nil || !target.track.on || target.track.bcast {
			continue
		}
		if target == e.current {
			if target.track.noloop {
				continue
			}
			t.pending = append(t.pending, pendingInvalidation{c: target, key: key})
			continue
		}
		e.sendTrackingMessage(target, key, trackOneKey, nil)
	}
	t.items -= len(tk.ids)
	delete(t.table, key)
}

// trackingInvalidateOnFlush is Redis's trackingInvalidateKeysOnFlush:
// every tracking client is told that all its keys are invalid (a null),
// and the table is emptied.
func (e *Engine) trackingInvalidateOnFlush() {
	t := &e.tracking
	if t.clients > 0 {
		for _, c := range e.clients {
			if !c.track.on {
				continue
			}
			if c == e.current {
				t.pending = append(t.pending, pendingInvalidation{c: c, null: true})
			} else {
				e.sendTrackingMessage(c, "", trackNull, nil)
			}
		}
	}
	if t.table != nil {
		t.table = map[string]*trackedKey{}
		t.items = 0
	}
}

// trackingAfterCall runs after each client command: it sends the
// invalidations held for the client and ends the effect of CLIENT CACHING,
// which lasts for the next command (or transaction) only. A command that
// has not run yet waits with the flag: one held by CLIENT PAUSE, a read
// waiting for its leadership round or a write behind a WATCHed EXEC (they
// run again), an op in flight (it runs when applied). A command forwarded
// to the leader ran there.
func (e *Engine) trackingAfterCall(cl *Client, spec *Spec) {
	if e.tracking.clients > 0 {
		e.trackingLimitUsedSlots()
	}
	if len(e.tracking.pending) > 0 {
		e.sendPendingInvalidations(cl)
	}
	if cl.track.caching && !cl.multi.active && !cl.park.reruns() && cl.park != parkProposed {
		if spec == nil || !spec.keepsCaching() {
			cl.track.caching = false
		}
	}
}

// trackingLimitUsedSlots is Redis's: past tracking-table-max-keys, keys are
// dropped from the table (their clients get an invalidation, as if the
// key changed), with an effort that grows while the table stays too big.
func (e *Engine) trackingLimitUsedSlots() {
	t := &e.tracking
	max := e.Config.TrackingTableMaxKeys
	if max <= 0 || len(t.table) <= max {
		t.limitRounds = 0
		return
	}
	effort := 100 * (t.limitRounds + 1)
	for key := range t.table { // Go's map order is a random walk enough
		if effort == 0 {
			break
		}
		effort--
		e.trackingInvalidateTableKey(key)
		if len(t.table) <= max {
			t.limitRounds = 0
			return
		}
	}
	t.limitRounds++
}

// sendPendingInvalidations sends the held invalidations of client only
// (all of them when only is nil): a client served while a busy script
// runs must not release those of the client running the script.
func (e *Engine) sendPendingInvalidations(only *Client) {
	p := e.tracking.pending
	e.tracking.pending = nil
	for _, inv := range p {
		if only != nil && inv.c != only {
			e.tracking.pending = append(e.tracking.pending, inv)
			continue
		}
		if inv.c.freed {
			continue
		}
		if inv.null {
			e.sendTrackingMessage(inv.c, "", trackNull, nil)
		} else {
			e.sendTrackingMessage(inv.c, inv.key, trackOneKey, nil)
		}
	}
}

// trackingBeforeSleep sends what is pending at the end of an event-loop
// iteration: the BCAST invalidations collected meanwhile (Redis's
// trackingBroadcastInvalidationMessages in beforeSleep).
func (e *Engine) trackingBeforeSleep() {
	t := &e.tracking
	if len(t.pending) > 0 && e.current == nil {
		e.sendPendingInvalidations(nil)
	}
	if len(t.prefixes) == 0 || t.clients == 0 {
		return
	}
	var names []string
	for p, bs := range t.prefixes {
		if len(bs.keys) > 0 {
			names = append(names, p)
		}
	}
	sort.Strings(names)
	for _, p := range names {
		bs := t.prefixes[p]
		keys := make([]string, 0, len(bs.keys))
		for k := range bs.keys {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		proto := broadcastProto(keys, bs.keys, nil)
		for _, c := range bs.clients {
			if c.track.noloop {
				if adhoc := broadcastProto(keys, bs.keys, c); adhoc != nil {
					e.sendTrackingMessage(c, "", trackRaw, adhoc)
				}
				continue
			}
			e.sendTrackingMessage(c, "", trackRaw, proto)
		}
		bs.keys = map[string]*Client{}
	}
}

// broadcastProto encodes the array of keys, leaving out those last
// modified by skip (NOLOOP); nil when nothing is left.
func broadcastProto(keys []string, by map[string]*Client, skip *Client) []byte {
	n := len(keys)
	if skip != nil {
		n = 0
		for _, k := range keys {
			if by[k] != skip {
				n++
			}
		}
		if n == 0 {
			return nil
		}
	}
	w := resp.Writer{}
	w.Array(n)
	for _, k := range keys {
		if skip != nil && by[k] == skip {
			continue
		}
		w.BulkString(k)
	}
	return w.B
}

const (
	trackOneKey = iota
	trackNull
	trackRaw
)

// sendTrackingMessage is Redis's sendTrackingMessage: a RESP3 push
// ["invalidate", payload] to c or to its redirection target, or, for a
// RESP2 redirection target in pub/sub mode, a message on the
// __redis__:invalidate channel.
func (e *Engine) sendTrackingMessage(c *Client, key string, kind int, raw []byte) {
	orig := c
	redirected := false
	if c.track.redirect != 0 {
		r := e.clients[c.track.redirect]
		if r == nil || r.freed {
			c.track.brokenRedir = true
			if c.W.Proto > 2 {
				w := e.Writer(c)
				w.Push(2)
				w.BulkString("tracking-redir-broken")
				w.Int(c.track.redirect)
			}
			return
		}
		c = r
		redirected = true
	}
	var w *resp.Writer
	switch {
	case c.W.Proto > 2:
		w = e.Writer(c)
		w.Push(2)
		w.BulkString("invalidate")
	case redirected && c.sub.count() > 0:
		w = e.Writer(c)
		w.Push(3)
		w.BulkString("message")
		w.BulkString("__redis__:invalidate")
	default:
		return // RESP2 without redirection: nowhere to send it
	}
	switch kind {
	case trackOneKey:
		w.Array(1)
		w.BulkString(key)
	case trackNull:
		// Redis encodes the null for the tracking client's protocol, even
		// when the message goes to a redirection target.
		if orig.W.Proto > 2 {
			w.Raw([]byte("_\r\n"))
		} else {
			w.Raw([]byte("$-1\r\n"))
		}
	case trackRaw:
		w.Raw(raw)
	}
}

// tracking commands

func clientTracking(c *Ctx, args [][]byte) {
	var (
		redirect                     int64
		bcast, optin, optout, noloop bool
		prefixes                     [][]byte
	)
	for j := 3; j < len(args); j++ {
		more := len(args) - 1 - j
		a := args[j]
		switch {
		case cstr.EqualFold(a, "redirect") && more > 0:
			j++
			if redirect != 0 {
				c.Error(ErrTrackingRedirectTwice)
				return
			}
			n, ok := redisnum.ParseInt(args[j])
			if !ok {
				c.Error(ErrNotInt)
				return
			}
			if target := c.E.clients[n]; target == nil || target.freed {
				c.Error(ErrTrackingNoSuchRedirect)
				return
			}
			redirect = n
		case cstr.EqualFold(a, "bcast"):
			bcast = true
		case cstr.EqualFold(a, "optin"):
			optin = true
		case cstr.EqualFold(a, "optout"):
			optout = true
		case cstr.EqualFold(a, "noloop"):
			noloop = true
		case cstr.EqualFold(a, "prefix") && more > 0:
			j++
			prefixes = append(prefixes, args[j])
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	t := &c.C.track
	switch {
	case cstr.EqualFold(args[2], "on"):
		if !bcast && len(prefixes) > 0 {
			c.Error(ErrTrackingPrefixNoBcast)
			return
		}
		if t.on && t.bcast != bcast {
			c.Error(ErrTrackingBcastSwitch)
			return
		}
		if bcast && (optin || optout) {
			c.Error(ErrTrackingOptBcast)
			return
		}
		if optin && optout {
			c.Error(ErrTrackingOptInOut)
			return
		}
		if (optin && t.optout) || (optout && t.optin) {
			c.Error(ErrTrackingOptSwitch)
			return
		}
		if bcast && !c.checkPrefixCollisions(prefixes) {
			return
		}
		c.E.enableTracking(c.C, redirect, bcast, optin, optout, noloop, prefixes)
	case cstr.EqualFold(args[2], "off"):
		c.E.DisableTracking(c.C)
	default:
		c.Error(ErrSyntax)
		return
	}
	c.W.OK()
}

// checkPrefixCollisions is Redis 7.0's checkPrefixCollisionsOrReply,
// including its bug: when a provided prefix other than the first overlaps
// a later one, the error is sent and yet tracking is enabled and +OK
// follows (the function returns the index, non-zero, as success).
func (c *Ctx) checkPrefixCollisions(prefixes [][]byte) bool {
	overlap := func(a, b string) bool {
		if len(a) > len(b) {
			a, b = b, a
		}
		return strings.HasPrefix(b, a)
	}
	for i, p := range prefixes {
		for _, ex := range c.C.track.prefixes {
			if overlap(ex, string(p)) {
				c.Error(errPrefixOverlapExisting(string(p), ex))
				return false
			}
		}
		for _, q := range prefixes[i+1:] {
			if overlap(string(p), string(q)) {
				c.Error(errPrefixOverlapProvided(string(p), string(q)))
				return i != 0
			}
		}
	}
	return true
}

func clientCaching(c *Ctx, args [][]byte) {
	t := &c.C.track
	if !t.on {
		c.Error(ErrCachingNotTracking)
		return
	}
	switch {
	case cstr.EqualFold(args[2], "yes"):
		if !t.optin {
			c.Error(ErrCachingYesNotOptin)
			return
		}
	case cstr.EqualFold(args[2], "no"):
		if !t.optout {
			c.Error(ErrCachingNoNotOptout)
			return
		}
	default:
		c.Error(ErrSyntax)
		return
	}
	t.caching = true
	c.W.OK()
}

func clientGetRedir(c *Ctx, args [][]byte) { c.W.Int(c.C.TrackingRedirect()) }

func clientTrackingInfo(c *Ctx, args [][]byte) {
	t := &c.C.track
	flags := make([]string, 0, 6)
	if t.on {
		flags = append(flags, "on")
	} else {
		flags = append(flags, "off")
	}
	if t.bcast {
		flags = append(flags, "bcast")
	}
	if t.optin {
		flags = append(flags, "optin")
		if t.caching {
			flags = append(flags, "caching-yes")
		}
	}
	if t.optout {
		flags = append(flags, "optout")
		if t.caching {
			flags = append(flags, "caching-no")
		}
	}
	if t.noloop {
		flags = append(flags, "noloop")
	}
	if t.brokenRedir {
		flags = append(flags, "broken_redirect")
	}
	c.W.Map(3)
	c.W.BulkString("flags")
	c.W.Set(len(flags))
	for _, f := range flags {
		c.W.BulkString(f)
	}
	c.W.BulkString("redirect")
	c.W.Int(c.C.TrackingRedirect())
	c.W.BulkString("prefixes")
	c.W.StringArray(t.prefixes)
}
