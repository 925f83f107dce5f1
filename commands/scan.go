package commands

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strconv"

	"github.com/lockkv/lockkv/engine"
	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/glob"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/internal/stablehash"
	"github.com/lockkv/lockkv/store"
)

// Shared parsing and replies for the SCAN family (SCAN, HSCAN, SSCAN,
// ZSCAN), following Redis 7.0's db.c scanGenericCommand. A HSCAN-style
// handler is, in Redis's order:
//
//	cursor, ok := scanCursor(c, args[2]) // 1. cursor ("ERR invalid cursor")
//	if !ok {
//		return
//	}
//	e := c.Lookup(args[1])
//	if e == nil { // 2. missing key: empty reply, options NOT validated
//		WriteEmptyScan(c.W)
//		return
//	}
//	h, ok := e.Value.(*store.Hash) // 3. type
//	if !ok {
//		c.WrongType()
//		return
//	}
//	opts, ok := scanOptions(c, args[3:], false) // 4. options (no TYPE)
//	if !ok {
//		return
//	}
//	// 5. small encodings (listpack, intset): every element, cursor 0.
//	//    Dict encodings: cursor = ScanLoop(cursor, opts.Count, ...)
//	//    collecting with dict.Scan, then keep what opts.Match accepts
//	//    (for hashes and zsets the filter applies to the field/member and
//	//    drops its value too).
//	WriteScan(c.W, cursor, elems)

// ScanOptions are the parsed options of a SCAN-family command. Match and
// Type point into the request: use them only while the command runs.
type ScanOptions struct {
	Count int64  // COUNT, 10 by default
	Match []byte // MATCH pattern; nil when absent or "*" (match everything)
	Type  []byte // SCAN's TYPE filter; nil when absent
}

// Matches reports whether element passes the MATCH filter.
func (o *ScanOptions) Matches(element []byte) bool {
	return o.Match == nil || glob.Match(o.Match, element, false)
}

// MatchesString is Matches for a string element (a key, a dict member).
func (o *ScanOptions) MatchesString(element string) bool {
	return o.Match == nil || glob.Match(o.Match, element, false)
}

