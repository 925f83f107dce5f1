package store

import (
	"bytes"
	"cmp"
	"slices"
	"sort"
	"strconv"

	"github.com/lockkv/lockkv/internal/dict"
	"github.com/lockkv/lockkv/internal/redisnum"
	"github.com/lockkv/lockkv/internal/stablehash"
)

// Set is a set value. Like Redis 7.0 it has two encodings (7.0 has no
// listpack sets):
//
//   - "intset": sorted int64s, while every member is an integer in
//     canonical form and there are at most set-max-intset-entries of them;
//     members come back in ascending order, as from Redis.
//   - "hashtable": a dict.Dict, in table order. The conversion is one way.
type Set struct {
	is []int64
	ht *dict.Dict[struct{}]
}

// NewSet returns an empty intset-encoded set.
func NewSet() *Set { return &Set{} }

// Type implements Value.
func (s *Set) Type() Type { return TypeSet }

// Encoding implements Value.
func (s *Set) Encoding() string {
	if s.ht != nil {
		return "hashtable"
	}
	return "intset"
}

// Clone implements Cloner: a deep copy.
func (s *Set) Clone() Value {
	if s.ht == nil {
		return &Set{is: append([]int64(nil), s.is...)}
	}
	d := dict.New[struct{}]()
	s.ht.Range(func(k string, _ *struct{}) bool {
		d.Set(k, struct{}{})
		return true
	})
	return &Set{ht: d}
}

// Len returns the number of members.
func (s *Set) Len() int {
	if s.ht != nil {
		return s.ht.Len()
	}
	return len(s.is)
}

func (s *Set) search(n int64) (int, bool) {
	i := sort.Search(len(s.is), func(i int) bool { return s.is[i] >= n })
	return i, i < len(s.is) && s.is[i] == n
}

// Add adds a copy of member and reports whether it was new. maxIntset is
// set-max-intset-entries.
func (s *Set) Add(member []byte, maxIntset int) bool {
	if s.ht == nil {
		if n, ok := redisnum.ParseInt(member); ok {
			i, found := s.search(n)
			if found {
				return false
			}
			s.is = append(s.is, 0)
			copy(s.is[i+1:], s.is[i:])
			s.is[i] = n
			if len(s.is) > maxIntset {
				s.convert()
			}
			return true
		}
		s.convert()
	}
	if s.ht.Get(b2s(member)) != nil {
		return false
	}
	s.ht.Set(string(member), struct{}{})
	return true
}

func (s *Set) convert() {
	d := dict.New[struct{}]()
	var buf [24]byte
	for _, n := range s.is {
		d.Set(string(strconv.AppendInt(buf[:0], n, 10)), struct{}{})
	}
	s.ht = d
	s.is = nil
}

// Has reports whether member is in the set.
func (s *Set) Has(member []byte) bool {
	if s.ht != nil {
		return s.ht.Get(b2s(member)) != nil
	}
	n, ok := redisnum.ParseInt(member)
	if !ok {
		return false
	}
	_, found := s.search(n)
	return found
}

// Remove removes member and reports whether it was present.
func (s *Set) Remove(member []byte) bool {
	if s.ht != nil {
		return s.ht.Delete(b2s(member))
	}
	n, ok := redisnum.ParseInt(member)
	if !ok {
		return false
	}
	i, found := s.search(n)
	if !found {
		return false
	}
	s.removeAt(i)
	return true
}

func (s *Set) removeAt(i int) {
	s.is = append(s.is[:i], s.is[i+1:]...)
	if len(s.is) == 0 {
		s.is = nil
	}
}

// Range calls fn for every member until fn returns false: ascending for an
// intset, table order for a hashtable. The slice is a view valid only
// during the call. fn must not modify the set.
func (s *Set) Range(fn func(member []byte) bool) {
	if s.ht != nil {
		s.ht.Range(func(k string, _ *struct{}) bool { return fn(s2b(k)) })
		return
	}
	var buf [24]byte
	for _, n := range s.is {
		if !fn(strconv.AppendInt(buf[:0], n, 10)) {
			return
		}
	}
}

