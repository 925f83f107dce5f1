package commands

import (
	"math"
	"sort"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/glob"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/stablehash"
	"github.com/lockkv/lockkv/store"
)

// Generic key commands: Redis's db.c and expire.c.

var keyCommands = []*engine.Spec{
	{Name: "del", Arity: -2, Flags: engine.Write, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRM | engine.KeyDelete, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"}, Fn: del},
	{Name: "unlink", Arity: -2, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRM | engine.KeyDelete, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"}, Fn: del},
	{Name: "exists", Arity: -2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"}, Fn: exists},
	{Name: "type", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO)}, ACL: []string{"keyspace"}, Fn: typeCmd},
	{Name: "keys", Arity: 2, Flags: engine.ReadOnly, ACL: []string{"keyspace", "dangerous"}, ScriptSort: engine.SortElements, Tips: []string{"request_policy:all_shards", "nondeterministic_output_order"}, Fn: keysCmd},
	{Name: "scan", Arity: -2, Flags: engine.ReadOnly, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output", "request_policy:special"}, Fn: scan},
	{Name: "rename", Arity: 3, Flags: engine.Write, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete), {Flags: engine.KeyOW | engine.KeyUpdate, Pos: 2, KeyStep: 1}}, ACL: []string{"keyspace"}, Fn: rename},
	{Name: "renamenx", Arity: 3, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete), {Flags: engine.KeyOW | engine.KeyInsert, Pos: 2, KeyStep: 1}}, ACL: []string{"keyspace"}, Fn: renamenx},
	{Name: "move", Arity: 3, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyUpdate)}, ACL: []string{"keyspace"}, Fn: move},
	{Name: "copy", Arity: -3, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess), {Flags: engine.KeyOW | engine.KeyUpdate, Pos: 2, KeyStep: 1}}, ACL: []string{"keyspace"}, Fn: copyCmd},
	{Name: "dbsize", Arity: 1, Flags: engine.ReadOnly | engine.Fast, ACL: []string{"keyspace"}, Tips: []string{"request_policy:all_shards", "response_policy:agg_sum"}, Fn: dbsize},
	{Name: "flushdb", Arity: -1, Flags: engine.Write, ACL: []string{"keyspace", "dangerous"}, Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"}, Fn: flushdb},
	{Name: "flushall", Arity: -1, Flags: engine.Write, ACL: []string{"keyspace", "dangerous"}, Tips: []string{"request_policy:all_shards", "response_policy:all_succeeded"}, Fn: flushall},
	{Name: "swapdb", Arity: 3, Flags: engine.Write | engine.Fast, ACL: []string{"keyspace", "dangerous"}, Fn: swapdb},
	{Name: "randomkey", Arity: 1, Flags: engine.ReadOnly, ACL: []string{"keyspace"}, Tips: []string{"request_policy:all_shards", "nondeterministic_output"}, Fn: randomkey},
	{Name: "expire", Arity: -3, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate)}, ACL: []string{"keyspace"}, Fn: expire},
	{Name: "pexpire", Arity: -3, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate)}, ACL: []string{"keyspace"}, Fn: pexpire},
	{Name: "expireat", Arity: -3, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate)}, ACL: []string{"keyspace"}, Fn: expireat},
	{Name: "pexpireat", Arity: -3, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate)}, ACL: []string{"keyspace"}, Fn: pexpireat},
	{Name: "ttl", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output"}, Fn: ttl},
	{Name: "pttl", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"keyspace"}, Tips: []string{"nondeterministic_output"}, Fn: pttl},
	{Name: "expiretime", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"keyspace"}, Fn: expiretime},
	{Name: "pexpiretime", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"keyspace"}, Fn: pexpiretime},
	{Name: "persist", Arity: 2, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate)}, ACL: []string{"keyspace"}, Fn: persist},
	{Name: "touch", Arity: -2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"keyspace"}, Tips: []string{"request_policy:multi_shard", "response_policy:agg_sum"}, Fn: touch},
}

func init() { engine.Register(keyCommands) }

// ---- key helpers ----

// notifyNew fires the "new" event Redis's dbAdd fires whenever a key is
// created (class 'n', off unless asked for explicitly).
func notifyNew(c *engine.Ctx, key []byte) { c.Notify(config.NotifyNew, "new", key) }

// ---- handlers, in Redis doc order ----

