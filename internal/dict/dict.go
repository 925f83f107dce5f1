// Package dict is a chained hash table with incremental rehashing and a
// reverse-binary cursor scan, modelled on Redis's dict.c. It exists because
// SCAN, HSCAN, SSCAN and ZSCAN must guarantee that every element present for
// a whole iteration is returned, with a stateless cursor, across resizes; Go
// maps cannot offer a cursor. Random sampling (RANDOMKEY, SRANDMEMBER) is
// exactly uniform and O(1) expected as well (see Random).
package dict

import (
	"hash/maphash"
	"math/bits"
)

var seed = maphash.MakeSeed()

// Hash returns the hash Dict uses for key.
func Hash(key string) uint64 { return maphash.String(seed, key) }

type node[V any] struct {
	key  string
	hash uint64
	next *node[V]
	val  V
}

type table[V any] struct {
	buckets []*node[V]
	mask    uint64
	used    int
	// maxChain is at least the length of every chain in the table (the
	// longest a chain has been since the table was made): Random's bound.
	maxChain int
}

// push puts e at the head of bucket i and keeps maxChain a bound.
func (t *table[V]) push(i uint64, e *node[V]) {
	e.next = t.buckets[i]
	t.buckets[i] = e
	t.used++
	n := 0
	for x := e; x != nil; x = x.next {
		n++
	}
	t.maxChain = max(t.maxChain, n)
}

// Dict maps string keys to V.
type Dict[V any] struct {
	ht        [2]table[V]
	rehashIdx int // -1 when not rehashing
}

// New returns an empty dict.
func New[V any]() *Dict[V] { return &Dict[V]{rehashIdx: -1} }

// Len returns the number of entries.
func (d *Dict[V]) Len() int { return d.ht[0].used + d.ht[1].used }

func (d *Dict[V]) rehashing() bool { return d.rehashIdx >= 0 }

// rehashStep moves up to n buckets from table 0 to table 1.
func (d *Dict[V]) rehashStep(n int) {
	if !d.rehashing() {
		return
	}
	empty := n * 10
	for n > 0 && d.ht[0].used > 0 {
		for d.ht[0].buckets[d.rehashIdx] == nil {
			d.rehashIdx++
			empty--
			if empty == 0 {
				return
			}
		}
		e := d.ht[0].buckets[d.rehashIdx]
		for e != nil {
			next := e.next
			d.ht[1].push(e.hash&d.ht[1].mask, e)
			d.ht[0].used--
			e = next
		}
		d.ht[0].buckets[d.rehashIdx] = nil
		d.rehashIdx++
		n--
	}
	if d.ht[0].used == 0 {
		d.ht[0] = d.ht[1]
		d.ht[1] = table[V]{}
		d.rehashIdx = -1
	}
}

func (d *Dict[V]) resize(size int) {
	n := 4
	for n < size {
		n <<= 1
	}
	t := table[V]{buckets: make([]*node[V], n), mask: uint64(n - 1)}
	if d.ht[0].buckets == nil {
		d.ht[0] = t
		return
	}
	d.ht[1] = t
	d.rehashIdx = 0
}

func (d *Dict[V]) expandIfNeeded() {
	if d.rehashing() {
		return
	}
	if d.ht[0].buckets == nil {
		d.resize(4)
		return
	}
	if d.ht[0].used >= len(d.ht[0].buckets) {
		d.resize(d.ht[0].used * 2)
	}
}

func (d *Dict[V]) shrinkIfNeeded() {
	if d.rehashing() || d.ht[0].buckets == nil {
		return
	}
	size := len(d.ht[0].buckets)
	if size > 4 && d.ht[0].used*10 < size { // under 10% full, as Redis
		d.resize(d.ht[0].used)
	}
}

func (d *Dict[V]) find(key string, h uint64) *node[V] {
	for t := 0; t <= 1; t++ {
		tb := &d.ht[t]
		if tb.buckets == nil {
			break
		}
		for e := tb.buckets[h&tb.mask]; e != nil; e = e.next {
			if e.hash == h && e.key == key {
				return e
			}
		}
		if !d.rehashing() {
			break
		}
	}
	return nil
}

