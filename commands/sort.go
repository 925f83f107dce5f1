package commands

import (
	"bytes"
	"sort"

	"github.com/lockkv/lockkv/config"
	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// SORT and SORT_RO: Redis 7.0's sort.c.

var sortCommands = []*engine.Spec{
	{Name: "sort", Arity: -2, Flags: engine.Write | engine.DenyOOM, Keys: sortKeys, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess), {Notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", Flags: engine.KeyRO | engine.KeyAccess, Begin: engine.BeginUnknown, Find: engine.FindUnknown}, {Notes: "For the optional STORE keyword. It is marked 'unknown' because the keyword can appear anywhere in the argument array", Flags: engine.KeyOW | engine.KeyUpdate, Begin: engine.BeginUnknown, Find: engine.FindUnknown}}, ACL: []string{"set", "sortedset", "list", "dangerous"}, GetKeyFlags: sortKeyFlags, Fn: sortCmd},
	{Name: "sort_ro", Arity: -2, Flags: engine.ReadOnly, Keys: sortROKeys, KeySpecs: []engine.KeySpec{engine.Key1(engine.KeyRO | engine.KeyAccess), {Notes: "For the optional BY/GET keyword. It is marked 'unknown' because the key names derive from the content of the key we sort", Flags: engine.KeyRO | engine.KeyAccess, Begin: engine.BeginUnknown, Find: engine.FindUnknown}}, ACL: []string{"set", "sortedset", "list", "dangerous"}, Fn: sortRO},
}

func init() { engine.Register(sortCommands) }

// sortKeys returns SORT's sorted key and its STORE destination (Redis's
// sortGetKeys).
func sortKeys(args [][]byte) []int {
	keys := []int{1}
	if len(args) < 2 {
		return keys
	}
	for i := 2; i < len(args); i++ {
		switch {
		case cstr.EqualFold(args[i], "limit"):
			i += 2
		case cstr.EqualFold(args[i], "get"), cstr.EqualFold(args[i], "by"):
			i++
		case cstr.EqualFold(args[i], "store") && i+1 < len(args):
			keys = append(keys[:1], i+1) // the last STORE wins; no skip, as Redis
		}
	}
	return keys
}

// sortROKeys returns SORT_RO's one key: it has no STORE.
func sortROKeys(args [][]byte) []int { return []int{1} }

type sortItem struct {
	obj   []byte
	score float64
	cmp   []byte // BY value for ALPHA sorting; nil when missing
}

// sortLookup is Redis's lookupKeyByPattern: "#" is the element itself;
// otherwise the first '*' is replaced by the element, and "->field" after
// it reads a hash field. It returns nil when there is nothing there.
func sortLookup(c *engine.Ctx, pattern, subst []byte) []byte {
	pattern = cstr.CString(pattern)
	if len(pattern) == 1 && pattern[0] == '#' {
		return subst
	}
	star := bytes.IndexByte(pattern, '*')
	if star < 0 {
		return nil
	}
	var field []byte
	keyEnd := len(pattern)
	if f := bytes.Index(pattern[star+1:], []byte("->")); f >= 0 && star+1+f+2 < len(pattern) {
		keyEnd = star + 1 + f
		field = pattern[keyEnd+2:]
	}
	key := make([]byte, 0, keyEnd-1+len(subst))
	key = append(key, pattern[:star]...)
	key = append(key, subst...)
	key = append(key, pattern[star+1:keyEnd]...)
	e := c.Lookup(key)
	if e == nil {
		return nil
	}
	if field != nil {
		h, ok := e.Value.(*store.Hash)
		if !ok {
			return nil
		}
		v, ok := h.Get(field)
		if !ok {
			return nil
		}
		return v
	}
	s, ok := e.Value.(*store.String)
	if !ok {
		return nil
	}
	return s.B
}

// sortStrtod converts a BY value as C strtod does in sort.c: leading
// spaces allowed, the whole string consumed, no NaN, and no ERANGE
// (overflow, or underflow to zero or a subnormal); the empty string is 0.
func sortStrtod(b []byte) (float64, bool) {
	f, n, erange := redisnum.Strtod(b)
	if n != len(b) || erange || f != f {
		return 0, false
	}
	return f, true
}

func sortCmd(c *engine.Ctx, args [][]byte) { sortGeneric(c, args, false) }
func sortRO(c *engine.Ctx, args [][]byte)  { sortGeneric(c, args, true) }

func sortGeneric(c *engine.Ctx, args [][]byte, readonly bool) {
	var (
		desc, alpha, dontsort bool
		limitStart            int64
		limitCount            int64 = -1
		sortby, storekey      []byte
		gets                  [][]byte
	)
	for j := 2; j < len(args); j++ {
		left := len(args) - j - 1
		a := cstr.CString(args[j])
		switch {
		case cstr.EqualFold(a, "asc"):
			desc = false
		case cstr.EqualFold(a, "desc"):
			desc = true
		case cstr.EqualFold(a, "alpha"):
			alpha = true
		case cstr.EqualFold(a, "limit") && left >= 2:
			var ok bool
			if limitStart, ok = redisnum.ParseInt(args[j+1]); !ok {
				c.Error(engine.ErrNotInt)
				return
			}
			if limitCount, ok = redisnum.ParseInt(args[j+2]); !ok {
				c.Error(engine.ErrNotInt)
				return
			}
			j += 2
		case !readonly && cstr.EqualFold(a, "store") && left >= 1:
			storekey = args[j+1]
			j++
		case cstr.EqualFold(a, "by") && left >= 1:
			sortby = args[j+1]
			if bytes.IndexByte(cstr.CString(sortby), '*') < 0 {
				dontsort = true
			}
			j++
		case cstr.EqualFold(a, "get") && left >= 1:
			gets = append(gets, args[j+1])
			j++
		default:
			c.Error(engine.ErrSyntax)
			return
		}
	}
	var v store.Value
	if e := c.Lookup(args[1]); e != nil {
		switch e.Value.(type) {
		case *store.List, *store.Set, *store.ZSet:
			v = e.Value
		default:
			c.WrongType()
			return
		}
	}
	if _, isSet := v.(*store.Set); dontsort && isSet && (storekey != nil || c.InScript) {
		dontsort, alpha, sortby = false, true, nil
	}
	if z, ok := v.(*store.ZSet); ok && (!c.E.Replicated() || c.Replicated()) {
		// Redis converts before sorting; OBJECT ENCODING shows it. Not
		// on a cluster node sorting by itself (SORT_RO, EVAL_RO): the
		// encoding is replicated state, which only applied ops change.
		z.ToSkiplist()
	}
	vectorlen := int64(0)
	switch x := v.(type) {
	case *store.List:
		vectorlen = int64(x.Len())
	case *store.Set:
		vectorlen = int64(x.Len())
	case *store.ZSet:
		vectorlen = int64(x.Len())
	}
	start := min(max(limitStart, 0), vectorlen)
	limitCount = min(max(limitCount, -1), vectorlen)
	end := vectorlen - 1
	if limitCount >= 0 {
		end = start + limitCount - 1
	}
	if start >= vectorlen {
		start, end = vectorlen-1, vectorlen-2
	}
	if end >= vectorlen {
		end = vectorlen - 1
	}

	var vec []sortItem
	switch x := v.(type) {
	case *store.List:
		if dontsort {
			if end >= start {
				n := x.Len()
				for i := start; i <= end; i++ {
					idx := int(i)
					if desc {
						idx = n - 1 - int(i)
					}
					vec = append(vec, sortItem{obj: x.Index(idx)})
				}
				end -= start
				start = 0
			}
		} else {
			x.Range(0, x.Len()-1, false, func(b []byte) { vec = append(vec, sortItem{obj: b}) })
		}
	case *store.Set:
		x.Range(func(m []byte) bool {
			vec = append(vec, sortItem{obj: append([]byte(nil), m...)})
			return true
		})
	case *store.ZSet:
		if dontsort {
			if end >= start {
				x.RangeByRank(int(start), int(end), desc, func(m string, _ float64) {
					vec = append(vec, sortItem{obj: []byte(m)})
				})
			}
			end -= start
			start = 0
		} else {
			x.Range(func(m string, _ float64) { vec = append(vec, sortItem{obj: []byte(m)}) })
		}
	}

	if !dontsort {
		convErr := false
		for i := range vec {
			by := vec[i].obj
			if sortby != nil {
				if by = sortLookup(c, sortby, vec[i].obj); by == nil {
					continue
				}
			}
			if alpha {
				if sortby != nil {
					vec[i].cmp = by
				}
			} else {
				f, ok := sortStrtod(by)
				if !ok {
					convErr = true
				}
				vec[i].score = f
			}
		}
		if convErr {
			c.Error(engine.ErrSortScore)
			return
		}
		cmp := func(a, b *sortItem) int {
			var r int
			switch {
			case !alpha:
				switch {
				case a.score > b.score:
					r = 1
				case a.score < b.score:
					r = -1
				default:
					r = bytes.Compare(a.obj, b.obj)
				}
			case sortby != nil:
				switch {
				case a.cmp == nil && b.cmp == nil:
					r = 0
				case a.cmp == nil:
					r = -1
				case b.cmp == nil:
					r = 1
				case storekey != nil:
					r = bytes.Compare(a.cmp, b.cmp)
				default:
					r = bytes.Compare(cstr.CString(a.cmp), cstr.CString(b.cmp))
				}
			default:
				if storekey != nil {
					r = bytes.Compare(a.obj, b.obj)
				} else {
					r = bytes.Compare(cstr.CString(a.obj), cstr.CString(b.obj))
				}
			}
			if desc {
				r = -r
			}
			return r
		}
		sort.SliceStable(vec, func(i, j int) bool { return cmp(&vec[i], &vec[j]) < 0 })
	}

	n := end - start + 1
	if n < 0 {
		n = 0
	}
	outputlen := n
	if len(gets) > 0 {
		outputlen = int64(len(gets)) * n
	}
	if storekey == nil {
		c.W.Array(int(outputlen))
		for j := start; j <= end; j++ {
			if len(gets) == 0 {
				c.W.Bulk(vec[j].obj)
			}
			for _, g := range gets {
				if val := sortLookup(c, g, vec[j].obj); val == nil {
					c.W.Null()
				} else {
					c.W.Bulk(val)
				}
			}
		}
		return
	}
	l := store.NewList()
	for j := start; j <= end; j++ {
		if len(gets) == 0 {
			l.PushBack(append([]byte(nil), vec[j].obj...))
			continue
		}
		for _, g := range gets {
			l.PushBack(append([]byte(nil), sortLookup(c, g, vec[j].obj)...))
		}
	}
	if outputlen > 0 {
		setKey(c, storekey, l, c.LookupWrite(storekey), false)
		c.ReadyIfBlockable(c.C.DB, string(storekey), l)
		c.Notify(config.NotifyList, "sortstore", storekey)
	} else if c.DB.Delete(string(storekey)) {
		c.Modified(storekey)
		c.Notify(config.NotifyGeneric, "del", storekey)
	}
	c.W.Int(outputlen)
}

// sortKeyFlags is Redis's sortGetKeys: the sorted key is read, the STORE
// destination overwritten.
func sortKeyFlags(args [][]byte, pos int) engine.KeyFlag {
	if pos == 1 {
		return engine.KeyRO | engine.KeyAccess
	}
	return engine.KeyOW | engine.KeyUpdate
}
