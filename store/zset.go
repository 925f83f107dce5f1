package store

import (
	"sort"
	"strings"
	"unsafe"

	"github.com/lockkv/lockkv/internal/dict"
)

// Sorted sets, with Redis's two encodings (t_zset.c):
//
//   - "listpack": a slice of (member, score) kept sorted by (score, member).
//     Redis uses it while the set has at most zset-max-listpack-entries
//     members of at most zset-max-listpack-value bytes. It stores scores the
//     way a listpack does: an integral score is stored as an integer, so -0
//     becomes 0 (observable through ZSCORE).
//   - "skiplist": a skiplist with spans (rank in O(log n)) plus a
//     dict.Dict from member to node, so ZSCORE is O(1) and ZSCAN has Redis's
//     cursor guarantee.
//
// A set converts from listpack to skiplist when it outgrows the limits and
// never converts back, as in Redis 7.0 (only ZRANGESTORE/ZUNIONSTORE-style
// commands build a fresh, possibly smaller, encoding).
//
// Ordering is by score, then by member bytes (memcmp, shorter first on a
// common prefix), exactly Redis's zslInsert/zzlInsert order.

// ZSet flags for Add (Redis's ZADD_IN_*).
const (
	ZAddNX = 1 << iota
	ZAddXX
	ZAddGT
	ZAddLT
	ZAddIncr
)

// ZSet results of Add (Redis's ZADD_OUT_*).
const (
	ZAddNaN     = 1 << iota // the resulting score is NaN; nothing changed
	ZAddAdded               // the member was added
	ZAddUpdated             // the member's score changed
	ZAddNop                 // nothing done because of NX, XX, GT or LT
)

// ScoreRange is a score interval; MinEx/MaxEx make a bound exclusive.
type ScoreRange struct {
	Min, Max     float64
	MinEx, MaxEx bool
}

func (r *ScoreRange) gteMin(v float64) bool {
	if r.MinEx {
		return v > r.Min
	}
	return v >= r.Min
}

func (r *ScoreRange) lteMax(v float64) bool {
	if r.MaxEx {
		return v < r.Max
	}
	return v <= r.Max
}

// empty reports a range that can never match (zslIsInRange's first test).
func (r *ScoreRange) empty() bool {
	return r.Min > r.Max || (r.Min == r.Max && (r.MinEx || r.MaxEx))
}

// LexBound is one end of a lexicographic range: "-" (Inf < 0), "+"
// (Inf > 0), or S inclusive ("[S") or exclusive ("(S").
type LexBound struct {
	S   string
	Ex  bool
	Inf int8
}

// LexRange is a ZRANGEBYLEX interval.
type LexRange struct{ Min, Max LexBound }

// cmpLex compares member v with bound b (Redis's sdscmplex with v never
// being one of the infinities).
func cmpLex(v string, b *LexBound) int {
	switch {
	case b.Inf < 0:
		return 1
	case b.Inf > 0:
		return -1
	case v < b.S:
		return -1
	case v > b.S:
		return 1
	}
	return 0
}

func (r *LexRange) gteMin(v string) bool {
	c := cmpLex(v, &r.Min)
	if r.Min.Ex {
		return c > 0
	}
	return c >= 0
}

func (r *LexRange) lteMax(v string) bool {
	c := cmpLex(v, &r.Max)
	if r.Max.Ex {
		return c < 0
	}
	return c <= 0
}

// empty reports a range that can never match (zslIsInLexRange's first test).
func (r *LexRange) empty() bool {
	var c int
	a, b := &r.Min, &r.Max
	switch {
	case a.Inf != 0 && a.Inf == b.Inf:
		c = 0
	case a.Inf < 0 || b.Inf > 0:
		c = -1
	case a.Inf > 0 || b.Inf < 0:
		c = 1
	case a.S < b.S:
		c = -1
	case a.S > b.S:
		c = 1
	}
	return c > 0 || (c == 0 && (a.Ex || b.Ex))
}

// zless orders (score, member) pairs as Redis does.
func zless(s1 float64, m1 string, s2 float64, m2 string) bool {
	return s1 < s2 || (s1 == s2 && m1 < m2)
}

