package commands

import (
	"github.com/lockkv/lockkv/store"
)

// Set commands, as Redis 7.0's t_set.c.

var setCommands = []*Spec{
	{Name: "sadd", Arity: -3, Flags: Write | DenyOOM | Fast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"write", "set", "fast"}, Fn: sadd},
	{Name: "srem", Arity: -3, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"write", "set", "fast"}, Fn: srem},
	{Name: "sismember", Arity: 3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "set", "fast"}, Fn: sismember},
	{Name: "smismember", Arity: -3, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "set", "fast"}, Fn: smismember},
	{Name: "smembers", Arity: 2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "set", "slow"}, Fn: smembers},
	{Name: "scard", Arity: 2, Flags: ReadOnly | Fast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "set", "fast"}, Fn: scard},
	{Name: "spop", Arity: -2, Flags: Write | Fast, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"write", "set", "fast"}, Fn: spop},
	{Name: "srandmember", Arity: -2, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "set", "slow"}, Fn: srandmember},
	{Name: "sscan", Arity: -3, Flags: ReadOnly, FirstKey: 1, LastKey: 1, Step: 1, ACL: []string{"read", "set", "slow"}, Fn: sscan},
}

func init() { Register(setCommands) }

// ---- set helpers ----

// readSet returns key's set for reading: s == nil with ok when the key is
// missing; ok == false after replying WRONGTYPE.
func readSet(c *Ctx, key []byte) (s *store.Set, ok bool) {
	e := c.Lookup(key)
	if e == nil {
		return nil, true
	}
	if s, isSet := e.Value.(*store.Set); isSet {
		return s, true
	}
	c.WrongType()
	return nil, false
}

// writeSet is readSet for writing (an expired key is reclaimed first).
func writeSet(c *Ctx, key []byte) (s *store.Set, ok bool) {
	e := c.LookupWrite(key)
	if e == nil {
		return nil, true
	}
	if s, isSet := e.Value.(*store.Set); isSet {
		return s, true
	}
	c.WrongType()
	return nil, false
}

// setDeleteIfEmpty deletes key when s is empty, firing "del" after the
// command's own event, and reports whether it did.
func setDeleteIfEmpty(c *Ctx, key []byte, s *store.Set) bool {
	if s.Len() > 0 {
		return false
	}
	c.DB.Delete(string(key))
	return true
}

// ---- set commands ----

func sadd(c *Ctx, args [][]byte) {
	s, ok := writeSet(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		s = store.NewSet()
		c.DB.Set(string(args[1]), s, 0, c.Now)
		c.Notify(NotifyNew, "new", args[1])
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
		c.Notify(NotifySet, "sadd", args[1])
	}
	c.W.Int(int64(added))
}

func srem(c *Ctx, args [][]byte) {
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
		c.Notify(NotifySet, "srem", args[1])
		if removed {
			c.Notify(NotifyGeneric, "del", args[1])
		}
	}
	c.W.Int(int64(deleted))
}

func sismember(c *Ctx, args [][]byte) {
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

func smismember(c *Ctx, args [][]byte) {
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

func smembers(c *Ctx, args [][]byte) {
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

func scard(c *Ctx, args [][]byte) {
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

func spop(c *Ctx, args [][]byte) {
	if len(args) == 3 {
		spopCount(c, args)
		return
	} else if len(args) > 3 {
		c.Error(ErrSyntax)
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
	m := s.Pop(c.rnd())
	c.Notify(NotifySet, "spop", args[1])
	c.W.Bulk(m)
	if setDeleteIfEmpty(c, args[1], s) {
		c.Notify(NotifyGeneric, "del", args[1])
	}
	c.Modified(args[1])
}

func spopCount(c *Ctx, args [][]byte) {
	// getPositiveLongFromObjectOrReply: one message for both errors.
	n, ok := ParseInt(args[2])
	if !ok || n < 0 {
		c.Error(ErrCountPositive)
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
	c.Notify(NotifySet, "spop", args[1])
	if count >= size {
		// The whole set, then the key goes.
		c.W.Set(int(size))
		s.Range(func(m []byte) bool { c.W.Bulk(m); return true })
		c.DB.Delete(string(args[1]))
		c.Notify(NotifyGeneric, "del", args[1])
		c.Modified(args[1])
		return
	}
	c.W.Set(int(count))
	rnd := c.rnd()
	for ; count > 0; count-- {
		c.W.Bulk(s.Pop(rnd))
	}
	c.Modified(args[1])
}

func srandmember(c *Ctx, args [][]byte) {
	if len(args) == 3 {
		srandmemberCount(c, args)
		return
	} else if len(args) > 3 {
		c.Error(ErrSyntax)
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
	c.W.Bulk(s.Random(c.rnd()))
}

func srandmemberCount(c *Ctx, args [][]byte) {
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
	rnd := c.rnd()
	// CASE 1: negative count (or 1): sample with repetition.
	if !uniq || count == 1 {
		c.W.Array(int(count))
		for ; count > 0; count-- {
			c.W.Bulk(s.Random(rnd))
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

func sscan(c *Ctx, args [][]byte) {
	cursor, ok := c.ScanCursor(args[2])
	if !ok {
		return
	}
	e := c.Lookup(args[1])
	if e == nil {
		WriteEmptyScan(c.W)
		return
	}
	s, isSet := e.Value.(*store.Set)
	if !isSet {
		c.WrongType()
		return
	}
	opts, ok := c.ScanOptions(args[3:], false)
	if !ok {
		return
	}
	var elems [][]byte
	if s.Encoding() == "hashtable" {
		collect := func(m []byte) { elems = append(elems, m) }
		cursor = ScanLoop(cursor, opts.Count, func() int { return len(elems) },
			func(cur uint64) uint64 { return s.Scan(cur, collect) })
	} else {
		// Intset members are formatted into a reused buffer: copy them.
		cursor = s.Scan(cursor, func(m []byte) { elems = append(elems, append([]byte(nil), m...)) })
	}
	if opts.Match != nil {
		kept := elems[:0]
		for _, m := range elems {
			if opts.Matches(m) {
				kept = append(kept, m)
			}
		}
		elems = kept
	}
	WriteScan(c.W, cursor, elems)
}
