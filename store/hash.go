package store

import (
	"encoding/binary"
	"unsafe"

	"github.com/lockkv/lockkv/internal/dict"
)

// Hash is a hash value. Like Redis it has two encodings:
//
//   - "listpack": every field/value pair in one byte slice, in insertion
//     order, each string prefixed by its uvarint length. A one-field lock
//     hash ("uuid:threadId" -> "1") is the Hash header plus one small
//     allocation, and HINCRBY rewrites the value in place.
//   - "hashtable": a dict.Dict, used once the hash has more entries than
//     hash-max-listpack-entries or a field or value longer than
//     hash-max-listpack-value. The conversion is one way, as in Redis.
//
// Field and value slices returned by Get, Range, Scan and Random are views
// into the hash: they stay valid only until the hash is next modified, and
// must never be written to.
//
// The header is 16 bytes, not the 32 of a slice plus a pointer: p points
// either to the listpack's bytes (n, c are its length and capacity) or,
// when n == htMark, to the dict. A million one-field lock hashes save 16 MB.
type Hash struct {
	p unsafe.Pointer
	n uint32
	c uint32
}

// touch reads the first byte of a listpack hash's pairs (DB.Touch).
func (h *Hash) touch() uint64 {
	if h.p == nil || h.n == htMark || h.n == 0 {
		return 0
	}
	return uint64(*(*byte)(h.p))
}

// htMark in Hash.n marks the hashtable encoding.
const htMark = ^uint32(0)

// maxListpack bounds a listpack's size so that its length fits Hash.n;
// larger ones convert (only reachable with huge hash-max-listpack-* values).
const maxListpack = 1 << 30

// lp returns the listpack bytes (nil for a hashtable).
func (h *Hash) lp() []byte {
	if h.n == htMark || h.p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.c)[:h.n]
}

func (h *Hash) setLP(b []byte) {
	if cap(b) == 0 {
		h.p, h.n, h.c = nil, 0, 0
		return
	}
	h.p, h.n, h.c = unsafe.Pointer(unsafe.SliceData(b)), uint32(len(b)), uint32(cap(b))
}

// ht returns the dict of a hashtable hash, or nil.
func (h *Hash) ht() *dict.Dict[string] {
	if h.n != htMark {
		return nil
	}
	return (*dict.Dict[string])(h.p)
}

func (h *Hash) setHT(d *dict.Dict[string]) { h.p, h.n, h.c = unsafe.Pointer(d), htMark, 0 }

// NewHash returns an empty listpack-encoded hash.
func NewHash() *Hash { return &Hash{} }

// Type implements Value.
func (h *Hash) Type() Type { return TypeHash }

// Encoding implements Value.
func (h *Hash) Encoding() string {
	if h.n == htMark {
		return "hashtable"
	}
	return "listpack"
}

// Clone implements Cloner: a deep copy (strings are immutable in Go, so the
// hashtable copy shares them).
func (h *Hash) Clone() Value {
	ht := h.ht()
	if ht == nil {
		c := &Hash{}
		c.setLP(append([]byte(nil), h.lp()...))
		return c
	}
	d := dict.New[string]()
	ht.Range(func(k string, v *string) bool {
		d.Set(k, *v)
		return true
	})
	c := &Hash{}
	c.setHT(d)
	return c
}

// Len returns the number of fields.
func (h *Hash) Len() int {
	if ht := h.ht(); ht != nil {
		return ht.Len()
	}
	lp := h.lp()
	n := 0
	for off := 0; off < len(lp); n++ {
		_, _, off = lpPair(lp, off)
	}
	return n
}

// lpString reads the length-prefixed string at off and returns it and the
// offset after it.
func lpString(lp []byte, off int) ([]byte, int) {
	var n uint64
	if c := lp[off]; c < 0x80 {
		n = uint64(c)
		off++
	} else {
		var k int
		n, k = binary.Uvarint(lp[off:])
		off += k
	}
	end := off + int(n)
	return lp[off:end:end], end
}

// lpPair reads the pair at off.
func lpPair(lp []byte, off int) (field, value []byte, next int) {
	field, off = lpString(lp, off)
	value, next = lpString(lp, off)
	return
}

// lpFind returns the offset of field's pair, of its value's length prefix,
// and the offset after the pair, or pair == -1 and count = the number of
// pairs when field is absent.
func (h *Hash) lpFind(field []byte) (pair, val, end, count int) {
	lp := h.lp()
	for off := 0; off < len(lp); count++ {
		f, voff := lpString(lp, off)
		_, next := lpString(lp, voff)
		if string(f) == string(field) {
			return off, voff, next, count
		}
		off = next
	}
	return -1, 0, 0, count
}

