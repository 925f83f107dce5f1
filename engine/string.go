package engine

import (
	"math"
	"strconv"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/longdouble"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// String commands: Redis's t_string.c.

var stringCommands = []*Spec{
	{Name: "get", Arity: 2, Flags: ReadOnly | Fast, KeySpecs: []KeySpec{Key1(KeyRO | KeyAccess)}, ACL: []string{"string"}, Fn: get},
	{Name: "set", Arity: -3, Flags: Write | DenyOOM, KeySpecs: []KeySpec{{Notes: "RW and ACCESS due to the optional `GET` argument", Flags: KeyRW | KeyAccess | KeyUpdate | KeyVariableFlags, Pos: 1, KeyStep: 1}}, ACL: []string{"string"}, GetKeyFlags: setKeyFlags, Fn: set},
	{Name: "setnx", Arity: 3, Flags: Write | DenyOOM | Fast, KeySpecs: []KeySpec{Key1(KeyOW | KeyInsert)}, ACL: []string{"string"}, Fn: setnx},
	{Name: "setex", Arity: 4, Flags: Write | DenyOOM, KeySpecs: []KeySpec{Key1(KeyOW | KeyUpdate)}, ACL: []string{"string"}, Fn: setex},
	{Name: "psetex", Arity: 4, Flags: Write | DenyOOM, KeySpecs: []KeySpec{Key1(KeyOW | KeyUpdate)}, ACL: []string{"string"}, Fn: psetex},
	{Name: "getset", Arity: 3, Flags: Write | DenyOOM | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyAccess | KeyUpdate)}, ACL: []string{"string"}, Fn: getset},
	{Name: "getdel", Arity: 2, Flags: Write | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyAccess | KeyDelete)}, ACL: []string{"string"}, Fn: getdel},
	{Name: "getex", Arity: -2, Flags: Write | Fast, KeySpecs: []KeySpec{{Notes: "RW and UPDATE because it changes the TTL", Flags: KeyRW | KeyAccess | KeyUpdate, Pos: 1, KeyStep: 1}}, ACL: []string{"string"}, Fn: getex},
	{Name: "mget", Arity: -2, Flags: ReadOnly | Fast, KeySpecs: []KeySpec{{Flags: KeyRO | KeyAccess, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"string"}, Tips: []string{"request_policy:multi_shard"}, Fn: mget},
	{Name: "mset", Arity: -3, Flags: Write | DenyOOM, KeySpecs: []KeySpec{{Flags: KeyOW | KeyUpdate, Pos: 1, LastKey: -1, KeyStep: 2}}, ACL: []string{"string"}, Tips: []string{"request_policy:multi_shard", "response_policy:all_succeeded"}, Fn: mset},
	{Name: "msetnx", Arity: -3, Flags: Write | DenyOOM, KeySpecs: []KeySpec{{Flags: KeyOW | KeyInsert, Pos: 1, LastKey: -1, KeyStep: 2}}, ACL: []string{"string"}, Tips: []string{"request_policy:multi_shard", "response_policy:agg_min"}, Fn: msetnx},
	{Name: "incr", Arity: 2, Flags: Write | DenyOOM | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyAccess | KeyUpdate)}, ACL: []string{"string"}, Fn: incr},
	{Name: "decr", Arity: 2, Flags: Write | DenyOOM | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyAccess | KeyUpdate)}, ACL: []string{"string"}, Fn: decr},
	{Name: "incrby", Arity: 3, Flags: Write | DenyOOM | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyAccess | KeyUpdate)}, ACL: []string{"string"}, Fn: incrby},
	{Name: "decrby", Arity: 3, Flags: Write | DenyOOM | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyAccess | KeyUpdate)}, ACL: []string{"string"}, Fn: decrby},
	{Name: "incrbyfloat", Arity: 3, Flags: Write | DenyOOM | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyAccess | KeyUpdate)}, ACL: []string{"string"}, Fn: incrbyfloat},
	{Name: "append", Arity: 3, Flags: Write | DenyOOM | Fast, KeySpecs: []KeySpec{Key1(KeyRW | KeyInsert)}, ACL: []string{"string"}, Fn: appendCmd},
	{Name: "strlen", Arity: 2, Flags: ReadOnly | Fast, KeySpecs: []KeySpec{Key1(KeyRO)}, ACL: []string{"string"}, Fn: strlen},
	{Name: "getrange", Arity: 4, Flags: ReadOnly, KeySpecs: []KeySpec{Key1(KeyRO | KeyAccess)}, ACL: []string{"string"}, Fn: getrange},
	{Name: "substr", Arity: 4, Flags: ReadOnly, KeySpecs: []KeySpec{Key1(KeyRO | KeyAccess)}, ACL: []string{"string"}, Fn: getrange},
	{Name: "lcs", Arity: -3, Flags: ReadOnly, KeySpecs: []KeySpec{{Flags: KeyRO | KeyAccess, Pos: 1, LastKey: 1, KeyStep: 1}}, ACL: []string{"string"}, Fn: lcs},
	{Name: "setrange", Arity: 4, Flags: Write | DenyOOM, KeySpecs: []KeySpec{Key1(KeyRW | KeyUpdate)}, ACL: []string{"string"}, Fn: setrange},
}

