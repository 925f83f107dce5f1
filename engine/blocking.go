package engine

import (
	"container/heap"
	"math"
	"math/big"

	"github.com/lockkv/lockkv/internal/longdouble"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/store"
)

// Blocking commands (BLPOP, BLMOVE, BZPOPMIN, ...), following Redis 7.0's
// blocked.c.
//
// # Model
//
// A command that finds nothing to serve calls Ctx.Block with the keys it
// waits for, its deadline and a ServeFunc. The client stops running
// commands: the rest of its pipeline (and later pipelines) wait in its
// queue. Writes that give a key elements call Ctx.Ready (Redis's
// signalKeyAsReady). After every top-level command (Engine.Call) the engine
// serves the ready keys (handleClientsBlockedOnKeys): for each ready key,
// the clients blocked on it in the order they blocked, as long as the key
// holds a value of the type they wait for; a ServeFunc that empties (and
// deletes) the key stops the round for that key. Keys that become ready
// while serving (BLMOVE pushing into a key another client waits on) are
// served in a further round. A served client is unblocked at once and its
// queued commands resume before the engine next flushes output (Redis's
// processUnblockedClients in beforeSleep).
//
// # API for command families
//
//	deadline, ok := c.ParseTimeout(args[len(args)-1]) // "ERR timeout is ..."
//	if !ok {
//		return
//	}
//	// ... look for something to serve now; reply and return if found ...
//	if c.NoBlock() { // MULTI/EXEC, scripts: answer as a timeout would
//		c.W.NullArray()
//		return
//	}
//	c.Block(BlockZSet, keys, deadline, func(c *Ctx, key []byte) bool {
//		// key holds a non-empty zset: pop, reply through c.W, fire the
//		// notifications; return true when the key was deleted.
//	})
//
// The ServeFunc runs with a Ctx for the blocked client (c.C, its database
// c.DB, c.W writing into its output, c.Now the current time). It must
// write exactly one reply (possibly an error, as BLMOVE's WRONGTYPE for the
// destination). It must not keep references to the blocking command's
// arguments: capture copies. A timeout replies with the null array
// (RESP2 *-1, RESP3 _), as Redis does for lists and sorted sets.
//
// Ctx.Ready must be called whenever a key may now serve a blocked client:
// elements pushed to a list or added to a zset, and keys created by RENAME,
// MOVE or COPY (Redis's dbAdd signals every new key; the families do this
// with Ctx.ReadyIfBlockable). SWAPDB signals through Ctx.SwapDB. Ready costs nothing
// when no client is blocked and a map lookup otherwise. A ServeFunc must
// not block; it may push (BLMOVE) and so ready further keys.
//
// CLIENT UNBLOCK calls Engine.UnblockClient; INFO reads BlockedClients and
// ClientsInTimeoutTable; CLIENT LIST shows flag "b" for Client.IsBlocked.

// BlockKind is the type of value a blocked client waits for (Redis's
// btype).
type BlockKind uint8

// Block kinds.
const (
	BlockList BlockKind = iota + 1 // BLPOP BRPOP BLMOVE BRPOPLPUSH BLMPOP
	BlockZSet                      // BZPOPMIN BZPOPMAX BZMPOP
)

func (k BlockKind) storeType() store.Type {
	if k == BlockZSet {
		return store.TypeZSet
	}
	return store.TypeList
}

// ServeFunc serves a blocked client once key holds a non-empty value of
// the type it waits for; it reports whether the key was deleted (emptied).
type ServeFunc func(c *Ctx, key []byte) (deleted bool)

// neverDeadline marks a deadline so far away that it never fires (Redis
// 7.0 lets now+timeout wrap around, which its timeout table then never
// reaches).
const neverDeadline = math.MaxInt64

type blockKey struct {
	db  int
	key string
}

// waitQueue is the FIFO of clients blocked on one key, a doubly linked
// list so that a client leaves it in O(1).
type waitQueue struct {
	bk         blockKey
	head, tail *waiter
}

type waiter struct {
	c          *Client
	q          *waitQueue
	prev, next *waiter
}

// blockState tracks clients blocked on keys.
type blockState struct {
	keys     map[blockKey]*waitQueue
	ready    []blockKey
	spare    []blockKey
	readySet map[blockKey]struct{}
	timeouts timeoutHeap
	count    int // blocked clients
	timed    int // blocked clients with a deadline (clients_in_timeout_table)
	resume   []*Client
	resuming bool
	discard  resp.Writer // replies of clients under CLIENT REPLY OFF/SKIP
}