// b2s views b as a string for lookups that do not retain it.
func b2s(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// s2b views s as a byte slice that must not be written to.
func s2b(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// Get returns field's value (a view), or ok == false.
func (h *Hash) Get(field []byte) (value []byte, ok bool) {
	if ht := h.ht(); ht != nil {
		if v := ht.Get(b2s(field)); v != nil {
			return s2b(*v), true
		}
		return nil, false
	}
	pair, voff, _, _ := h.lpFind(field)
	if pair < 0 {
		return nil, false
	}
	v, _ := lpString(h.lp(), voff)
	return v, true
}

// Exists reports whether field is present.
func (h *Hash) Exists(field []byte) bool {
	_, ok := h.Get(field)
	return ok
}

// Set stores a copy of value under a copy of field and reports whether the
// field is new. maxEntries and maxValue are hash-max-listpack-entries and
// hash-max-listpack-value: a listpack hash becomes a hashtable when the
// field or the value is longer than maxValue (checked before the write, as
// Redis's hashTypeSet does) or when it has more than maxEntries fields
// after the write.
func (h *Hash) Set(field, value []byte, maxEntries, maxValue int) (added bool) {
	if h.n != htMark && (len(field) > maxValue || len(value) > maxValue ||
		int(h.n)+len(field)+len(value)+2*binary.MaxVarintLen64 > maxListpack) {
		h.convert()
	}
	if ht := h.ht(); ht != nil {
		if p := ht.Get(b2s(field)); p != nil {
			*p = string(value)
			return false
		}
		ht.Set(string(field), string(value))
		return true
	}
	pair, voff, end, count := h.lpFind(field)
	if pair >= 0 {
		h.lpReplace(voff, end, value)
		return false
	}
	lp := h.lp()
	if lp == nil {
		lp = make([]byte, 0, uvarintLen(len(field))+len(field)+uvarintLen(len(value))+len(value))
	}
	lp = binary.AppendUvarint(lp, uint64(len(field)))
	lp = append(lp, field...)
	lp = binary.AppendUvarint(lp, uint64(len(value)))
	lp = append(lp, value...)
	h.setLP(lp)
	if count+1 > maxEntries {
		h.convert()
	}
	return true
}

// lpReplace replaces the length-prefixed string in lp[start:end] by value.
func (h *Hash) lpReplace(start, end int, value []byte) {
	cur := h.lp()
	old, _ := lpString(cur, start)
	if len(old) == len(value) {
		copy(old[:len(value)], value)
		return
	}
	var tmp [binary.MaxVarintLen64]byte
	prefix := binary.PutUvarint(tmp[:], uint64(len(value)))
	repl := prefix + len(value)
	delta := repl - (end - start)
	n := len(cur) + delta
	var lp []byte
	if n <= cap(cur) {
		lp = cur[:n]
		copy(lp[start+repl:], cur[end:])
	} else {
		lp = make([]byte, n, n+n/4)
		copy(lp, cur[:start])
		copy(lp[start+repl:], cur[end:])
	}
	copy(lp[start:], tmp[:prefix])
	copy(lp[start+prefix:], value)
	h.setLP(lp)
}

func uvarintLen(n int) int {
	k := 1
	for n >= 0x80 {
		n >>= 7
		k++
	}
	return k
}

// convert turns a listpack hash into a hashtable.
func (h *Hash) convert() {
	d := dict.New[string]()
	lp := h.lp()
	for off := 0; off < len(lp); {
		var f, v []byte
		f, v, off = lpPair(lp, off)
		d.Set(string(f), string(v))
	}
	h.setHT(d)
}

// Delete removes field and reports whether it was present.
func (h *Hash) Delete(field []byte) bool {
	if ht := h.ht(); ht != nil {
		return ht.Delete(b2s(field))
	}
	pair, _, end, _ := h.lpFind(field)
	if pair < 0 {
		return false
	}
	lp := h.lp()
	lp = append(lp[:pair], lp[end:]...)
	if len(lp) == 0 {
		lp = nil
	}
	h.setLP(lp)
	return true
}

// Range calls fn for every pair until fn returns false: in insertion order
// for a listpack hash, in table order for a hashtable. fn must not modify
// the hash.
func (h *Hash) Range(fn func(field, value []byte) bool) {
	if ht := h.ht(); ht != nil {
		ht.Range(func(k string, v *string) bool { return fn(s2b(k), s2b(*v)) })
		return
	}
	lp := h.lp()
	for off := 0; off < len(lp); {
		var f, v []byte
		f, v, off = lpPair(lp, off)
		if !fn(f, v) {
			return
		}
	}
}

// Scan continues an HSCAN iteration at cursor and returns the next cursor.
// A listpack hash is returned whole in one call with cursor 0, as Redis
// does; a hashtable follows dict.Dict.Scan's guarantee.
func (h *Hash) Scan(cursor uint64, fn func(field, value []byte)) uint64 {
	if ht := h.ht(); ht != nil {
		return ht.Scan(cursor, func(k string, v *string) { fn(s2b(k), s2b(*v)) })
	}
	h.Range(func(f, v []byte) bool { fn(f, v); return true })
	return 0
}

// Random returns a random pair (views); the hash must not be empty. rnd(n)
// returns a uniform number in [0, n).
func (h *Hash) Random(rnd func(n uint64) uint64) (field, value []byte) {
	if ht := h.ht(); ht != nil {
		k, v, _ := ht.Random(rnd)
		return s2b(k), s2b(*v)
	}
	lp := h.lp()
	i := rnd(uint64(h.Len()))
	off := 0
	for ; i > 0; i-- {
		_, _, off = lpPair(lp, off)
	}
	field, value, _ = lpPair(lp, off)
	return
}

// MemoryUsage estimates the bytes the hash holds (MEMORY USAGE): the
// header, the listpack's capacity, or the dict's nodes, buckets and
// strings.
func (h *Hash) MemoryUsage() int64 {
	n := int64(unsafe.Sizeof(*h))
	ht := h.ht()
	if ht == nil {
		return n + int64(h.c)
	}
	n += int64(ht.Len()) * (48 + 8) // node, bucket pointer
	ht.Range(func(k string, v *string) bool {
		n += int64(len(k) + len(*v))
		return true
	})
	return n
}
