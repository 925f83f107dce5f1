package commands

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/longdouble"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// Hash commands, as Redis 7.0's t_hash.c. Redisson keeps every lock in a
// hash (lockName -> {"uuid:threadId": reentryCount}), so HINCRBY, HEXISTS
// and HSET on one-field hashes are the hot path: they allocate nothing
// beyond the stored strings (see store.Hash).

var hashCommands = []*engine.Spec{
	{Name: "hset", Arity: -4, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate)}, ACL: []string{"hash"}, Fn: hset},
	{Name: "hsetnx", Arity: 4, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyInsert)}, ACL: []string{"hash"}, Fn: hsetnx},
	{Name: "hget", Arity: 3, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"hash"}, Fn: hget},
	{Name: "hmset", Arity: -4, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate)}, ACL: []string{"hash"}, Fn: hmset},
	{Name: "hmget", Arity: -3, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"hash"}, Fn: hmget},
	{Name: "hincrby", Arity: 4, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyUpdate)}, ACL: []string{"hash"}, Fn: hincrby},
	{Name: "hincrbyfloat", Arity: 4, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyUpdate)}, ACL: []string{"hash"}, Fn: hincrbyfloat},
	{Name: "hdel", Arity: -3, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyDelete)}, ACL: []string{"hash"}, Fn: hdel},
	{Name: "hlen", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO)}, ACL: []string{"hash"}, Fn: hlen},
	{Name: "hstrlen", Arity: 3, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO)}, ACL: []string{"hash"}, Fn: hstrlen},
	{Name: "hkeys", Arity: 2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"hash"}, ScriptSort: engine.SortElements, Tips: []string{"nondeterministic_output_order"}, Fn: hkeys},
	{Name: "hvals", Arity: 2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"hash"}, ScriptSort: engine.SortElements, Tips: []string{"nondeterministic_output_order"}, Fn: hvals},
	{Name: "hgetall", Arity: 2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"hash"}, ScriptSort: engine.SortPairs, Tips: []string{"nondeterministic_output_order"}, Fn: hgetall},
	{Name: "hexists", Arity: 3, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO)}, ACL: []string{"hash"}, Fn: hexists},
	{Name: "hscan", Arity: -3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"hash"}, Tips: []string{"nondeterministic_output"}, Fn: hscan},
	{Name: "hrandfield", Arity: -2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"hash"}, Tips: []string{"nondeterministic_output"}, Fn: hrandfield},
}

func init() { engine.Register(hashCommands) }

// ---- hash helpers ----

// readHash returns key's hash for reading: h == nil with ok when the key is
// missing; ok == false after replying WRONGTYPE.
func readHash(c *engine.Ctx, key []byte) (*store.Hash, bool) {
	return engine.LookupAs[*store.Hash](c, key, false)
}

// writeHash is Redis's hashTypeLookupWriteOrCreate: the key's hash, or a
// new empty one added to the keyspace (firing "new"); nil after replying
// WRONGTYPE.
func writeHash(c *engine.Ctx, key []byte) *store.Hash {
	e := c.LookupWrite(key)
	if e == nil {
		h := store.NewHash()
		c.DB.Set(string(key), h, 0, c.NewAccess())
		c.Notify(config.NotifyNew, "new", key)
		return h
	}
	if h, ok := e.Value.(*store.Hash); ok {
		return h
	}
	c.WrongType()
	return nil
}

func hashSet(c *engine.Ctx, h *store.Hash, field, value []byte) bool {
	cfg := c.E.Config
	return h.Set(field, value, cfg.HashMaxListpackEntries, cfg.HashMaxListpackValue)
}

// rnd is the engine's randomness as the store's sampling functions take it.
func rnd(c *engine.Ctx) func(n uint64) uint64 { return c.E.Rand.Uint64N }

// ---- hash commands ----

// hset is HSET and HMSET (which replies +OK).
// hset answers the number of fields created.
func hset(c *engine.Ctx, args [][]byte) { hsetGeneric(c, args, false) }

// hmset is HSET answering +OK.
func hmset(c *engine.Ctx, args [][]byte) { hsetGeneric(c, args, true) }

