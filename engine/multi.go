package engine

import "github.com/lockkv/lockkv/store"

// Transactions: MULTI EXEC DISCARD WATCH UNWATCH, as Redis 7.0's multi.c.
//
// Expiry and WATCH follow Redis 7.0.15 exactly (checked against it):
//   - a key that is logically expired when WATCH runs is remembered as
//     such; its reclamation (lazy or active) is then no change, while any
//     real write to it is;
//   - a key that was live at WATCH time and has expired by EXEC fails the
//     transaction, whether or not it was reclaimed meanwhile;
//   - FLUSHDB/FLUSHALL/SWAPDB break the watch of keys they remove or
//     bring in, with the same expired-key rules (touchAllWatchedKeysInDB).

var multiCommands = []*Spec{
	{Name: "multi", Arity: 1, Flags: NoScript | Loading | Stale | Fast | AllowBusy, ACL: []string{"transaction"}, Unqueued: true, Txn: TxnMulti, Fn: multiCommand},
	{Name: "exec", Arity: 1, Flags: NoScript | Loading | Stale | SkipSlowlog, ACL: []string{"transaction"}, Unqueued: true, OOMInMulti: true, Txn: TxnExec, Repl: ReplExec, Fn: execCommand},
	{Name: "discard", Arity: 1, Flags: NoScript | Loading | Stale | Fast | AllowBusy, ACL: []string{"transaction"}, Unqueued: true, OOMInMulti: true, Txn: TxnDiscard, Fn: discardCommand},
	{Name: "watch", Arity: -2, Flags: NoScript | Loading | Stale | Fast | AllowBusy, KeySpecs: []KeySpec{{Flags: KeyRO, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"transaction"}, Unqueued: true, Repl: ReplLeader, Fwd: FwdWatch, Fn: watchCommand},
	{Name: "unwatch", Arity: 1, Flags: NoScript | Loading | Stale | Fast | AllowBusy, ACL: []string{"transaction"}, Repl: ReplLeader, Fwd: FwdUnwatch, Fn: unwatchCommand},
}

func init() { Register(multiCommands) }

// transaction helpers

// multiClient is a client's MULTI and WATCH state.
type multiClient struct {
	active bool // CLIENT_MULTI
	failed bool // CLIENT_DIRTY_EXEC: a command was refused while queueing
	dirty  bool // CLIENT_DIRTY_CAS: a watched key was touched
	queue  [][][]byte
	// fwdWatch is set while keys WATCHed through a forwarding follower
	// are watched on the leader, on the forwarder's connection of that
	// number (Forwarder.Forward).
	fwdWatch uint64

	watched []*watchEntry
}

// watchState maps watched keys to the clients watching them.
type watchState struct {
	keys map[watchKey][]*watchEntry
}

type watchKey struct {
	db  int
	key string
}

// watchEntry is one client watching one key.
type watchEntry struct {
	c   *Client
	key watchKey
	// expired is set when the key was logically expired at WATCH time (or
	// became so through SWAPDB): reclaiming it is then no change.
	expired bool
}

func (e *Engine) initWatches() { e.watches.keys = map[watchKey][]*watchEntry{} }

// InMulti reports whether c is inside MULTI (CLIENT LIST flag 'x').
func (c *Client) InMulti() bool { return c.multi.active }

// MultiQueued returns the number of queued commands, or -1 outside MULTI
// (CLIENT LIST multi=).
func (c *Client) MultiQueued() int {
	if !c.multi.active {
		return -1
	}
	return len(c.multi.queue)
}

// DirtyCAS reports whether a watched key was touched, so EXEC will fail
// (CLIENT LIST flag 'd').
func (c *Client) DirtyCAS() bool { return c.multi.dirty }

// WatchedKeys returns how many keys c watches.
func (c *Client) WatchedKeys() int { return len(c.multi.watched) }

func keyExpiredIn(db *store.DB, key string, now int64) bool {
	en := db.Peek(key)
	return en != nil && en.Expired(now)
}

// watchForKey adds key of the client's database to its watched keys.
func (c *Ctx) watchForKey(key []byte) {
	cl := c.C
	for _, wk := range cl.multi.watched {
		if wk.key.db == cl.DB && wk.key.key == string(key) {
			return
		}
	}
	k := watchKey{db: cl.DB, key: string(key)}
	wk := &watchEntry{c: cl, key: k, expired: keyExpiredIn(c.DB, k.key, c.Now)}
	c.E.watches.keys[k] = append(c.E.watches.keys[k], wk)
	cl.multi.watched = append(cl.multi.watched, wk)
}

// unwatchAll drops every key c watches (the dirty flag is the caller's).
func (e *Engine) unwatchAll(c *Client) {
	for _, wk := range c.multi.watched {
		list := e.watches.keys[wk.key]
		for i, x := range list {
			if x == wk {
				last := len(list) - 1
				list[i] = list[last]
				list[last] = nil
				list = list[:last]
				break
			}
		}
		if len(list) == 0 {
			delete(e.watches.keys, wk.key)
		} else {
			e.watches.keys[wk.key] = list
		}
	}
	c.multi.watched = nil
}

// markDirtyCAS fails the next EXEC of each client; once dirty, watching
// anything more is pointless, so their keys are unwatched, as in Redis.
func (e *Engine) markDirtyCAS(clients []*Client) {
	for _, c := range clients {
		c.multi.dirty = true
		e.unwatchAll(c)
	}
}

// touchWatched is Redis's touchWatchedKey, called for every write
// (signalModifiedKey) and every expired key reclaimed.
func (e *Engine) touchWatched(db int, key string) {
	if len(e.watches.keys) == 0 {
		return
	}
	list := e.watches.keys[watchKey{db: db, key: key}]
	if len(list) == 0 {
		return
	}
	var dirty []*Client
	for _, wk := range list {
		if wk.expired {
			// Expired at WATCH time: if it is gone now (being reclaimed)
			// nothing logically changed; the key is just no longer
			// expired-but-present.
			if en := e.DBs[db].Peek(key); en == nil || en.Expired(e.NowMs()) {
				wk.expired = false
				continue
			}
		}
		dirty = append(dirty, wk.c)
	}
	e.markDirtyCAS(dirty)
}

// touchAllWatchedKeysInDB is Redis's touchAllWatchedKeysInDb: database
// index db, whose contents are emptied is about to be flushed (replaced is
// nil) or swapped with replaced (SWAPDB). Call it before the change.
func (e *Engine) touchAllWatchedKeysInDB(db int, emptied, replaced *store.DB, now int64) {
	if len(e.watches.keys) == 0 {
		return
	}
	var dirty []*Client
	for k, list := range e.watches.keys {
		if k.db != db {
			continue
		}
		inEmptied := emptied.Peek(k.key) != nil
		inReplaced := replaced != nil && replaced.Peek(k.key) != nil
		if !inEmptied && !inReplaced {
			continue
		}
		for _, wk := range list {
			if wk.expired {
				if !inReplaced {
					wk.expired = false // an expired key deleted: no change
					continue
				}
				if keyExpiredIn(replaced, k.key, now) {
					continue // expired before, expired after
				}
			} else if !inEmptied && keyExpiredIn(replaced, k.key, now) {
				wk.expired = true // missing before, expired after
				continue
			}
			dirty = append(dirty, wk.c)
		}
	}
	e.markDirtyCAS(dirty)
}

// signalFlushedDB must be called by FLUSHDB (db = the client's database)
// and FLUSHALL (db = -1) before the data is removed: it breaks the WATCH
// of keys that disappear and sends the "everything is invalid" tracking
// message, as Redis's signalFlushedDb.
func (c *Ctx) signalFlushedDB(db int) {
	from, to := db, db
	if db < 0 {
		from, to = 0, len(c.E.DBs)-1
	}
	for i := from; i <= to; i++ {
		c.E.touchAllWatchedKeysInDB(i, c.E.DBs[i], nil, c.Now)
	}
	c.E.trackingInvalidateOnFlush()
}

// signalSwapDB must be called by SWAPDB a b before swapping: it breaks the
// WATCH of keys that change, as Redis's dbSwapDatabases.
func (c *Ctx) signalSwapDB(a, b int) {
	da, db := c.E.DBs[a], c.E.DBs[b]
	c.E.touchAllWatchedKeysInDB(a, da, db, c.Now)
	c.E.touchAllWatchedKeysInDB(b, db, da, c.Now)
}

// watchedKeyExpired is Redis's isWatchedKeyExpired: a key live at WATCH
// time has expired since.
func (c *Ctx) watchedKeyExpired() bool {
	for _, wk := range c.C.multi.watched {
		if !wk.expired && keyExpiredIn(c.E.DBs[wk.key.db], wk.key.key, c.Now) {
			return true
		}
	}
	return false
}

// DiscardTransaction leaves MULTI, dropping the queue and every watched
// key (DISCARD, EXEC, RESET).
func (e *Engine) DiscardTransaction(c *Client) {
	c.multi.active = false
	c.multi.failed = false
	c.multi.dirty = false
	c.multi.queue = nil
	e.unwatchAll(c)
	e.dropForwardedWatch(c)
}

// dropForwardedWatch ends the WATCH c holds on the leader through its
// forwarded connection, which is closed (the next command forwarded opens
// another): DISCARD, an EXEC answered here, UNWATCH or RESET here unwatch
// as in Redis.
func (e *Engine) dropForwardedWatch(c *Client) {
	if c.multi.fwdWatch != 0 {
		c.multi.fwdWatch = 0
		e.repl.fwd.DropClient(c.ID)
	}
}

// queueMulti queues a command inside MULTI. Arguments are copied: the
// network buffer they point into is reused after the pipeline runs.
func (c *Ctx) queueMulti(args [][]byte) {
	cp := make([][]byte, len(args))
	for i, a := range args {
		cp[i] = append([]byte(nil), a...)
	}
	c.C.multi.queue = append(c.C.multi.queue, cp)
	c.W.Status("QUEUED")
}

// transaction commands

func multiCommand(c *Ctx, args [][]byte) {
	if c.C.multi.active {
		c.Error(ErrMultiNested)
		return
	}
	c.C.multi.active = true
	c.W.OK()
}

func execCommand(c *Ctx, args [][]byte) {
	cl := c.C
	if !cl.multi.active {
		c.Error(ErrExecNoMulti)
		return
	}
	if !c.Applying && c.watchedKeyExpired() {
		// (Replicated: the leader checked WATCH when it proposed.)
		cl.multi.dirty = true
	}
	if cl.multi.failed {
		c.Error(ErrExecAbort)
		c.E.DiscardTransaction(cl)
		return
	}
	if cl.multi.dirty && !c.Applying {
		c.W.NullArray()
		c.E.DiscardTransaction(cl)
		return
	}
	c.E.unwatchAll(cl)
	queue := cl.multi.queue
	c.W.Array(len(queue))
	for _, q := range queue {
		// Each command sees the database the previous one SELECTed.
		// From callAt's free list, as in scriptCall.
		ctx := c.E.getCtx()
		ctx.E, ctx.C, ctx.W, ctx.DB, ctx.Now, ctx.InExec = c.E, cl, c.W, c.E.DBs[cl.DB], c.Now, true
		// Each command is a call() of its own in Redis: counted in INFO
		// commandstats and total_commands_processed, its errors its own.
		mark, start := len(c.W.B), monoNanos()
		c.E.callStart()
		c.E.execGuarded(ctx, q, mark)
		ctx.countReplyError(c.W, mark)
		ns := monoNanos() - start
		c.E.countCall(ctx.looked, ctx.Spec != nil, ns)
		if ctx.Spec != nil {
			c.E.Stats.Commands++
			c.E.observeCall(ctx, q, ns)
		}
		c.E.putCtx(ctx)
	}
	c.DB = c.E.DBs[cl.DB]
	c.E.DiscardTransaction(cl)
}

func discardCommand(c *Ctx, args [][]byte) {
	if !c.C.multi.active {
		c.Error(ErrDiscardNoMulti)
		return
	}
	c.E.DiscardTransaction(c.C)
	c.W.OK()
}

func watchCommand(c *Ctx, args [][]byte) {
	if c.C.multi.active {
		c.Error(ErrWatchInMulti)
		return
	}
	// No point in watching if the client is already dirty.
	if !c.C.multi.dirty {
		for _, k := range args[1:] {
			c.watchForKey(k)
		}
	}
	c.W.OK()
}

func unwatchCommand(c *Ctx, args [][]byte) {
	c.E.unwatchAll(c.C)
	c.E.dropForwardedWatch(c.C)
	c.C.multi.dirty = false
	c.W.OK()
}