// blockClient is a client's blocked state.
type blockClient struct {
	kind     BlockKind
	db       int
	deadline int64 // Unix ms; 0 = forever
	serve    ServeFunc
	spec     *Spec // the blocking command, set on the ServeFunc's Ctx
	waits    []*waiter
	heapIdx  int  // index in timeouts, -1 when absent
	quiet    bool // the reply is discarded (CLIENT REPLY OFF/SKIP)
	queued   bool // in blockState.resume

	// Replicated servers: cur is the command running (set by callAt),
	// args a copy of the blocking command to propose again when a key it
	// waits on is ready, keepDeadline the deadline a re-proposed command
	// keeps.
	cur          [][]byte
	args         [][]byte
	keepDeadline int64
}

func (e *Engine) initBlocking() {
	e.blocking.keys = map[blockKey]*waitQueue{}
	e.blocking.readySet = map[blockKey]struct{}{}
}

// IsBlocked reports whether the client waits in a blocking command.
func (c *Client) IsBlocked() bool { return c.park == parkBlocked }

// BlockedClients returns the number of blocked clients (INFO
// blocked_clients).
func (e *Engine) BlockedClients() int { return e.blocking.count }

// ClientsInTimeoutTable returns the number of blocked clients with a
// timeout (INFO clients_in_timeout_table).
func (e *Engine) ClientsInTimeoutTable() int { return e.blocking.timed }

// BlockingKeys returns the number of keys clients are blocked on.
func (e *Engine) BlockingKeys() int { return len(e.blocking.keys) }

// timeoutMillis parses a timeout in milliseconds as Redis's
// getTimeoutFromObjectOrReply with UNIT_MILLISECONDS does (WAIT, WAITAOF,
// CLIENT PAUSE): an integer, not negative. It replies with the error and
// returns false otherwise.
func (c *Ctx) timeoutMillis(b []byte) (int64, bool) {
	ms, ok := redisnum.ParseInt(b)
	switch {
	case !ok:
		c.Error(ErrTimeoutNotInt)
	case ms < 0:
		c.Error(ErrTimeoutNegative)
	default:
		return ms, true
	}
	return 0, false
}

// ParseTimeout parses a blocking command's timeout in seconds as Redis 7.0's
// getTimeoutFromObjectOrReply does: a long double, ceil(seconds*1000) ms,
// 0 blocks forever. It returns the absolute deadline in Unix ms (0 for
// none), or replies with the error and returns false.
func (c *Ctx) ParseTimeout(b []byte) (int64, bool) {
	ms, ok := parseTimeoutMs(b)
	if !ok {
		c.Error(ErrTimeoutNotFloat)
		return 0, false
	}
	if ms < 0 {
		c.Error(ErrTimeoutNegative)
		return 0, false
	}
	if ms == 0 {
		return 0, true
	}
	if ms > math.MaxInt64-c.Now {
		return neverDeadline, true
	}
	return c.Now + ms, true
}

// parseTimeoutMs converts seconds to milliseconds the way Redis 7.0 does
// on x86: strtold, then (long long)ceill(seconds*1000.0) in long double
// arithmetic, where values outside int64 (and infinities) convert to
// LLONG_MIN and so read as negative. ok is false when strtold refuses the
// text (string2ld).
func parseTimeoutMs(b []byte) (int64, bool) {
	if n, ok := redisnum.ParseInt(b); ok && n > -1e15 && n < 1e15 {
		return n * 1000, true // the common case, exact either way
	}
	if len(b) == 0 || redisnum.IsSpace(b[0]) {
		return 0, false
	}
	x, ok := longdouble.Parse(b)
	if !ok {
		return 0, false
	}
	if x.IsInf() {
		return math.MinInt64, true
	}
	ms := new(big.Float).SetPrec(64).SetMode(big.ToNearestEven)
	ms.Mul(x, big.NewFloat(1000))
	i, acc := ms.Int(nil) // truncated towards zero
	if acc == big.Below { // positive with a fraction: ceil rounds up
		i.Add(i, big.NewInt(1))
	}
	if !i.IsInt64() {
		return math.MinInt64, true
	}
	return i.Int64(), true
}