// bstr views b as a string without copying, for lookups only: the result
// must not be retained.
func bstr(b []byte) string { return unsafe.String(unsafe.SliceData(b), len(b)) }

// ---------------------------------------------------------------------------
// Skiplist (t_zset.c zsl*)

const zslMaxLevel = 32

type zslLevel struct {
	forward *zslNode
	span    int
}

type zslNode struct {
	member   string
	score    float64
	backward *zslNode
	level    []zslLevel
	l1       [1]zslLevel // backs level for the 3 nodes in 4 that have one
}

type zskiplist struct {
	dict   *dict.Dict[*zslNode] // member -> node, for O(1) lookups and ZSCAN
	header *zslNode
	tail   *zslNode
	length int
	level  int
	rnd    uint64
}

func newSkiplist() *zskiplist {
	return &zskiplist{
		dict:   dict.New[*zslNode](),
		header: &zslNode{level: make([]zslLevel, zslMaxLevel)},
		level:  1,
		rnd:    0x9e3779b97f4a7c15,
	}
}

// randomLevel returns a level with Redis's distribution (p = 1/4). The
// level only affects speed, never results, so a private xorshift keeps the
// store free of shared randomness.
func (zsl *zskiplist) randomLevel() int {
	level := 1
	for {
		x := zsl.rnd
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		zsl.rnd = x
		if x&0xFFFF >= 0x4000 {
			break
		}
		level++
	}
	if level > zslMaxLevel {
		level = zslMaxLevel
	}
	return level
}

func (zsl *zskiplist) insert(score float64, member string) *zslNode {
	x := &zslNode{member: member, score: score}
	if l := zsl.randomLevel(); l == 1 {
		x.level = x.l1[:]
	} else {
		x.level = make([]zslLevel, l)
	}
	zsl.insertNode(x)
	return x
}

// insertNode links x (member, score and level set) into the list.
func (zsl *zskiplist) insertNode(n *zslNode) {
	score, member := n.score, n.member
	var update [zslMaxLevel]*zslNode
	var rank [zslMaxLevel]int
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		if i != zsl.level-1 {
			rank[i] = rank[i+1]
		}
		for f := x.level[i].forward; f != nil && zless(f.score, f.member, score, member); f = x.level[i].forward {
			rank[i] += x.level[i].span
			x = f
		}
		update[i] = x
	}
	level := len(n.level)
	if level > zsl.level {
		for i := zsl.level; i < level; i++ {
			rank[i] = 0
			update[i] = zsl.header
			update[i].level[i].span = zsl.length
		}
		zsl.level = level
	}
	x = n
	for i := 0; i < level; i++ {
		x.level[i].forward = update[i].level[i].forward
		update[i].level[i].forward = x
		x.level[i].span = update[i].level[i].span - (rank[0] - rank[i])
		update[i].level[i].span = rank[0] - rank[i] + 1
	}
	for i := level; i < zsl.level; i++ {
		update[i].level[i].span++
	}
	if update[0] != zsl.header {
		x.backward = update[0]
	}
	if x.level[0].forward != nil {
		x.level[0].forward.backward = x
	} else {
		zsl.tail = x
	}
	zsl.length++
}

func (zsl *zskiplist) deleteNode(x *zslNode, update *[zslMaxLevel]*zslNode) {
	for i := 0; i < zsl.level; i++ {
		if update[i].level[i].forward == x {
			update[i].level[i].span += x.level[i].span - 1
			update[i].level[i].forward = x.level[i].forward
		} else {
			update[i].level[i].span--
		}
	}
	if x.level[0].forward != nil {
		x.level[0].forward.backward = x.backward
	} else {
		zsl.tail = x.backward
	}
	for zsl.level > 1 && zsl.header.level[zsl.level-1].forward == nil {
		zsl.level--
	}
	zsl.length--
}

// remove deletes the node holding (score, member) and reports whether it
// was there.
func (zsl *zskiplist) remove(score float64, member string) bool {
	var update [zslMaxLevel]*zslNode
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && zless(f.score, f.member, score, member); f = x.level[i].forward {
			x = f
		}
		update[i] = x
	}
	x = x.level[0].forward
	if x != nil && x.score == score && x.member == member {
		zsl.deleteNode(x, &update)
		return true
	}
	return false
}

