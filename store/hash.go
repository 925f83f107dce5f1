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
type Hash struct {
	lp []byte             // listpack encoding (when ht == nil)
	ht *dict.Dict[string] // hashtable encoding
}

// NewHash returns an empty listpack-encoded hash.
func NewHash() *Hash { return &Hash{} }

// Type implements Value.
func (h *Hash) Type() Type { return TypeHash }

// Encoding implements Value.
func (h *Hash) Encoding() string {
	if h.ht != nil {
		return "hashtable"
	}
	return "listpack"
}

// Clone implements Cloner: a deep copy (strings are immutable in Go, so the
// hashtable copy shares them).
func (h *Hash) Clone() Value {
	if h.ht == nil {
		return &Hash{lp: append([]byte(nil), h.lp...)}
	}
	d := dict.New[string]()
	h.ht.Range(func(k string, v *string) bool {
		d.Set(k, *v)
		return true
	})
	return &Hash{ht: d}
}

// Len returns the number of fields.
func (h *Hash) Len() int {
	if h.ht != nil {
		return h.ht.Len()
	}
	n := 0
	for off := 0; off < len(h.lp); n++ {
		_, _, off = lpPair(h.lp, off)
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
	lp := h.lp
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
	if h.ht != nil {
		if v := h.ht.Get(b2s(field)); v != nil {
			return s2b(*v), true
		}
		return nil, false
	}
	pair, voff, _, _ := h.lpFind(field)
	if pair < 0 {
		return nil, false
	}
	v, _ := lpString(h.lp, voff)
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
	if h.ht == nil && (len(field) > maxValue || len(value) > maxValue) {
		h.convert()
	}
	if h.ht != nil {
		if p := h.ht.Get(b2s(field)); p != nil {
			*p = string(value)
			return false
		}
		h.ht.Set(string(field), string(value))
		return true
	}
	pair, voff, end, count := h.lpFind(field)
	if pair >= 0 {
		h.lpReplace(voff, end, value)
		return false
	}
	need := uvarintLen(len(field)) + len(field) + uvarintLen(len(value)) + len(value)
	if h.lp == nil {
		h.lp = make([]byte, 0, need)
	}
	h.lp = binary.AppendUvarint(h.lp, uint64(len(field)))
	h.lp = append(h.lp, field...)
	h.lp = binary.AppendUvarint(h.lp, uint64(len(value)))
	h.lp = append(h.lp, value...)
	if count+1 > maxEntries {
		h.convert()
	}
	return true
}

// lpReplace replaces the length-prefixed string in lp[start:end] by value.
func (h *Hash) lpReplace(start, end int, value []byte) {
	old, _ := lpString(h.lp, start)
	if len(old) == len(value) {
		copy(old[:len(value)], value)
		return
	}
	var tmp [binary.MaxVarintLen64]byte
	prefix := binary.PutUvarint(tmp[:], uint64(len(value)))
	repl := prefix + len(value)
	delta := repl - (end - start)
	n := len(h.lp) + delta
	if n <= cap(h.lp) {
		lp := h.lp[:n]
		copy(lp[start+repl:], h.lp[end:])
		h.lp = lp
	} else {
		lp := make([]byte, n, n+n/4)
		copy(lp, h.lp[:start])
		copy(lp[start+repl:], h.lp[end:])
		h.lp = lp
	}
	copy(h.lp[start:], tmp[:prefix])
	copy(h.lp[start+prefix:], value)
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
	for off := 0; off < len(h.lp); {
		var f, v []byte
		f, v, off = lpPair(h.lp, off)
		d.Set(string(f), string(v))
	}
	h.ht = d
	h.lp = nil
}

// Delete removes field and reports whether it was present.
func (h *Hash) Delete(field []byte) bool {
	if h.ht != nil {
		return h.ht.Delete(b2s(field))
	}
	pair, _, end, _ := h.lpFind(field)
	if pair < 0 {
		return false
	}
	h.lp = append(h.lp[:pair], h.lp[end:]...)
	if len(h.lp) == 0 {
		h.lp = nil
	}
	return true
}

// Range calls fn for every pair until fn returns false: in insertion order
// for a listpack hash, in table order for a hashtable. fn must not modify
// the hash.
func (h *Hash) Range(fn func(field, value []byte) bool) {
	if h.ht != nil {
		h.ht.Range(func(k string, v *string) bool { return fn(s2b(k), s2b(*v)) })
		return
	}
	for off := 0; off < len(h.lp); {
		var f, v []byte
		f, v, off = lpPair(h.lp, off)
		if !fn(f, v) {
			return
		}
	}
}

// Scan continues an HSCAN iteration at cursor and returns the next cursor.
// A listpack hash is returned whole in one call with cursor 0, as Redis
// does; a hashtable follows dict.Dict.Scan's guarantee.
func (h *Hash) Scan(cursor uint64, fn func(field, value []byte)) uint64 {
	if h.ht != nil {
		return h.ht.Scan(cursor, func(k string, v *string) { fn(s2b(k), s2b(*v)) })
	}
	h.Range(func(f, v []byte) bool { fn(f, v); return true })
	return 0
}

// Random returns a random pair (views); the hash must not be empty. rnd(n)
// returns a uniform number in [0, n).
func (h *Hash) Random(rnd func(n uint64) uint64) (field, value []byte) {
	if h.ht != nil {
		k, v, _ := h.ht.Random(rnd)
		return s2b(k), s2b(*v)
	}
	i := rnd(uint64(h.Len()))
	off := 0
	for ; i > 0; i-- {
		_, _, off = lpPair(h.lp, off)
	}
	field, value, _ = lpPair(h.lp, off)
	return
}