// hsetGeneric is hsetCommand: it sets the field/value pairs, answers, then
// signals the change, as Redis does.
func hsetGeneric(c *engine.Ctx, args [][]byte, replyOK bool) {
	if len(args)%2 == 1 {
		c.Error(engine.ErrWrongArgs(c.Spec.Name))
		return
	}
	h := writeHash(c, args[1])
	if h == nil {
		return
	}
	created := 0
	for i := 2; i < len(args); i += 2 {
		if hashSet(c, h, args[i], args[i+1]) {
			created++
		}
	}
	if replyOK {
		c.W.OK()
	} else {
		c.W.Int(int64(created))
	}
	c.Modified(args[1])
	c.Notify(config.NotifyHash, "hset", args[1])
}

func hsetnx(c *engine.Ctx, args [][]byte) {
	h := writeHash(c, args[1])
	if h == nil {
		return
	}
	if h.Exists(args[2]) {
		c.W.Int(0)
		return
	}
	hashSet(c, h, args[2], args[3])
	c.W.Int(1)
	c.Modified(args[1])
	c.Notify(config.NotifyHash, "hset", args[1])
}

func hget(c *engine.Ctx, args [][]byte) {
	h, ok := readHash(c, args[1])
	if !ok {
		return
	}
	if h != nil {
		if v, found := h.Get(args[2]); found {
			c.W.Bulk(v)
			return
		}
	}
	c.W.Null()
}

func hmget(c *engine.Ctx, args [][]byte) {
	h, ok := readHash(c, args[1])
	if !ok {
		return
	}
	c.W.Array(len(args) - 2)
	for _, f := range args[2:] {
		if h != nil {
			if v, found := h.Get(f); found {
				c.W.Bulk(v)
				continue
			}
		}
		c.W.Null()
	}
}

func hincrby(c *engine.Ctx, args [][]byte) {
	incr, ok := redisnum.ParseInt(args[3])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	h := writeHash(c, args[1])
	if h == nil {
		return
	}
	var value int64
	if v, found := h.Get(args[2]); found {
		if value, ok = redisnum.ParseInt(v); !ok {
			c.Error(engine.ErrHashNotInt)
			return
		}
	}
	if (incr < 0 && value < 0 && incr < minInt64-value) ||
		(incr > 0 && value > 0 && incr > maxInt64-value) {
		c.Error(engine.ErrOverflow)
		return
	}
	value += incr
	var buf [24]byte
	hashSet(c, h, args[2], strconv.AppendInt(buf[:0], value, 10))
	c.W.Int(value)
	c.Modified(args[1])
	c.Notify(config.NotifyHash, "hincrby", args[1])
}

const (
	maxInt64 = 1<<63 - 1
	minInt64 = -1 << 63
)

func hincrbyfloat(c *engine.Ctx, args [][]byte) {
	incr, ok := longdouble.Parse(args[3])
	if !ok {
		c.Error(engine.ErrNotFloat)
		return
	}
	if longdouble.IsInf(incr) {
		c.Error(engine.ErrNaNOrInf)
		return
	}
	h := writeHash(c, args[1])
	if h == nil {
		return
	}
	value := longdouble.FromInt(0)
	if v, found := h.Get(args[2]); found {
		if value, ok = longdouble.Parse(v); !ok {
			c.Error(engine.ErrHashNotFloat)
			return
		}
	}
	sum, ok := longdouble.Add(value, incr)
	if !ok {
		c.Error(engine.ErrIncrNaNInf)
		return
	}
	out := longdouble.AppendHuman(nil, sum)
	hashSet(c, h, args[2], out)
	c.W.Bulk(out)
	c.Modified(args[1])
	c.Notify(config.NotifyHash, "hincrbyfloat", args[1])
}