func init() { Register(stringCommands) }

// ---- string helpers ----

// SET/GETEX option flags (server.h OBJ_*).
const (
	setNX = 1 << iota
	setXX
	setGet
	setKeepTTL
	setPersist
	setEX
	setPX
	setEXAT
	setPXAT

	setAnyExpire = setEX | setPX | setEXAT | setPXAT
)

// lookupString returns key's string value for reading. A missing key
// gives (nil, true); a key of another type replies WRONGTYPE and gives
// (nil, false).
func (c *Ctx) lookupString(key []byte) (*store.String, bool) {
	return lookupAs[*store.String](c, key, false)
}

// parseStringOptions is Redis's parseExtendedStringArgumentsOrReply for
// SET (opts = args[3:]) and GETEX (args[2:], isSet false). It returns the
// flags and the expire argument.
func (c *Ctx) parseStringOptions(opts [][]byte, isSet bool) (int, []byte, bool) {
	flags := 0
	var expire []byte
	for j := 0; j < len(opts); j++ {
		o := cstr.CString(opts[j])
		hasNext := j+1 < len(opts)
		switch {
		case isSet && cstr.EqualFold(o, "nx") && flags&setXX == 0:
			flags |= setNX
		case isSet && cstr.EqualFold(o, "xx") && flags&setNX == 0:
			flags |= setXX
		case isSet && cstr.EqualFold(o, "get"):
			flags |= setGet
		case isSet && cstr.EqualFold(o, "keepttl") && flags&(setPersist|setAnyExpire) == 0:
			flags |= setKeepTTL
		case !isSet && cstr.EqualFold(o, "persist") && flags&(setAnyExpire|setKeepTTL) == 0:
			flags |= setPersist
		case cstr.EqualFold(o, "ex") && hasNext && flags&(setKeepTTL|setPersist|setEXAT|setPX|setPXAT) == 0:
			flags |= setEX
			expire = opts[j+1]
			j++
		case cstr.EqualFold(o, "px") && hasNext && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPXAT) == 0:
			flags |= setPX
			expire = opts[j+1]
			j++
		case cstr.EqualFold(o, "exat") && hasNext && flags&(setKeepTTL|setPersist|setEX|setPX|setPXAT) == 0:
			flags |= setEXAT
			expire = opts[j+1]
			j++
		case cstr.EqualFold(o, "pxat") && hasNext && flags&(setKeepTTL|setPersist|setEX|setEXAT|setPX) == 0:
			flags |= setPXAT
			expire = opts[j+1]
			j++
		default:
			c.Error(ErrSyntax)
			return 0, nil, false
		}
	}
	return flags, expire, true
}

// expireMillis is Redis's getExpireMillisecondsOrReply: the absolute
// deadline for an EX/PX/EXAT/PXAT argument.
func (c *Ctx) expireMillis(arg []byte, flags int) (int64, bool) {
	ms, ok := redisnum.ParseInt(arg)
	if !ok {
		c.Error(ErrNotInt)
		return 0, false
	}
	sec := flags&(setEX|setEXAT) != 0
	if ms <= 0 || (sec && ms > math.MaxInt64/1000) {
		c.Error(ErrInvalidExpireTime(c.Spec.FullName()))
		return 0, false
	}
	if sec {
		ms *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		ms += c.Now // wraps on overflow, caught below as Redis does
	}
	if ms <= 0 {
		c.Error(ErrInvalidExpireTime(c.Spec.FullName()))
		return 0, false
	}
	return ms, true
}

