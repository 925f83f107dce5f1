package commands

import (
	"math"
	"strconv"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/longdouble"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// String commands: Redis's t_string.c.

var stringCommands = []*engine.Spec{
	{Name: "get", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"string"}, Fn: get},
	{Name: "set", Arity: -3, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{{Notes: "RW and ACCESS due to the optional `GET` argument", Flags: engine.KeyRW | engine.KeyAccess | engine.KeyUpdate | engine.KeyVariableFlags, Pos: 1, KeyStep: 1}}, ACL: []string{"string"}, GetKeyFlags: setKeyFlags, Fn: set},
	{Name: "setnx", Arity: 3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyOW | engine.KeyInsert)}, ACL: []string{"string"}, Fn: setnx},
	{Name: "setex", Arity: 4, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyOW | engine.KeyUpdate)}, ACL: []string{"string"}, Fn: setex},
	{Name: "psetex", Arity: 4, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyOW | engine.KeyUpdate)}, ACL: []string{"string"}, Fn: psetex},
	{Name: "getset", Arity: 3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyUpdate)}, ACL: []string{"string"}, Fn: getset},
	{Name: "getdel", Arity: 2, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete)}, ACL: []string{"string"}, Fn: getdel},
	{Name: "getex", Arity: -2, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{{Notes: "RW and UPDATE because it changes the TTL", Flags: engine.KeyRW | engine.KeyAccess | engine.KeyUpdate, Pos: 1, KeyStep: 1}}, ACL: []string{"string"}, Fn: getex},
	{Name: "mget", Arity: -2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO | engine.KeyAccess, Pos: 1, LastKey: -1, KeyStep: 1}}, ACL: []string{"string"}, Tips: []string{"request_policy:multi_shard"}, Fn: mget},
	{Name: "mset", Arity: -3, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{{Flags: engine.KeyOW | engine.KeyUpdate, Pos: 1, LastKey: -1, KeyStep: 2}}, ACL: []string{"string"}, Tips: []string{"request_policy:multi_shard", "response_policy:all_succeeded"}, Fn: mset},
	{Name: "msetnx", Arity: -3, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{{Flags: engine.KeyOW | engine.KeyInsert, Pos: 1, LastKey: -1, KeyStep: 2}}, ACL: []string{"string"}, Tips: []string{"request_policy:multi_shard", "response_policy:agg_min"}, Fn: msetnx},
	{Name: "incr", Arity: 2, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyUpdate)}, ACL: []string{"string"}, Fn: incr},
	{Name: "decr", Arity: 2, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyUpdate)}, ACL: []string{"string"}, Fn: decr},
	{Name: "incrby", Arity: 3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyUpdate)}, ACL: []string{"string"}, Fn: incrby},
	{Name: "decrby", Arity: 3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyUpdate)}, ACL: []string{"string"}, Fn: decrby},
	{Name: "incrbyfloat", Arity: 3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyUpdate)}, ACL: []string{"string"}, Fn: incrbyfloat},
	{Name: "append", Arity: 3, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyInsert)}, ACL: []string{"string"}, Fn: appendCmd},
	{Name: "strlen", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO)}, ACL: []string{"string"}, Fn: strlen},
	{Name: "getrange", Arity: 4, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"string"}, Fn: getrange},
	{Name: "substr", Arity: 4, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"string"}, Fn: getrange},
	{Name: "lcs", Arity: -3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO | engine.KeyAccess, Pos: 1, LastKey: 1, KeyStep: 1}}, ACL: []string{"string"}, Fn: lcs},
	{Name: "setrange", Arity: 4, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate)}, ACL: []string{"string"}, Fn: setrange},
}

func init() { engine.Register(stringCommands) }

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
func lookupString(c *engine.Ctx, key []byte) (*store.String, bool) {
	return engine.LookupAs[*store.String](c, key, false)
}

// parseStringOptions is Redis's parseExtendedStringArgumentsOrReply for
// SET (opts = args[3:]) and GETEX (args[2:], isSet false). It returns the
// flags and the expire argument.
func parseStringOptions(c *engine.Ctx, opts [][]byte, isSet bool) (int, []byte, bool) {
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
			c.Error(engine.ErrSyntax)
			return 0, nil, false
		}
	}
	return flags, expire, true
}

// expireMillis is Redis's getExpireMillisecondsOrReply: the absolute
// deadline for an EX/PX/EXAT/PXAT argument.
func expireMillis(c *engine.Ctx, arg []byte, flags int) (int64, bool) {
	ms, ok := redisnum.ParseInt(arg)
	if !ok {
		c.Error(engine.ErrNotInt)
		return 0, false
	}
	sec := flags&(setEX|setEXAT) != 0
	if ms <= 0 || (sec && ms > math.MaxInt64/1000) {
		c.Error(engine.ErrInvalidExpireTime(c.Spec.FullName()))
		return 0, false
	}
	if sec {
		ms *= 1000
	}
	if flags&(setEX|setPX) != 0 {
		ms += c.Now // wraps on overflow, caught below as Redis does
	}
	if ms <= 0 {
		c.Error(engine.ErrInvalidExpireTime(c.Spec.FullName()))
		return 0, false
	}
	return ms, true
}

