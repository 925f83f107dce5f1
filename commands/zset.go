package commands

import (
	"math"
	"sort"
	"strconv"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/store"
)

// Sorted-set commands (Redis 7.0 t_zset.c).

var zsetCommands = []*engine.Spec{
	{Name: "zadd", Arity: -4, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyUpdate)}, ACL: []string{"sortedset"}, Fn: zadd},
	{Name: "zincrby", Arity: 4, Flags: engine.Write | engine.DenyOOM | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyUpdate)}, ACL: []string{"sortedset"}, Fn: zincrby},
	{Name: "zrem", Arity: -3, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyDelete)}, ACL: []string{"sortedset"}, Fn: zrem},
	{Name: "zscore", Arity: 3, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zscore},
	{Name: "zmscore", Arity: -3, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zmscore},
	{Name: "zcard", Arity: 2, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO)}, ACL: []string{"sortedset"}, Fn: zcard},
	{Name: "zcount", Arity: 4, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zcount},
	{Name: "zlexcount", Arity: 4, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zlexcount},
	{Name: "zrank", Arity: 3, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zrank},
	{Name: "zrevrank", Arity: 3, Flags: engine.ReadOnly | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zrevrank},
	{Name: "zrange", Arity: -4, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zrange},
	{Name: "zrevrange", Arity: -4, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zrevrange},
	{Name: "zrangebyscore", Arity: -4, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zrangebyscore},
	{Name: "zrevrangebyscore", Arity: -4, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zrevrangebyscore},
	{Name: "zrangebylex", Arity: -4, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zrangebylex},
	{Name: "zrevrangebylex", Arity: -4, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Fn: zrevrangebylex},
	{Name: "zremrangebyscore", Arity: 4, Flags: engine.Write, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyDelete)}, ACL: []string{"sortedset"}, Fn: zremrangebyscore},
	{Name: "zremrangebyrank", Arity: 4, Flags: engine.Write, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyDelete)}, ACL: []string{"sortedset"}, Fn: zremrangebyrank},
	{Name: "zremrangebylex", Arity: 4, Flags: engine.Write, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyDelete)}, ACL: []string{"sortedset"}, Fn: zremrangebylex},
	{Name: "zpopmin", Arity: -2, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete)}, ACL: []string{"sortedset"}, Fn: zpopmin},
	{Name: "zpopmax", Arity: -2, Flags: engine.Write | engine.Fast, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRW | engine.KeyAccess | engine.KeyDelete)}, ACL: []string{"sortedset"}, Fn: zpopmax},
	{Name: "zmpop", Arity: -4, Flags: engine.Write, Keys: zmpopKeys, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRW | engine.KeyAccess | engine.KeyDelete, Pos: 1, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: zmpop},
	{Name: "zrangestore", Arity: -5, Flags: engine.Write | engine.DenyOOM, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyOW | engine.KeyUpdate), {Flags: engine.KeyRO | engine.KeyAccess, Pos: 2, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: zrangestore},
	{Name: "zrandmember", Arity: -2, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Tips: []string{"nondeterministic_output"}, Fn: zrandmember},
	{Name: "zunion", Arity: -3, Flags: engine.ReadOnly, Keys: zsetopKeys(1, false), KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO | engine.KeyAccess, Pos: 1, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: zunion},
	{Name: "zinter", Arity: -3, Flags: engine.ReadOnly, Keys: zsetopKeys(1, false), KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO | engine.KeyAccess, Pos: 1, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: zinter},
	{Name: "zdiff", Arity: -3, Flags: engine.ReadOnly, Keys: zsetopKeys(1, false), KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO | engine.KeyAccess, Pos: 1, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: zdiff},
	{Name: "zintercard", Arity: -3, Flags: engine.ReadOnly, Keys: zsetopKeys(1, false), KeySpecs: []engine.KeySpec{{Flags: engine.KeyRO | engine.KeyAccess, Pos: 1, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: zintercard},
	{Name: "zunionstore", Arity: -4, Flags: engine.Write | engine.DenyOOM, Keys: zsetopKeys(2, true), KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyOW | engine.KeyUpdate), {Flags: engine.KeyRO | engine.KeyAccess, Pos: 2, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: zunionstore},
	{Name: "zinterstore", Arity: -4, Flags: engine.Write | engine.DenyOOM, Keys: zsetopKeys(2, true), KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyOW | engine.KeyUpdate), {Flags: engine.KeyRO | engine.KeyAccess, Pos: 2, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: zinterstore},
	{Name: "zdiffstore", Arity: -4, Flags: engine.Write | engine.DenyOOM, Keys: zsetopKeys(2, true), KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyOW | engine.KeyUpdate), {Flags: engine.KeyRO | engine.KeyAccess, Pos: 2, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: zdiffstore},
	{Name: "bzpopmin", Arity: -3, Flags: engine.Write | engine.NoScript | engine.Blocking | engine.Fast, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRW | engine.KeyAccess | engine.KeyDelete, Pos: 1, LastKey: -2, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: bzpopmin},
	{Name: "bzpopmax", Arity: -3, Flags: engine.Write | engine.NoScript | engine.Blocking | engine.Fast, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRW | engine.KeyAccess | engine.KeyDelete, Pos: 1, LastKey: -2, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: bzpopmax},
	{Name: "bzmpop", Arity: -5, Flags: engine.Write | engine.Blocking, Keys: bzmpopKeys, KeySpecs: []engine.KeySpec{{Flags: engine.KeyRW | engine.KeyAccess | engine.KeyDelete, Pos: 2, Find: engine.FindKeyNum, KeyNumIdx: 0, FirstKey: 1, KeyStep: 1}}, ACL: []string{"sortedset"}, Fn: bzmpop},
	{Name: "zscan", Arity: -3, Flags: engine.ReadOnly, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess)}, ACL: []string{"sortedset"}, Tips: []string{"nondeterministic_output"}, Fn: zscan},
}

func init() { engine.Register(zsetCommands) }

// ---------------------------------------------------------------------------
// zset helpers