// setKey is Redis's setKey after a lookupKeyWrite: e is the entry that
// lookup found (nil for none), which nothing has removed since. It stores
// v, fires "new" for a new key, drops the deadline unless keepTTL, and
// signals the modification.
func (c *Ctx) setKey(key []byte, v store.Value, e *store.Entry, keepTTL bool) *store.Entry {
	return c.setKeyExpire(key, v, e, keepTTL, 0)
}

// setKeyExpire is setKey that also gives the key the deadline expire (not
// 0) in the same store operation; the caller fires "expire".
func (c *Ctx) setKeyExpire(key []byte, v store.Value, e *store.Entry, keepTTL bool, expire int64) *store.Entry {
	switch {
	case e == nil:
		e = c.DB.Set(string(key), v, expire, c.newAccess())
		c.notifyNew(key)
	case keepTTL:
		c.DB.ReplaceEntry(e, v, c.newAccess())
		c.inheritShared(e)
	default:
		c.DB.Overwrite(key, e, v, expire, c.newAccess())
		c.inheritShared(e)
	}
	c.Modified(key)
	return e
}

// setGeneric is SET, SETNX, SETEX and PSETEX. okReply/abortReply select
// SETNX's integer replies instead of OK/nil.
func setGeneric(c *Ctx, key, val []byte, flags int, expire []byte, intReplies bool) {
	var when int64
	if expire != nil {
		var ok bool
		if when, ok = c.expireMillis(expire, flags); !ok {
			return
		}
	}
	if flags&setGet != 0 {
		s, ok := c.lookupString(key)
		if !ok {
			return
		}
		if s == nil {
			c.W.Null()
		} else {
			c.W.Bulk(s.B)
		}
	}
	e := c.LookupWrite(key)
	if (flags&setNX != 0 && e != nil) || (flags&setXX != 0 && e == nil) {
		if flags&setGet == 0 {
			if intReplies {
				c.W.Int(0)
			} else {
				c.W.Null()
			}
		}
		return
	}
	// KEEPTTL never comes with a deadline, so Set applies when at once.
	c.setKeyExpire(key, store.NewString(val), e, flags&setKeepTTL != 0, when)
	c.Notify(config.NotifyString, "set", key)
	if expire != nil {
		c.Notify(config.NotifyGeneric, "expire", key)
	}
	if flags&setGet == 0 {
		if intReplies {
			c.W.Int(1)
		} else {
			c.W.OK()
		}
	}
}

// stringInt parses a string value as Redis's getLongLongFromObject.
func stringInt(s *store.String) (int64, bool) {
	if s == nil {
		return 0, true
	}
	return redisnum.ParseInt(s.B)
}

// ---- handlers, in Redis doc order ----

func get(c *Ctx, args [][]byte) {
	s, ok := c.lookupString(args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
		return
	}
	c.W.Bulk(s.B)
}

func set(c *Ctx, args [][]byte) {
	flags, expire, ok := c.parseStringOptions(args[3:], true)
	if !ok {
		return
	}
	setGeneric(c, args[1], args[2], flags, expire, false)
}

func setnx(c *Ctx, args [][]byte) { setGeneric(c, args[1], args[2], setNX, nil, true) }

func setex(c *Ctx, args [][]byte) { setGeneric(c, args[1], args[3], setEX, args[2], false) }

func psetex(c *Ctx, args [][]byte) { setGeneric(c, args[1], args[3], setPX, args[2], false) }

func getset(c *Ctx, args [][]byte) {
	s, ok := c.lookupString(args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
	} else {
		c.W.Bulk(s.B)
	}
	c.setKey(args[1], store.NewString(args[2]), c.LookupWrite(args[1]), false)
	c.Notify(config.NotifyString, "set", args[1])
}

func getdel(c *Ctx, args [][]byte) {
	// Redis reads the key with lookupKeyRead (reclaiming an expired one,
	// counting the hit or miss, "keymiss"), then deletes it.
	e := c.LookupWrite(args[1])
	if e == nil {
		c.readMiss(args[1])
		c.W.Null()
		return
	}
	c.E.Stats.KeyspaceHits++
	s, ok := e.Value.(*store.String)
	if !ok {
		c.WrongType()
		return
	}
	c.W.Bulk(s.B)
	c.DB.Delete(string(args[1]))
	c.Modified(args[1])
	c.Notify(config.NotifyGeneric, "del", args[1])
}