// Block blocks the client on keys until one of them can serve it, the
// deadline (Unix ms, 0 = never) passes, CLIENT UNBLOCK or the client goes
// away. Duplicate keys count once. The command must not write a reply: the
// ServeFunc or the timeout will. Commands check c.NoBlock() first and
// answer at once instead; Block itself falls back to a null array there.
func (c *Ctx) Block(kind BlockKind, keys [][]byte, deadline int64, serve ServeFunc) {
	if c.NoBlock() {
		c.W.NullArray()
		return
	}
	e, cl := c.E, c.C
	e.park(cl, parkBlocked)
	b := &e.blocking
	bc := &cl.blk
	if e.repl != nil {
		if bc.keepDeadline != 0 {
			deadline = bc.keepDeadline
		}
		bc.args = copyArgs(bc.cur)
	}
	bc.kind = kind
	bc.db = c.DBIndex()
	bc.deadline = deadline
	bc.serve = serve
	bc.spec = c.Spec
	bc.quiet = c.W != &cl.W
	bc.heapIdx = -1
	bc.waits = bc.waits[:0]
	for _, k := range keys {
		bk := blockKey{db: bc.db, key: string(k)}
		q := b.keys[bk]
		if q == nil {
			q = &waitQueue{bk: bk}
			b.keys[bk] = q
		} else if q.tail.c == cl {
			continue // a repeated key: this client was just queued on it
		}
		w := &waiter{c: cl, q: q, prev: q.tail}
		if q.tail != nil {
			q.tail.next = w
		} else {
			q.head = w
		}
		q.tail = w
		bc.waits = append(bc.waits, w)
	}
	b.count++
	if deadline != 0 {
		b.timed++
		if deadline != neverDeadline {
			heap.Push(&b.timeouts, cl)
		}
	}
	e.Stats.TotalBlockingKeys = int64(len(b.keys))
}

// unblock removes cl from every wait queue and the timeout table and
// schedules its queued commands to run.
func (e *Engine) unblock(cl *Client) {
	b := &e.blocking
	bc := &cl.blk
	if cl.park != parkBlocked {
		return
	}
	for i, w := range bc.waits {
		q := w.q
		if w.prev != nil {
			w.prev.next = w.next
		} else {
			q.head = w.next
		}
		if w.next != nil {
			w.next.prev = w.prev
		} else {
			q.tail = w.prev
		}
		if q.head == nil {
			delete(b.keys, q.bk)
		}
		bc.waits[i] = nil
	}
	bc.waits = bc.waits[:0]
	if bc.heapIdx >= 0 {
		heap.Remove(&b.timeouts, bc.heapIdx)
	}
	if bc.deadline != 0 {
		b.timed--
	}
	e.unpark(cl, parkBlocked)
	if cl.repl.retrying {
		e.disownRetry(cl)
	}
	bc.serve, bc.spec, bc.args = nil, nil, nil
	b.count--
	e.Stats.TotalBlockingKeys = int64(len(b.keys))
	if !bc.queued && !cl.freed {
		bc.queued = true
		b.resume = append(b.resume, cl)
	}
}

// writerFor returns where a blocked client's reply goes.
func (e *Engine) writerFor(cl *Client) *Ctx {
	ctx := &Ctx{E: e, C: cl, DB: e.DBs[cl.blk.db], Now: e.NowMs(), Spec: cl.blk.spec}
	if cl.blk.quiet {
		d := &e.blocking.discard
		d.Reset()
		d.Proto = cl.W.Proto
		ctx.W = d
	} else {
		ctx.W = e.Writer(cl)
	}
	return ctx
}

// signalReady records that key may now serve blocked clients (Redis's
// signalKeyAsReady).
func (e *Engine) signalReady(db int, key string) {
	b := &e.blocking
	if b.count == 0 {
		return
	}
	bk := blockKey{db: db, key: key}
	if _, ok := b.keys[bk]; !ok {
		return
	}
	if _, ok := b.readySet[bk]; ok {
		return
	}
	b.readySet[bk] = struct{}{}
	b.ready = append(b.ready, bk)
}

// afterCommand serves clients blocked on keys that became ready
// (handleClientsBlockedOnKeys). Engine.Call runs it after every top-level
// command.
func (e *Engine) afterCommand() {
	b := &e.blocking
	for len(b.ready) > 0 {
		ready := b.ready
		b.ready = b.spare[:0]
		for _, bk := range ready {
			delete(b.readySet, bk)
			e.serveKey(bk)
		}
		clear(ready)
		b.spare = ready[:0]
	}
}