// updateScore moves the node of member from curscore to newscore, in place
// when its position does not change (zslUpdateScore).
func (zsl *zskiplist) updateScore(curscore float64, member string, newscore float64) *zslNode {
	var update [zslMaxLevel]*zslNode
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && zless(f.score, f.member, curscore, member); f = x.level[i].forward {
			x = f
		}
		update[i] = x
	}
	x = x.level[0].forward
	if (x.backward == nil || x.backward.score < newscore) &&
		(x.level[0].forward == nil || x.level[0].forward.score > newscore) {
		x.score = newscore
		return x
	}
	// Relink the same node (Redis allocates a new one; reusing it keeps its
	// level, which is as random as a fresh one).
	zsl.deleteNode(x, &update)
	x.score = newscore
	x.backward = nil
	for i := range x.level {
		x.level[i] = zslLevel{}
	}
	zsl.insertNode(x)
	return x
}

// rank returns the 1-based rank of (score, member), or 0.
func (zsl *zskiplist) rank(score float64, member string) int {
	r := 0
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && (f.score < score || (f.score == score && f.member <= member)); f = x.level[i].forward {
			r += x.level[i].span
			x = f
		}
		if x != zsl.header && x.member == member {
			return r
		}
	}
	return 0
}

// byRank returns the node at 1-based rank, or nil.
func (zsl *zskiplist) byRank(rank int) *zslNode {
	traversed := 0
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for x.level[i].forward != nil && traversed+x.level[i].span <= rank {
			traversed += x.level[i].span
			x = x.level[i].forward
		}
		if traversed == rank {
			return x
		}
	}
	return nil
}

func (zsl *zskiplist) first() *zslNode { return zsl.header.level[0].forward }

// firstInRange returns the first node in r and its 1-based rank.
func (zsl *zskiplist) firstInRange(r *ScoreRange) (*zslNode, int) {
	if r.empty() || zsl.tail == nil || !r.gteMin(zsl.tail.score) || !r.lteMax(zsl.first().score) {
		return nil, 0
	}
	rank := 0
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && !r.gteMin(f.score); f = x.level[i].forward {
			rank += x.level[i].span
			x = f
		}
	}
	x = x.level[0].forward
	if !r.lteMax(x.score) {
		return nil, 0
	}
	return x, rank + 1
}

// lastInRange returns the last node in r and its 1-based rank.
func (zsl *zskiplist) lastInRange(r *ScoreRange) (*zslNode, int) {
	if r.empty() || zsl.tail == nil || !r.gteMin(zsl.tail.score) || !r.lteMax(zsl.first().score) {
		return nil, 0
	}
	rank := 0
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && r.lteMax(f.score); f = x.level[i].forward {
			rank += x.level[i].span
			x = f
		}
	}
	if !r.gteMin(x.score) {
		return nil, 0
	}
	return x, rank
}

func (zsl *zskiplist) inLexRange(r *LexRange) bool {
	return !r.empty() && zsl.tail != nil && r.gteMin(zsl.tail.member) && r.lteMax(zsl.first().member)
}

func (zsl *zskiplist) firstInLexRange(r *LexRange) (*zslNode, int) {
	if !zsl.inLexRange(r) {
		return nil, 0
	}
	rank := 0
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && !r.gteMin(f.member); f = x.level[i].forward {
			rank += x.level[i].span
			x = f
		}
	}
	x = x.level[0].forward
	if x == nil || !r.lteMax(x.member) {
		return nil, 0
	}
	return x, rank + 1
}

func (zsl *zskiplist) lastInLexRange(r *LexRange) (*zslNode, int) {
	if !zsl.inLexRange(r) {
		return nil, 0
	}
	rank := 0
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && r.lteMax(f.member); f = x.level[i].forward {
			rank += x.level[i].span
			x = f
		}
	}
	if x == zsl.header || !r.gteMin(x.member) {
		return nil, 0
	}
	return x, rank
}

