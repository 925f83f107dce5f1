package commands

import (
	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// List commands, following Redis 7.0's t_list.c.

var listCommands = []*engine.Spec{
	{Name: "lpush", Arity: -3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyInsert)}, ACL: []string{"list"}, Fn: lpush},
	{Name: "rpush", Arity: -3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyInsert)}, ACL: []string{"list"}, Fn: rpush},
	{Name: "lpushx", Arity: -3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyInsert)}, ACL: []string{"list"}, Fn: lpushx},
	{Name: "rpushx", Arity: -3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyInsert)}, ACL: []string{"list"}, Fn: rpushx},
	{Name: "lpop", Arity: -2, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete)}, ACL: []string{"list"}, Fn: lpop},
	{Name: "rpop", Arity: -2, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete)}, ACL: []string{"list"}, Fn: rpop},
	{Name: "llen", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO)}, ACL: []string{"list"}, Fn: llen},
	{Name: "lindex", Arity: 3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"list"}, Fn: lindex},
	{Name: "lrange", Arity: 4, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"list"}, Fn: lrange},
	{Name: "lset", Arity: 4, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate)}, ACL: []string{"list"}, Fn: lset},
	{Name: "lrem", Arity: 4, Flags: engine.Write, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyDelete)}, ACL: []string{"list"}, Fn: lrem},
	{Name: "ltrim", Arity: 4, Flags: engine.Write, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyDelete)}, ACL: []string{"list"}, Fn: ltrim},
	{Name: "linsert", Arity: 5, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyInsert)}, ACL: []string{"list"}, Fn: linsert},
	{Name: "lpos", Arity: -3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"list"}, Fn: lpos},
	{Name: "lmove", Arity: 5, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete), {Flags: engine.KeyRW | engine.KeyInsert, Pos: 2, KeyStep: 1}}, ACL: []string{"list"}, Fn: lmove},
	{Name: "rpoplpush", Arity: 3, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete), {Flags: engine.KeyRW | engine.KeyInsert, Pos: 2, KeyStep: 1}}, ACL: []string{"list"}, Fn: rpoplpush},
	{Name: "lmpop", Arity: -4, Flags: engine.Write, Keys: lmpopKeys(1), KeySpecs: []engine.KeySpec{{Flags: engine.KeyRW | engine.KeyAccess | engine.KeyDelete, Pos: 1, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"list"}, Fn: lmpop},
	{Name: "blpop", Arity: -3, Flags: engine.Write | engine.NoScript | engine.Blocking, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRW | engine.KeyAccess | engine.KeyDelete, Pos: 1, LastKey: -2, KeyStep: 1}}, ACL: []string{"list"}, Fn: blpop},
	{Name: "brpop", Arity: -3, Flags: engine.Write | engine.NoScript | engine.Blocking, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRW | engine.KeyAccess | engine.KeyDelete, Pos: 1, LastKey: -2, KeyStep: 1}}, ACL: []string{"list"}, Fn: brpop},
	{Name: "blmove", Arity: 6, Flags: engine.Write | engine.DenyOOM | engine.NoScript | engine.Blocking, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete), {Flags: engine.KeyRW | engine.KeyInsert, Pos: 2, KeyStep: 1}}, ACL: []string{"list"}, Fn: blmove},
	{Name: "brpoplpush", Arity: 4, Flags: engine.Write | engine.DenyOOM | engine.NoScript | engine.Blocking, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete), {Flags: engine.KeyRW | engine.KeyInsert, Pos: 2, KeyStep: 1}}, ACL: []string{"list"}, Fn: brpoplpush},
	{Name: "blmpop", Arity: -5, Flags: engine.Write | engine.Blocking, Keys: lmpopKeys(2), KeySpecs: []engine.KeySpec{{Flags: engine.KeyRW | engine.KeyAccess | engine.KeyDelete, Pos: 2, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"list"}, Fn: blmpop},
}

func init() { engine.Register(listCommands) }

// ---- list helpers ----

// listDup copies a request argument for storing in a list.
func listDup(b []byte) []byte { return append(make([]byte, 0, len(b)), b...) }

