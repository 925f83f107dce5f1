package engine

import (
	"math"
	"sort"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/glob"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/stablehash"
	"github.com/lockkv/lockkv/store"
)

// Generic key commands: Redis's db.c and expire.c.

var keyCommands = []*Spec{
	{Name: "del", Arity: -2, Flags: Write, KeySpecs: []KeySpec{{Flags: KeyRM | KeyDelete, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"}, Fn: del},
	{Name: "unlink", Arity: -2, Flags: Write | Fast, KeySpecs: []KeySpec{{Flags: KeyRM | KeyDelete, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"}, Fn: del},
	{Name: "exists", Arity: -2, Flags: ReadOnly | Fast, KeySpecs: []KeySpec{{Flags: KeyRO, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"}, Fn: exists},
	{Name: "type", Arity: 2, Flags: ReadOnly | Fast, KeySpecs: []KeySpec{Key1(KeyRO)}, ACL: []string{"keyspace"}, Fn: typeCmd},
	{Name: "keys", Arity: 2, Flags: ReadOnly, ACL: []string{"keyspace", "dangerous"}, ScriptSort: SortElements, Tips: []string{"request_policy:all_shards", "nondeterministic_output_order"}, Fn: keysCmd},
	{Name: "scan", Arity: -2, Flags: ReadOnly, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output", "request_policy:special"}, Fn: scan},
	{Name: "rename", Arity: 3, Flags: Write, KeySpecs: []KeySpec{Key1(KeyRW | KeyAccess | KeyDelete), {Flags: KeyOW | KeyUpdate, Pos: 2, KeyStep: 1}}, ACL: []string{"keyspace"}, Fn: rename},
	{Name: "renamenx", Arity: 3, Flags: Write | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyAccess | KeyDelete), {Flags: KeyOW | KeyInsert, Pos: 2, KeyStep: 1}}, ACL: []string{"keyspace"}, Fn: renamenx},
	{Name: "move", Arity: 3, Flags: Write | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyAccess | KeyUpdate)}, ACL: []string{"keyspace"}, Fn: move},
	{Name: "copy", Arity: -3, Flags: Write | DenyOOM, KeySpecs: []KeySpec{Key1(KeyRO | KeyAccess), {Flags: KeyOW | KeyUpdate, Pos: 2, KeyStep: 1}}, ACL: []string{"keyspace"}, Fn: copyCmd},
	{Name: "dbsize", Arity: 1, Flags: ReadOnly | Fast, ACL: []string{"keyspace"}, Tips: []string{"request_policy:all_shards", "response_policy:agg_sum"}, Fn: dbsize},
	{Name: "flushdb", Arity: -1, Flags: Write, ACL: []string{"keyspace", "dangerous"}, Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"}, Fn: flushdb},
	{Name: "flushall", Arity: -1, Flags: Write, ACL: []string{"keyspace", "dangerous"}, Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"}, Fn: flushall},
	{Name: "swapdb", Arity: 3, Flags: Write | Fast, ACL: []string{"keyspace", "dangerous"}, Fn: swapdb},
	{Name: "randomkey", Arity: 1, Flags: ReadOnly, ACL: []string{"keyspace"}, Tips: []string{"request_policy:all_shards", "nondeterministic_output"}, Fn: randomkey},
	{Name: "expire", Arity: -3, Flags: Write | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyUpdate)}, ACL: []string{"keyspace"}, Fn: expire},
	{Name: "pexpire", Arity: -3, Flags: Write | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyUpdate)}, ACL: []string{"keyspace"}, Fn: pexpire},
	{Name: "expireat", Arity: -3, Flags: Write | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyUpdate)}, ACL: []string{"keyspace"}, Fn: expireat},
	{Name: "pexpireat", Arity: -3, Flags: Write | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyUpdate)}, ACL: []string{"keyspace"}, Fn: pexpireat},
	{Name: "ttl", Arity: 2, Flags: ReadOnly | Fast, KeySpecs: []KeySpec{Key1(KeyRO | KeyAccess)}, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output"}, Fn: ttl},
	{Name: "pttl", Arity: 2, Flags: ReadOnly | Fast, KeySpecs: []KeySpec{Key1(KeyRO | KeyAccess)}, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output"}, Fn: pttl},
	{Name: "expiretime", Arity: 2, Flags: ReadOnly | Fast, KeySpecs: []KeySpec{Key1(KeyRO | KeyAccess)}, ACL: []string{"keyspace"}, Fn: expiretime},
	{Name: "pexpiretime", Arity: 2, Flags: ReadOnly | Fast, KeySpecs: []KeySpec{Key1(KeyRO | KeyAccess)}, ACL: []string{"keyspace"}, Fn: pexpiretime},
	{Name: "persist", Arity: 2, Flags: Write | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyUpdate)}, ACL: []string{"keyspace"}, Fn: persist},
	{Name: "touch", Arity: -2, Flags: ReadOnly | Fast, KeySpecs: []KeySpec{{Flags: KeyRO, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"}, Fn: touch},
}

func init() { Register(keyCommands) }

// ---- key helpers ----

// lookupNoTouch returns a live key without updating its access time
// (Redis's LOOKUP_NOTOUCH: TYPE, EXISTS, TTL...).
func (c *Ctx) lookupNoTouch(key []byte) *store.Entry {
	e := c.DB.Lookup(string(key), c.Now)
	if e == nil {
		c.readMiss(key)
		return nil
	}
	c.E.Stats.KeyspaceHits++
	return e
}

// lookupWriteIn is LookupWrite against database db: an expired key is
// reclaimed first, firing "expired" in that database.
func (c *Ctx) lookupWriteIn(db int, key string) *store.Entry {
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

// notifyNew fires the "new" event Redis's dbAdd fires whenever a key is
// created (class 'n', off unless asked for explicitly).
func (c *Ctx) notifyNew(key []byte) { c.Notify(config.NotifyNew, "new", key) }

// readyIfBlockable is the signalKeyAsReady of Redis's dbAdd: a list or
// sorted set that appears under key may serve clients blocked on it.
func (c *Ctx) readyIfBlockable(db int, key string, v store.Value) {
	if t := v.Type(); t == store.TypeList || t == store.TypeZSet {
		c.E.signalReady(db, key)
	}
}

// modifiedIn is Modified for a key of database db without counting a
// write (for the second key of RENAME and MOVE, which Redis counts once).
func (c *Ctx) modifiedIn(db int, key string) { c.E.signalModified(db, key) }

// dbIndex parses a database index as MOVE and COPY do, replying with the
// error and returning false when it is not an int or out of range.
func (c *Ctx) dbIndex(b []byte) (int, bool) {
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

// ---- handlers, in Redis doc order ----

// del is DEL and UNLINK (lockkv frees synchronously either way).
func del(c *Ctx, args [][]byte) {
	n := int64(0)
	for _, key := range args[1:] {
		if c.liveForWrite(key) == nil {
			continue
		}
		c.DB.Delete(string(key))
		c.Modified(key)
		c.Notify(config.NotifyGeneric, "del", key)
		n++
	}
	c.W.Int(n)
}

func exists(c *Ctx, args [][]byte) {
	n := int64(0)
	for _, key := range args[1:] {
		if c.lookupNoTouch(key) != nil {
			n++
		}
	}
	c.W.Int(n)
}

func typeCmd(c *Ctx, args [][]byte) {
	e := c.lookupNoTouch(args[1])
	if e == nil {
		c.W.Status("none")
		return
	}
	c.W.Status(e.Value.Type().String())
}

func keysCmd(c *Ctx, args [][]byte) {
	pat := args[1]
	all := glob.MatchAll(pat)
	var out []string
	c.DB.Range(func(key string, e *store.Entry) bool {
		if (all || glob.Match(pat, key, false)) && !e.Expired(c.Now) {
			out = append(out, key)
		}
		return true
	})
	c.W.StringArray(out)
}

func scan(c *Ctx, args [][]byte) {
	cursor, ok := c.ScanCursor(args[1])
	if !ok {
		return
	}
	opts, ok := c.ScanOptions(args[2:], true)
	if !ok {
		return
	}
	cursor, keys := scanKeys(c, cursor, opts.Count)
	out := keys[:0]
	for _, key := range keys {
		if !opts.MatchesString(key) {
			continue
		}
		e := c.DB.Lookup(key, c.Now)
		if opts.Type != nil {
			typ := "none"
			if e != nil {
				typ = e.Value.Type().String()
			}
			if !cstr.EqualFold(cstr.CString(opts.Type), typ) {
				continue
			}
		}
		if e == nil {
			continue // expired
		}
		out = append(out, key)
	}
	WriteScanStrings(c.W, cursor, out)
}

// scanKeys is one SCAN step of the current database from cursor: the
// next cursor and the keys the step visits (MATCH and TYPE not applied).
// A replicated server steps through the keys in their stable order, so
// that every node visits the same ones (stableScan).
func scanKeys(c *Ctx, cursor uint64, count int64) (uint64, []string) {
	var keys []string
	if c.replicated() {
		c.DB.Range(func(key string, _ *store.Entry) bool {
			keys = append(keys, key)
			return true
		})
		return stableScan(cursor, count, keys, func(k string) []byte { return []byte(k) })
	}
	cursor = ScanLoop(cursor, count, func() int { return len(keys) }, func(cur uint64) uint64 {
		return c.DB.Scan(cur, func(key string, e *store.Entry) {
			keys = append(keys, key)
		})
	})
	return cursor, keys
}

func renameGeneric(c *Ctx, args [][]byte, nx bool) {
	src, dst := args[1], args[2]
	same := string(src) == string(dst)
	e := c.LookupWrite(src)
	if e == nil {
		c.Error(ErrNoSuchKey)
		return
	}
	if same {
		if nx {
			c.W.Int(0)
		} else {
			c.W.OK()
		}
		return
	}
	v, expire, access := e.Value, e.Expire, e.Access
	d := string(dst)
	if c.lookupWriteIn(c.C.DB, d) != nil {
		if nx {
			c.W.Int(0)
			return
		}
		c.DB.Delete(d)
	}
	ne := c.DB.Set(d, v, expire, c.newAccess())
	ne.Access = access
	c.readyIfBlockable(c.C.DB, d, v)
	c.notifyNew(dst)
	c.DB.Delete(string(src))
	c.Modified(src)
	c.modifiedIn(c.C.DB, d)
	c.Notify(config.NotifyGeneric, "rename_from", src)
	c.Notify(config.NotifyGeneric, "rename_to", dst)
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

func rename(c *Ctx, args [][]byte)   { renameGeneric(c, args, false) }
func renamenx(c *Ctx, args [][]byte) { renameGeneric(c, args, true) }

func move(c *Ctx, args [][]byte) {
	dbid, ok := c.dbIndex(args[2])
	if !ok {
		return
	}
	src := c.C.DB
	if dbid == src {
		c.Error(ErrSameObject)
		return
	}
	key := string(args[1])
	e := c.LookupWrite(args[1])
	if e == nil {
		c.W.Int(0)
		return
	}
	if c.lookupWriteIn(dbid, key) != nil {
		c.W.Int(0)
		return
	}
	ne := c.E.DBs[dbid].Set(key, e.Value, e.Expire, c.newAccess())
	ne.Access = e.Access
	c.readyIfBlockable(dbid, key, e.Value)
	c.E.notify(dbid, config.NotifyNew, "new", key)
	c.DB.Delete(key)
	c.Modified(args[1])
	c.modifiedIn(dbid, key)
	c.Notify(config.NotifyGeneric, "move_from", args[1])
	c.E.notify(dbid, config.NotifyGeneric, "move_to", key)
	c.W.Int(1)
}

func copyCmd(c *Ctx, args [][]byte) {
	dbid := c.C.DB
	replace := false
	for j := 3; j < len(args); j++ {
		switch {
		case cstr.EqualFold(cstr.CString(args[j]), "replace"):
			replace = true
		case cstr.EqualFold(cstr.CString(args[j]), "db") && j+1 < len(args):
			id, ok := c.dbIndex(args[j+1])
			if !ok {
				return
			}
			dbid = id
			j++
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	src, dst := args[1], args[2]
	if dbid == c.C.DB && string(src) == string(dst) {
		c.Error(ErrSameObject)
		return
	}
	e := c.Lookup(src)
	if e == nil {
		c.W.Int(0)
		return
	}
	d := string(dst)
	exists := c.lookupWriteIn(dbid, d) != nil
	if exists && !replace {
		c.W.Int(0)
		return
	}
	cl, ok := e.Value.(store.Cloner)
	if !ok {
		c.Error(ErrUnknownTypeObject)
		return
	}
	ddb := c.E.DBs[dbid]
	if exists {
		ddb.Delete(d)
	}
	nv := cl.Clone()
	ddb.Set(d, nv, e.Expire, c.newAccess())
	c.readyIfBlockable(dbid, d, nv)
	c.E.notify(dbid, config.NotifyNew, "new", d)
	c.E.Stats.Dirty++
	c.modifiedIn(dbid, d)
	c.E.notify(dbid, config.NotifyGeneric, "copy_to", d)
	c.W.Int(1)
}

func dbsize(c *Ctx, args [][]byte) { c.W.Int(int64(c.DB.Len())) }

// flushArgs parses FLUSHDB/FLUSHALL's optional ASYNC|SYNC.
func flushArgs(c *Ctx, args [][]byte) bool {
	if len(args) == 1 || (len(args) == 2 && (cstr.EqualFold(cstr.CString(args[1]), "sync") || cstr.EqualFold(cstr.CString(args[1]), "async"))) {
		return true
	}
	c.Error(ErrSyntax)
	return false
}

// flushDB empties database db. Callers first call SignalFlushedDB, which
// breaks the WATCH of keys that go and invalidates client-side caches.
func (e *Engine) flushDB(db int) int {
	d := e.DBs[db]
	n := d.Len()
	d.Flush()
	return n
}

func flushdb(c *Ctx, args [][]byte) {
	if !flushArgs(c, args) {
		return
	}
	c.SignalFlushedDB(c.C.DB)
	c.E.Stats.Dirty += int64(c.E.flushDB(c.C.DB))
	c.W.OK()
}

func flushall(c *Ctx, args [][]byte) {
	if !flushArgs(c, args) {
		return
	}
	c.SignalFlushedDB(-1)
	n := 0
	for i := range c.E.DBs {
		n += c.E.flushDB(i)
	}
	c.E.Stats.Dirty += int64(n) + 1
	c.W.OK()
}

func swapdb(c *Ctx, args [][]byte) {
	a, ok := redisnum.ParseInt32(args[1])
	if !ok {
		c.Error(ErrInvalidDBIndex)
		return
	}
	b, ok := redisnum.ParseInt32(args[2])
	if !ok {
		c.Error(ErrInvalidDBIndex2)
		return
	}
	n := len(c.E.DBs)
	if a < 0 || a >= n || b < 0 || b >= n {
		c.Error(ErrDBIndex)
		return
	}
	if a != b {
		da, db := c.E.DBs[a], c.E.DBs[b]
		c.SignalSwapDB(a, b)
		da.Swap(db)
		c.E.signalReadyAll(a)
		c.E.signalReadyAll(b)
	}
	c.E.Stats.Dirty++
	c.W.OK()
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

func randomkey(c *Ctx, args [][]byte) {
	rnd := func(n uint64) uint64 { return c.E.Rand.Uint64N(n) }
	if c.replicated() {
		// Every node must name the same key although their keyspace tables
		// differ in layout: the live key with the smallest seeded hash
		// (O(keys), only inside replicated scripts and transactions).
		seed := c.E.Rand.Uint64()
		var best string
		var bestH uint64
		found := false
		c.DB.Range(func(key string, e *store.Entry) bool {
			if e.Expired(c.Now) {
				return true
			}
			h := stablehash.Hash(seed, []byte(key))
			if !found || h < bestH || (h == bestH && key < best) {
				best, bestH, found = key, h, true
			}
			return true
		})
		if !found {
			c.W.Null()
			return
		}
		c.W.BulkString(best)
		return
	}
	// Sample like Redis's dbRandomKey, skipping expired keys. Expired keys
	// are not reclaimed here (reads never delete); if sampling keeps
	// hitting them, pick among the live keys directly.
	for try := 0; try < 100; try++ {
		key, e, ok := c.DB.Random(rnd)
		if !ok {
			c.W.Null()
			return
		}
		if !e.Expired(c.Now) {
			c.W.BulkString(key)
			return
		}
	}
	var live []string
	c.DB.Range(func(key string, e *store.Entry) bool {
		if !e.Expired(c.Now) {
			live = append(live, key)
		}
		return true
	})
	if len(live) == 0 {
		c.W.Null()
		return
	}
	sort.Strings(live)
	c.W.BulkString(live[rnd(uint64(len(live)))])
}

// Expire flags (expire.c EXPIRE_*).
const (
	expireNX = 1 << iota
	expireXX
	expireGT
	expireLT
)

// expireGeneric is EXPIRE, PEXPIRE, EXPIREAT and PEXPIREAT: when is
// base + args[2] in seconds (unitSec) or milliseconds.
func expireGeneric(c *Ctx, args [][]byte, base int64, unitSec bool) {
	var flags int
	for _, opt := range args[3:] {
		o := cstr.CString(opt)
		switch {
		case cstr.EqualFold(o, "nx"):
			flags |= expireNX
		case cstr.EqualFold(o, "xx"):
			flags |= expireXX
		case cstr.EqualFold(o, "gt"):
			flags |= expireGT
		case cstr.EqualFold(o, "lt"):
			flags |= expireLT
		default:
			c.Error(ErrUnsupportedOption(opt))
			return
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		c.Error(ErrInvalidExpireNX)
		return
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		c.Error(ErrInvalidExpireGL)
		return
	}
	when, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if unitSec {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.Error(ErrInvalidExpireTime(c.Spec.FullName()))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-base {
		c.Error(ErrInvalidExpireTime(c.Spec.FullName()))
		return
	}
	when += base
	key := args[1]
	e := c.LookupWrite(key)
	if e == nil {
		c.W.Int(0)
		return
	}
	if flags != 0 {
		cur := e.Expire // 0: no deadline (Redis's -1)
		switch {
		case flags&expireNX != 0 && cur != 0,
			flags&expireXX != 0 && cur == 0,
			flags&expireGT != 0 && (cur == 0 || when <= cur),
			flags&expireLT != 0 && cur != 0 && when >= cur:
			c.W.Int(0)
			return
		}
	}
	if when <= c.Now {
		c.DB.Delete(string(key))
		c.Modified(key)
		c.Notify(config.NotifyGeneric, "del", key)
		c.W.Int(1)
		return
	}
	c.DB.SetExpire(string(key), when)
	c.W.Int(1)
	c.Modified(key)
	c.Notify(config.NotifyGeneric, "expire", key)
}

func expire(c *Ctx, args [][]byte)    { expireGeneric(c, args, c.Now, true) }
func pexpire(c *Ctx, args [][]byte)   { expireGeneric(c, args, c.Now, false) }
func expireat(c *Ctx, args [][]byte)  { expireGeneric(c, args, 0, true) }
func pexpireat(c *Ctx, args [][]byte) { expireGeneric(c, args, 0, false) }

// ttlGeneric is TTL, PTTL, EXPIRETIME and PEXPIRETIME: -2 for a missing
// key, -1 without a deadline.
func ttlGeneric(c *Ctx, key []byte, ms, abs bool) {
	e := c.lookupNoTouch(key)
	if e == nil {
		c.W.Int(-2)
		return
	}
	if e.Expire == 0 {
		c.W.Int(-1)
		return
	}
	t := e.Expire
	if !abs {
		t -= c.Now
	}
	if t < 0 {
		t = 0
	}
	if !ms {
		t = (t + 500) / 1000
	}
	c.W.Int(t)
}

func ttl(c *Ctx, args [][]byte)         { ttlGeneric(c, args[1], false, false) }
func pttl(c *Ctx, args [][]byte)        { ttlGeneric(c, args[1], true, false) }
func expiretime(c *Ctx, args [][]byte)  { ttlGeneric(c, args[1], false, true) }
func pexpiretime(c *Ctx, args [][]byte) { ttlGeneric(c, args[1], true, true) }

func persist(c *Ctx, args [][]byte) {
	e := c.LookupWrite(args[1])
	if e == nil || e.Expire == 0 {
		c.W.Int(0)
		return
	}
	c.DB.SetExpire(string(args[1]), 0)
	c.Modified(args[1])
	c.Notify(config.NotifyGeneric, "persist", args[1])
	c.W.Int(1)
}

func touch(c *Ctx, args [][]byte) {
	n := int64(0)
	for _, key := range args[1:] {
		if c.Touch(key) != nil {
			n++
		}
	}
	c.W.Int(n)
}