// ---------------------------------------------------------------------------
// ZSet

type zlpEntry struct {
	member string
	score  float64
}

// ZSet is a sorted set value.
type ZSet struct {
	lp []zlpEntry // listpack encoding (when sl == nil)
	sl *zskiplist // skiplist encoding, with its dict
}

// NewZSet returns an empty sorted set, listpack-encoded unless skiplist is
// set (Redis creates a skiplist at once when zset-max-listpack-entries is 0
// or the first member is longer than zset-max-listpack-value).
func NewZSet(skiplist bool) *ZSet {
	z := &ZSet{}
	if skiplist {
		z.sl = newSkiplist()
	}
	return z
}

// Type implements Value.
func (z *ZSet) Type() Type { return TypeZSet }

// Encoding implements Value.
func (z *ZSet) Encoding() string {
	if z.sl != nil {
		return "skiplist"
	}
	return "listpack"
}

// IsListpack reports whether z uses the listpack encoding.
func (z *ZSet) IsListpack() bool { return z.sl == nil }

// Len returns the number of members.
func (z *ZSet) Len() int {
	if z.sl != nil {
		return z.sl.length
	}
	return len(z.lp)
}

// Clone implements a deep copy.
func (z *ZSet) Clone() Value {
	c := &ZSet{}
	if z.sl == nil {
		c.lp = append([]zlpEntry(nil), z.lp...)
		return c
	}
	c.sl = newSkiplist()
	for x := z.sl.first(); x != nil; x = x.level[0].forward {
		n := c.sl.insert(x.score, x.member)
		c.sl.dict.Set(x.member, n)
	}
	return c
}

// lpFind returns the index of member in the listpack, or -1.
func (z *ZSet) lpFind(member string) int {
	for i := range z.lp {
		if z.lp[i].member == member {
			return i
		}
	}
	return -1
}