// lmpopKeys returns the key positions of LMPOP (numkeys at 1) and BLMPOP
// (numkeys at 2).
func lmpopKeys(numkeysIdx int) func(args [][]byte) []int {
	return func(args [][]byte) []int {
		if numkeysIdx >= len(args) {
			return nil
		}
		n, ok := redisnum.ParseInt(args[numkeysIdx])
		if !ok || n <= 0 || n > int64(len(args)-numkeysIdx-1) {
			return nil
		}
		out := make([]int, n)
		for i := range out {
			out[i] = numkeysIdx + 1 + i
		}
		return out
	}
}

// listLookupWrite returns key's list for writing: (nil, true) when the key
// is missing, (nil, false) after replying WRONGTYPE.
func listLookupWrite(c *engine.Ctx, key []byte) (*store.List, bool) {
	return engine.LookupAs[*store.List](c, key, true)
}

// listLookupRead is listLookupWrite for reading.
func listLookupRead(c *engine.Ctx, key []byte) (*store.List, bool) {
	return engine.LookupAs[*store.List](c, key, false)
}

// listCreate adds an empty list under key as Redis's dbAdd does: blocked
// clients are signalled and "new" fires.
func listCreate(c *engine.Ctx, key []byte) *store.List {
	l := store.NewList()
	c.DB.Set(string(key), l, 0, c.NewAccess())
	c.Ready(key)
	c.Notify(config.NotifyNew, "new", key)
	return l
}

func listPush(l *store.List, v []byte, head bool) {
	if head {
		l.PushFront(v)
	} else {
		l.PushBack(v)
	}
}

func listPop(l *store.List, head bool) []byte {
	if head {
		return l.PopFront()
	}
	return l.PopBack()
}

func popEvent(head bool) string {
	if head {
		return "lpop"
	}
	return "rpop"
}

func pushEvent(head bool) string {
	if head {
		return "lpush"
	}
	return "rpush"
}

// listElementsRemoved fires what Redis's listElementsRemoved fires after a
// pop: the pop event, the key's deletion when emptied, WATCH/tracking.
func listElementsRemoved(c *engine.Ctx, key []byte, l *store.List, head bool, n int) (deleted bool) {
	c.Notify(config.NotifyList, popEvent(head), key)
	if l.Len() == 0 {
		c.DB.Delete(string(key))
		c.Notify(config.NotifyGeneric, "del", key)
		deleted = true
	}
	c.Modified(key)
	c.E.Stats.Dirty += int64(n) - 1
	return deleted
}

// listWriteRange replies with elements start..stop (already normalised to
// 0 <= start <= stop < len), reversed when reverse is set.
func listWriteRange(c *engine.Ctx, l *store.List, start, stop int, reverse bool) {
	c.W.Array(stop - start + 1)
	l.Range(start, stop, reverse, func(b []byte) { c.W.Bulk(b) })
}

// listRangeReply is Redis's addListRangeReply.
func listRangeReply(c *engine.Ctx, l *store.List, start, end int64, reverse bool) {
	n := int64(l.Len())
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= n {
		c.W.Array(0)
		return
	}
	if end >= n {
		end = n - 1
	}
	listWriteRange(c, l, int(start), int(end), reverse)
}

// listPopRangeAndReplyWithKey pops up to count elements from one end and
// replies [key, [elements]] (LMPOP, BLMPOP).
func listPopRangeAndReplyWithKey(c *engine.Ctx, l *store.List, key []byte, head bool, count int64) (deleted bool) {
	n := int64(l.Len())
	if count > n {
		count = n
	}
	c.W.Array(2)
	c.W.Bulk(key)
	c.W.Array(int(count))
	for i := int64(0); i < count; i++ {
		c.W.Bulk(listPop(l, head))
	}
	return listElementsRemoved(c, key, l, head, int(count))
}

// listWhere parses LEFT/RIGHT (getListPositionFromObjectOrReply).
func listWhere(c *engine.Ctx, b []byte) (head bool, ok bool) {
	switch {
	case cstr.EqualFold(b, "left"):
		return true, true
	case cstr.EqualFold(b, "right"):
		return false, true
	}
	c.Error(engine.ErrSyntax)
	return false, false
}