// zsetRead returns the sorted set at key for reading: nil with ok when the
// key is missing, ok == false (WRONGTYPE written) for another type.
func zsetRead(c *engine.Ctx, key []byte) (*store.ZSet, bool) {
	return engine.LookupAs[*store.ZSet](c, key, false)
}

// zsetWrite is zsetRead for a command that modifies the set.
func zsetWrite(c *engine.Ctx, key []byte) (*store.ZSet, bool) {
	return engine.LookupAs[*store.ZSet](c, key, true)
}

// zsetDeleteIfEmpty deletes key when z became empty and reports it.
func zsetDeleteIfEmpty(c *engine.Ctx, key []byte, z *store.ZSet) bool {
	if z.Len() > 0 {
		return false
	}
	c.DB.Delete(string(key))
	return true
}

// parseScoreRange parses ZRANGEBYSCORE-style bounds.
func parseScoreRange(min, max []byte) (store.ScoreRange, bool) {
	var r store.ScoreRange
	var ok bool
	if r.Min, r.MinEx, ok = redisnum.ParseRangeScore(min); !ok {
		return r, false
	}
	if r.Max, r.MaxEx, ok = redisnum.ParseRangeScore(max); !ok {
		return r, false
	}
	return r, true
}

// parseLexBound parses one ZRANGEBYLEX bound ("-", "+", "(x", "[x") as
// zslParseLexRangeItem does.
func parseLexBound(b []byte) (store.LexBound, bool) {
	if len(b) == 0 {
		return store.LexBound{}, false
	}
	switch b[0] {
	case '+', '-':
		if len(b) > 1 && b[1] != 0 {
			return store.LexBound{}, false
		}
		inf := int8(1)
		if b[0] == '-' {
			inf = -1
		}
		return store.LexBound{Inf: inf, Ex: true}, true
	case '(':
		return store.LexBound{S: string(b[1:]), Ex: true}, true
	case '[':
		return store.LexBound{S: string(b[1:])}, true
	}
	return store.LexBound{}, false
}

func parseLexRange(min, max []byte) (store.LexRange, bool) {
	var r store.LexRange
	var ok bool
	if r.Min, ok = parseLexBound(min); !ok {
		return r, false
	}
	if r.Max, ok = parseLexBound(max); !ok {
		return r, false
	}
	return r, true
}

// zsetNewForAdd creates the set ZADD stores for a missing key: Redis 7.0
// starts with a skiplist when listpacks are disabled or the first member is
// already too long.
func zsetNewForAdd(c *engine.Ctx, firstMember []byte) *store.ZSet {
	cfg := c.E.Config
	return store.NewZSet(cfg.ZSetMaxListpackEntries == 0 || cfg.ZSetMaxListpackValue < len(firstMember))
}