// lpSearch returns the index where (score, member) sorts.
func (z *ZSet) lpSearch(score float64, member string) int {
	lp := z.lp
	lo, hi := 0, len(lp)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if zless(lp[m].score, lp[m].member, score, member) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

func (z *ZSet) lpInsert(member string, score float64) {
	if score == 0 {
		score = 0 // a listpack stores integral scores as integers: -0 is lost
	}
	i := z.lpSearch(score, member)
	z.lp = append(z.lp, zlpEntry{})
	copy(z.lp[i+1:], z.lp[i:])
	z.lp[i] = zlpEntry{member: member, score: score}
}

func (z *ZSet) lpDelete(i, n int) {
	copy(z.lp[i:], z.lp[i+n:])
	for j := len(z.lp) - n; j < len(z.lp); j++ {
		z.lp[j] = zlpEntry{}
	}
	z.lp = z.lp[:len(z.lp)-n]
}

// ToSkiplist converts a listpack-encoded set to the skiplist encoding, as
// Redis's SORT does destructively (zsetConvert) before sorting a zset.
func (z *ZSet) ToSkiplist() {
	if z.sl == nil {
		z.convert()
	}
}

// convert turns a listpack into a skiplist.
func (z *ZSet) convert() {
	z.sl = newSkiplist()
	for _, e := range z.lp {
		n := z.sl.insert(e.score, e.member)
		z.sl.dict.Set(e.member, n)
	}
	z.lp = nil
}

// Score returns member's score.
func (z *ZSet) Score(member []byte) (float64, bool) {
	m := bstr(member)
	if z.sl != nil {
		if p := z.sl.dict.Get(m); p != nil {
			return (*p).score, true
		}
		return 0, false
	}
	if i := z.lpFind(m); i >= 0 {
		return z.lp[i].score, true
	}
	return 0, false
}

// Add is Redis's zsetAdd: it adds member or updates its score according
// to flags (ZAddNX, ...), converting the encoding when the listpack limits
// (maxEntries, maxValue) would be exceeded. It returns ZAdd* result flags
// and the member's resulting score (valid unless ZAddNop or ZAddNaN).
func (z *ZSet) Add(member []byte, score float64, flags int, maxEntries, maxValue int) (int, float64) {
	return z.add(bstr(member), true, score, flags, maxEntries, maxValue)
}

// AddString is Add for a member the caller will not modify (it is stored
// without a copy).
func (z *ZSet) AddString(member string, score float64, flags int, maxEntries, maxValue int) (int, float64) {
	return z.add(member, false, score, flags, maxEntries, maxValue)
}

// add is Add; copy says m is a borrowed view that must be copied if stored.
func (z *ZSet) add(m string, copy bool, score float64, flags int, maxEntries, maxValue int) (int, float64) {
	incr := flags&ZAddIncr != 0
	nx := flags&ZAddNX != 0
	xx := flags&ZAddXX != 0
	gt := flags&ZAddGT != 0
	lt := flags&ZAddLT != 0
	if score != score {
		return ZAddNaN, 0
	}
	owned := func() string {
		if copy {
			return strings.Clone(m)
		}
		return m
	}
	if z.sl == nil {
		if i := z.lpFind(m); i >= 0 {
			if nx {
				return ZAddNop, 0
			}
			cur := z.lp[i].score
			if incr {
				score += cur
				if score != score {
					return ZAddNaN, 0
				}
			}
			if (lt && score >= cur) || (gt && score <= cur) {
				return ZAddNop, 0
			}
			if score != cur {
				ms := z.lp[i].member
				z.lpDelete(i, 1)
				z.lpInsert(ms, score)
				return ZAddUpdated, score
			}
			return 0, score
		}
		if xx {
			return ZAddNop, 0
		}
		if len(z.lp)+1 <= maxEntries && len(m) <= maxValue {
			z.lpInsert(owned(), score)
			return ZAddAdded, score
		}
		z.convert()
	}
	if p := z.sl.dict.Get(m); p != nil {
		if nx {
			return ZAddNop, 0
		}
		n := *p
		cur := n.score
		if incr {
			score += cur
			if score != score {
				return ZAddNaN, 0
			}
		}
		if (lt && score >= cur) || (gt && score <= cur) {
			return ZAddNop, 0
		}
		if score != cur {
			*p = z.sl.updateScore(cur, n.member, score)
			return ZAddUpdated, score
		}
		return 0, score
	}
	if xx {
		return ZAddNop, 0
	}
	ms := owned()
	n := z.sl.insert(score, ms)
	z.sl.dict.Set(ms, n)
	return ZAddAdded, score
}

// Remove deletes member and reports whether it was there.
func (z *ZSet) Remove(member []byte) bool {
	m := bstr(member)
	if z.sl == nil {
		if i := z.lpFind(m); i >= 0 {
			z.lpDelete(i, 1)
			return true
		}
		return false
	}
	p := z.sl.dict.Get(m)
	if p == nil {
		return false
	}
	n := *p
	z.sl.dict.Delete(m)
	z.sl.remove(n.score, n.member)
	return true
}

// Rank returns member's 0-based rank, from the highest score when reverse.
func (z *ZSet) Rank(member []byte, reverse bool) (int, bool) {
	m := bstr(member)
	var r int
	if z.sl == nil {
		r = z.lpFind(m)
		if r < 0 {
			return 0, false
		}
	} else {
		p := z.sl.dict.Get(m)
		if p == nil {
			return 0, false
		}
		r = z.sl.rank((*p).score, m) - 1
	}
	if reverse {
		r = z.Len() - 1 - r
	}
	return r, true
}

// RangeByRank calls fn for the members with 0-based ranks start..end
// (inclusive, already clamped to the set), from the highest score when
// reverse (ranks then count from the highest).
func (z *ZSet) RangeByRank(start, end int, reverse bool, fn func(member string, score float64)) {
	n := end - start + 1
	if z.sl == nil {
		if reverse {
			for i := len(z.lp) - 1 - start; n > 0; i, n = i-1, n-1 {
				fn(z.lp[i].member, z.lp[i].score)
			}
		} else {
			for i := start; n > 0; i, n = i+1, n-1 {
				fn(z.lp[i].member, z.lp[i].score)
			}
		}
		return
	}
	var x *zslNode
	if reverse {
		x = z.sl.tail
		if start > 0 {
			x = z.sl.byRank(z.sl.length - start)
		}
		for ; n > 0; n-- {
			fn(x.member, x.score)
			x = x.backward
		}
		return
	}
	x = z.sl.first()
	if start > 0 {
		x = z.sl.byRank(start + 1)
	}
	for ; n > 0; n-- {
		fn(x.member, x.score)
		x = x.level[0].forward
	}
}

// lpFirstInRange returns the index of the first listpack entry in r, or -1.
func (z *ZSet) lpFirstInRange(r *ScoreRange) int {
	lp := z.lp
	if r.empty() || len(lp) == 0 || !r.gteMin(lp[len(lp)-1].score) || !r.lteMax(lp[0].score) {
		return -1
	}
	i := sort.Search(len(lp), func(i int) bool { return r.gteMin(lp[i].score) })
	if i == len(lp) || !r.lteMax(lp[i].score) {
		return -1
	}
	return i
}

// lpLastInRange returns the index of the last listpack entry in r, or -1.
func (z *ZSet) lpLastInRange(r *ScoreRange) int {
	lp := z.lp
	if r.empty() || len(lp) == 0 || !r.gteMin(lp[len(lp)-1].score) || !r.lteMax(lp[0].score) {
		return -1
	}
	i := sort.Search(len(lp), func(i int) bool { return !r.lteMax(lp[i].score) }) - 1
	if i < 0 || !r.gteMin(lp[i].score) {
		return -1
	}
	return i
}

func (z *ZSet) lpInLexRange(r *LexRange) bool {
	lp := z.lp
	return !r.empty() && len(lp) > 0 && r.gteMin(lp[len(lp)-1].member) && r.lteMax(lp[0].member)
}

// lpFirstInLexRange scans from the head as Redis's zzlFirstInLexRange does
// (so sets with mixed scores give Redis's answer too).
func (z *ZSet) lpFirstInLexRange(r *LexRange) int {
	if !z.lpInLexRange(r) {
		return -1
	}
	for i := range z.lp {
		if r.gteMin(z.lp[i].member) {
			if r.lteMax(z.lp[i].member) {
				return i
			}
			return -1
		}
	}
	return -1
}

func (z *ZSet) lpLastInLexRange(r *LexRange) int {
	if !z.lpInLexRange(r) {
		return -1
	}
	for i := len(z.lp) - 1; i >= 0; i-- {
		if r.lteMax(z.lp[i].member) {
			if r.gteMin(z.lp[i].member) {
				return i
			}
			return -1
		}
	}
	return -1
}

// zrange is a score or lexicographic range as RangeByScore and RangeByLex
// walk it.
type zrange interface {
	lpFirst(z *ZSet) int
	lpLast(z *ZSet) int
	slFirst(zsl *zskiplist) (*zslNode, int)
	slLast(zsl *zskiplist) (*zslNode, int)
	aboveMin(member string, score float64) bool
	belowMax(member string, score float64) bool
}

func (r *ScoreRange) lpFirst(z *ZSet) int                    { return z.lpFirstInRange(r) }
func (r *ScoreRange) lpLast(z *ZSet) int                     { return z.lpLastInRange(r) }
func (r *ScoreRange) slFirst(zsl *zskiplist) (*zslNode, int) { return zsl.firstInRange(r) }
func (r *ScoreRange) slLast(zsl *zskiplist) (*zslNode, int)  { return zsl.lastInRange(r) }
func (r *ScoreRange) aboveMin(_ string, score float64) bool  { return r.gteMin(score) }
func (r *ScoreRange) belowMax(_ string, score float64) bool  { return r.lteMax(score) }
func (r *LexRange) lpFirst(z *ZSet) int                      { return z.lpFirstInLexRange(r) }
func (r *LexRange) lpLast(z *ZSet) int                       { return z.lpLastInLexRange(r) }
func (r *LexRange) slFirst(zsl *zskiplist) (*zslNode, int)   { return zsl.firstInLexRange(r) }
func (r *LexRange) slLast(zsl *zskiplist) (*zslNode, int)    { return zsl.lastInLexRange(r) }
func (r *LexRange) aboveMin(member string, _ float64) bool   { return r.gteMin(member) }
func (r *LexRange) belowMax(member string, _ float64) bool   { return r.lteMax(member) }

// RangeByScore calls fn for the members in r, skipping offset members
// and stopping after limit (limit < 0: no limit), walking down from the
// highest score when reverse. A negative offset matches nothing (Redis's
// "while (offset--)" walks off the end). It returns how many it emitted.
func (z *ZSet) RangeByScore(r *ScoreRange, offset, limit int, reverse bool, fn func(member string, score float64)) int {
	return z.rangeIn(r, offset, limit, reverse, fn)
}

// RangeByLex is RangeByScore for a lexicographic range.
func (z *ZSet) RangeByLex(r *LexRange, offset, limit int, reverse bool, fn func(member string, score float64)) int {
	return z.rangeIn(r, offset, limit, reverse, fn)
}

func (z *ZSet) rangeIn(r zrange, offset, limit int, reverse bool, fn func(member string, score float64)) int {
	if offset < 0 || limit == 0 {
		return 0
	}
	n := 0
	if z.sl == nil {
		lp := z.lp
		if reverse {
			i := r.lpLast(z)
			if i < 0 {
				return 0
			}
			for i -= offset; i >= 0 && n != limit && r.aboveMin(lp[i].member, lp[i].score); i-- {
				fn(lp[i].member, lp[i].score)
				n++
			}
			return n
		}
		i := r.lpFirst(z)
		if i < 0 {
			return 0
		}
		for i += offset; i < len(lp) && n != limit && r.belowMax(lp[i].member, lp[i].score); i++ {
			fn(lp[i].member, lp[i].score)
			n++
		}
		return n
	}
	if reverse {
		x, rank := r.slLast(z.sl)
		if x == nil || rank-offset < 1 {
			return 0
		}
		if offset > 0 {
			x = z.sl.byRank(rank - offset)
		}
		for ; x != nil && n != limit && r.aboveMin(x.member, x.score); x = x.backward {
			fn(x.member, x.score)
			n++
		}
		return n
	}
	x, rank := r.slFirst(z.sl)
	if x == nil || rank+offset > z.sl.length {
		return 0
	}
	if offset > 0 {
		x = z.sl.byRank(rank + offset)
	}
	for ; x != nil && n != limit && r.belowMax(x.member, x.score); x = x.level[0].forward {
		fn(x.member, x.score)
		n++
	}
	return n
}

// CountByScore returns how many members are in r (ZCOUNT).
func (z *ZSet) CountByScore(r *ScoreRange) int {
	if z.sl == nil {
		i := z.lpFirstInRange(r)
		if i < 0 {
			return 0
		}
		n := 0
		for ; i < len(z.lp) && r.lteMax(z.lp[i].score); i++ {
			n++
		}
		return n
	}
	_, first := z.sl.firstInRange(r)
	if first == 0 {
		return 0
	}
	_, last := z.sl.lastInRange(r)
	if last == 0 {
		return z.sl.length - first + 1
	}
	return last - first + 1
}

// CountByLex returns how many members are in r (ZLEXCOUNT).
func (z *ZSet) CountByLex(r *LexRange) int {
	if z.sl == nil {
		i := z.lpFirstInLexRange(r)
		if i < 0 {
			return 0
		}
		n := 0
		for ; i < len(z.lp) && r.lteMax(z.lp[i].member); i++ {
			n++
		}
		return n
	}
	_, first := z.sl.firstInLexRange(r)
	if first == 0 {
		return 0
	}
	_, last := z.sl.lastInLexRange(r)
	if last == 0 {
		return z.sl.length - first + 1
	}
	return last - first + 1
}

// RemoveRangeByScore deletes the members in r and returns how many.
func (z *ZSet) RemoveRangeByScore(r *ScoreRange) int {
	first := -1
	if z.sl == nil {
		first = z.lpFirstInRange(r)
	}
	return z.removeRange(first,
		func(e *zslNode) bool { return r.gteMin(e.score) },
		func(e *zslNode) bool { return r.lteMax(e.score) })
}

// RemoveRangeByLex deletes the members in r and returns how many.
func (z *ZSet) RemoveRangeByLex(r *LexRange) int {
	first := -1
	if z.sl == nil {
		first = z.lpFirstInLexRange(r)
	}
	return z.removeRange(first,
		func(e *zslNode) bool { return r.gteMin(e.member) },
		func(e *zslNode) bool { return r.lteMax(e.member) })
}

// removeRange deletes the run of members from the first that satisfies
// gteMin to the last that satisfies lteMax (Redis's
// zslDeleteRangeByScore and zslDeleteRangeByLex, and their listpack
// forms) and returns how many. For a listpack, first is the index of the
// run's first member, or -1 when none is in range; the predicates then see
// each listpack entry through a node of their own.
func (z *ZSet) removeRange(first int, gteMin, lteMax func(*zslNode) bool) int {
	if z.sl == nil {
		if first < 0 {
			return 0
		}
		var e zslNode
		j := first
		for ; j < len(z.lp); j++ {
			e.member, e.score = z.lp[j].member, z.lp[j].score
			if !lteMax(&e) {
				break
			}
		}
		z.lpDelete(first, j-first)
		return j - first
	}
	var update [zslMaxLevel]*zslNode
	zsl := z.sl
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for f := x.level[i].forward; f != nil && !gteMin(f); f = x.level[i].forward {
			x = f
		}
		update[i] = x
	}
	x = x.level[0].forward
	removed := 0
	for x != nil && lteMax(x) {
		next := x.level[0].forward
		zsl.deleteNode(x, &update)
		z.sl.dict.Delete(x.member)
		removed++
		x = next
	}
	return removed
}

