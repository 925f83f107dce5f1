package rdb

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"

	"github.com/lockkv/lockkv/internal/cstr"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/store"
)

// RDB value types (rdb.h).
const (
	TypeString          = 0
	TypeList            = 1
	TypeSet             = 2
	TypeZSet            = 3
	TypeHash            = 4
	TypeZSet2           = 5
	TypeModulePreGA     = 6
	TypeModule2         = 7
	TypeHashZipmap      = 9
	TypeListZiplist     = 10
	TypeSetIntset       = 11
	TypeZSetZiplist     = 12
	TypeHashZiplist     = 13
	TypeListQuicklist   = 14
	TypeStreamListpacks = 15
	TypeHashListpack    = 16
	TypeZSetListpack    = 17
	TypeListQuicklist2  = 18
	TypeStreamListpack2 = 19
)

// ErrBadFormat is any payload or file content that does not decode.
var ErrBadFormat = errors.New("bad data format")

// Limits are the settings that decide how a loaded value is encoded
// (as Redis converts on load) and bound what may be allocated.
type Limits struct {
	HashMaxListpackEntries, HashMaxListpackValue int
	SetMaxIntsetEntries                          int
	ZSetMaxListpackEntries, ZSetMaxListpackValue int
	// MaxString bounds every string and blob, compressed or not
	// (proto-max-bulk-len).
	MaxString int
}

// DumpConfig is what the written form of a list depends on.
type DumpConfig struct {
	ListMaxListpackSize int // list-max-listpack-size (fill)
	ListCompressDepth   int // list-compress-depth
}

// ---- writing ----

// rdbEncodeInteger is rdbEncodeInteger: the special string forms of an
// integer that fits 32 bits, or nil.
func appendEncodedInt(b []byte, v int64) ([]byte, bool) {
	switch {
	case v >= math.MinInt8 && v <= math.MaxInt8:
		return append(b, 0xC0, byte(v)), true
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return append(b, 0xC1, byte(v), byte(v>>8)), true
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return binary.LittleEndian.AppendUint32(append(b, 0xC2), uint32(v)), true
	}
	return b, false
}

// appendLongLong is rdbSaveLongLongAsStringObject (an int-encoded string).
func appendLongLong(b []byte, v int64) []byte {
	if nb, ok := appendEncodedInt(b, v); ok {
		return nb
	}
	var tmp [24]byte
	s := strconv.AppendInt(tmp[:0], v, 10)
	b = AppendLen(b, len(s))
	return append(b, s...)
}

// appendBinaryDouble is rdbSaveBinaryDoubleValue.
func appendBinaryDouble(b []byte, f float64) []byte {
	return binary.LittleEndian.AppendUint64(b, math.Float64bits(f))
}

// listpackScore is how zzlInsertAt stores a score: an integer when it is
// one within ±LLONG_MAX/2 (double2ll), else d2string's text.
func appendListpackScore(w *lpWriter, f float64) {
	const lim = float64(math.MaxInt64 / 2)
	if f >= -lim && f <= lim && f == math.Trunc(f) {
		w.appendInt(int64(f))
		return
	}
	var tmp [32]byte
	var s []byte
	switch {
	case math.IsInf(f, 1):
		s = append(tmp[:0], "inf"...)
	case math.IsInf(f, -1):
		s = append(tmp[:0], "-inf"...)
	default:
		s = strconv.AppendFloat(tmp[:0], f, 'g', 17, 64)
	}
	w.append(s)
}