// Scan continues an SSCAN iteration at cursor and returns the next cursor.
// An intset is returned whole with cursor 0, as Redis does.
func (s *Set) Scan(cursor uint64, fn func(member []byte)) uint64 {
	if s.ht != nil {
		return s.ht.Scan(cursor, func(k string, _ *struct{}) { fn(s2b(k)) })
	}
	s.Range(func(m []byte) bool { fn(m); return true })
	return 0
}

// Random returns a random member; the set must not be empty. The result is
// a copy for an intset and an immutable view for a hashtable, so it
// survives later changes to the set.
func (s *Set) Random(rnd func(n uint64) uint64) []byte {
	if s.ht != nil {
		k, _, _ := s.ht.Random(rnd)
		return s2b(k)
	}
	return strconv.AppendInt(nil, s.is[rnd(uint64(len(s.is)))], 10)
}

// AppendRandom appends a random member to dst; the set must not be empty.
// Unlike Random it does not allocate for an intset.
func (s *Set) AppendRandom(dst []byte, rnd func(n uint64) uint64) []byte {
	if s.ht != nil {
		k, _, _ := s.ht.Random(rnd)
		return append(dst, k...)
	}
	return strconv.AppendInt(dst, s.is[rnd(uint64(len(s.is)))], 10)
}

// Pop removes and returns a random member; the set must not be empty. The
// result stays valid after the removal.
func (s *Set) Pop(rnd func(n uint64) uint64) []byte {
	if s.ht != nil {
		k, _, _ := s.ht.Random(rnd)
		s.ht.Delete(k)
		return s2b(k)
	}
	i := int(rnd(uint64(len(s.is))))
	m := strconv.AppendInt(nil, s.is[i], 10)
	s.removeAt(i)
	return m
}

// RandomStable returns a member chosen by key and the members alone,
// whatever the encoding and the hash table's layout: the member with the
// smallest StableHash of key and member (O(n)), the first of StableOrder.
// Replicated servers choose with it, so that every node picks the same
// member although their tables differ in layout (and their encodings,
// should their set-max-intset-entries differ); over random keys each
// member is equally likely. The set must not be empty; the result is a
// copy.
func (s *Set) RandomStable(key uint64) []byte {
	var (
		best  []byte
		bestH uint64
		first = true
		buf   []byte
	)
	consider := func(m []byte) {
		if v := stablehash.Hash(key, m); first || v < bestH || (v == bestH && string(m) < string(best)) {
			best, bestH, first = append(best[:0], m...), v, false
		}
	}
	if s.ht == nil {
		for _, n := range s.is {
			buf = strconv.AppendInt(buf[:0], n, 10)
			consider(buf)
		}
		return best
	}
	s.ht.Range(func(m string, _ *struct{}) bool {
		consider(s2b(m))
		return true
	})
	return best
}

// StableOrder returns copies of the members ordered by their StableHash
// under key (ties by bytes), O(n log n): like RandomStable it depends on
// key and the members alone, and over random keys it is a uniformly random
// permutation, so its first k members are a uniformly random k-subset in
// random order (SPOP and SRANDMEMBER with a count in a replicated op).
func (s *Set) StableOrder(key uint64) [][]byte {
	type ranked struct {
		h uint64
		m []byte
	}
	rs := make([]ranked, 0, s.Len())
	s.Range(func(m []byte) bool {
		rs = append(rs, ranked{stablehash.Hash(key, m), append([]byte(nil), m...)})
		return true
	})
	slices.SortFunc(rs, func(a, b ranked) int {
		if c := cmp.Compare(a.h, b.h); c != 0 {
			return c
		}
		return bytes.Compare(a.m, b.m)
	})
	out := make([][]byte, len(rs))
	for i, r := range rs {
		out[i] = r.m
	}
	return out
}

// PopStable removes and returns the member RandomStable chooses.
func (s *Set) PopStable(key uint64) []byte {
	m := s.RandomStable(key)
	s.Remove(m)
	return m
}

// MemoryUsage estimates the bytes the set holds (MEMORY USAGE).
func (s *Set) MemoryUsage() int64 {
	n := int64(32)
	if s.ht == nil {
		return n + 8*int64(cap(s.is))
	}
	n += int64(s.ht.Len()) * (32 + 8) // node, bucket pointer
	s.ht.Range(func(k string, _ *struct{}) bool {
		n += int64(len(k))
		return true
	})
	return n
}