// GetKey is Get that also returns the key string the dict stores, so a
// caller can keep a reference to the key without copying its argument.
func (d *Dict[V]) GetKey(key string) (string, *V) {
	if d.Len() == 0 {
		return "", nil
	}
	if d.rehashing() {
		d.rehashStep(1)
	}
	if e := d.find(key, Hash(key)); e != nil {
		return e.key, &e.val
	}
	return "", nil
}

// Touch brings keys' chains into cache so that the lookups that follow
// hit it, and calls visit with each key's value to do the same for what
// the value points to (a pipeline's keys, before its commands run). Each
// key is hashed once, and the loads of up to 16 keys at each step (bucket
// heads, then first nodes and key bytes, then values) are independent, so
// the processor overlaps their misses where lookups one by one would wait
// for each in turn.
func (d *Dict[V]) Touch(keys []string, visit func(*V) uint64) uint64 {
	tb := &d.ht[0]
	if tb.buckets == nil || d.rehashing() {
		return 0
	}
	var (
		hashes [16]uint64
		heads  [16]*node[V]
		sink   uint64
	)
	for len(keys) > 0 {
		n := min(len(keys), len(heads))
		for i, k := range keys[:n] {
			h := Hash(k)
			hashes[i] = h
			heads[i] = tb.buckets[h&tb.mask]
		}
		for i := range n {
			if e := heads[i]; e != nil && len(e.key) > 0 {
				sink += e.hash + uint64(e.key[0])
			}
		}
		for i, k := range keys[:n] {
			for e := heads[i]; e != nil; e = e.next {
				if e.hash == hashes[i] && e.key == k {
					sink += visit(&e.val)
					break
				}
			}
		}
		keys = keys[n:]
	}
	return sink
}

// Get returns a pointer to the value stored for key, or nil. The pointer
// stays valid until the key is deleted.
func (d *Dict[V]) Get(key string) *V {
	if d.Len() == 0 {
		return nil
	}
	if d.rehashing() {
		d.rehashStep(1)
	}
	if e := d.find(key, Hash(key)); e != nil {
		return &e.val
	}
	return nil
}

// Set stores v under key, reporting whether the key was new.
func (d *Dict[V]) Set(key string, v V) bool {
	p, added := d.Upsert(key)
	*p = v
	return added
}

// Upsert returns a pointer to key's value, inserting a zero value first if
// the key is absent (added reports that).
func (d *Dict[V]) Upsert(key string) (p *V, added bool) {
	if d.rehashing() {
		d.rehashStep(1)
	}
	h := Hash(key)
	if e := d.find(key, h); e != nil {
		return &e.val, false
	}
	d.expandIfNeeded()
	if d.rehashing() {
		d.rehashStep(1)
	}
	t := &d.ht[0]
	if d.rehashing() {
		t = &d.ht[1]
	}
	e := &node[V]{key: key, hash: h}
	t.push(h&t.mask, e)
	return &e.val, true
}

// Delete removes key, reporting whether it was present.
func (d *Dict[V]) Delete(key string) bool {
	if d.Len() == 0 {
		return false
	}
	if d.rehashing() {
		d.rehashStep(1)
	}
	h := Hash(key)
	for t := 0; t <= 1; t++ {
		tb := &d.ht[t]
		if tb.buckets == nil {
			break
		}
		i := h & tb.mask
		var prev *node[V]
		for e := tb.buckets[i]; e != nil; e = e.next {
			if e.hash == h && e.key == key {
				if prev == nil {
					tb.buckets[i] = e.next
				} else {
					prev.next = e.next
				}
				tb.used--
				d.shrinkIfNeeded()
				return true
			}
			prev = e
		}
		if !d.rehashing() {
			break
		}
	}
	return false
}