func hdel(c *engine.Ctx, args [][]byte) {
	e := c.LookupWrite(args[1])
	if e == nil {
		c.W.Int(0)
		return
	}
	h, ok := e.Value.(*store.Hash)
	if !ok {
		c.WrongType()
		return
	}
	deleted, removed := 0, false
	for _, f := range args[2:] {
		if h.Delete(f) {
			deleted++
			if h.Len() == 0 {
				c.DB.Delete(string(args[1]))
				removed = true
				break
			}
		}
	}
	if deleted > 0 {
		c.Modified(args[1])
		c.Notify(config.NotifyHash, "hdel", args[1])
		if removed {
			c.Notify(config.NotifyGeneric, "del", args[1])
		}
	}
	c.W.Int(int64(deleted))
}

func hlen(c *engine.Ctx, args [][]byte) {
	h, ok := readHash(c, args[1])
	if !ok {
		return
	}
	if h == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(h.Len()))
}

func hstrlen(c *engine.Ctx, args [][]byte) {
	h, ok := readHash(c, args[1])
	if !ok {
		return
	}
	n := 0
	if h != nil {
		v, _ := h.Get(args[2])
		n = len(v)
	}
	c.W.Int(int64(n))
}

func hexists(c *engine.Ctx, args [][]byte) {
	h, ok := readHash(c, args[1])
	if !ok {
		return
	}
	if h != nil && h.Exists(args[2]) {
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

const (
	hgetKeys = 1 << iota
	hgetVals
)

// hgetallGeneric is Redis's genericHgetallCommand.
func hgetallGeneric(c *engine.Ctx, key []byte, what int) {
	h, ok := readHash(c, key)
	if !ok {
		return
	}
	n := 0
	if h != nil {
		n = h.Len()
	}
	if what == hgetKeys|hgetVals {
		c.W.Map(n)
	} else {
		c.W.Array(n)
	}
	if h == nil {
		return
	}
	h.Range(func(f, v []byte) bool {
		if what&hgetKeys != 0 {
			c.W.Bulk(f)
		}
		if what&hgetVals != 0 {
			c.W.Bulk(v)
		}
		return true
	})
}

func hkeys(c *engine.Ctx, args [][]byte)   { hgetallGeneric(c, args[1], hgetKeys) }
func hvals(c *engine.Ctx, args [][]byte)   { hgetallGeneric(c, args[1], hgetVals) }
func hgetall(c *engine.Ctx, args [][]byte) { hgetallGeneric(c, args[1], hgetKeys|hgetVals) }

// parseRandCount parses the count of HRANDFIELD/SRANDMEMBER as Redis's
// getRangeLongFromObjectOrReply(-LONG_MAX, LONG_MAX).
func parseRandCount(c *engine.Ctx, b []byte) (int64, bool) {
	n, ok := redisnum.ParseInt(b)
	if !ok {
		c.Error(engine.ErrNotInt)
		return 0, false
	}
	if n == minInt64 {
		c.Error(engine.ErrLongMaxRange)
		return 0, false
	}
	return n, true
}

func hrandfield(c *engine.Ctx, args [][]byte) {
	if len(args) >= 3 {
		l, ok := parseRandCount(c, args[2])
		if !ok {
			return
		}
		withValues := false
		if len(args) > 4 || (len(args) == 4 && !cstr.EqualFold(args[3], "withvalues")) {
			c.Error(engine.ErrSyntax)
			return
		} else if len(args) == 4 {
			withValues = true
			if l < -maxInt64/2 || l > maxInt64/2 {
				c.Error(engine.ErrValueRange)
				return
			}
		}
		hrandfieldCount(c, args[1], l, withValues)
		return
	}
	h, ok := readHash(c, args[1])
	if !ok {
		return
	}
	if h == nil {
		c.W.Null()
		return
	}
	if c.Replicated() {
		fs, _ := stableHashPairs(h)
		c.W.Bulk(fs[c.E.Rand.Uint64N(uint64(len(fs)))])
		return
	}
	f, _ := h.Random(rnd(c))
	c.W.Bulk(f)
}

// stableHashPairs returns views of h's fields and values ordered by field:
// inside a replicated op HRANDFIELD draws from this order with the entry's
// seed, so every node picks the same fields although their hash tables
// differ in layout (as SPOP and SRANDMEMBER do with store.Set.RandomStable).
func stableHashPairs(h *store.Hash) (fs, vs [][]byte) {
	fs, vs = hashPairs(h)
	idx := make([]int, len(fs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return bytes.Compare(fs[a], fs[b]) })
	sf, sv := make([][]byte, len(fs)), make([][]byte, len(fs))
	for i, j := range idx {
		sf[i], sv[i] = fs[j], vs[j]
	}
	return sf, sv
}

// hashPairs returns views of every field and value of h.
func hashPairs(h *store.Hash) (fs, vs [][]byte) {
	n := h.Len()
	fs, vs = make([][]byte, 0, n), make([][]byte, 0, n)
	h.Range(func(f, v []byte) bool {
		fs = append(fs, f)
		vs = append(vs, v)
		return true
	})
	return fs, vs
}

func hrandfieldCount(c *engine.Ctx, key []byte, l int64, withValues bool) {
	e := c.Lookup(key)
	if e == nil {
		c.W.Array(0)
		return
	}
	h, ok := e.Value.(*store.Hash)
	if !ok {
		c.WrongType()
		return
	}
	size := uint64(h.Len())
	uniq := l >= 0
	count := uint64(l)
	if !uniq {
		count = uint64(-l)
	}
	if count == 0 {
		c.W.Array(0)
		return
	}
	resp3 := c.W.Resp3()
	header := func(n uint64) {
		if withValues && !resp3 {
			c.W.Array(int(2 * n))
		} else {
			c.W.Array(int(n))
		}
	}
	pair := func(f, v []byte) {
		if withValues && resp3 {
			c.W.Array(2)
		}
		c.W.Bulk(f)
		if withValues {
			c.W.Bulk(v)
		}
	}
	rnd := rnd(c)
	if c.Replicated() {
		// Layout-independent: the same CASEs over the pairs in field order.
		fs, vs := stableHashPairs(h)
		if uniq {
			count = min(count, size)
		}
		header(count)
		for i := uint64(0); i < count; i++ {
			if !uniq {
				j := rnd(size)
				pair(fs[j], vs[j])
				continue
			}
			j := i + rnd(size-i)
			fs[i], fs[j] = fs[j], fs[i]
			vs[i], vs[j] = vs[j], vs[i]
			pair(fs[i], vs[i])
		}
		return
	}
	// CASE 1: negative count (or 1): sample with repetition.
	if !uniq || count == 1 {
		header(count)
		if h.Encoding() == "listpack" && count > 1 {
			// Index the pairs once instead of walking the listpack per pick.
			fs, vs := hashPairs(h)
			for ; count > 0; count-- {
				i := rnd(size)
				pair(fs[i], vs[i])
			}
			return
		}
		for ; count > 0; count-- {
			pair(h.Random(rnd))
		}
		return
	}
	// CASE 2: the whole hash.
	if count >= size {
		header(size)
		h.Range(func(f, v []byte) bool { pair(f, v); return true })
		return
	}
	header(count)
	// CASE 3: most of the hash: shuffle all pairs, keep count.
	if count*3 > size {
		fs, vs := hashPairs(h)
		for i := uint64(0); i < count; i++ {
			j := i + rnd(size-i)
			fs[i], fs[j] = fs[j], fs[i]
			vs[i], vs[j] = vs[j], vs[i]
			pair(fs[i], vs[i])
		}
		return
	}
	// CASE 4: few of many: sample until count distinct fields.
	seen := make(map[string]struct{}, count)
	for uint64(len(seen)) < count {
		f, v := h.Random(rnd)
		if _, dup := seen[string(f)]; dup {
			continue
		}
		seen[string(f)] = struct{}{}
		pair(f, v)
	}
}

func hscan(c *engine.Ctx, args [][]byte) {
	scanElements(c, args, 2, func(h *store.Hash, cursor uint64, count int64, add func(...[]byte)) uint64 {
		collect := func(f, v []byte) { add(f, v) }
		if h.Encoding() != "hashtable" {
			return h.Scan(cursor, collect) // a listpack in one call, as Redis
		}
		n := 0
		return ScanLoop(cursor, count, func() int { return n }, func(cur uint64) uint64 {
			return h.Scan(cur, func(f, v []byte) { n += 2; add(f, v) })
		})
	})
}