// serveKey serves the clients blocked on bk in the order they blocked.
func (e *Engine) serveKey(bk blockKey) {
	q := e.blocking.keys[bk]
	if q == nil {
		return
	}
	db := e.DBs[bk.db]
	key := []byte(bk.key)
	for w := q.head; w != nil; {
		next := w.next
		cl := w.c
		ent := db.Lookup(bk.key, e.NowMs())
		if ent == nil {
			return
		}
		if ent.Value.Type() != cl.blk.kind.storeType() {
			w = next
			continue
		}
		if e.repl != nil {
			// Only the leader has this client: its command is proposed
			// again, so every node serves it in the same place.
			e.retryBlocked(cl)
			w = next
			continue
		}
		serve := cl.blk.serve
		ctx := e.writerFor(cl)
		e.unblock(cl)
		prev := e.current
		e.current = cl
		start := len(ctx.W.B)
		deleted := e.serveGuarded(ctx, serve, key)
		if len(ctx.W.B) > start && ctx.W.B[start] == '-' {
			// BLMOVE's WRONGTYPE: Redis's updateStatsOnUnblock with
			// had_errors.
			e.countError(ctx.W.B[start+1:])
			e.failedCall(cl.lastCmd)
		}
		e.current = prev
		if deleted {
			return
		}
		w = next
	}
}

// resumeUnblocked runs the queued commands of clients unblocked since the
// last call (Redis's processUnblockedClients).
func (e *Engine) resumeUnblocked() {
	b := &e.blocking
	if b.resuming {
		return
	}
	b.resuming = true
	for i := 0; i < len(b.resume); i++ {
		cl := b.resume[i]
		b.resume[i] = nil
		cl.blk.queued = false
		if cl.freed || cl.park == parkBlocked {
			continue
		}
		e.runPending(cl)
	}
	b.resume = b.resume[:0]
	b.resuming = false
}

// UnblockClient ends client id's blocking command as CLIENT UNBLOCK does:
// with the UNBLOCKED error when withError is set, else as a timeout. It
// reports whether the client was blocked.
//
// Either way the blocked command counts a failed call in INFO
// commandstats: Redis 7.0.15's CLIENT UNBLOCK passes had_errors=1 to
// updateStatsOnUnblock even for the timeout reply.
func (e *Engine) UnblockClient(id int64, withError bool) bool {
	cl := e.clients[id]
	if cl == nil {
		return false
	}
	switch cl.park {
	case parkWait:
		// WAIT and WAITAOF: the error, or the counts a timeout answers.
		msg := ""
		if withError {
			msg = ErrUnblocked
		}
		if !e.waitUnblock(cl, msg) {
			return false
		}
		e.failedCall(cl.lastCmd)
		return true
	case parkBlocked:
	default:
		// Not in a blocking command: CLIENT PAUSE, RAFT.NODE's deferred
		// reply and the round trips of a cluster are not unblocked.
		return false
	}
	ctx := e.writerFor(cl)
	if withError {
		ctx.W.Error(ErrUnblocked)
		e.countError([]byte(ErrUnblocked))
	} else {
		ctx.W.NullArray()
	}
	e.failedCall(cl.lastCmd)
	e.unblock(cl)
	return true
}

// unblockClientOnFree drops a freed client from the wait queues.
func (e *Engine) unblockClientOnFree(c *Client) {
	e.unblock(c)
}

// blockTimeouts answers blocked clients whose deadline passed with the
// null array and resumes them.
func (e *Engine) blockTimeouts(now int64) {
	b := &e.blocking
	for len(b.timeouts) > 0 && b.timeouts[0].blk.deadline < now {
		cl := b.timeouts[0]
		ctx := e.writerFor(cl)
		ctx.W.NullArray()
		e.unblock(cl)
	}
	e.resumeUnblocked()
}

// blockNextDeadline returns when the earliest blocked client times out
// (Unix ms), or 0 when none waits with a timeout.
func (e *Engine) blockNextDeadline() int64 {
	if len(e.blocking.timeouts) == 0 {
		return 0
	}
	return e.blocking.timeouts[0].blk.deadline + 1
}

// timeoutHeap orders blocked clients by deadline, then by client id.
type timeoutHeap []*Client

func (h timeoutHeap) Len() int { return len(h) }
func (h timeoutHeap) Less(i, j int) bool {
	a, b := h[i].blk.deadline, h[j].blk.deadline
	if a != b {
		return a < b
	}
	return h[i].ID < h[j].ID
}
func (h timeoutHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].blk.heapIdx = i
	h[j].blk.heapIdx = j
}
func (h *timeoutHeap) Push(x any) {
	c := x.(*Client)
	c.blk.heapIdx = len(*h)
	*h = append(*h, c)
}
func (h *timeoutHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	c.blk.heapIdx = -1
	return c
}