// AppendValue appends v's RDB type and encoding (rdbSaveObjectType and
// rdbSaveObject). What is byte-identical to redis-server 7.0.15's DUMP of
// a value with the same contents and OBJECT ENCODING:
//
//   - strings, listpack hashes and zsets, skiplist zsets (written from the
//     highest score down, as Redis does): always;
//   - intsets: when the set never held a wider integer than it holds now
//     (Redis's intset keeps the widest encoding it was upgraded to);
//   - lists: when Redis would split the list into the nodes RPUSH of its
//     elements in order makes (any list of up to 8 KB with the default
//     list-max-listpack-size; Redis's node boundaries otherwise depend on
//     the commands that built the list);
//   - hashtable hashes and sets: the same elements, in lockkv's table
//     order (Redis's depends on its per-process hash seed).
func AppendValue(b []byte, v store.Value, cfg DumpConfig) []byte {
	switch x := v.(type) {
	case *store.String:
		b = append(b, TypeString)
		if x.Encoding() == "int" {
			n, _ := redisnum.ParseInt(x.B)
			return appendLongLong(b, n)
		}
		return AppendString(b, x.B)
	case *store.List:
		b = append(b, TypeListQuicklist2)
		return appendQuicklist(b, x, cfg)
	case *store.Set:
		if x.Encoding() == "intset" {
			b = append(b, TypeSetIntset)
			return AppendString(b, intsetBlob(x))
		}
		b = append(b, TypeSet)
		b = AppendLen(b, x.Len())
		x.Range(func(m []byte) bool {
			b = AppendString(b, m)
			return true
		})
		return b
	case *store.ZSet:
		if x.IsListpack() {
			b = append(b, TypeZSetListpack)
			w := newListpack(16 * x.Len())
			x.Range(func(m string, score float64) {
				w.append(s2b(m))
				appendListpackScore(w, score)
			})
			return AppendString(b, w.finish())
		}
		b = append(b, TypeZSet2)
		b = AppendLen(b, x.Len())
		if n := x.Len(); n > 0 {
			x.RangeByRank(0, n-1, true, func(m string, score float64) {
				b = AppendString(b, s2b(m))
				b = appendBinaryDouble(b, score)
			})
		}
		return b
	case *store.Hash:
		if x.Encoding() == "listpack" {
			b = append(b, TypeHashListpack)
			w := newListpack(16 * x.Len())
			x.Range(func(f, val []byte) bool {
				w.append(f)
				w.append(val)
				return true
			})
			return AppendString(b, w.finish())
		}
		b = append(b, TypeHash)
		b = AppendLen(b, x.Len())
		x.Range(func(f, val []byte) bool {
			b = AppendString(b, f)
			b = AppendString(b, val)
			return true
		})
		return b
	}
	panic("rdb: unknown value type")
}

// intsetBlob is the intset Redis would hold for s's members: the
// narrowest encoding that fits them all.
func intsetBlob(s *store.Set) []byte {
	enc := 2
	var ints []int64
	s.Range(func(m []byte) bool {
		n, _ := redisnum.ParseInt(m)
		ints = append(ints, n)
		switch {
		case n < math.MinInt32 || n > math.MaxInt32:
			enc = 8
		case (n < math.MinInt16 || n > math.MaxInt16) && enc < 4:
			enc = 4
		}
		return true
	})
	b := make([]byte, 8, 8+enc*len(ints))
	binary.LittleEndian.PutUint32(b, uint32(enc))
	binary.LittleEndian.PutUint32(b[4:], uint32(len(ints)))
	for _, n := range ints {
		switch enc {
		case 2:
			b = binary.LittleEndian.AppendUint16(b, uint16(n))
		case 4:
			b = binary.LittleEndian.AppendUint32(b, uint32(n))
		default:
			b = binary.LittleEndian.AppendUint64(b, uint64(n))
		}
	}
	return b
}

// quicklist node limits (quicklist.c).
const (
	sizeSafetyLimit      = 8192
	sizeEstimateOverhead = 8
	minCompressBytes     = 48
	minCompressImprove   = 8
)

var optimizationLevel = [...]int{4096, 8192, 16384, 32768, 65536}

