package engine

import (
	"math"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// signalModified is Redis's signalModifiedKey: a write to key breaks the
// WATCH of every client watching it and invalidates client-side caches.
func (e *Engine) signalModified(db int, key string) {
	e.touchWatched(db, key)
	e.trackingInvalidate(key)
}

// signalNeeded reports whether signalModified can have any effect: some
// key is watched or client tracking holds state. Keep it in step with
// signalModified (Ctx.Modified skips the call, and copying the key, when
// it is false).
func (e *Engine) signalNeeded() bool {
	return len(e.watches.keys) > 0 || e.tracking.table != nil
}

func (e *Engine) initFeatures() {
	e.initPubSub()
	e.initWatches()
	e.initBlocking()
	e.initTracking()
}

// ParseDBIndex parses a database index as SELECT, MOVE and COPY do,
// replying with the error and returning false when it is not an int or
// out of range.
func (c *Ctx) ParseDBIndex(b []byte) (int, bool) {
	n, ok := redisnum.ParseInt(b)
	if !ok {
		c.Error(ErrNotInt)
		return 0, false
	}
	if n < math.MinInt32 || n > math.MaxInt32 {
		c.Error(ErrIntRange)
		return 0, false
	}
	id := int(n)
	if id < 0 || id >= len(c.E.DBs) {
		c.Error(ErrDBIndex)
		return 0, false
	}
	return id, true
}

// signalReadyAll marks every list and sorted set of database db as ready,
// so clients blocked on a key that SWAPDB brought in are served (Redis's
// scanDatabaseForReadyKeys).
func (e *Engine) signalReadyAll(db int) {
	e.DBs[db].Range(func(key string, en *store.Entry) bool {
		if t := en.Value.Type(); t == store.TypeList || t == store.TypeZSet {
			e.signalReady(db, key)
		}
		return true
	})
}

// LookupNoTouch returns a live key without updating its access time
// (Redis's LOOKUP_NOTOUCH: TYPE, EXISTS, TTL...).
func (c *Ctx) LookupNoTouch(key []byte) *store.Entry {
	e := c.DB.Lookup(string(key), c.Now)
	if e == nil {
		c.ReadMiss(key)
		return nil
	}
	c.E.Stats.KeyspaceHits++
	return e
}

// LookupWriteIn is LookupWrite against database db: an expired key is
// reclaimed first, firing "expired" in that database.
func (c *Ctx) LookupWriteIn(db int, key string) *store.Entry {
	d := c.E.DBs[db]
	if d.DeleteIfExpired(key, c.Now) {
		c.E.keyExpired(db, key)
	}
	e := d.Lookup(key, c.Now)
	if e != nil {
		c.touchKey(e) // lookupKeyWrite
	}
	return e
}

// ReadyIfBlockable is the signalKeyAsReady of Redis's dbAdd: a list or
// sorted set that appears under key may serve clients blocked on it.
func (c *Ctx) ReadyIfBlockable(db int, key string, v store.Value) {
	if t := v.Type(); t == store.TypeList || t == store.TypeZSet {
		c.E.signalReady(db, key)
	}
}

// ModifiedIn is Modified for a key of database db without counting a
// write (for the second key of RENAME and MOVE, which Redis counts once).
func (c *Ctx) ModifiedIn(db int, key string) { c.E.signalModified(db, key) }

// flushDB empties database db. Callers first call signalFlushedDB, which
// breaks the WATCH of keys that go and invalidates client-side caches.
func (e *Engine) flushDB(db int) int {
	d := e.DBs[db]
	n := d.Len()
	d.Flush()
	return n
}

// FlushDB empties database db (FLUSHDB) and returns the number of keys it
// held: the WATCH of keys that go breaks and client-side caches are told
// first, as Redis's signalFlushedDb.
func (c *Ctx) FlushDB(db int) int {
	c.signalFlushedDB(db)
	return c.E.flushDB(db)
}

// FlushAll empties every database (FLUSHALL) and returns the number of
// keys they held, signalling as FlushDB.
func (c *Ctx) FlushAll() int {
	c.signalFlushedDB(-1)
	n := 0
	for i := range c.E.DBs {
		n += c.E.flushDB(i)
	}
	return n
}

// SwapDB swaps databases a and b (SWAPDB, a != b): the WATCH of keys that
// change breaks first, and clients blocked on a key the swap brought in
// are served (Redis's dbSwapDatabases and scanDatabaseForReadyKeys).
func (c *Ctx) SwapDB(a, b int) {
	da, db := c.E.DBs[a], c.E.DBs[b]
	c.signalSwapDB(a, b)
	da.Swap(db)
	c.E.signalReadyAll(a)
	c.E.signalReadyAll(b)
}

// NotifyIn publishes a keyspace event for key of database db (MOVE and
// COPY into another database), as Notify does for the client's own.
func (c *Ctx) NotifyIn(db int, class config.NotifyClass, event, key string) {
	c.E.notify(db, class, event, key)
}