// listIndex parses an integer argument.
func listInt(c *engine.Ctx, b []byte) (int64, bool) {
	n, ok := redisnum.ParseInt(b)
	if !ok {
		c.Error(engine.ErrNotInt)
	}
	return n, ok
}

// ---- list commands ----

func lpush(c *engine.Ctx, args [][]byte)  { pushGeneric(c, args, true, false) }
func rpush(c *engine.Ctx, args [][]byte)  { pushGeneric(c, args, false, false) }
func lpushx(c *engine.Ctx, args [][]byte) { pushGeneric(c, args, true, true) }
func rpushx(c *engine.Ctx, args [][]byte) { pushGeneric(c, args, false, true) }

func pushGeneric(c *engine.Ctx, args [][]byte, head, xx bool) {
	key := args[1]
	l, ok := listLookupWrite(c, key)
	if !ok {
		return
	}
	if l == nil {
		if xx {
			c.W.Int(0)
			return
		}
		l = listCreate(c, key)
	}
	for _, v := range args[2:] {
		listPush(l, listDup(v), head)
	}
	c.W.Int(int64(l.Len()))
	c.Modified(key)
	c.E.Stats.Dirty += int64(len(args) - 3)
	c.Notify(config.NotifyList, pushEvent(head), key)
	c.Ready(key)
}

func lpop(c *engine.Ctx, args [][]byte) { popGeneric(c, args, true) }
func rpop(c *engine.Ctx, args [][]byte) { popGeneric(c, args, false) }

func popGeneric(c *engine.Ctx, args [][]byte, head bool) {
	if len(args) > 3 {
		c.Error(engine.ErrWrongArgs(c.Spec.FullName()))
		return
	}
	hasCount := len(args) == 3
	var count int64
	if hasCount {
		// getPositiveLongFromObjectOrReply: one message for both failures.
		n, ok := redisnum.ParseInt(args[2])
		if !ok || n < 0 {
			c.Error(engine.ErrCountPositive)
			return
		}
		count = n
	}
	key := args[1]
	l, ok := listLookupWrite(c, key)
	if !ok {
		return
	}
	if l == nil {
		if hasCount {
			c.W.NullArray()
		} else {
			c.W.Null()
		}
		return
	}
	if hasCount && count == 0 {
		c.W.Array(0)
		return
	}
	if !hasCount {
		c.W.Bulk(listPop(l, head))
		listElementsRemoved(c, key, l, head, 1)
		return
	}
	n := int64(l.Len())
	if count > n {
		count = n
	}
	c.W.Array(int(count))
	for i := int64(0); i < count; i++ {
		c.W.Bulk(listPop(l, head))
	}
	listElementsRemoved(c, key, l, head, int(count))
}

func llen(c *engine.Ctx, args [][]byte) {
	l, ok := listLookupRead(c, args[1])
	if !ok {
		return
	}
	if l == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(l.Len()))
}

func lindex(c *engine.Ctx, args [][]byte) {
	l, ok := listLookupRead(c, args[1])
	if !ok {
		return
	}
	if l == nil {
		c.W.Null()
		return
	}
	idx, ok := listInt(c, args[2])
	if !ok {
		return
	}
	n := int64(l.Len())
	if idx < 0 {
		idx += n
	}
	if idx < 0 || idx >= n {
		c.W.Null()
		return
	}
	c.W.Bulk(l.Index(int(idx)))
}

func lrange(c *engine.Ctx, args [][]byte) {
	start, ok := listInt(c, args[2])
	if !ok {
		return
	}
	end, ok := listInt(c, args[3])
	if !ok {
		return
	}
	l, ok := listLookupRead(c, args[1])
	if !ok {
		return
	}
	if l == nil {
		c.W.Array(0)
		return
	}
	listRangeReply(c, l, start, end, false)
}