// allowInsert is _quicklistNodeAllowInsert for a node of size sz holding
// count elements, taking an element of length elen.
func allowInsert(sz, count, fill, elen int) bool {
	newSz := sz + elen + sizeEstimateOverhead
	if fill < 0 {
		if off := -fill - 1; off < len(optimizationLevel) && newSz <= optimizationLevel[off] {
			return true
		}
	}
	if newSz > sizeSafetyLimit {
		return false
	}
	return count < fill
}

// appendQuicklist writes l as RDB_TYPE_LIST_QUICKLIST_2: the nodes RPUSH
// of its elements would make, each a listpack (PACKED), compressed as
// list-compress-depth compresses interior nodes.
func appendQuicklist(b []byte, l *store.List, cfg DumpConfig) []byte {
	var nodes [][]byte
	var w *lpWriter
	count := 0
	if n := l.Len(); n > 0 {
		l.Range(0, n-1, false, func(e []byte) {
			if w == nil || !allowInsert(w.size(), count, cfg.ListMaxListpackSize, len(e)) {
				if w != nil {
					nodes = append(nodes, w.finish())
				}
				w, count = newListpack(64), 0
			}
			w.append(e)
			count++
		})
	}
	if w != nil {
		nodes = append(nodes, w.finish())
	}
	b = AppendLen(b, len(nodes))
	depth := cfg.ListCompressDepth
	for i, node := range nodes {
		b = AppendLen(b, 2) // QUICKLIST_NODE_CONTAINER_PACKED
		if depth > 0 && i >= depth && i < len(nodes)-depth && len(node) >= minCompressBytes {
			if c := LZFCompress(node, len(node)); c != nil && len(c)+minCompressImprove < len(node) {
				b = append(b, 0xC3)
				b = AppendLen(b, len(c))
				b = AppendLen(b, len(node))
				b = append(b, c...)
				continue
			}
		}
		b = AppendString(b, node)
	}
	return b
}

// Payload is createDumpPayload: v's encoding, the RDB version (2 bytes)
// and a CRC64 of everything before (8 bytes), little-endian.
func Payload(v store.Value, cfg DumpConfig) []byte {
	b := AppendValue(nil, v, cfg)
	b = binary.LittleEndian.AppendUint16(b, Version)
	return binary.LittleEndian.AppendUint64(b, CRC64(0, b))
}

// VerifyPayload is verifyDumpPayload: at least the 10-byte footer, a
// version no newer than 10 and a matching checksum.
func VerifyPayload(p []byte) bool {
	if len(p) < 10 {
		return false
	}
	if binary.LittleEndian.Uint16(p[len(p)-10:]) > Version {
		return false
	}
	return CRC64(0, p[:len(p)-8]) == binary.LittleEndian.Uint64(p[len(p)-8:])
}

// DecodePayload reads the value of a payload VerifyPayload accepted. Like
// Redis it reads the type and the value and ignores what follows them.
func DecodePayload(p []byte, lim Limits) (store.Value, error) {
	if len(p) < 11 {
		return nil, ErrBadFormat
	}
	// Redis reads from the whole payload, so a value may run into the
	// footer; rio allows that, and so does this.
	d := &decoder{b: p[1:], lim: lim, budget: lim.MaxString}
	return d.value(p[0])
}

// ---- reading ----

type decoder struct {
	b   []byte
	lim Limits
	// budget is what is left of the bytes LZF may still produce.
	budget int
}

func (d *decoder) len() (int, error) {
	n, enc, rest, ok := ReadLen(d.b)
	if !ok || enc {
		return 0, ErrBadFormat
	}
	d.b = rest
	return n, nil
}

// count reads an element count: each element takes at least min bytes.
func (d *decoder) count(min int) (int, error) {
	n, err := d.len()
	if err != nil {
		return 0, err
	}
	if n > len(d.b)/min {
		return 0, ErrBadFormat
	}
	return n, nil
}