// setKey is Redis's setKey after a lookupKeyWrite: e is the entry that
// lookup found (nil for none), which nothing has removed since. It stores
// v, fires "new" for a new key, drops the deadline unless keepTTL, and
// signals the modification.
func setKey(c *engine.Ctx, key []byte, v store.Value, e *store.Entry, keepTTL bool) *store.Entry {
	return setKeyExpire(c, key, v, e, keepTTL, 0)
}

// setKeyExpire is setKey that also gives the key the deadline expire (not
// 0) in the same store operation; the caller fires "expire".
func setKeyExpire(c *engine.Ctx, key []byte, v store.Value, e *store.Entry, keepTTL bool, expire int64) *store.Entry {
	switch {
	case e == nil:
		e = c.DB.Set(string(key), v, expire, c.NewAccess())
		notifyNew(c, key)
	case keepTTL:
		c.DB.ReplaceEntry(e, v, c.NewAccess())
		c.InheritShared(e)
	default:
		c.DB.Overwrite(key, e, v, expire, c.NewAccess())
		c.InheritShared(e)
	}
	c.Modified(key)
	return e
}

// setGeneric is SET, SETNX, SETEX and PSETEX. okReply/abortReply select
// SETNX's integer replies instead of OK/nil.
func setGeneric(c *engine.Ctx, key, val []byte, flags int, expire []byte, intReplies bool) {
	var when int64
	if expire != nil {
		var ok bool
		if when, ok = expireMillis(c, expire, flags); !ok {
			return
		}
	}
	if flags&setGet != 0 {
		s, ok := lookupString(c, key)
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
	setKeyExpire(c, key, store.NewString(val), e, flags&setKeepTTL != 0, when)
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

func get(c *engine.Ctx, args [][]byte) {
	s, ok := lookupString(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
		return
	}
	c.W.Bulk(s.B)
}

func set(c *engine.Ctx, args [][]byte) {
	flags, expire, ok := parseStringOptions(c, args[3:], true)
	if !ok {
		return
	}
	setGeneric(c, args[1], args[2], flags, expire, false)
}

func setnx(c *engine.Ctx, args [][]byte) { setGeneric(c, args[1], args[2], setNX, nil, true) }

func setex(c *engine.Ctx, args [][]byte) { setGeneric(c, args[1], args[3], setEX, args[2], false) }

func psetex(c *engine.Ctx, args [][]byte) { setGeneric(c, args[1], args[3], setPX, args[2], false) }

func getset(c *engine.Ctx, args [][]byte) {
	s, ok := lookupString(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
	} else {
		c.W.Bulk(s.B)
	}
	setKey(c, args[1], store.NewString(args[2]), c.LookupWrite(args[1]), false)
	c.Notify(config.NotifyString, "set", args[1])
}

func getdel(c *engine.Ctx, args [][]byte) {
	// Redis reads the key with lookupKeyRead (reclaiming an expired one,
	// counting the hit or miss, "keymiss"), then deletes it.
	e := c.LookupWrite(args[1])
	if e == nil {
		c.ReadMiss(args[1])
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

func getex(c *engine.Ctx, args [][]byte) {
	flags, expire, ok := parseStringOptions(c, args[2:], false)
	if !ok {
		return
	}
	key := args[1]
	s, ok := lookupString(c, key)
	if !ok {
		return
	}
	if s == nil {
		c.W.Null()
		return
	}
	var when int64
	if expire != nil {
		if when, ok = expireMillis(c, expire, flags); !ok {
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

func mget(c *engine.Ctx, args [][]byte) {
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

func msetGeneric(c *engine.Ctx, args [][]byte, nx bool) {
	if len(args)%2 == 0 {
		c.Error(engine.ErrWrongArgs(c.Spec.FullName()))
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
		setKey(c, args[j], store.NewString(args[j+1]), c.LookupWrite(args[j]), false)
		c.Notify(config.NotifyString, "set", args[j])
	}
	if nx {
		c.W.Int(1)
	} else {
		c.W.OK()
	}
}

func mset(c *engine.Ctx, args [][]byte)   { msetGeneric(c, args, false) }
func msetnx(c *engine.Ctx, args [][]byte) { msetGeneric(c, args, true) }

// incrDecr is Redis's incrDecrCommand.
func incrDecr(c *engine.Ctx, key []byte, incr int64) {
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
		c.Error(engine.ErrNotInt)
		return
	}
	if (incr < 0 && v < 0 && incr < math.MinInt64-v) || (incr > 0 && v > 0 && incr > math.MaxInt64-v) {
		c.Error(engine.ErrOverflow)
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
		c.InheritShared(e)
		c.Modified(key)
	} else {
		setKey(c, key, store.NewString(b), nil, false)
	}
	c.Notify(config.NotifyString, "incrby", key)
	c.W.Int(v)
}

func incr(c *engine.Ctx, args [][]byte) { incrDecr(c, args[1], 1) }
func decr(c *engine.Ctx, args [][]byte) { incrDecr(c, args[1], -1) }

func incrby(c *engine.Ctx, args [][]byte) {
	n, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	incrDecr(c, args[1], n)
}

func decrby(c *engine.Ctx, args [][]byte) {
	n, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	if n == math.MinInt64 {
		c.Error(engine.ErrDecrOverflow)
		return
	}
	incrDecr(c, args[1], -n)
}

func incrbyfloat(c *engine.Ctx, args [][]byte) {
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
			c.Error(engine.ErrNotFloat)
			return
		}
	}
	inc, ok := longdouble.Parse(args[2])
	if !ok {
		c.Error(engine.ErrNotFloat)
		return
	}
	sum, ok := longdouble.Add(value, inc)
	if !ok {
		c.Error(engine.ErrIncrNaNInf)
		return
	}
	b := longdouble.AppendHuman(nil, sum)
	ns := &store.String{B: b, NotInt: true}
	if s != nil {
		c.DB.Replace(string(key), ns, c.NewAccess())
		c.Modified(key)
	} else {
		setKey(c, key, ns, nil, false)
	}
	c.Notify(config.NotifyString, "incrbyfloat", key)
	c.W.Bulk(b)
}

func appendCmd(c *engine.Ctx, args [][]byte) {
	key, val := args[1], args[2]
	e := c.LookupWrite(key)
	var total int
	if e == nil {
		setKey(c, key, store.NewString(val), nil, false)
		total = len(val)
	} else {
		s, ok := e.Value.(*store.String)
		if !ok {
			c.WrongType()
			return
		}
		if !checkStringLength(c, int64(len(s.B)), int64(len(val))) {
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
func checkStringLength(c *engine.Ctx, size, add int64) bool {
	total := size + add
	if total > c.E.Config.ProtoMaxBulkLen || total < size || total < add {
		c.Error(engine.ErrStringTooLong)
		return false
	}
	return true
}

func strlen(c *engine.Ctx, args [][]byte) {
	s, ok := lookupString(c, args[1])
	if !ok {
		return
	}
	if s == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(len(s.B)))
}

func getrange(c *engine.Ctx, args [][]byte) {
	start, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	end, ok := redisnum.ParseInt(args[3])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	s, ok := lookupString(c, args[1])
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

func setrange(c *engine.Ctx, args [][]byte) {
	key, val := args[1], args[3]
	offset, ok := redisnum.ParseInt(args[2])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	if offset < 0 {
		c.Error(engine.ErrOffsetRange)
		return
	}
	e := c.LookupWrite(key)
	if e == nil {
		if len(val) == 0 {
			c.W.Int(0)
			return
		}
		if !checkStringLength(c, offset, int64(len(val))) {
			return
		}
		b := make([]byte, offset+int64(len(val)))
		copy(b[offset:], val)
		setKey(c, key, &store.String{B: b, Raw: true}, nil, false)
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
	if !checkStringLength(c, offset, int64(len(val))) {
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
func lcs(c *engine.Ctx, args [][]byte) {
	ea, eb := c.Lookup(args[1]), c.Lookup(args[2])
	var a, b []byte
	for i, e := range []*store.Entry{ea, eb} {
		if e == nil {
			continue
		}
		s, ok := e.Value.(*store.String)
		if !ok {
			c.Error(engine.ErrLCSNotString)
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
				c.Error(engine.ErrNotInt)
				return
			}
			minMatchLen = max(n, 0)
			j++
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	}
	if getIdx && getLen {
		c.Error(engine.ErrLCSIdxAndLen)
		return
	}
	if uint64(len(a)) >= math.MaxUint32-1 || uint64(len(b)) >= math.MaxUint32-1 {
		c.Error(engine.ErrLCSTooLong)
		return
	}
	alen, blen := len(a), len(b)
	cells := uint64(alen+1) * uint64(blen+1)
	if cells*4 > uint64(c.E.Config.ProtoMaxBulkLen) {
		c.Error(engine.ErrLCSMemory)
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
func setKeyFlags(args [][]byte, pos int) engine.KeyFlag {
	for _, a := range args[min(3, len(args)):] {
		if cstr.EqualFold(cstr.CString(a), "get") {
			return engine.KeyRW | engine.KeyAccess | engine.KeyUpdate
		}
	}
	return engine.KeyOW | engine.KeyUpdate
}