func lset(c *engine.Ctx, args [][]byte) {
	key := args[1]
	l, ok := listLookupWrite(c, key)
	if !ok {
		return
	}
	if l == nil {
		c.Error(engine.ErrNoSuchKey)
		return
	}
	idx, ok := listInt(c, args[2])
	if !ok {
		return
	}
	n := int64(l.Len())
	if idx < 0 {
		idx += n
	}
	if idx < 0 || idx >= n {
		c.Error(engine.ErrOutOfRange)
		return
	}
	l.Set(int(idx), listDup(args[3]))
	c.W.OK()
	c.Modified(key)
	c.Notify(config.NotifyList, "lset", key)
}

func lrem(c *engine.Ctx, args [][]byte) {
	count, ok := listInt(c, args[2])
	if !ok {
		return
	}
	key := args[1]
	l, ok := listLookupWrite(c, key)
	if !ok {
		return
	}
	if l == nil {
		c.W.Int(0)
		return
	}
	removed := l.Remove(args[3], count)
	if removed > 0 {
		c.Modified(key)
		c.E.Stats.Dirty += removed - 1
		c.Notify(config.NotifyList, "lrem", key)
	}
	if l.Len() == 0 {
		c.DB.Delete(string(key))
		c.Notify(config.NotifyGeneric, "del", key)
	}
	c.W.Int(removed)
}

func ltrim(c *engine.Ctx, args [][]byte) {
	start, ok := listInt(c, args[2])
	if !ok {
		return
	}
	end, ok := listInt(c, args[3])
	if !ok {
		return
	}
	key := args[1]
	l, ok := listLookupWrite(c, key)
	if !ok {
		return
	}
	if l == nil {
		c.W.OK()
		return
	}
	n := int64(l.Len())
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if start > end || start >= n {
		l.Trim(0, 0)
	} else {
		if end >= n {
			end = n - 1
		}
		l.Trim(int(start), int(end-start+1))
	}
	c.Notify(config.NotifyList, "ltrim", key)
	if l.Len() == 0 {
		c.DB.Delete(string(key))
		c.Notify(config.NotifyGeneric, "del", key)
	}
	c.Modified(key)
	c.W.OK()
}

func linsert(c *engine.Ctx, args [][]byte) {
	var after bool
	switch {
	case cstr.EqualFold(args[2], "after"):
		after = true
	case cstr.EqualFold(args[2], "before"):
	default:
		c.Error(engine.ErrSyntax)
		return
	}
	key := args[1]
	l, ok := listLookupWrite(c, key)
	if !ok {
		return
	}
	if l == nil {
		c.W.Int(0)
		return
	}
	i := l.Find(args[3])
	if i < 0 {
		c.W.Int(-1)
		return
	}
	if after {
		i++
	}
	l.Insert(i, listDup(args[4]))
	c.Modified(key)
	c.Notify(config.NotifyList, "linsert", key)
	c.W.Int(int64(l.Len()))
}