func getex(c *Ctx, args [][]byte) {
	flags, expire, ok := c.parseStringOptions(args[2:], false)
	if !ok {
		return
	}
	key := args[1]
	s, ok := c.lookupString(key)
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
		return
	}
	var when int64
	if expire != nil {
		if when, ok = c.expireMillis(expire, flags); !ok {
			return
		}
	}
	c.W.Bulk(s.B)
	switch {
	case flags&(setEXAT|setPXAT) != 0 && when <= c.Now:
		c.DB.Delete(string(key))
		c.Modified(key)
		c.Notify(config.NotifyGeneric, "del", key)
	case expire != nil:
		c.DB.SetExpire(string(key), when)
		c.Modified(key)
		c.Notify(config.NotifyGeneric, "expire", key)
	case flags&setPersist != 0:
		if e := c.DB.Peek(string(key)); e != nil && e.Expire != 0 {
			c.DB.SetExpire(string(key), 0)
			c.Modified(key)
			c.Notify(config.NotifyGeneric, "persist", key)
		}
	}
}

func mget(c *Ctx, args [][]byte) {
	c.W.Array(len(args) - 1)
	for _, key := range args[1:] {
		e := c.Lookup(key)
		if e == nil {
			c.W.Null()
			continue
		}
		if s, ok := e.Value.(*store.String); ok {
			c.W.Bulk(s.B)
		} else {
			c.W.Null()
		}
	}
}