// ParseScanCursor parses a cursor as Redis's parseScanCursorOrReply does
// with strtoul: decimal, an optional sign ('-' wraps around, so "-1" is
// 2^64-1), no leading space, no trailing bytes, within 64 bits. The empty
// string is cursor 0.
func ParseScanCursor(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, true
	}
	i := 0
	neg := false
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		i++
	}
	if i == len(b) {
		return 0, false
	}
	var v uint64
	for ; i < len(b); i++ {
		d := b[i]
		if d < '0' || d > '9' {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(d-'0'))/10 {
			return 0, false
		}
		v = v*10 + uint64(d-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// scanCursor parses a SCAN-family cursor argument, replying with the error
// when it is invalid.
func scanCursor(c *engine.Ctx, b []byte) (uint64, bool) {
	cur, ok := ParseScanCursor(b)
	if !ok {
		c.Error(engine.ErrInvalidCursor)
	}
	return cur, ok
}

// scanOptions parses the options after the cursor (opts = args[2:] for
// SCAN, args[3:] for HSCAN/SSCAN/ZSCAN). TYPE is accepted only when
// allowType is set (SCAN). Options may repeat; the last one wins. It
// replies with Redis's error and returns false on: a COUNT that is not an
// integer ("ERR value is not an integer or out of range") or below 1, an
// option without its value, or an unknown option ("ERR syntax error").
func scanOptions(c *engine.Ctx, opts [][]byte, allowType bool) (ScanOptions, bool) {
	o := ScanOptions{Count: 10}
	for i := 0; i < len(opts); i += 2 {
		name := opts[i]
		hasValue := i+1 < len(opts)
		switch {
		case hasValue && cstr.EqualFold(name, "count"):
			n, ok := redisnum.ParseInt(opts[i+1])
			if !ok {
				c.Error(engine.ErrNotInt)
				return o, false
			}
			if n < 1 {
				c.Error(engine.ErrSyntax)
				return o, false
			}
			o.Count = n
		case hasValue && cstr.EqualFold(name, "match"):
			o.Match = opts[i+1]
			if glob.MatchAll(o.Match) {
				o.Match = nil
			}
		case hasValue && allowType && cstr.EqualFold(name, "type"):
			o.Type = opts[i+1]
		default:
			c.Error(engine.ErrSyntax)
			return o, false
		}
	}
	return o, true
}

// ScanLoop drives a dict-encoded scan the way Redis does: it calls step
// (one dict.Scan call, returning the next cursor) until the iteration is
// complete, count*10 bucket visits were made, or collected() reports at
// least count elements. It returns the cursor to reply with.
func ScanLoop(cursor uint64, count int64, collected func() int, step func(cursor uint64) uint64) uint64 {
	maxIter := int64(math.MaxInt64)
	if count < math.MaxInt64/10 {
		maxIter = count * 10
	}
	for {
		cursor = step(cursor)
		if cursor == 0 || maxIter == 0 || int64(collected()) >= count {
			return cursor
		}
		maxIter--
	}
}

// stableScan is a dict-encoded SCAN-family iteration inside a replicated
// op (a script, a transaction): every node must reply the same, and their
// hash tables differ in layout. items is the whole iteration; it is visited
// in the order of each item's stablehash.Hash under a fixed key (ties by
// bytes), and the cursor is where in that order to go on (the next item's
// hash halved, plus one, so that no cursor but the last is 0). Any node
// continues another's cursor, and an element present from the first call
// to the last is returned, as SCAN guarantees. It returns the next cursor
// and up to count items.
func stableScan[T any](cursor uint64, count int64, items []T, key func(T) []byte) (uint64, []T) {
	type ranked struct {
		pos uint64
		it  T
	}
	from := uint64(0)
	if cursor > 0 {
		from = cursor - 1
	}
	rs := make([]ranked, 0, len(items))
	for _, it := range items {
		if pos := stablehash.Hash(0, key(it)) >> 1; pos >= from {
			rs = append(rs, ranked{pos, it})
		}
	}
	slices.SortFunc(rs, func(a, b ranked) int {
		if c := cmp.Compare(a.pos, b.pos); c != 0 {
			return c
		}
		return bytes.Compare(key(a.it), key(b.it))
	})
	n := len(rs)
	if int64(n) > count {
		n = int(count)
	}
	page := make([]T, n)
	for i := range page {
		page[i] = rs[i].it
	}
	if n == len(rs) {
		return 0, page
	}
	return rs[n].pos + 1, page
}

// WriteScanHeader starts a SCAN-family reply: [cursor, [n elements]]. The
// caller then writes exactly n bulk strings.
func WriteScanHeader(w *resp.Writer, cursor uint64, n int) {
	w.Array(2)
	var buf [20]byte
	w.Bulk(strconv.AppendUint(buf[:0], cursor, 10))
	w.Array(n)
}

// WriteScan writes a whole SCAN-family reply.
func WriteScan(w *resp.Writer, cursor uint64, elems [][]byte) {
	WriteScanHeader(w, cursor, len(elems))
	for _, e := range elems {
		w.Bulk(e)
	}
}

// WriteScanStrings is WriteScan for string elements.
func WriteScanStrings(w *resp.Writer, cursor uint64, elems []string) {
	WriteScanHeader(w, cursor, len(elems))
	for _, e := range elems {
		w.BulkString(e)
	}
}

// WriteEmptyScan writes Redis's shared.emptyscan: cursor 0, no elements
// (HSCAN/SSCAN/ZSCAN of a missing key).
func WriteEmptyScan(w *resp.Writer) { WriteScanHeader(w, 0, 0) }

// scanElements is what HSCAN and SSCAN share: the cursor, the key and its
// type, the options, then scan collects elements in groups of group (a
// field and its value for HSCAN), and MATCH filters each group by its first
// element.
func scanElements[T store.Value](c *engine.Ctx, args [][]byte, group int, scan func(v T, cursor uint64, count int64, add func(...[]byte)) uint64) {
	cursor, ok := scanCursor(c, args[2])
	if !ok {
		return
	}
	e := c.Lookup(args[1])
	if e == nil {
		WriteEmptyScan(c.W)
		return
	}
	v, isT := e.Value.(T)
	if !isT {
		c.WrongType()
		return
	}
	opts, ok := scanOptions(c, args[3:], false)
	if !ok {
		return
	}
	var elems [][]byte
	if c.Replicated() && v.Encoding() == "hashtable" {
		var groups [][][]byte
		scan(v, 0, math.MaxInt64, func(el ...[]byte) { groups = append(groups, el) })
		cursor, groups = stableScan(cursor, opts.Count, groups, func(g [][]byte) []byte { return g[0] })
		for _, g := range groups {
			elems = append(elems, g...)
		}
	} else {
		cursor = scan(v, cursor, opts.Count, func(el ...[]byte) { elems = append(elems, el...) })
	}
	if opts.Match != nil {
		kept := elems[:0]
		for i := 0; i < len(elems); i += group {
			if opts.Matches(elems[i]) {
				kept = append(kept, elems[i:i+group]...)
			}
		}
		elems = kept
	}
	WriteScan(c.W, cursor, elems)
}