func lpos(c *engine.Ctx, args [][]byte) {
	ele := args[2]
	var rank, count, maxlen int64 = 1, -1, 0
	for j := 3; j < len(args); j++ {
		opt := args[j]
		more := j+1 < len(args)
		switch {
		case more && cstr.EqualFold(opt, "rank"):
			j++
			n, ok := listInt(c, args[j])
			if !ok {
				return
			}
			if n == 0 {
				c.Error(engine.ErrLposRankZero)
				return
			}
			rank = n
		case more && cstr.EqualFold(opt, "count"):
			j++
			n, ok := redisnum.ParseInt(args[j])
			if !ok || n < 0 {
				c.Error(engine.ErrLposCountNeg)
				return
			}
			count = n
		case more && cstr.EqualFold(opt, "maxlen"):
			j++
			n, ok := redisnum.ParseInt(args[j])
			if !ok || n < 0 {
				c.Error(engine.ErrLposMaxlenNeg)
				return
			}
			maxlen = n
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	}
	fromHead := true
	if rank < 0 {
		rank = -rank // math.MinInt64 stays negative: every match qualifies, as in Redis
		fromHead = false
	}
	l, ok := listLookupRead(c, args[1])
	if !ok {
		return
	}
	if l == nil {
		if count != -1 {
			c.W.Array(0)
		} else {
			c.W.Null()
		}
		return
	}
	n := int64(l.Len())
	var matches int64
	var found []int64
	matchIndex := int64(-1)
	for index := int64(0); index < n && (maxlen == 0 || index < maxlen); index++ {
		pos := index
		if !fromHead {
			pos = n - index - 1
		}
		if string(l.Index(int(pos))) != string(ele) {
			continue
		}
		matches++
		if matches >= rank {
			if count == -1 {
				matchIndex = pos
				break
			}
			found = append(found, pos)
			if count != 0 && matches-rank+1 >= count {
				break
			}
		}
	}
	if count != -1 {
		c.W.Array(len(found))
		for _, p := range found {
			c.W.Int(p)
		}
		return
	}
	if matchIndex == -1 {
		c.W.Null()
		return
	}
	c.W.Int(matchIndex)
}

// lmoveHandlePush pushes value to dst (creating it), replies with value and
// fires the push event, as Redis's lmoveHandlePush.
func lmoveHandlePush(c *engine.Ctx, dst []byte, dl *store.List, value []byte, head bool) {
	if dl == nil {
		dl = listCreate(c, dst)
	}
	c.Modified(dst)
	listPush(dl, value, head)
	c.Notify(config.NotifyList, pushEvent(head), dst)
	c.Ready(dst)
	c.W.Bulk(value)
}

func lmove(c *engine.Ctx, args [][]byte) {
	from, ok := listWhere(c, args[3])
	if !ok {
		return
	}
	to, ok := listWhere(c, args[4])
	if !ok {
		return
	}
	lmoveGeneric(c, args[1], args[2], from, to)
}

func rpoplpush(c *engine.Ctx, args [][]byte) { lmoveGeneric(c, args[1], args[2], false, true) }

func lmoveGeneric(c *engine.Ctx, src, dst []byte, from, to bool) {
	sl, ok := listLookupWrite(c, src)
	if !ok {
		return
	}
	if sl == nil {
		c.W.Null()
		return
	}
	dl, ok := listLookupWrite(c, dst)
	if !ok {
		return
	}
	value := listPop(sl, from)
	lmoveHandlePush(c, dst, dl, value, to)
	c.Notify(config.NotifyList, popEvent(from), src)
	if sl.Len() == 0 {
		c.DB.Delete(string(src))
		c.Notify(config.NotifyGeneric, "del", src)
	}
	c.Modified(src)
}

// lmpopArgs parses [B]LMPOP's numkeys, direction and COUNT.
func lmpopArgs(c *engine.Ctx, args [][]byte, numkeysIdx int) (keys [][]byte, head bool, count int64, ok bool) {
	n, ok := redisnum.ParseInt(args[numkeysIdx])
	if !ok || n <= 0 {
		c.Error(engine.ErrNumKeysZero)
		return nil, false, 0, false
	}
	whereIdx := int64(numkeysIdx) + n + 1
	if whereIdx >= int64(len(args)) || whereIdx < 0 {
		c.Error(engine.ErrSyntax)
		return nil, false, 0, false
	}
	head, ok = listWhere(c, args[whereIdx])
	if !ok {
		return nil, false, 0, false
	}
	count = -1
	for j := int(whereIdx) + 1; j < len(args); j++ {
		if count == -1 && cstr.EqualFold(args[j], "count") && j+1 < len(args) {
			j++
			v, ok := redisnum.ParseInt(args[j])
			if !ok || v <= 0 {
				c.Error(engine.ErrCountNegative)
				return nil, false, 0, false
			}
			count = v
			continue
		}
		c.Error(engine.ErrSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return args[numkeysIdx+1 : whereIdx], head, count, true
}

func lmpop(c *engine.Ctx, args [][]byte) {
	keys, head, count, ok := lmpopArgs(c, args, 1)
	if !ok {
		return
	}
	for _, key := range keys {
		l, ok := listLookupWrite(c, key)
		if !ok {
			return
		}
		if l == nil || l.Len() == 0 {
			continue
		}
		listPopRangeAndReplyWithKey(c, l, key, head, count)
		return
	}
	c.W.NullArray()
}

// ---- blocking list commands ----

func blpop(c *engine.Ctx, args [][]byte) {
	blockingPop(c, args[1:len(args)-1], args[len(args)-1], true, -1)
}
func brpop(c *engine.Ctx, args [][]byte) {
	blockingPop(c, args[1:len(args)-1], args[len(args)-1], false, -1)
}

func blmpop(c *engine.Ctx, args [][]byte) {
	keys, head, count, ok := lmpopArgs(c, args, 2)
	if !ok {
		return
	}
	blockingPop(c, keys, args[1], head, count)
}

// blockingPop is Redis's blockingPopGenericCommand: count -1 for
// BLPOP/BRPOP, else BLMPOP's count.
func blockingPop(c *engine.Ctx, keys [][]byte, timeout []byte, head bool, count int64) {
	deadline, ok := c.ParseTimeout(timeout)
	if !ok {
		return
	}
	for _, key := range keys {
		l, ok := listLookupWrite(c, key)
		if !ok {
			return
		}
		if l == nil || l.Len() == 0 {
			continue
		}
		if count != -1 {
			listPopRangeAndReplyWithKey(c, l, key, head, count)
			return
		}
		v := listPop(l, head)
		c.W.Array(2)
		c.W.Bulk(key)
		c.W.Bulk(v)
		listElementsRemoved(c, key, l, head, 1)
		return
	}
	if c.NoBlock() {
		c.W.NullArray()
		return
	}
	c.Block(engine.BlockList, keys, deadline, func(c *engine.Ctx, key []byte) bool {
		l := c.DB.Peek(string(key)).Value.(*store.List)
		if count != -1 {
			return listPopRangeAndReplyWithKey(c, l, key, head, count)
		}
		// Redis's serveClientBlockedOnList: no signalModifiedKey here, the
		// push that woke the client already sent it.
		v := listPop(l, head)
		c.W.Array(2)
		c.W.Bulk(key)
		c.W.Bulk(v)
		c.Notify(config.NotifyList, popEvent(head), key)
		if l.Len() == 0 {
			c.DB.Delete(string(key))
			c.Notify(config.NotifyGeneric, "del", key)
			return true
		}
		return false
	})
}

func blmove(c *engine.Ctx, args [][]byte) {
	from, ok := listWhere(c, args[3])
	if !ok {
		return
	}
	to, ok := listWhere(c, args[4])
	if !ok {
		return
	}
	deadline, ok := c.ParseTimeout(args[5])
	if !ok {
		return
	}
	blmoveGeneric(c, args[1], args[2], from, to, deadline)
}

func brpoplpush(c *engine.Ctx, args [][]byte) {
	deadline, ok := c.ParseTimeout(args[3])
	if !ok {
		return
	}
	blmoveGeneric(c, args[1], args[2], false, true, deadline)
}

func blmoveGeneric(c *engine.Ctx, src, dst []byte, from, to bool, deadline int64) {
	sl, ok := listLookupWrite(c, src)
	if !ok {
		return
	}
	if sl != nil {
		lmoveGeneric(c, src, dst, from, to)
		return
	}
	if c.NoBlock() {
		c.W.Null()
		return
	}
	dstKey := listDup(dst)
	c.Block(engine.BlockList, [][]byte{src}, deadline, func(c *engine.Ctx, key []byte) bool {
		// serveClientBlockedOnList's BLMOVE branch: a destination of the
		// wrong type answers WRONGTYPE and leaves the source alone.
		dl, ok := listLookupWrite(c, dstKey)
		if !ok {
			return false
		}
		sl := c.DB.Peek(string(key)).Value.(*store.List)
		value := listPop(sl, from)
		lmoveHandlePush(c, dstKey, dl, value, to)
		c.Notify(config.NotifyList, popEvent(from), key)
		if sl.Len() == 0 {
			c.DB.Delete(string(key))
			c.Notify(config.NotifyGeneric, "del", key)
			return true
		}
		return false
	})
}