func msetGeneric(c *Ctx, args [][]byte, nx bool) {
	if len(args)%2 == 0 {
		c.Error(ErrWrongArgs(c.Spec.FullName()))
		return
	}
	if nx {
		for j := 1; j < len(args); j += 2 {
			if c.LookupWrite(args[j]) != nil {
				c.W.Int(0)
				return
			}
		}
	}
	for j := 1; j < len(args); j += 2 {
		c.setKey(args[j], store.NewString(args[j+1]), c.LookupWrite(args[j]), false)
		c.Notify(config.NotifyString, "set", args[j])
	}
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

func mset(c *Ctx, args [][]byte)   { msetGeneric(c, args, false) }
func msetnx(c *Ctx, args [][]byte) { msetGeneric(c, args, true) }

// incrDecr is Redis's incrDecrCommand.
func incrDecr(c *Ctx, key []byte, incr int64) {
	e := c.LookupWrite(key)
	var s *store.String
	if e != nil {
		var ok bool
		if s, ok = e.Value.(*store.String); !ok {
			c.WrongType()
			return
		}
	}
	v, ok := stringInt(s)
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if (incr < 0 && v < 0 && incr < math.MinInt64-v) || (incr > 0 && v > 0 && incr > math.MaxInt64-v) {
		c.Error(ErrOverflow)
		return
	}
	v += incr
	var buf [20]byte
	b := strconv.AppendInt(buf[:0], v, 10)
	if s != nil {
		// In place, like Redis's int-encoded update: the value keeps its
		// deadline and becomes int-encoded again.
		s.B = append(s.B[:0], b...)
		s.Raw, s.NotInt = false, false
		c.inheritShared(e)
		c.Modified(key)
	} else {
		c.setKey(key, store.NewString(b), nil, false)
	}
	c.Notify(config.NotifyString, "incrby", key)
	c.W.Int(v)
}

func incr(c *Ctx, args [][]byte) { incrDecr(c, args[1], 1) }
func decr(c *Ctx, args [][]byte) { incrDecr(c, args[1], -1) }

func incrby(c *Ctx, args [][]byte) {
	n, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	incrDecr(c, args[1], n)
}

func decrby(c *Ctx, args [][]byte) {
	n, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if n == math.MinInt64 {
		c.Error(ErrDecrOverflow)
		return
	}
	incrDecr(c, args[1], -n)
}

func incrbyfloat(c *Ctx, args [][]byte) {
	key := args[1]
	e := c.LookupWrite(key)
	var s *store.String
	ok := true
	if e != nil {
		if s, ok = e.Value.(*store.String); !ok {
			c.WrongType()
			return
		}
	}
	value := longdouble.FromInt(0)
	if s != nil {
		if value, ok = longdouble.Parse(s.B); !ok {
			c.Error(ErrNotFloat)
			return
		}
	}
	inc, ok := longdouble.Parse(args[2])
	if !ok {
		c.Error(ErrNotFloat)
		return
	}
	sum, ok := longdouble.Add(value, inc)
	if !ok {
		c.Error(ErrIncrNaNInf)
		return
	}
	b := longdouble.AppendHuman(nil, sum)
	ns := &store.String{B: b, NotInt: true}
	if s != nil {
		c.DB.Replace(string(key), ns, c.newAccess())
		c.Modified(key)
	} else {
		c.setKey(key, ns, nil, false)
	}
	c.Notify(config.NotifyString, "incrbyfloat", key)
	c.W.Bulk(b)
}

func appendCmd(c *Ctx, args [][]byte) {
	key, val := args[1], args[2]
	e := c.LookupWrite(key)
	var total int
	if e == nil {
		c.setKey(key, store.NewString(val), nil, false)
		total = len(val)
	} else {
		s, ok := e.Value.(*store.String)
		if !ok {
			c.WrongType()
			return
		}
		if !c.checkStringLength(int64(len(s.B)), int64(len(val))) {
			return
		}
		s.B = append(s.B, val...)
		s.Raw = true
		total = len(s.B)
		c.Modified(key)
	}
	c.Notify(config.NotifyString, "append", key)
	c.W.Int(int64(total))
}

// checkStringLength refuses a string that would grow past
// proto-max-bulk-len.
func (c *Ctx) checkStringLength(size, add int64) bool {
	total := size + add
	if total > c.E.Config.ProtoMaxBulkLen || total < size || total < add {
		c.Error(ErrStringTooLong)
		return false
	}
	return true
}

func strlen(c *Ctx, args [][]byte) {
	s, ok := c.lookupString(args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(len(s.B)))
}

func getrange(c *Ctx, args [][]byte) {
	start, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	end, ok := redisnum.ParseInt(args[3])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	s, ok := c.lookupString(args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Bulk(nil)
		return
	}
	n := int64(len(s.B))
	if start < 0 && end < 0 && start > end {
		c.W.Bulk(nil)
		return
	}
	if start < 0 {
		start += n
	}
	if end < 0 {
		end += n
	}
	if start < 0 {
		start = 0
	}
	if end < 0 {
		end = 0
	}
	if end >= n {
		end = n - 1
	}
	if start > end || n == 0 {
		c.W.Bulk(nil)
		return
	}
	c.W.Bulk(s.B[start : end+1])
}

func setrange(c *Ctx, args [][]byte) {
	key, val := args[1], args[3]
	offset, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(ErrNotInt)
		return
	}
	if offset < 0 {
		c.Error(ErrOffsetRange)
		return
	}
	e := c.LookupWrite(key)
	if e == nil {
		if len(val) == 0 {
			c.W.Int(0)
			return
		}
		if !c.checkStringLength(offset, int64(len(val))) {
			return
		}
		b := make([]byte, offset+int64(len(val)))
		copy(b[offset:], val)
		c.setKey(key, &store.String{B: b, Raw: true}, nil, false)
		c.Notify(config.NotifyString, "setrange", key)
		c.W.Int(int64(len(b)))
		return
	}
	s, ok := e.Value.(*store.String)
	if !ok {
		c.WrongType()
		return
	}
	if len(val) == 0 {
		c.W.Int(int64(len(s.B)))
		return
	}
	if !c.checkStringLength(offset, int64(len(val))) {
		return
	}
	need := offset + int64(len(val))
	if int64(len(s.B)) < need {
		if int64(cap(s.B)) >= need {
			old := len(s.B)
			s.B = s.B[:need]
			clear(s.B[old:])
		} else {
			nb := make([]byte, need)
			copy(nb, s.B)
			s.B = nb
		}
	}
	copy(s.B[offset:], val)
	s.Raw = true
	c.Modified(key)
	c.Notify(config.NotifyString, "setrange", key)
	c.W.Int(int64(len(s.B)))
}