// del is DEL and UNLINK (lockkv frees synchronously either way).
func del(c *engine.Ctx, args [][]byte) {
	n := int64(0)
	for _, key := range args[1:] {
		if c.ExpireIfNeeded(key) == nil {
			continue
		}
		c.DB.Delete(string(key))
		c.Modified(key)
		c.Notify(config.NotifyGeneric, "del", key)
		n++
	}
	c.W.Int(n)
}

func exists(c *engine.Ctx, args [][]byte) {
	n := int64(0)
	for _, key := range args[1:] {
		if c.LookupNoTouch(key) != nil {
			n++
		}
	}
	c.W.Int(n)
}

func typeCmd(c *engine.Ctx, args [][]byte) {
	e := c.LookupNoTouch(args[1])
	if e == nil {
		c.W.Status("none")
		return
	}
	c.W.Status(e.Value.Type().String())
}

func keysCmd(c *engine.Ctx, args [][]byte) {
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

func scan(c *engine.Ctx, args [][]byte) {
	cursor, ok := scanCursor(c, args[1])
	if !ok {
		return
	}
	opts, ok := scanOptions(c, args[2:], true)
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
func scanKeys(c *engine.Ctx, cursor uint64, count int64) (uint64, []string) {
	var keys []string
	if c.Replicated() {
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

func renameGeneric(c *engine.Ctx, args [][]byte, nx bool) {
	src, dst := args[1], args[2]
	same := string(src) == string(dst)
	e := c.LookupWrite(src)
	if e == nil {
		c.Error(engine.ErrNoSuchKey)
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
	if c.LookupWriteIn(c.C.DB, d) != nil {
		if nx {
			c.W.Int(0)
			return
		}
		c.DB.Delete(d)
	}
	ne := c.DB.Set(d, v, expire, c.NewAccess())
	ne.Access = access
	c.ReadyIfBlockable(c.C.DB, d, v)
	notifyNew(c, dst)
	c.DB.Delete(string(src))
	c.Modified(src)
	c.ModifiedIn(c.C.DB, d)
	c.Notify(config.NotifyGeneric, "rename_from", src)
	c.Notify(config.NotifyGeneric, "rename_to", dst)
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

func rename(c *engine.Ctx, args [][]byte)   { renameGeneric(c, args, false) }
func renamenx(c *engine.Ctx, args [][]byte) { renameGeneric(c, args, true) }

func move(c *engine.Ctx, args [][]byte) {
	dbid, ok := c.ParseDBIndex(args[2])
	if !ok {
		return
	}
	src := c.C.DB
	if dbid == src {
		c.Error(engine.ErrSameObject)
		return
	}
	key := string(args[1])
	e := c.LookupWrite(args[1])
	if e == nil {
		c.W.Int(0)
		return
	}
	if c.LookupWriteIn(dbid, key) != nil {
		c.W.Int(0)
		return
	}
	ne := c.E.DBs[dbid].Set(key, e.Value, e.Expire, c.NewAccess())
	ne.Access = e.Access
	c.ReadyIfBlockable(dbid, key, e.Value)
	c.NotifyIn(dbid, config.NotifyNew, "new", key)
	c.DB.Delete(key)
	c.Modified(args[1])
	c.ModifiedIn(dbid, key)
	c.Notify(config.NotifyGeneric, "move_from", args[1])
	c.NotifyIn(dbid, config.NotifyGeneric, "move_to", key)
	c.W.Int(1)
}

func copyCmd(c *engine.Ctx, args [][]byte) {
	dbid := c.C.DB
	replace := false
	for j := 3; j < len(args); j++ {
		switch {
		case cstr.EqualFold(cstr.CString(args[j]), "replace"):
			replace = true
		case cstr.EqualFold(cstr.CString(args[j]), "db") && j+1 < len(args):
			id, ok := c.ParseDBIndex(args[j+1])
			if !ok {
				return
			}
			dbid = id
			j++
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	}
	src, dst := args[1], args[2]
	if dbid == c.C.DB && string(src) == string(dst) {
		c.Error(engine.ErrSameObject)
		return
	}
	e := c.Lookup(src)
	if e == nil {
		c.W.Int(0)
		return
	}
	d := string(dst)
	exists := c.LookupWriteIn(dbid, d) != nil
	if exists && !replace {
		c.W.Int(0)
		return
	}
	cl, ok := e.Value.(store.Cloner)
	if !ok {
		c.Error(engine.ErrUnknownTypeObject)
		return
	}
	ddb := c.E.DBs[dbid]
	if exists {
		ddb.Delete(d)
	}
	nv := cl.Clone()
	ddb.Set(d, nv, e.Expire, c.NewAccess())
	c.ReadyIfBlockable(dbid, d, nv)
	c.NotifyIn(dbid, config.NotifyNew, "new", d)
	c.E.Stats.Dirty++
	c.ModifiedIn(dbid, d)
	c.NotifyIn(dbid, config.NotifyGeneric, "copy_to", d)
	c.W.Int(1)
}

func dbsize(c *engine.Ctx, args [][]byte) { c.W.Int(int64(c.DB.Len())) }

// flushArgs parses FLUSHDB/FLUSHALL's optional ASYNC|SYNC.
func flushArgs(c *engine.Ctx, args [][]byte) bool {
	if len(args) == 1 || (len(args) == 2 && (cstr.EqualFold(cstr.CString(args[1]), "sync") || cstr.EqualFold(cstr.CString(args[1]), "async"))) {
		return true
	}
	c.Error(engine.ErrSyntax)
	return false
}

func flushdb(c *engine.Ctx, args [][]byte) {
	if !flushArgs(c, args) {
		return
	}
	c.E.Stats.Dirty += int64(c.FlushDB(c.C.DB))
	c.W.OK()
}

func flushall(c *engine.Ctx, args [][]byte) {
	if !flushArgs(c, args) {
		return
	}
	n := c.FlushAll()
	c.E.Stats.Dirty += int64(n) + 1
	c.W.OK()
}

func swapdb(c *engine.Ctx, args [][]byte) {
	a, ok := redisnum.ParseInt32(args[1])
	if !ok {
		c.Error(engine.ErrInvalidDBIndex)
		return
	}
	b, ok := redisnum.ParseInt32(args[2])
	if !ok {
		c.Error(engine.ErrInvalidDBIndex2)
		return
	}
	n := len(c.E.DBs)
	if a < 0 || a >= n || b < 0 || b >= n {
		c.Error(engine.ErrDBIndex)
		return
	}
	if a != b {
		c.SwapDB(a, b)
	}
	c.E.Stats.Dirty++
	c.W.OK()
}

func randomkey(c *engine.Ctx, args [][]byte) {
	rnd := func(n uint64) uint64 { return c.E.Rand.Uint64N(n) }
	if c.Replicated() {
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
func expireGeneric(c *engine.Ctx, args [][]byte, base int64, unitSec bool) {
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
			c.Error(engine.ErrUnsupportedOption(opt))
			return
		}
	}
	if flags&expireNX != 0 && flags&(expireXX|expireGT|expireLT) != 0 {
		c.Error(engine.ErrInvalidExpireNX)
		return
	}
	if flags&expireGT != 0 && flags&expireLT != 0 {
		c.Error(engine.ErrInvalidExpireGL)
		return
	}
	when, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	if unitSec {
		if when > math.MaxInt64/1000 || when < math.MinInt64/1000 {
			c.Error(engine.ErrInvalidExpireTime(c.Spec.FullName()))
			return
		}
		when *= 1000
	}
	if when > math.MaxInt64-base {
		c.Error(engine.ErrInvalidExpireTime(c.Spec.FullName()))
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

func expire(c *engine.Ctx, args [][]byte)    { expireGeneric(c, args, c.Now, true) }
func pexpire(c *engine.Ctx, args [][]byte)   { expireGeneric(c, args, c.Now, false) }
func expireat(c *engine.Ctx, args [][]byte)  { expireGeneric(c, args, 0, true) }
func pexpireat(c *engine.Ctx, args [][]byte) { expireGeneric(c, args, 0, false) }

// ttlGeneric is TTL, PTTL, EXPIRETIME and PEXPIRETIME: -2 for a missing
// key, -1 without a deadline.
func ttlGeneric(c *engine.Ctx, key []byte, ms, abs bool) {
	e := c.LookupNoTouch(key)
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

func ttl(c *engine.Ctx, args [][]byte)         { ttlGeneric(c, args[1], false, false) }
func pttl(c *engine.Ctx, args [][]byte)        { ttlGeneric(c, args[1], true, false) }
func expiretime(c *engine.Ctx, args [][]byte)  { ttlGeneric(c, args[1], false, true) }
func pexpiretime(c *engine.Ctx, args [][]byte) { ttlGeneric(c, args[1], true, true) }

func persist(c *engine.Ctx, args [][]byte) {
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

func touch(c *engine.Ctx, args [][]byte) {
	n := int64(0)
	for _, key := range args[1:] {
		if c.Touch(key) != nil {
			n++
		}
	}
	c.W.Int(n)
}