// string reads an RDB string. The result may alias the input.
func (d *decoder) string() ([]byte, error) {
	n, enc, rest, ok := ReadLen(d.b)
	if !ok {
		return nil, ErrBadFormat
	}
	b := rest
	if !enc {
		if len(b) < n || n > d.lim.MaxString {
			return nil, ErrBadFormat
		}
		d.b = b[n:]
		return b[:n], nil
	}
	var v int64
	switch n {
	case 0:
		if len(b) < 1 {
			return nil, ErrBadFormat
		}
		v, d.b = int64(int8(b[0])), b[1:]
	case 1:
		if len(b) < 2 {
			return nil, ErrBadFormat
		}
		v, d.b = int64(int16(binary.LittleEndian.Uint16(b))), b[2:]
	case 2:
		if len(b) < 4 {
			return nil, ErrBadFormat
		}
		v, d.b = int64(int32(binary.LittleEndian.Uint32(b))), b[4:]
	case 3:
		clen, enc1, b2, ok := ReadLen(b)
		if !ok || enc1 {
			return nil, ErrBadFormat
		}
		ulen, enc2, b3, ok := ReadLen(b2)
		if !ok || enc2 || len(b3) < clen || ulen > d.lim.MaxString || ulen > d.budget {
			return nil, ErrBadFormat
		}
		s := LZFDecompress(b3[:clen], ulen)
		if s == nil {
			return nil, ErrBadFormat
		}
		d.budget -= ulen
		d.b = b3[clen:]
		return s, nil
	default:
		return nil, ErrBadFormat
	}
	return strconv.AppendInt(nil, v, 10), nil
}

// doubleString is rdbLoadDoubleValue (RDB_TYPE_ZSET's text scores):
// sscanf("%lg") of the text, which reads a prefix.
func (d *decoder) doubleString() (float64, error) {
	if len(d.b) < 1 {
		return 0, ErrBadFormat
	}
	n := int(d.b[0])
	d.b = d.b[1:]
	switch n {
	case 253:
		return math.NaN(), nil
	case 254:
		return math.Inf(1), nil
	case 255:
		return math.Inf(-1), nil
	}
	if len(d.b) < n {
		return 0, ErrBadFormat
	}
	f, used, _ := redisnum.Strtod(cstr.CString(d.b[:n]))
	d.b = d.b[n:]
	if used == 0 {
		return 0, ErrBadFormat
	}
	return f, nil
}

func (d *decoder) binaryDouble() (float64, error) {
	if len(d.b) < 8 {
		return 0, ErrBadFormat
	}
	f := math.Float64frombits(binary.LittleEndian.Uint64(d.b))
	d.b = d.b[8:]
	return f, nil
}

func clone(b []byte) []byte { return append(make([]byte, 0, len(b)), b...) }