// lcs is LCS key1 key2 [LEN] [IDX] [MINMATCHLEN n] [WITHMATCHLEN], with
// Redis's dynamic-programming table, walk back and range reporting.
func lcs(c *Ctx, args [][]byte) {
	ea, eb := c.Lookup(args[1]), c.Lookup(args[2])
	var a, b []byte
	for i, e := range []*store.Entry{ea, eb} {
		if e == nil {
			continue
		}
		s, ok := e.Value.(*store.String)
		if !ok {
			c.Error(ErrLCSNotString)
			return
		}
		if i == 0 {
			a = s.B
		} else {
			b = s.B
		}
	}
	var getLen, getIdx, withMatchLen bool
	var minMatchLen int64
	for j := 3; j < len(args); j++ {
		opt := cstr.CString(args[j])
		switch {
		case cstr.EqualFold(opt, "idx"):
			getIdx = true
		case cstr.EqualFold(opt, "len"):
			getLen = true
		case cstr.EqualFold(opt, "withmatchlen"):
			withMatchLen = true
		case cstr.EqualFold(opt, "minmatchlen") && j+1 < len(args):
			n, ok := redisnum.ParseInt(args[j+1])
			if !ok {
				c.Error(ErrNotInt)
				return
			}
			minMatchLen = max(n, 0)
			j++
		default:
			c.Error(ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		c.Error(ErrLCSIdxAndLen)
		return
	}
	if uint64(len(a)) >= math.MaxUint32-1 || uint64(len(b)) >= math.MaxUint32-1 {
		c.Error(ErrLCSTooLong)
		return
	}
	alen, blen := len(a), len(b)
	cells := uint64(alen+1) * uint64(blen+1)
	if cells*4 > uint64(c.E.Config.ProtoMaxBulkLen) {
		c.Error(ErrLCSMemory)
		return
	}
	w := blen + 1
	dp := make([]uint32, cells)
	for i := 1; i <= alen; i++ {
		row, prev := dp[i*w:(i+1)*w], dp[(i-1)*w:i*w]
		ai := a[i-1]
		for j := 1; j <= blen; j++ {
			if ai == b[j-1] {
				row[j] = prev[j-1] + 1
			} else if prev[j] > row[j-1] {
				row[j] = prev[j]
			} else {
				row[j] = row[j-1]
			}
		}
	}
	total := dp[alen*w+blen]
	if getLen {
		c.W.Int(int64(total))
		return
	}
	idx := total
	var result []byte
	result = make([]byte, idx)
	type match struct{ a0, a1, b0, b1 int }
	var ranges []match
	aStart, aEnd, bStart, bEnd := alen, 0, 0, 0 // aStart == alen: no range
	i, j := alen, blen
	for i > 0 && j > 0 {
		emit := false
		if a[i-1] == b[j-1] {
			result[idx-1] = a[i-1]
			if aStart == alen {
				aStart, aEnd, bStart, bEnd = i-1, i-1, j-1, j-1
			} else if aStart == i && bStart == j {
				aStart--
				bStart--
			} else {
				emit = true
			}
			if aStart == 0 || bStart == 0 {
				emit = true
			}
			idx--
			i--
			j--
		} else {
			if dp[(i-1)*w+j] > dp[i*w+j-1] {
				i--
			} else {
				j--
			}
			if aStart != alen {
				emit = true
			}
		}
		if emit {
			if n := int64(aEnd - aStart + 1); minMatchLen == 0 || n >= minMatchLen {
				ranges = append(ranges, match{aStart, aEnd, bStart, bEnd})
			}
			aStart = alen
		}
	}
	if !getIdx {
		c.W.Bulk(result)
		return
	}
	c.W.Map(2)
	c.W.BulkString("matches")
	c.W.Array(len(ranges))
	for _, r := range ranges {
		if withMatchLen {
			c.W.Array(3)
		} else {
			c.W.Array(2)
		}
		c.W.Array(2)
		c.W.Int(int64(r.a0))
		c.W.Int(int64(r.a1))
		c.W.Array(2)
		c.W.Int(int64(r.b0))
		c.W.Int(int64(r.b1))
		if withMatchLen {
			c.W.Int(int64(r.a1 - r.a0 + 1))
		}
	}
	c.W.BulkString("len")
	c.W.Int(int64(total))
}

// setKeyFlags is Redis's setGetKeys: with GET the key is read too.
func setKeyFlags(args [][]byte, pos int) KeyFlag {
	for _, a := range args[min(3, len(args)):] {
		if cstr.EqualFold(cstr.CString(a), "get") {
			return KeyRW | KeyAccess | KeyUpdate
		}
	}
	return KeyOW | KeyUpdate
}