// Range calls fn for every entry until fn returns false. fn must not modify
// the dict.
func (d *Dict[V]) Range(fn func(key string, v *V) bool) {
	for t := 0; t <= 1; t++ {
		for _, e := range d.ht[t].buckets {
			for ; e != nil; e = e.next {
				if !fn(e.key, &e.val) {
					return
				}
			}
		}
	}
}

// RangeShard calls fn for the entries of shard i of n (0 <= i < n) until
// fn returns false: the n shards together visit every entry once. fn must
// not modify the dict; as long as nothing does, shards may be ranged
// concurrently (a snapshot encodes a large keyspace on several cores).
func (d *Dict[V]) RangeShard(i, n int, fn func(key string, v *V) bool) {
	for t := 0; t <= 1; t++ {
		b := d.ht[t].buckets
		for _, e := range b[len(b)*i/n : len(b)*(i+1)/n] {
			for ; e != nil; e = e.next {
				if !fn(e.key, &e.val) {
					return
				}
			}
		}
	}
}

// Clear removes every entry.
func (d *Dict[V]) Clear() { *d = Dict[V]{rehashIdx: -1} }

// Random returns an entry chosen uniformly at random, or ok == false when
// empty. rnd supplies randomness so callers decide whether it is
// deterministic.
//
// Picking a bucket and then an entry of its chain, as Redis's
// dictGetRandomKey does, favours entries whose chain is short: an entry
// sharing its bucket with another is drawn half as often (Redis's commands
// use dictGetFairRandomKey, which is fair only for small tables). Random
// draws a slot instead, a bucket and a position below maxChain, and draws
// again when no entry is there: every entry is one slot, so each is equally
// likely. maxChain stays small (the longest chain of a table whose load is
// at most 1), so few draws are needed.
func (d *Dict[V]) Random(rnd func(n uint64) uint64) (key string, v *V, ok bool) {
	if d.Len() == 0 {
		return "", nil, false
	}
	if d.rehashing() {
		d.rehashStep(1)
	}
	// Buckets of table 0 below rehashIdx are empty: they are skipped.
	from := uint64(0)
	s0 := uint64(len(d.ht[0].buckets))
	total := s0
	if d.rehashing() {
		from = uint64(d.rehashIdx)
		total += uint64(len(d.ht[1].buckets))
	}
	depth := uint64(max(d.ht[0].maxChain, d.ht[1].maxChain))
	for {
		i := from + rnd(total-from)
		var e *node[V]
		if i >= s0 {
			e = d.ht[1].buckets[i-s0]
		} else {
			e = d.ht[0].buckets[i]
		}
		for k := rnd(depth); k > 0 && e != nil; k-- {
			e = e.next
		}
		if e != nil {
			return e.key, &e.val, true
		}
	}
}

// Scan visits the entries of one or more buckets starting at cursor and
// returns the next cursor (0 when the iteration is complete), exactly like
// Redis's dictScan: elements present during a full iteration are returned
// at least once, even across resizes.
func (d *Dict[V]) Scan(cursor uint64, fn func(key string, v *V)) uint64 {
	if d.Len() == 0 {
		return 0
	}
	visit := func(e *node[V]) {
		for ; e != nil; e = e.next {
			fn(e.key, &e.val)
		}
	}
	if !d.rehashing() {
		t0 := &d.ht[0]
		m0 := t0.mask
		visit(t0.buckets[cursor&m0])
		cursor |= ^m0
		cursor = bits.Reverse64(cursor)
		cursor++
		cursor = bits.Reverse64(cursor)
		return cursor
	}
	t0, t1 := &d.ht[0], &d.ht[1]
	if len(t0.buckets) > len(t1.buckets) {
		t0, t1 = t1, t0
	}
	m0, m1 := t0.mask, t1.mask
	visit(t0.buckets[cursor&m0])
	for {
		visit(t1.buckets[cursor&m1])
		cursor |= ^m1
		cursor = bits.Reverse64(cursor)
		cursor++
		cursor = bits.Reverse64(cursor)
		if cursor&(m0^m1) == 0 {
			break
		}
	}
	return cursor
}