// value is rdbLoadObject.
func (d *decoder) value(typ byte) (store.Value, error) {
	switch typ {
	case TypeString:
		s, err := d.string()
		if err != nil {
			return nil, err
		}
		return store.NewString(s), nil
	case TypeList:
		n, err := d.count(1)
		if err != nil || n == 0 {
			return nil, ErrBadFormat
		}
		l := store.NewList()
		for ; n > 0; n-- {
			s, err := d.string()
			if err != nil {
				return nil, err
			}
			l.PushBack(clone(s))
		}
		return l, nil
	case TypeSet:
		n, err := d.count(1)
		if err != nil || n == 0 {
			return nil, ErrBadFormat
		}
		s := store.NewSet()
		max := d.lim.SetMaxIntsetEntries
		if n > max {
			max = -1 // Redis makes a hashtable at once
		}
		for ; n > 0; n-- {
			m, err := d.string()
			if err != nil {
				return nil, err
			}
			if !s.Add(m, max) {
				return nil, ErrBadFormat // duplicate member
			}
		}
		return s, nil
	case TypeZSet, TypeZSet2:
		n, err := d.count(2)
		if err != nil || n == 0 {
			return nil, ErrBadFormat
		}
		members := make([][]byte, 0, min(n, 1024))
		scores := make([]float64, 0, min(n, 1024))
		maxLen := 0
		for ; n > 0; n-- {
			m, err := d.string()
			if err != nil {
				return nil, err
			}
			var f float64
			if typ == TypeZSet2 {
				f, err = d.binaryDouble()
			} else {
				f, err = d.doubleString()
			}
			if err != nil {
				return nil, err
			}
			if f != f {
				return nil, ErrBadFormat
			}
			members, scores = append(members, m), append(scores, f)
			maxLen = max(maxLen, len(m))
		}
		// Redis loads into a skiplist and converts afterwards when the
		// set fits a listpack.
		lp := len(members) <= d.lim.ZSetMaxListpackEntries && maxLen <= d.lim.ZSetMaxListpackValue
		return buildZSet(members, scores, !lp)
	case TypeHash:
		n, err := d.count(2)
		if err != nil || n == 0 {
			return nil, ErrBadFormat
		}
		h := store.NewHash()
		maxE, maxV := d.lim.HashMaxListpackEntries, d.lim.HashMaxListpackValue
		if n > maxE {
			maxE, maxV = -1, -1
		}
		for ; n > 0; n-- {
			f, err := d.string()
			if err != nil {
				return nil, err
			}
			v, err := d.string()
			if err != nil {
				return nil, err
			}
			if !h.Set(f, v, maxE, maxV) {
				return nil, ErrBadFormat // duplicate field
			}
		}
		return h, nil
	case TypeListQuicklist, TypeListQuicklist2:
		n, err := d.count(2)
		if err != nil || n == 0 {
			return nil, ErrBadFormat
		}
		l := store.NewList()
		for ; n > 0; n-- {
			container := 2
			if typ == TypeListQuicklist2 {
				if container, err = d.len(); err != nil || (container != 1 && container != 2) {
					return nil, ErrBadFormat
				}
			}
			blob, err := d.string()
			if err != nil {
				return nil, err
			}
			if container == 1 { // PLAIN: one element
				l.PushBack(clone(blob))
				continue
			}
			walk := walkListpack
			if typ == TypeListQuicklist {
				walk = walkZiplist
			}
			if !walk(blob, func(e []byte) bool { l.PushBack(clone(e)); return true }) {
				return nil, ErrBadFormat
			}
		}
		if l.Len() == 0 {
			return nil, ErrBadFormat
		}
		return l, nil
	case TypeListZiplist:
		blob, err := d.string()
		if err != nil {
			return nil, err
		}
		l := store.NewList()
		if !walkZiplist(blob, func(e []byte) bool { l.PushBack(clone(e)); return true }) || l.Len() == 0 {
			return nil, ErrBadFormat
		}
		return l, nil
	case TypeSetIntset:
		blob, err := d.string()
		if err != nil {
			return nil, err
		}
		return loadIntset(blob, d.lim.SetMaxIntsetEntries)
	case TypeZSetZiplist, TypeZSetListpack:
		blob, err := d.string()
		if err != nil {
			return nil, err
		}
		var elems [][]byte
		walk := walkListpack
		if typ == TypeZSetZiplist {
			walk = walkZiplist
		}
		if !walk(blob, func(e []byte) bool { elems = append(elems, clone(e)); return true }) || len(elems) == 0 || len(elems)%2 != 0 {
			return nil, ErrBadFormat
		}
		members := make([][]byte, 0, len(elems)/2)
		scores := make([]float64, 0, len(elems)/2)
		maxLen := 0
		for i := 0; i < len(elems); i += 2 {
			f, ok := parseListpackScore(elems[i+1])
			if !ok {
				return nil, ErrBadFormat
			}
			members, scores = append(members, elems[i]), append(scores, f)
			maxLen = max(maxLen, len(elems[i]))
		}
		sl := len(members) > d.lim.ZSetMaxListpackEntries
		if typ == TypeZSetZiplist {
			sl = sl || maxLen > d.lim.ZSetMaxListpackValue
		}
		return buildZSet(members, scores, sl)
	case TypeHashZipmap, TypeHashZiplist, TypeHashListpack:
		var fields, values [][]byte
		blob, err := d.string()
		if err != nil {
			return nil, err
		}
		maxLen := 0
		ok := false
		if typ == TypeHashZipmap {
			ok = walkZipmap(blob, func(f, v []byte) bool {
				fields, values = append(fields, clone(f)), append(values, clone(v))
				maxLen = max(maxLen, len(f), len(v))
				return true
			})
		} else {
			walk := walkListpack
			if typ == TypeHashZiplist {
				walk = walkZiplist
			}
			i := 0
			ok = walk(blob, func(e []byte) bool {
				if i%2 == 0 {
					fields = append(fields, clone(e))
				} else {
					values = append(values, clone(e))
				}
				maxLen = max(maxLen, len(e))
				i++
				return true
			})
		}
		if !ok || len(fields) == 0 || len(fields) != len(values) {
			return nil, ErrBadFormat
		}
		ht := len(fields) > d.lim.HashMaxListpackEntries
		if typ != TypeHashListpack {
			ht = ht || maxLen > d.lim.HashMaxListpackValue
		}
		h := store.NewHash()
		maxE, maxV := math.MaxInt, math.MaxInt
		if ht {
			maxE, maxV = -1, -1
		}
		for i := range fields {
			if !h.Set(fields[i], values[i], maxE, maxV) {
				return nil, ErrBadFormat // duplicate field
			}
		}
		return h, nil
	}
	// Streams and module values: lockkv stores neither.
	return nil, ErrBadFormat
}

