package commands

import (
	"sort"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// Set commands, as Redis 7.0's t_set.c.

var setCommands = []*engine.Spec{
	{Name: "sadd", Arity: -3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyInsert)}, ACL: []string{"set"}, Fn: sadd},
	{Name: "srem", Arity: -3, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyDelete)}, ACL: []string{"set"}, Fn: srem},
	{Name: "sismember", Arity: 3, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO)}, ACL: []string{"set"}, Fn: sismember},
	{Name: "smismember", Arity: -3, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"set"}, Fn: smismember},
	{Name: "smembers", Arity: 2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"set"}, ScriptSort: engine.SortElements, Tips: []string{"nondeterministic_output_order"}, Fn: smembers},
	{Name: "scard", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO)}, ACL: []string{"set"}, Fn: scard},
	{Name: "spop", Arity: -2, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete)}, ACL: []string{"set"}, Tips: []string{"nondeterministic_output"}, Fn: spop},
	{Name: "srandmember", Arity: -2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"set"}, Tips: []string{"nondeterministic_output"}, Fn: srandmember},
	{Name: "smove", Arity: 4, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete), {Flags: engine.KeyRW | engine.KeyInsert, Pos: 2, KeyStep: 1}}, ACL: []string{"set"}, Fn: smove},
	{Name: "sinter", Arity: -2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO | engine.KeyAccess, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"set"}, ScriptSort: engine.SortElements, Tips: []string{"nondeterministic_output_order"}, Fn: sinter},
	{Name: "sintercard", Arity: -3, Flags: engine.ReadOnly, Keys: sintercardKeys, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO | engine.KeyAccess, Pos: 1, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"set"}, Fn: sintercard},
	{Name: "sinterstore", Arity: -3, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate), {Flags: engine.KeyRO | engine.KeyAccess, Pos: 2, LastKey: -1, KeyStep: 1}}, ACL: []string{"set"}, Fn: sinterstore},
	{Name: "sunion", Arity: -2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO | engine.KeyAccess, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"set"}, ScriptSort: engine.SortElements, Tips: []string{"nondeterministic_output_order"}, Fn: sunion},
	{Name: "sunionstore", Arity: -3, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyOW | engine.KeyUpdate), {Flags: engine.KeyRO | engine.KeyAccess, Pos: 2, LastKey: -1, KeyStep: 1}}, ACL: []string{"set"}, Fn: sunionstore},
	{Name: "sdiff", Arity: -2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO | engine.KeyAccess, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"set"}, ScriptSort: engine.SortElements, Tips: []string{"nondeterministic_output_order"}, Fn: sdiff},
	{Name: "sdiffstore", Arity: -3, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyOW | engine.KeyUpdate), {Flags: engine.KeyRO | engine.KeyAccess, Pos: 2, LastKey: -1, KeyStep: 1}}, ACL: []string{"set"}, Fn: sdiffstore},
	{Name: "sscan", Arity: -3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"set"}, Tips: []string{"nondeterministic_output"}, Fn: sscan},
}

func init() { engine.Register(setCommands) }

// ---- set helpers ----

// readSet returns key's set for reading: s == nil with ok when the key is
// missing; ok == false after replying WRONGTYPE.
func readSet(c *engine.Ctx, key []byte) (*store.Set, bool) {
	return engine.LookupAs[*store.Set](c, key, false)
}

// writeSet is readSet for writing (an expired key is reclaimed first).
func writeSet(c *engine.Ctx, key []byte) (*store.Set, bool) {
	return engine.LookupAs[*store.Set](c, key, true)
}

// setDeleteIfEmpty deletes key when s is empty, firing "del" after the
// command's own event, and reports whether it did.
func setDeleteIfEmpty(c *engine.Ctx, key []byte, s *store.Set) bool {
	if s.Len() > 0 {
		return false
	}
	c.DB.Delete(string(key))
	return true
}

// ---- set commands ----