// appendListpackScore formats a score the way a listpack stores it (what
// ZSCAN returns for a listpack-encoded set): integral values within
// ±LLONG_MAX/2 as integers, others as %.17g.
func appendListpackScore(dst []byte, f float64) []byte {
	const lim = float64(math.MaxInt64 / 2)
	if f >= -lim && f <= lim && f == math.Trunc(f) {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return resp.AppendDouble(dst, f)
}

// finishArray inserts an array header of n elements at byte offset p of w,
// before elements already written (Redis's deferred length).
func finishArray(w *resp.Writer, p int, n int) {
	var tmp [24]byte
	h := append(tmp[:0], '*')
	h = strconv.AppendInt(h, int64(n), 10)
	h = append(h, '\r', '\n')
	w.B = append(w.B, h...)
	copy(w.B[p+len(h):], w.B[p:len(w.B)-len(h)])
	copy(w.B[p:], h)
}

// zrangeEmitter writes range results: a flat member/score array in RESP2,
// [member, score] pairs under RESP3 (zrangeResultEmitCBufferToClient).
type zrangeEmitter struct {
	w          *resp.Writer
	withscores bool
	nested     bool
}

func (z *zrangeEmitter) emit(member string, score float64) {
	if z.nested {
		z.w.Array(2)
	}
	z.w.BulkString(member)
	if z.withscores {
		z.w.Double(score)
	}
}

// ---------------------------------------------------------------------------
// ZADD / ZINCRBY

func zadd(c *engine.Ctx, args [][]byte)    { zaddGeneric(c, args, 0) }
func zincrby(c *engine.Ctx, args [][]byte) { zaddGeneric(c, args, store.ZAddIncr) }

// zaddGeneric is Redis's zaddGenericCommand, shared by ZADD and ZINCRBY.
func zaddGeneric(c *engine.Ctx, args [][]byte, flags int) {
	key := args[1]
	ch := false
	scoreidx := 2
options:
	for ; scoreidx < len(args); scoreidx++ {
		o := cstr.CString(args[scoreidx]) // strcasecmp stops at NUL
		switch {
		case cstr.EqualFold(o, "nx"):
			flags |= store.ZAddNX
		case cstr.EqualFold(o, "xx"):
			flags |= store.ZAddXX
		case cstr.EqualFold(o, "ch"):
			ch = true
		case cstr.EqualFold(o, "incr"):
			flags |= store.ZAddIncr
		case cstr.EqualFold(o, "gt"):
			flags |= store.ZAddGT
		case cstr.EqualFold(o, "lt"):
			flags |= store.ZAddLT
		default:
			break options
		}
	}
	incr := flags&store.ZAddIncr != 0
	nx := flags&store.ZAddNX != 0
	xx := flags&store.ZAddXX != 0
	gt := flags&store.ZAddGT != 0
	lt := flags&store.ZAddLT != 0

	elements := len(args) - scoreidx
	if elements%2 != 0 || elements == 0 {
		c.Error(engine.ErrSyntax)
		return
	}
	elements /= 2
	if nx && xx {
		c.Error(engine.ErrXXandNX)
		return
	}
	if (gt && nx) || (lt && nx) || (gt && lt) {
		c.Error(engine.ErrGTLTNX)
		return
	}
	if incr && elements > 1 {
		c.Error(engine.ErrZIncrPair)
		return
	}

	// Parse every score first: the command runs fully or not at all.
	var buf [8]float64
	scores := buf[:0]
	if elements > len(buf) {
		scores = make([]float64, 0, elements)
	}
	for j := 0; j < elements; j++ {
		f, ok := redisnum.ParseFloat(args[scoreidx+j*2])
		if !ok {
			c.Error(engine.ErrNotFloat)
			return
		}
		scores = append(scores, f)
	}

	z, ok := zsetWrite(c, key)
	if !ok {
		return
	}
	added, updated, processed := 0, 0, 0
	var score float64
	if z == nil {
		if xx {
			goto reply
		}
		z = zsetNewForAdd(c, args[scoreidx+1])
		c.DB.Set(string(key), z, 0, c.NewAccess())
		c.Ready(key)
		c.Notify(config.NotifyNew, "new", key)
	}
	{
		cfg := c.E.Config
		for j := 0; j < elements; j++ {
			res, ns := z.Add(args[scoreidx+1+j*2], scores[j], flags, cfg.ZSetMaxListpackEntries, cfg.ZSetMaxListpackValue)
			if res&store.ZAddNaN != 0 {
				c.Error(engine.ErrZNaN)
				goto notify
			}
			if res&store.ZAddAdded != 0 {
				added++
			}
			if res&store.ZAddUpdated != 0 {
				updated++
			}
			if res&store.ZAddNop == 0 {
				processed++
			}
			score = ns
		}
	}
reply:
	if incr {
		if processed > 0 {
			c.W.Double(score)
		} else {
			c.W.Null()
		}
	} else if ch {
		c.W.Int(int64(added + updated))
	} else {
		c.W.Int(int64(added))
	}
notify:
	if added > 0 || updated > 0 {
		c.Modified(key)
		c.E.Stats.Dirty += int64(added + updated - 1) // Redis counts each change
		if incr {
			c.Notify(config.NotifyZSet, "zincr", key)
		} else {
			c.Notify(config.NotifyZSet, "zadd", key)
		}
	}
}

// ---------------------------------------------------------------------------
// ZREM

func zrem(c *engine.Ctx, args [][]byte) {
	key := args[1]
	z, ok := zsetWrite(c, key)
	if !ok {
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	deleted := 0
	removed := false
	for _, m := range args[2:] {
		if z.Remove(m) {
			deleted++
		}
		if z.Len() == 0 {
			c.DB.Delete(string(key))
			removed = true
			break
		}
	}
	if deleted > 0 {
		c.Notify(config.NotifyZSet, "zrem", key)
		if removed {
			c.Notify(config.NotifyGeneric, "del", key)
		}
		c.Modified(key)
		c.E.Stats.Dirty += int64(deleted - 1)
	}
	c.W.Int(int64(deleted))
}

// ---------------------------------------------------------------------------
// Point reads

func zscore(c *engine.Ctx, args [][]byte) {
	z, ok := zsetRead(c, args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Null()
		return
	}
	if s, found := z.Score(args[2]); found {
		c.W.Double(s)
	} else {
		c.W.Null()
	}
}

func zmscore(c *engine.Ctx, args [][]byte) {
	z, ok := zsetRead(c, args[1])
	if !ok {
		return
	}
	c.W.Array(len(args) - 2)
	for _, m := range args[2:] {
		if z == nil {
			c.W.Null()
			continue
		}
		if s, found := z.Score(m); found {
			c.W.Double(s)
		} else {
			c.W.Null()
		}
	}
}

func zcard(c *engine.Ctx, args [][]byte) {
	z, ok := zsetRead(c, args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(z.Len()))
}

func zcount(c *engine.Ctx, args [][]byte) {
	r, ok := parseScoreRange(args[2], args[3])
	if !ok {
		c.Error(engine.ErrMinMaxNotFloat)
		return
	}
	z, ok := zsetRead(c, args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(z.CountByScore(&r)))
}

func zlexcount(c *engine.Ctx, args [][]byte) {
	r, ok := parseLexRange(args[2], args[3])
	if !ok {
		c.Error(engine.ErrMinMaxLex)
		return
	}
	z, ok := zsetRead(c, args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	c.W.Int(int64(z.CountByLex(&r)))
}

func zrank(c *engine.Ctx, args [][]byte)    { zrankGeneric(c, args, false) }
func zrevrank(c *engine.Ctx, args [][]byte) { zrankGeneric(c, args, true) }

func zrankGeneric(c *engine.Ctx, args [][]byte, reverse bool) {
	z, ok := zsetRead(c, args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Null()
		return
	}
	if r, found := z.Rank(args[2], reverse); found {
		c.W.Int(int64(r))
	} else {
		c.W.Null()
	}
}

// ---------------------------------------------------------------------------
// ZRANGE family

type zrangeType uint8

const (
	zrangeAuto zrangeType = iota
	zrangeRank
	zrangeScore
	zrangeLex
)

type zrangeDir uint8

const (
	zrangeDirAuto zrangeDir = iota
	zrangeForward
	zrangeReverse
)

func zrange(c *engine.Ctx, args [][]byte) { zrangeGeneric(c, args, 1, nil, zrangeAuto, zrangeDirAuto) }
func zrevrange(c *engine.Ctx, args [][]byte) {
	zrangeGeneric(c, args, 1, nil, zrangeRank, zrangeReverse)
}
func zrangebylex(c *engine.Ctx, args [][]byte) {
	zrangeGeneric(c, args, 1, nil, zrangeLex, zrangeForward)
}
func zrevrangebylex(c *engine.Ctx, args [][]byte) {
	zrangeGeneric(c, args, 1, nil, zrangeLex, zrangeReverse)
}
func zrangebyscore(c *engine.Ctx, args [][]byte) {
	zrangeGeneric(c, args, 1, nil, zrangeScore, zrangeForward)
}
func zrevrangebyscore(c *engine.Ctx, args [][]byte) {
	zrangeGeneric(c, args, 1, nil, zrangeScore, zrangeReverse)
}
func zrangestore(c *engine.Ctx, args [][]byte) {
	zrangeGeneric(c, args, 2, args[1], zrangeAuto, zrangeDirAuto)
}

// zrangeGeneric is Redis's zrangeGenericCommand: the arguments from
// argStart are "src min max [BYSCORE|BYLEX] [REV] [WITHSCORES] [LIMIT o c]";
// dst, when not nil, makes it ZRANGESTORE (no WITHSCORES; the result is
// stored and its size replied).
func zrangeGeneric(c *engine.Ctx, args [][]byte, argStart int, dst []byte, rt zrangeType, dir zrangeDir) {
	isStore := dst != nil
	key := args[argStart]
	minidx, maxidx := argStart+1, argStart+2
	withscores := false
	offset, limit := int64(0), int64(-1)
	for j := argStart + 3; j < len(args); j++ {
		left := len(args) - j - 1
		a := cstr.CString(args[j])
		switch {
		case !isStore && cstr.EqualFold(a, "withscores"):
			withscores = true
		case left >= 2 && cstr.EqualFold(a, "limit"):
			var ok bool
			if offset, ok = redisnum.ParseInt(args[j+1]); !ok {
				c.Error(engine.ErrNotInt)
				return
			}
			if limit, ok = redisnum.ParseInt(args[j+2]); !ok {
				c.Error(engine.ErrNotInt)
				return
			}
			j += 2
		case dir == zrangeDirAuto && cstr.EqualFold(a, "rev"):
			dir = zrangeReverse
		case rt == zrangeAuto && cstr.EqualFold(a, "bylex"):
			rt = zrangeLex
		case rt == zrangeAuto && cstr.EqualFold(a, "byscore"):
			rt = zrangeScore
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	}
	if dir == zrangeDirAuto {
		dir = zrangeForward
	}
	if rt == zrangeAuto {
		rt = zrangeRank
	}
	if limit != -1 && rt == zrangeRank {
		c.Error(engine.ErrZLimitRank)
		return
	}
	if withscores && rt == zrangeLex {
		c.Error(engine.ErrZWithscoresLex)
		return
	}
	reverse := dir == zrangeReverse
	if reverse && rt != zrangeRank {
		minidx, maxidx = maxidx, minidx
	}

	var start, end int64
	var sr store.ScoreRange
	var lr store.LexRange
	switch rt {
	case zrangeRank:
		var ok bool
		if start, ok = redisnum.ParseInt(args[minidx]); !ok {
			c.Error(engine.ErrNotInt)
			return
		}
		if end, ok = redisnum.ParseInt(args[maxidx]); !ok {
			c.Error(engine.ErrNotInt)
			return
		}
	case zrangeScore:
		var ok bool
		if sr, ok = parseScoreRange(args[minidx], args[maxidx]); !ok {
			c.Error(engine.ErrMinMaxNotFloat)
			return
		}
	case zrangeLex:
		var ok bool
		if lr, ok = parseLexRange(args[minidx], args[maxidx]); !ok {
			c.Error(engine.ErrMinMaxLex)
			return
		}
	}

	z, ok := zsetRead(c, key)
	if !ok {
		return
	}
	if z == nil {
		if isStore {
			zrangeStoreFinish(c, dst, nil)
		} else {
			c.W.Array(0)
		}
		return
	}

	// Rank ranges know their length up front.
	if rt == zrangeRank {
		llen := int64(z.Len())
		if start < 0 {
			start += llen
		}
		if end < 0 {
			end += llen
		}
		if start < 0 {
			start = 0
		}
		if start > end || start >= llen {
			if isStore {
				zrangeStoreFinish(c, dst, nil)
			} else {
				c.W.Array(0)
			}
			return
		}
		if end >= llen {
			end = llen - 1
		}
	}

	if isStore {
		cfg := c.E.Config
		var out *store.ZSet
		if rt == zrangeRank {
			out = store.NewZSet(end-start+1 > int64(cfg.ZSetMaxListpackEntries))
		} else {
			out = store.NewZSet(false)
		}
		add := func(m string, s float64) {
			out.AddString(m, s, 0, cfg.ZSetMaxListpackEntries, cfg.ZSetMaxListpackValue)
		}
		switch rt {
		case zrangeRank:
			z.RangeByRank(int(start), int(end), reverse, add)
		case zrangeScore:
			z.RangeByScore(&sr, clampInt(offset), clampInt(limit), reverse, add)
		case zrangeLex:
			z.RangeByLex(&lr, clampInt(offset), clampInt(limit), reverse, add)
		}
		zrangeStoreFinish(c, dst, out)
		return
	}

	em := zrangeEmitter{w: c.W, withscores: withscores, nested: withscores && c.W.Resp3()}
	mult := 1
	if withscores && !c.W.Resp3() {
		mult = 2
	}
	switch rt {
	case zrangeRank:
		c.W.Array(int(end-start+1) * mult)
		z.RangeByRank(int(start), int(end), reverse, em.emit)
	case zrangeScore, zrangeLex:
		off, lim := clampInt(offset), clampInt(limit)
		p := len(c.W.B)
		var n int
		if rt == zrangeScore {
			n = z.RangeByScore(&sr, off, lim, reverse, em.emit)
		} else {
			n = z.RangeByLex(&lr, off, lim, reverse, em.emit)
		}
		finishArray(c.W, p, n*mult)
	}
}

// zrangeStoreFinish stores a ZRANGESTORE result (zrangeResultFinalizeStore):
// a non-empty result replaces dst (any type, no TTL), an empty one deletes it.
func zrangeStoreFinish(c *engine.Ctx, dst []byte, out *store.ZSet) {
	if out != nil && out.Len() > 0 {
		zsetStore(c, dst, out)
		c.W.Int(int64(out.Len()))
		c.Notify(config.NotifyZSet, "zrangestore", dst)
		return
	}
	c.W.Int(0)
	zsetStoreEmpty(c, dst)
}

// zsetStore is Redis's setKey for a computed sorted set: it overwrites dst
// whatever its type and TTL.
func zsetStore(c *engine.Ctx, dst []byte, z *store.ZSet) {
	existed := c.LookupWrite(dst) != nil
	c.DB.Set(string(dst), z, 0, c.NewAccess())
	if !existed {
		c.Ready(dst)
		c.Notify(config.NotifyNew, "new", dst)
	}
	c.Modified(dst)
}

// zsetStoreEmpty deletes dst for an empty store result, as Redis does.
func zsetStoreEmpty(c *engine.Ctx, dst []byte) {
	if c.LookupWrite(dst) != nil {
		c.DB.Delete(string(dst))
		c.Modified(dst)
		c.Notify(config.NotifyGeneric, "del", dst)
	}
}

// clampInt converts an int64 option to int (identical on 64-bit hosts).
func clampInt(v int64) int {
	if v > math.MaxInt {
		return math.MaxInt
	}
	if v < math.MinInt {
		return math.MinInt
	}
	return int(v)
}

// ---------------------------------------------------------------------------
// ZREMRANGEBY*

func zremrangebyscore(c *engine.Ctx, args [][]byte) { zremrangeGeneric(c, args, zrangeScore) }
func zremrangebyrank(c *engine.Ctx, args [][]byte)  { zremrangeGeneric(c, args, zrangeRank) }
func zremrangebylex(c *engine.Ctx, args [][]byte)   { zremrangeGeneric(c, args, zrangeLex) }

func zremrangeGeneric(c *engine.Ctx, args [][]byte, rt zrangeType) {
	key := args[1]
	var start, end int64
	var sr store.ScoreRange
	var lr store.LexRange
	var event string
	switch rt {
	case zrangeRank:
		event = "zremrangebyrank"
		var ok bool
		if start, ok = redisnum.ParseInt(args[2]); !ok {
			c.Error(engine.ErrNotInt)
			return
		}
		if end, ok = redisnum.ParseInt(args[3]); !ok {
			c.Error(engine.ErrNotInt)
			return
		}
	case zrangeScore:
		event = "zremrangebyscore"
		var ok bool
		if sr, ok = parseScoreRange(args[2], args[3]); !ok {
			c.Error(engine.ErrMinMaxNotFloat)
			return
		}
	case zrangeLex:
		event = "zremrangebylex"
		var ok bool
		if lr, ok = parseLexRange(args[2], args[3]); !ok {
			c.Error(engine.ErrMinMaxLex)
			return
		}
	}
	z, ok := zsetWrite(c, key)
	if !ok {
		return
	}
	if z == nil {
		c.W.Int(0)
		return
	}
	var deleted int
	switch rt {
	case zrangeRank:
		llen := int64(z.Len())
		if start < 0 {
			start += llen
		}
		if end < 0 {
			end += llen
		}
		if start < 0 {
			start = 0
		}
		if start > end || start >= llen {
			c.W.Int(0)
			return
		}
		if end >= llen {
			end = llen - 1
		}
		deleted = z.RemoveRangeByRank(int(start), int(end))
	case zrangeScore:
		deleted = z.RemoveRangeByScore(&sr)
	case zrangeLex:
		deleted = z.RemoveRangeByLex(&lr)
	}
	removed := zsetDeleteIfEmpty(c, key, z)
	if deleted > 0 {
		c.Modified(key)
		c.E.Stats.Dirty += int64(deleted - 1)
		c.Notify(config.NotifyZSet, event, key)
		if removed {
			c.Notify(config.NotifyGeneric, "del", key)
		}
	}
	c.W.Int(int64(deleted))
}

// ---------------------------------------------------------------------------
// ZPOPMIN / ZPOPMAX / ZMPOP

// zpopGeneric is Redis's genericZpopCommand. keys are tried in order: the
// first existing one is popped (a wrong type stops the search with
// WRONGTYPE). count < 0 is a plain single pop. nested writes [member,
// score] pairs; emitKey prefixes the key (ZMPOP shape when nested, BZPOP
// shape otherwise); nilWhenEmpty answers a null array instead of an empty
// one when no key exists.
// It reports whether the popped key was deleted (emptied).
func zpopGeneric(c *engine.Ctx, keys [][]byte, max bool, emitKey bool, count int64, nested, nilWhenEmpty bool) (deleted bool) {
	var key []byte
	var z *store.ZSet
	for _, k := range keys {
		zz, ok := zsetWrite(c, k)
		if !ok {
			return false
		}
		if zz != nil {
			key, z = k, zz
			break
		}
	}
	if z == nil {
		if nilWhenEmpty {
			c.W.NullArray()
		} else {
			c.W.Array(0)
		}
		return false
	}
	if count == 0 {
		c.W.Array(0)
		return false
	}
	if count < 0 {
		count = 1
	}
	rangelen := int64(z.Len())
	if count < rangelen {
		rangelen = count
	}
	switch {
	case !nested && !emitKey:
		c.W.Array(int(rangelen * 2))
	case nested && !emitKey:
		c.W.Array(int(rangelen))
	case !nested && emitKey:
		c.W.Array(int(rangelen*2 + 1))
		c.W.Bulk(key)
	default:
		c.W.Array(2)
		c.W.Bulk(key)
		c.W.Array(int(rangelen))
	}
	event := "zpopmin"
	if max {
		event = "zpopmax"
	}
	for i := int64(0); i < rangelen; i++ {
		m, s := z.Pop(max)
		if i == 0 {
			c.Notify(config.NotifyZSet, event, key)
		}
		if nested {
			c.W.Array(2)
		}
		c.W.BulkString(m)
		c.W.Double(s)
	}
	if zsetDeleteIfEmpty(c, key, z) {
		deleted = true
		c.Notify(config.NotifyGeneric, "del", key)
	}
	c.Modified(key)
	c.E.Stats.Dirty += rangelen - 1 // one per popped member
	return deleted
}

func zpopmin(c *engine.Ctx, args [][]byte) { zpopMinMax(c, args, false) }
func zpopmax(c *engine.Ctx, args [][]byte) { zpopMinMax(c, args, true) }

func zpopMinMax(c *engine.Ctx, args [][]byte, max bool) {
	if len(args) > 3 {
		c.Error(engine.ErrSyntax)
		return
	}
	count := int64(-1)
	if len(args) == 3 {
		// getPositiveLongFromObjectOrReply: one message for both errors.
		n, ok := redisnum.ParseInt(args[2])
		if !ok || n < 0 {
			c.Error(engine.ErrCountPositive)
			return
		}
		count = n
	}
	zpopGeneric(c, args[1:2], max, false, count, c.W.Resp3() && count != -1, false)
}

// zmpopKeys returns ZMPOP's key positions: numkeys at 1, then the keys.
func zmpopKeys(args [][]byte) []int { return numkeysPositions(args, 1) }

// numkeysPositions returns the key positions of a command whose numkeys
// argument is at idx and is followed by the keys.
func numkeysPositions(args [][]byte, idx int) []int {
	if idx >= len(args) {
		return nil
	}
	n, ok := redisnum.ParseInt(args[idx])
	if !ok || n <= 0 || n > int64(len(args)-idx-1) {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = idx + 1 + i
	}
	return out
}

// zmpopArgs parses ZMPOP/BZMPOP's "numkeys key... MIN|MAX [COUNT n]" with
// numkeys at args[idx]; it writes the error and returns ok == false.
func zmpopArgs(c *engine.Ctx, args [][]byte, idx int) (keys [][]byte, max bool, count int64, ok bool) {
	numkeys, okn := redisnum.ParseInt(args[idx])
	if !okn || numkeys < 1 {
		c.Error(engine.ErrNumKeysZero)
		return nil, false, 0, false
	}
	if numkeys > int64(len(args)) {
		c.Error(engine.ErrSyntax)
		return nil, false, 0, false
	}
	whereIdx := idx + int(numkeys) + 1
	if whereIdx >= len(args) {
		c.Error(engine.ErrSyntax)
		return nil, false, 0, false
	}
	switch {
	case cstr.EqualFold(cstr.CString(args[whereIdx]), "min"):
	case cstr.EqualFold(cstr.CString(args[whereIdx]), "max"):
		max = true
	default:
		c.Error(engine.ErrSyntax)
		return nil, false, 0, false
	}
	count = -1
	for j := whereIdx + 1; j < len(args); j++ {
		more := len(args) - 1 - j
		if count == -1 && more > 0 && cstr.EqualFold(cstr.CString(args[j]), "count") {
			j++
			n, okc := redisnum.ParseInt(args[j])
			if !okc || n < 1 {
				c.Error(engine.ErrCountNegative)
				return nil, false, 0, false
			}
			count = n
			continue
		}
		c.Error(engine.ErrSyntax)
		return nil, false, 0, false
	}
	if count == -1 {
		count = 1
	}
	return args[idx+1 : whereIdx], max, count, true
}

func zmpop(c *engine.Ctx, args [][]byte) {
	keys, max, count, ok := zmpopArgs(c, args, 1)
	if !ok {
		return
	}
	zpopGeneric(c, keys, max, true, count, true, true)
}

// ---------------------------------------------------------------------------
// BZPOPMIN / BZPOPMAX / BZMPOP

func bzpopmin(c *engine.Ctx, args [][]byte) {
	blockingZpop(c, args[1:len(args)-1], args[len(args)-1], false, -1, false)
}

func bzpopmax(c *engine.Ctx, args [][]byte) {
	blockingZpop(c, args[1:len(args)-1], args[len(args)-1], true, -1, false)
}

func bzmpop(c *engine.Ctx, args [][]byte) {
	keys, max, count, ok := zmpopArgs(c, args, 2)
	if !ok {
		return
	}
	blockingZpop(c, keys, args[1], max, count, true)
}

// bzmpopKeys returns BZMPOP's key positions: numkeys at 2, then the keys.
func bzmpopKeys(args [][]byte) []int { return numkeysPositions(args, 2) }

// blockingZpop is Redis's blockingGenericZpopCommand: pop from the first
// non-empty key, or block until one of keys gets members. count < 0 is
// BZPOPMIN/BZPOPMAX's single pop ([key, member, score]); zmpop selects
// BZMPOP's [key, [[member, score]...]] shape.
func blockingZpop(c *engine.Ctx, keys [][]byte, timeout []byte, max bool, count int64, zmpop bool) {
	deadline, ok := c.ParseTimeout(timeout)
	if !ok {
		return
	}
	for _, k := range keys {
		z, ok := zsetWrite(c, k)
		if !ok {
			return
		}
		if z == nil || z.Len() == 0 {
			continue
		}
		zpopGeneric(c, [][]byte{k}, max, true, count, zmpop, zmpop)
		return
	}
	if c.NoBlock() {
		c.W.NullArray()
		return
	}
	c.Block(engine.BlockZSet, keys, deadline, func(c *engine.Ctx, key []byte) bool {
		// serveClientsBlockedOnSortedSetKey: a plain genericZpopCommand,
		// notifications and signalModifiedKey included.
		return zpopGeneric(c, [][]byte{key}, max, true, count, zmpop, zmpop)
	})
}

// ---------------------------------------------------------------------------
// ZRANDMEMBER

func zrandmember(c *engine.Ctx, args [][]byte) {
	if len(args) >= 3 {
		l, ok := redisnum.ParseInt(args[2])
		if !ok {
			c.Error(engine.ErrNotInt)
			return
		}
		if l == math.MinInt64 {
			c.Error(engine.ErrLongMaxRange)
			return
		}
		withscores := false
		if len(args) > 4 || (len(args) == 4 && !cstr.EqualFold(cstr.CString(args[3]), "withscores")) {
			c.Error(engine.ErrSyntax)
			return
		} else if len(args) == 4 {
			withscores = true
			if l < -math.MaxInt64/2 || l > math.MaxInt64/2 {
				c.Error(engine.ErrValueRange)
				return
			}
		}
		zrandmemberCount(c, args[1], l, withscores)
		return
	}
	z, ok := zsetRead(c, args[1])
	if !ok {
		return
	}
	if z == nil {
		c.W.Null()
		return
	}
	m, _ := z.Nth(int(c.E.Rand.Uint64N(uint64(z.Len()))))
	c.W.BulkString(m)
}

// zrandmemberCount is zrandmemberWithCountCommand: a negative count may
// repeat members; a positive one returns distinct members, the whole set
// (from the highest score, as Redis iterates) when count >= size.
func zrandmemberCount(c *engine.Ctx, key []byte, l int64, withscores bool) {
	z, ok := zsetRead(c, key)
	if !ok {
		return
	}
	if z == nil || l == 0 {
		c.W.Array(0)
		return
	}
	size := z.Len()
	uniq := l > 0
	count := l
	if !uniq {
		count = -l
	}
	em := zrangeEmitter{w: c.W, withscores: withscores, nested: withscores && c.W.Resp3()}
	mult := 1
	if withscores && !c.W.Resp3() {
		mult = 2
	}
	rnd := c.E.Rand
	if !uniq || count == 1 {
		c.W.Array(int(count) * mult)
		for ; count > 0; count-- {
			em.emit(z.Nth(int(rnd.Uint64N(uint64(size)))))
		}
		return
	}
	if count >= int64(size) {
		c.W.Array(size * mult)
		z.RangeByRank(0, size-1, true, em.emit)
		return
	}
	// Distinct random ranks: a partial Fisher-Yates over [0, size).
	c.W.Array(int(count) * mult)
	perm := make([]int32, size)
	for i := range perm {
		perm[i] = int32(i)
	}
	for i := 0; i < int(count); i++ {
		j := i + int(rnd.Uint64N(uint64(size-i)))
		perm[i], perm[j] = perm[j], perm[i]
		em.emit(z.Nth(int(perm[i])))
	}
}

// ---------------------------------------------------------------------------
// ZUNION / ZINTER / ZDIFF (+STORE), ZINTERCARD

const (
	zsetopUnion = iota
	zsetopInter
	zsetopDiff
)

const (
	aggrSum = iota
	aggrMin
	aggrMax
)

// zsetopKeys returns the key positions of a set-operation command: numkeys
// at idx followed by the keys, plus the destination at 1 when dst is set.
func zsetopKeys(idx int, dst bool) func(args [][]byte) []int {
	return func(args [][]byte) []int {
		keys := numkeysPositions(args, idx)
		if dst && len(args) > 1 {
			keys = append([]int{1}, keys...)
		}
		return keys
	}
}

// zsetopSrc is one input of a set operation: a sorted set or a set
// (every member scored 1), or nothing for a missing key.
type zsetopSrc struct {
	z      *store.ZSet
	s      *store.Set
	weight float64
}

func (o *zsetopSrc) len() int {
	switch {
	case o.z != nil:
		return o.z.Len()
	case o.s != nil:
		return o.s.Len()
	}
	return 0
}

func (o *zsetopSrc) each(fn func(m string, score float64)) {
	switch {
	case o.z != nil:
		o.z.Range(fn)
	case o.s != nil:
		o.s.Range(func(m []byte) bool { fn(string(m), 1); return true })
	}
}

func (o *zsetopSrc) find(m string) (float64, bool) {
	switch {
	case o.z != nil:
		return o.z.Score([]byte(m))
	case o.s != nil:
		return 1, o.s.Has([]byte(m))
	}
	return 0, false
}

func (o *zsetopSrc) same(p *zsetopSrc) bool {
	return (o.z != nil && o.z == p.z) || (o.s != nil && o.s == p.s)
}

// zunionInterAggregate folds val into *target; a NaN sum (inf + -inf) is 0.
func zunionInterAggregate(target *float64, val float64, aggr int) {
	switch aggr {
	case aggrSum:
		*target += val
		if *target != *target {
			*target = 0
		}
	case aggrMin:
		if val < *target {
			*target = val
		}
	case aggrMax:
		if val > *target {
			*target = val
		}
	}
}

type zsetopResult struct {
	m string
	s float64
}

func zunion(c *engine.Ctx, args [][]byte)     { zsetopGeneric(c, args, nil, 1, zsetopUnion, false) }
func zinter(c *engine.Ctx, args [][]byte)     { zsetopGeneric(c, args, nil, 1, zsetopInter, false) }
func zdiff(c *engine.Ctx, args [][]byte)      { zsetopGeneric(c, args, nil, 1, zsetopDiff, false) }
func zintercard(c *engine.Ctx, args [][]byte) { zsetopGeneric(c, args, nil, 1, zsetopInter, true) }
func zunionstore(c *engine.Ctx, args [][]byte) {
	zsetopGeneric(c, args, args[1], 2, zsetopUnion, false)
}
func zinterstore(c *engine.Ctx, args [][]byte) {
	zsetopGeneric(c, args, args[1], 2, zsetopInter, false)
}
func zdiffstore(c *engine.Ctx, args [][]byte) { zsetopGeneric(c, args, args[1], 2, zsetopDiff, false) }

// zsetopGeneric is Redis's zunionInterDiffGenericCommand.
func zsetopGeneric(c *engine.Ctx, args [][]byte, dst []byte, numkeysIdx int, op int, cardOnly bool) {
	setnum, ok := redisnum.ParseInt(args[numkeysIdx])
	if !ok {
		c.Error(engine.ErrNotInt)
		return
	}
	if setnum < 1 {
		c.Error(engine.ErrZAtLeastOneKey(c.Spec.FullName()))
		return
	}
	if setnum > int64(len(args)-(numkeysIdx+1)) {
		c.Error(engine.ErrSyntax)
		return
	}
	src := make([]zsetopSrc, setnum)
	j := numkeysIdx + 1
	for i := range src {
		// lookupKeyRead even for the STORE variants, as Redis 7.0 does.
		if e := c.Lookup(args[j]); e != nil {
			switch v := e.Value.(type) {
			case *store.ZSet:
				src[i].z = v
			case *store.Set:
				src[i].s = v
			default:
				c.WrongType()
				return
			}
		}
		src[i].weight = 1
		j++
	}
	aggr := aggrSum
	withscores := false
	limit := int64(0)
	for remaining := len(args) - j; remaining > 0; remaining = len(args) - j {
		a := cstr.CString(args[j])
		switch {
		case op != zsetopDiff && !cardOnly && remaining >= int(setnum)+1 && cstr.EqualFold(a, "weights"):
			j++
			for i := range src {
				w, ok := redisnum.ParseFloat(args[j])
				if !ok {
					c.Error(engine.ErrZWeightNotFloat)
					return
				}
				src[i].weight = w
				j++
			}
		case op != zsetopDiff && !cardOnly && remaining >= 2 && cstr.EqualFold(a, "aggregate"):
			switch v := cstr.CString(args[j+1]); {
			case cstr.EqualFold(v, "sum"):
				aggr = aggrSum
			case cstr.EqualFold(v, "min"):
				aggr = aggrMin
			case cstr.EqualFold(v, "max"):
				aggr = aggrMax
			default:
				c.Error(engine.ErrSyntax)
				return
			}
			j += 2
		case dst == nil && !cardOnly && cstr.EqualFold(a, "withscores"):
			withscores = true
			j++
		case cardOnly && remaining >= 2 && cstr.EqualFold(a, "limit"):
			n, ok := redisnum.ParseInt(args[j+1])
			if !ok || n < 0 {
				c.Error(engine.ErrLimitNegative)
				return
			}
			limit = n
			j += 2
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	}
	if op != zsetopDiff {
		// Smallest first (glibc's qsort is a stable merge sort).
		sort.SliceStable(src, func(a, b int) bool { return src[a].len() < src[b].len() })
	}

	var res []zsetopResult
	maxlen := 0
	keep := func(m string, s float64) {
		res = append(res, zsetopResult{m, s})
		if len(m) > maxlen {
			maxlen = len(m)
		}
	}
	card := int64(0)
	switch op {
	case zsetopInter:
		if src[0].len() == 0 {
			break
		}
		stop := false
		src[0].each(func(m string, s float64) {
			if stop {
				return
			}
			score := src[0].weight * s
			if score != score {
				score = 0
			}
			for k := 1; k < len(src); k++ {
				var v float64
				if src[k].same(&src[0]) {
					v = s * src[k].weight
				} else if f, found := src[k].find(m); found {
					v = f * src[k].weight
				} else {
					return
				}
				zunionInterAggregate(&score, v, aggr)
			}
			if cardOnly {
				card++
				if limit > 0 && card >= limit {
					stop = true
				}
				return
			}
			keep(m, score)
		})
	case zsetopUnion:
		acc := make(map[string]float64)
		var order []string
		for i := range src {
			w := src[i].weight
			src[i].each(func(m string, s float64) {
				score := w * s
				if score != score {
					score = 0
				}
				if p, found := acc[m]; found {
					zunionInterAggregate(&p, score, aggr)
					acc[m] = p
					return
				}
				acc[m] = score
				order = append(order, m)
			})
		}
		for _, m := range order {
			keep(m, acc[m])
		}
	case zsetopDiff:
		if src[0].len() == 0 {
			break
		}
		for k := 1; k < len(src); k++ {
			if src[k].same(&src[0]) {
				goto done
			}
		}
		src[0].each(func(m string, s float64) {
			for k := 1; k < len(src); k++ {
				if _, found := src[k].find(m); found {
					return
				}
			}
			keep(m, s)
		})
	}
done:
	if cardOnly {
		c.W.Int(card)
		return
	}
	sort.Slice(res, func(a, b int) bool {
		return res[a].s < res[b].s || (res[a].s == res[b].s && res[a].m < res[b].m)
	})

	if dst != nil {
		if len(res) == 0 {
			c.W.Int(0)
			zsetStoreEmpty(c, dst)
			return
		}
		cfg := c.E.Config
		out := store.NewZSet(!(len(res) <= cfg.ZSetMaxListpackEntries && maxlen <= cfg.ZSetMaxListpackValue))
		for _, r := range res {
			out.AddString(r.m, r.s, 0, math.MaxInt, math.MaxInt)
		}
		zsetStore(c, dst, out)
		c.W.Int(int64(len(res)))
		event := "zunionstore"
		switch op {
		case zsetopInter:
			event = "zinterstore"
		case zsetopDiff:
			event = "zdiffstore"
		}
		c.Notify(config.NotifyZSet, event, dst)
		return
	}
	em := zrangeEmitter{w: c.W, withscores: withscores, nested: withscores && c.W.Resp3()}
	if withscores && !c.W.Resp3() {
		c.W.Array(len(res) * 2)
	} else {
		c.W.Array(len(res))
	}
	for _, r := range res {
		em.emit(r.m, r.s)
	}
}

// ---------------------------------------------------------------------------
// ZSCAN

func zscan(c *engine.Ctx, args [][]byte) {
	cursor, ok := scanCursor(c, args[2])
	if !ok {
		return
	}
	e := c.Lookup(args[1])
	if e == nil {
		WriteEmptyScan(c.W)
		return
	}
	z, ok := e.Value.(*store.ZSet)
	if !ok {
		c.WrongType()
		return
	}
	opts, ok := scanOptions(c, args[3:], false)
	if !ok {
		return
	}
	var tmp [40]byte
	if z.IsListpack() {
		n := 0
		z.Range(func(m string, s float64) {
			if opts.MatchesString(m) {
				n++
			}
		})
		WriteScanHeader(c.W, 0, n*2)
		z.Range(func(m string, s float64) {
			if opts.MatchesString(m) {
				c.W.BulkString(m)
				c.W.Bulk(appendListpackScore(tmp[:0], s))
			}
		})
		return
	}
	type pair struct {
		m string
		s float64
	}
	var items []pair
	if c.Replicated() {
		z.Range(func(m string, s float64) { items = append(items, pair{m, s}) })
		cursor, items = stableScan(cursor, opts.Count, items, func(p pair) []byte { return []byte(p.m) })
	} else {
		cursor = ScanLoop(cursor, opts.Count, func() int { return 2 * len(items) }, func(cur uint64) uint64 {
			return z.Scan(cur, func(m string, s float64) { items = append(items, pair{m, s}) })
		})
	}
	kept := items[:0]
	for _, it := range items {
		if opts.MatchesString(it.m) {
			kept = append(kept, it)
		}
	}
	WriteScanHeader(c.W, cursor, len(kept)*2)
	for _, it := range kept {
		c.W.BulkString(it.m)
		c.W.Bulk(resp.AppendDouble(tmp[:0], it.s))
	}
}