// RemoveRangeByRank deletes the members with 0-based ranks start..end
// (inclusive, already clamped) and returns how many.
func (z *ZSet) RemoveRangeByRank(start, end int) int {
	if z.sl == nil {
		z.lpDelete(start, end-start+1)
		return end - start + 1
	}
	start, end = start+1, end+1
	var update [zslMaxLevel]*zslNode
	zsl := z.sl
	traversed := 0
	x := zsl.header
	for i := zsl.level - 1; i >= 0; i-- {
		for x.level[i].forward != nil && traversed+x.level[i].span < start {
			traversed += x.level[i].span
			x = x.level[i].forward
		}
		update[i] = x
	}
	traversed++
	x = x.level[0].forward
	removed := 0
	for x != nil && traversed <= end {
		next := x.level[0].forward
		zsl.deleteNode(x, &update)
		z.sl.dict.Delete(x.member)
		removed++
		traversed++
		x = next
	}
	return removed
}

// Pop removes and returns the member with the lowest score, or the highest
// when max is set. The set must not be empty.
func (z *ZSet) Pop(max bool) (string, float64) {
	if z.sl == nil {
		i := 0
		if max {
			i = len(z.lp) - 1
		}
		e := z.lp[i]
		z.lpDelete(i, 1)
		return e.member, e.score
	}
	x := z.sl.first()
	if max {
		x = z.sl.tail
	}
	z.sl.dict.Delete(x.member)
	z.sl.remove(x.score, x.member)
	return x.member, x.score
}

// Range calls fn for every member in order (the listpack ZSCAN path).
func (z *ZSet) Range(fn func(member string, score float64)) {
	if z.sl == nil {
		for _, e := range z.lp {
			fn(e.member, e.score)
		}
		return
	}
	for x := z.sl.first(); x != nil; x = x.level[0].forward {
		fn(x.member, x.score)
	}
}

// Scan is one dict.Scan step over a skiplist-encoded set (ZSCAN); it must
// not be called on a listpack.
func (z *ZSet) Scan(cursor uint64, fn func(member string, score float64)) uint64 {
	return z.sl.dict.Scan(cursor, func(k string, v **zslNode) { fn(k, (*v).score) })
}

// Nth returns the member with 0-based rank i (0 <= i < Len()).
func (z *ZSet) Nth(i int) (string, float64) {
	if z.sl == nil {
		return z.lp[i].member, z.lp[i].score
	}
	x := z.sl.byRank(i + 1)
	return x.member, x.score
}