func sadd(c *engine.Ctx, args [][]byte) {
	s, ok := writeSet(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		s = store.NewSet()
		c.DB.Set(string(args[1]), s, 0, c.NewAccess())
		c.Notify(config.NotifyNew, "new", args[1])
	}
	max := c.E.Config.SetMaxIntsetEntries
	added := 0
	for _, m := range args[2:] {
		if s.Add(m, max) {
			added++
		}
	}
	if added > 0 {
		c.Modified(args[1])
		c.Notify(config.NotifySet, "sadd", args[1])
	}
	c.W.Int(int64(added))
}

func srem(c *engine.Ctx, args [][]byte) {
	s, ok := writeSet(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	deleted, removed := 0, false
	for _, m := range args[2:] {
		if s.Remove(m) {
			deleted++
			if removed = setDeleteIfEmpty(c, args[1], s); removed {
				break
			}
		}
	}
	if deleted > 0 {
		c.Modified(args[1])
		c.Notify(config.NotifySet, "srem", args[1])
		if removed {
			c.Notify(config.NotifyGeneric, "del", args[1])
		}
	}
	c.W.Int(int64(deleted))
}

func sismember(c *engine.Ctx, args [][]byte) {
	s, ok := readSet(c, args[1])
	if !ok {
		return
	}
	if s != nil && s.Has(args[2]) {
		c.W.Int(1)
		return
	}
	c.W.Int(0)
}

func smismember(c *engine.Ctx, args [][]byte) {
	s, ok := readSet(c, args[1])
	if !ok {
		return
	}
	c.W.Array(len(args) - 2)
	for _, m := range args[2:] {
		if s != nil && s.Has(m) {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
	}
}

func smembers(c *engine.Ctx, args [][]byte) {
	s, ok := readSet(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Set(0)
		return
	}
	c.W.Set(s.Len())
	s.Range(func(m []byte) bool { c.W.Bulk(m); return true })
}

func scard(c *engine.Ctx, args [][]byte) {
	s, ok := readSet(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(s.Len()))
}

func spop(c *engine.Ctx, args [][]byte) {
	if len(args) == 3 {
		spopCount(c, args)
		return
	} else if len(args) > 3 {
		c.Error(engine.ErrSyntax)
		return
	}
	s, ok := writeSet(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
		return
	}
	m := popMember(c, s)
	c.Notify(config.NotifySet, "spop", args[1])
	c.W.Bulk(m)
	if setDeleteIfEmpty(c, args[1], s) {
		c.Notify(config.NotifyGeneric, "del", args[1])
	}
	c.Modified(args[1])
}

func spopCount(c *engine.Ctx, args [][]byte) {
	// getPositiveLongFromObjectOrReply: one message for both errors.
	n, ok := redisnum.ParseInt(args[2])
	if !ok || n < 0 {
		c.Error(engine.ErrCountPositive)
		return
	}
	s, ok := writeSet(c, args[1])
	if !ok {
		return
	}
	if s == nil || n == 0 {
		c.W.Set(0)
		return
	}
	count := uint64(n)
	size := uint64(s.Len())
	c.Notify(config.NotifySet, "spop", args[1])
	if count >= size {
		// The whole set, then the key goes.
		c.W.Set(int(size))
		s.Range(func(m []byte) bool { c.W.Bulk(m); return true })
		c.DB.Delete(string(args[1]))
		c.Notify(config.NotifyGeneric, "del", args[1])
		c.Modified(args[1])
		return
	}
	c.W.Set(int(count))
	if c.Replicated() {
		// The same members on every node (see srandmemberStable).
		for _, m := range s.StableOrder(c.E.Rand.Uint64())[:count] {
			s.Remove(m)
			c.W.Bulk(m)
		}
	} else {
		for ; count > 0; count-- {
			c.W.Bulk(s.Pop(rnd(c)))
		}
	}
	c.Modified(args[1])
}

// popMember removes a random member. A replicated op must remove the same
// member on every node, whose hash tables differ in layout, so it chooses
// by the entry's seed alone (store.Set.PopStable).
func popMember(c *engine.Ctx, s *store.Set) []byte {
	if c.Replicated() { // also inside EXEC and scripts
		return s.PopStable(c.E.Rand.Uint64())
	}
	return s.Pop(rnd(c))
}

func srandmember(c *engine.Ctx, args [][]byte) {
	if len(args) == 3 {
		srandmemberCount(c, args)
		return
	} else if len(args) > 3 {
		c.Error(engine.ErrSyntax)
		return
	}
	s, ok := readSet(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
		return
	}
	if c.Replicated() {
		c.W.Bulk(s.RandomStable(c.E.Rand.Uint64())) // see popMember
		return
	}
	c.W.Bulk(s.Random(rnd(c)))
}

func srandmemberCount(c *engine.Ctx, args [][]byte) {
	l, ok := parseRandCount(c, args[2])
	if !ok {
		return
	}
	s, ok := readSet(c, args[1])
	if !ok {
		return
	}
	uniq := l >= 0
	count := uint64(l)
	if !uniq {
		count = uint64(-l)
	}
	if s == nil || count == 0 {
		c.W.Array(0)
		return
	}
	size := uint64(s.Len())
	rnd := rnd(c)
	if c.Replicated() {
		srandmemberStable(c, s, count, uniq)
		return
	}
	// CASE 1: negative count (or 1): sample with repetition.
	if !uniq || count == 1 {
		c.W.Array(int(count))
		var buf []byte
		for ; count > 0; count-- {
			buf = s.AppendRandom(buf[:0], rnd)
			c.W.Bulk(buf)
		}
		return
	}
	// CASE 2: the whole set.
	if count >= size {
		c.W.Array(int(size))
		s.Range(func(m []byte) bool { c.W.Bulk(m); return true })
		return
	}
	c.W.Array(int(count))
	// CASE 3: most of the set: shuffle all members, keep count.
	if count*3 > size {
		ms := make([][]byte, 0, size)
		s.Range(func(m []byte) bool {
			ms = append(ms, append([]byte(nil), m...))
			return true
		})
		for i := uint64(0); i < count; i++ {
			j := i + rnd(size-i)
			ms[i], ms[j] = ms[j], ms[i]
			c.W.Bulk(ms[i])
		}
		return
	}
	// CASE 4: few of many: sample until count distinct members.
	seen := make(map[string]struct{}, count)
	for uint64(len(seen)) < count {
		m := s.Random(rnd)
		if _, dup := seen[string(m)]; dup {
			continue
		}
		seen[string(m)] = struct{}{}
		c.W.Bulk(m)
	}
}

// srandmemberStable is SRANDMEMBER with a count inside a replicated op:
// members chosen by the entry's seed alone, the same on every node. Distinct
// members are the first of store.Set.StableOrder (a random subset in random
// order); repeated ones are drawn from that order by the entry's rnd.
func srandmemberStable(c *engine.Ctx, s *store.Set, count uint64, uniq bool) {
	order := s.StableOrder(c.E.Rand.Uint64())
	if uniq {
		count = min(count, uint64(len(order)))
	}
	c.W.Array(int(count))
	for i := uint64(0); i < count; i++ {
		if uniq {
			c.W.Bulk(order[i])
		} else {
			c.W.Bulk(order[c.E.Rand.Uint64N(uint64(len(order)))])
		}
	}
}

func sscan(c *engine.Ctx, args [][]byte) {
	scanElements(c, args, 1, func(s *store.Set, cursor uint64, count int64, add func(...[]byte)) uint64 {
		if s.Encoding() != "hashtable" {
			// Intset members are formatted into a reused buffer: copy them.
			return s.Scan(cursor, func(m []byte) { add(append([]byte(nil), m...)) })
		}
		n := 0
		return ScanLoop(cursor, count, func() int { return n }, func(cur uint64) uint64 {
			return s.Scan(cur, func(m []byte) { n++; add(m) })
		})
	})
}

func smove(c *engine.Ctx, args [][]byte) {
	src, dst := c.LookupWrite(args[1]), c.LookupWrite(args[2])
	if src == nil {
		c.W.Int(0)
		return
	}
	ss, ok := src.Value.(*store.Set)
	if !ok {
		c.WrongType()
		return
	}
	var ds *store.Set
	if dst != nil {
		if ds, ok = dst.Value.(*store.Set); !ok {
			c.WrongType()
			return
		}
	}
	member := args[3]
	if ss == ds {
		if ss.Has(member) {
			c.W.Int(1)
		} else {
			c.W.Int(0)
		}
		return
	}
	if !ss.Remove(member) {
		c.W.Int(0)
		return
	}
	c.Notify(config.NotifySet, "srem", args[1])
	if setDeleteIfEmpty(c, args[1], ss) {
		c.Notify(config.NotifyGeneric, "del", args[1])
	}
	if ds == nil {
		ds = store.NewSet()
		c.DB.Set(string(args[2]), ds, 0, c.NewAccess())
		c.Notify(config.NotifyNew, "new", args[2])
	}
	c.Modified(args[1])
	if ds.Add(member, c.E.Config.SetMaxIntsetEntries) {
		c.Modified(args[2])
		c.Notify(config.NotifySet, "sadd", args[2])
	}
	c.W.Int(1)
}

// readSets looks up the sets named by keys for SINTER/SUNION/SDIFF: a
// missing key is a nil set; any other type replies WRONGTYPE (every key is
// checked, as Redis 7.0 does).
func readSets(c *engine.Ctx, keys [][]byte) ([]*store.Set, bool) {
	sets := make([]*store.Set, len(keys))
	for i, k := range keys {
		s, ok := readSet(c, k)
		if !ok {
			return nil, false
		}
		sets[i] = s
	}
	return sets, true
}

// setStoreResult is the STORE variants' ending (Redis's setKey or
// dbDelete): a non-empty result replaces dst, dropping its TTL; an empty
// one deletes dst.
func setStoreResult(c *engine.Ctx, dst []byte, res *store.Set, event string) {
	if res.Len() > 0 {
		existed := c.LookupWrite(dst) != nil
		c.DB.Set(string(dst), res, 0, c.NewAccess())
		if !existed {
			c.Notify(config.NotifyNew, "new", dst)
		}
		c.Modified(dst)
		c.W.Int(int64(res.Len()))
		c.Notify(config.NotifySet, event, dst)
		return
	}
	c.W.Int(0)
	if c.LookupWrite(dst) != nil {
		c.DB.Delete(string(dst))
		c.Modified(dst)
		c.Notify(config.NotifyGeneric, "del", dst)
	}
}

// setInter is Redis's sinterGenericCommand. dst != nil stores the result;
// cardOnly replies with the cardinality, stopping at limit (0: no limit).
func setInter(c *engine.Ctx, keys [][]byte, dst []byte, cardOnly bool, limit int64) {
	sets, ok := readSets(c, keys)
	if !ok {
		return
	}
	for _, s := range sets {
		if s == nil {
			switch {
			case dst != nil:
				setStoreResult(c, dst, store.NewSet(), "sinterstore")
			case cardOnly:
				c.W.Int(0)
			default:
				c.W.Set(0)
			}
			return
		}
	}
	// Smallest first (stable, like glibc's merge-sort qsort).
	sort.SliceStable(sets, func(i, j int) bool { return sets[i].Len() < sets[j].Len() })
	var out [][]byte
	var res *store.Set
	if dst != nil {
		res = store.NewSet()
	}
	card := int64(0)
	max := c.E.Config.SetMaxIntsetEntries
	sets[0].Range(func(m []byte) bool {
		for _, s := range sets[1:] {
			if s != sets[0] && !s.Has(m) {
				return true
			}
		}
		card++
		switch {
		case cardOnly:
			return limit == 0 || card < limit
		case dst != nil:
			res.Add(m, max)
		default:
			out = append(out, append([]byte(nil), m...))
		}
		return true
	})
	switch {
	case cardOnly:
		c.W.Int(card)
	case dst != nil:
		setStoreResult(c, dst, res, "sinterstore")
	default:
		c.W.Set(len(out))
		for _, m := range out {
			c.W.Bulk(m)
		}
	}
}

func sinter(c *engine.Ctx, args [][]byte)      { setInter(c, args[1:], nil, false, 0) }
func sinterstore(c *engine.Ctx, args [][]byte) { setInter(c, args[2:], args[1], false, 0) }

func sintercardKeys(args [][]byte) []int { return numkeysPositions(args, 1) }

func sintercard(c *engine.Ctx, args [][]byte) {
	numkeys, ok := redisnum.ParseInt(args[1])
	if !ok || numkeys < 1 {
		c.Error(engine.ErrNumKeysZero)
		return
	}
	if numkeys > int64(len(args)-2) {
		c.Error(engine.ErrNumKeysTooBig)
		return
	}
	limit := int64(0)
	for j := 2 + int(numkeys); j < len(args); j++ {
		if cstr.EqualFold(args[j], "limit") && j+1 < len(args) {
			j++
			n, ok := redisnum.ParseInt(args[j])
			if !ok || n < 0 {
				c.Error(engine.ErrLimitNegative)
				return
			}
			limit = n
		} else {
			c.Error(engine.ErrSyntax)
			return
		}
	}
	setInter(c, args[2:2+numkeys], nil, true, limit)
}

// setUnionDiff is Redis's sunionDiffGenericCommand: the result is built as
// a new set (an intset while it can be), so its reply order is that set's.
func setUnionDiff(c *engine.Ctx, keys [][]byte, dst []byte, union bool) {
	sets, ok := readSets(c, keys)
	if !ok {
		return
	}
	res := store.NewSet()
	max := c.E.Config.SetMaxIntsetEntries
	if union {
		for _, s := range sets {
			if s != nil {
				s.Range(func(m []byte) bool { res.Add(m, max); return true })
			}
		}
	} else if sets[0] != nil && !setDiffSameSet(sets) {
		// Redis's two algorithms give different encodings for the same
		// members (adding then removing may have converted the result),
		// so pick the one it picks.
		one, two := 0, 0
		for _, s := range sets {
			if s != nil {
				one += sets[0].Len()
				two += s.Len()
			}
		}
		if one/2 <= two {
			sets[0].Range(func(m []byte) bool {
				for _, s := range sets[1:] {
					if s != nil && s.Has(m) {
						return true
					}
				}
				res.Add(m, max)
				return true
			})
		} else {
			sets[0].Range(func(m []byte) bool { res.Add(m, max); return true })
			for _, s := range sets[1:] {
				if res.Len() == 0 {
					break
				}
				if s != nil {
					s.Range(func(m []byte) bool { res.Remove(m); return true })
				}
			}
		}
	}
	if dst != nil {
		event := "sdiffstore"
		if union {
			event = "sunionstore"
		}
		setStoreResult(c, dst, res, event)
		return
	}
	c.W.Set(res.Len())
	res.Range(func(m []byte) bool { c.W.Bulk(m); return true })
}

// setDiffSameSet reports whether a later key names the first set (SDIFF's
// result is then empty).
func setDiffSameSet(sets []*store.Set) bool {
	for _, s := range sets[1:] {
		if s == sets[0] {
			return true
		}
	}
	return false
}

func sunion(c *engine.Ctx, args [][]byte)      { setUnionDiff(c, args[1:], nil, true) }
func sunionstore(c *engine.Ctx, args [][]byte) { setUnionDiff(c, args[2:], args[1], true) }
func sdiff(c *engine.Ctx, args [][]byte)       { setUnionDiff(c, args[1:], nil, false) }
func sdiffstore(c *engine.Ctx, args [][]byte)  { setUnionDiff(c, args[2:], args[1], false) }