// parseListpackScore is zzlGetScore: an integer element, or strtod of
// the text (at most 127 bytes, a prefix: what does not parse is 0, as in
// Redis). A NaN is refused: no sorted set holds one.
func parseListpackScore(e []byte) (float64, bool) {
	f, _, _ := redisnum.Strtod(cstr.CString(e[:min(len(e), 127)]))
	return f, f == f
}

// buildZSet makes a set of members and scores; a duplicate member is an
// error.
func buildZSet(members [][]byte, scores []float64, skiplist bool) (store.Value, error) {
	z := store.NewZSet(skiplist)
	for i, m := range members {
		if r, _ := z.Add(m, scores[i], 0, math.MaxInt, math.MaxInt); r&store.ZAddAdded == 0 {
			return nil, ErrBadFormat
		}
	}
	return z, nil
}

// loadIntset reads an intset blob: encoding 2, 4 or 8, a count, and that
// many strictly ascending integers.
func loadIntset(blob []byte, maxEntries int) (store.Value, error) {
	if len(blob) < 8 {
		return nil, ErrBadFormat
	}
	enc := int(binary.LittleEndian.Uint32(blob))
	n := int(binary.LittleEndian.Uint32(blob[4:]))
	if (enc != 2 && enc != 4 && enc != 8) || n == 0 || uint64(n)*uint64(enc) != uint64(len(blob)-8) {
		return nil, ErrBadFormat
	}
	s := store.NewSet()
	max := maxEntries
	var tmp [24]byte
	var prev int64
	for i := 0; i < n; i++ {
		p := blob[8+i*enc:]
		var v int64
		switch enc {
		case 2:
			v = int64(int16(binary.LittleEndian.Uint16(p)))
		case 4:
			v = int64(int32(binary.LittleEndian.Uint32(p)))
		default:
			v = int64(binary.LittleEndian.Uint64(p))
		}
		if i > 0 && v <= prev {
			return nil, ErrBadFormat
		}
		prev = v
		s.Add(strconv.AppendInt(tmp[:0], v, 10), max)
	}
	return s, nil
}
