package luaengine

import (
	"math"
	"math/bits"
	"reflect"
	"unsafe"

	lua "github.com/yuin/gopher-lua"
)

// Table iteration order.
//
// Scripts see the order of a table's keys through next/pairs,
// cjson.encode, cmsgpack.pack and the RESP3 map and set replies. Lua 5.1
// (Redis's interpreter) visits the array part and then the nodes of the
// hash part in slot order, so the order follows ltable.c's layout: node
// vectors sized to a power of two, a key's main position from its hash,
// colliding keys moved to free slots taken from the end, rehashes that
// re-insert the old nodes from the last slot down and split integer keys
// between the array and hash parts (computesizes). gopher-lua keeps its
// hash keys in insertion order instead.
//
// keyOrder rebuilds a Lua 5.1 layout for a gopher-lua table from what the
// table shows: its integer keys 1..n (inserted first, in ascending order;
// last for a table made by a constructor with keyed fields, whose list
// items are stored last), then every other key in the order it was first
// inserted (gopher-lua keeps keys later set to nil in that list), into a
// table sized as its constructor sized it (see tableHint). A key deleted
// by `t.k = nil` is deleted where the rewrite pass recorded it, between
// the insertions before and after (recordDeletion), and setting it again
// shows as a new insertion; other keys now nil are taken as deleted after
// the last insertion. A deleted key keeps its node, as in Lua until a
// rehash (or a garbage collection, which lockkv takes as not happening). What gopher-lua does not record stays approximate: when integer
// keys were inserted relative to the others, deletions by other means
// than a literal nil. Keys hashed by address in Lua (tables, functions)
// get their insertion rank instead.
//
// forEach and Engine.next (next, pairs) are the only ways luaengine walks
// a table's keys where the order shows; eachUnordered is for walks whose
// result does not depend on it.

// forEach visits t's live entries in Lua 5.1's order.
func forEach(t *lua.LTable, fn func(k, v lua.LValue)) {
	o := layout(t)
	for i := 1; i <= o.asize; i++ {
		if v := t.RawGetInt(i); v != lua.LNil {
			fn(lua.LNumber(i), v)
		}
	}
	for _, k := range o.keys {
		if v := t.RawGet(k); v != lua.LNil {
			fn(k, v)
		}
	}
}

// eachUnordered visits t's live entries in gopher-lua's order, for
// walks whose result does not depend on the order (counting, checking
// the key types), which need no layout.
func eachUnordered(t *lua.LTable, fn func(k, v lua.LValue)) {
	k, v := t.Next(lua.LNil)
	for k != lua.LNil {
		fn(k, v)
		k, v = t.Next(k)
	}
}

// tableLen counts t's live entries.
func tableLen(t *lua.LTable) int {
	n := 0
	eachUnordered(t, func(_, _ lua.LValue) { n++ })
	return n
}

// keyOrder is a table's layout: the size of its array part, then every
// key it holds or held in the hash part, in node order.
type keyOrder struct {
	asize int
	nodes int // size of the node vector (0: Lua's dummy node)
	keys  []lua.LValue
	pos   map[lua.LValue]int // built on the first lookup that needs it
	last  int                // index in keys of the key next returned last

	// What the layout was computed from: gopher-lua's key list and array
	// lengths, the deletions logged, and the live integer keys' count and
	// sum.
	nkeys, narray int
	ndels         int
	intCount      int
	intSum        int
	hint          uint64
}

// next is lua_next over t in Lua 5.1's order: the entry after key (the
// first for nil), ok false at the end. A key t never held is an error.
func (e *Engine) next(L *lua.LState, t *lua.LTable, key lua.LValue) (lua.LValue, lua.LValue, bool) {
	o := e.orders[t]
	keys, arr := tableKeys(t), tableArray(t)
	hint := tableHint(t)
	if o != nil && (o.nkeys != len(keys) || o.narray != len(arr) || o.hint != hint || o.ndels != len(tableDeletions(t))) {
		o = nil
	}
	if o != nil && key == lua.LNil {
		// A traversal starts: integer keys may have been set or cleared
		// without changing the array's length.
		c, s := liveInts(arr)
		if c != o.intCount || s != o.intSum {
			o = nil
		}
	}
	if o == nil {
		if e.orders == nil || len(e.orders) >= maxOrders {
			e.orders = map[*lua.LTable]*keyOrder{}
		}
		o = layout(t)
		e.orders[t] = o
	}
	i := -1 // position: array part first, then nodes
	if key != lua.LNil {
		i = o.find(key)
		if i < 0 {
			// An integer key set after the layout was computed.
			o = layout(t)
			e.orders[t] = o
			if i = o.find(key); i < 0 {
				L.Error(lua.LString("invalid key to 'next'"), 0)
			}
		}
	}
	for i++; i < o.asize; i++ {
		if v := t.RawGetInt(i + 1); v != lua.LNil {
			return lua.LNumber(i + 1), v, true
		}
	}
	for i -= o.asize; i < len(o.keys); i++ {
		k := o.keys[i]
		if v := t.RawGet(k); v != lua.LNil {
			o.last = i
			return k, v, true
		}
	}
	return lua.LNil, lua.LNil, false
}

// maxOrders bounds the layouts an engine keeps between next calls.
const maxOrders = 256

// find is findindex: key's position, -1 if the layout lacks it.
func (o *keyOrder) find(key lua.LValue) int {
	if n, ok := key.(lua.LNumber); ok {
		if f := float64(n); f == math.Trunc(f) && f >= 1 && f <= float64(o.asize) {
			return int(f) - 1
		} else if f != f {
			return -1
		}
	}
	if o.last < len(o.keys) && o.keys[o.last] == key {
		return o.asize + o.last
	}
	if o.pos == nil {
		o.pos = make(map[lua.LValue]int, len(o.keys))
		for i, k := range o.keys {
			o.pos[k] = i
		}
	}
	if i, ok := o.pos[key]; ok {
		return o.asize + i
	}
	return -1
}

// layout computes t's keyOrder.
func layout(t *lua.LTable) *keyOrder {
	keys, arr := tableKeys(t), tableArray(t)
	hint := tableHint(t)
	o := &keyOrder{nkeys: len(keys), narray: len(arr), hint: hint, ndels: len(tableDeletions(t))}
	o.intCount, o.intSum = liveInts(arr)
	if len(keys) == 0 && o.intCount == len(arr) && hint == 0 {
		// 1..n inserted in order end up in the array part, in order.
		o.asize = len(arr)
		return o
	}
	var lt ltable
	lt.init(int(hint>>32), int(hint&0xffffffff))
	ints := func() {
		for i, v := range arr {
			if v != lua.LNil {
				lt.set(newLKey(lua.LNumber(i+1), 0))
			}
		}
	}
	if hint == 0 {
		ints()
	}
	dels := tableDeletions(t)
	for i, k := range keys {
		for len(dels) > 0 && dels[0].at <= i {
			lt.assign(newLKey(dels[0].key, 0), false)
			dels = dels[1:]
		}
		lt.set(newLKey(originalKey(k), uint32(i)))
	}
	for _, d := range dels {
		lt.assign(newLKey(d.key, 0), false)
	}
	if hint != 0 {
		// A constructor stores its list items last (OP_SETLIST), in the
		// array part it sized for them.
		ints()
	}
	o.asize = len(lt.array)
	o.nodes = len(lt.node)
	for _, n := range lt.node {
		// Deleted keys keep their node: next accepts them.
		if n.used {
			o.keys = append(o.keys, n.key.v)
		}
	}
	return o
}

func liveInts(arr []lua.LValue) (count, sum int) {
	for i, v := range arr {
		if v != lua.LNil {
			count++
			sum += i
		}
	}
	return count, sum
}

// gopher-lua keeps the parts of a table a layout needs unexported; their
// offsets are read once (and checked: a gopher-lua that changed them
// fails at start-up, not silently).
var tableArrayOff, tableKeysOff, tableK2iOff = tableFieldOffsets()

func tableFieldOffsets() (uintptr, uintptr, uintptr) {
	ty := reflect.TypeOf(lua.LTable{})
	off := func(name string, want reflect.Type) uintptr {
		f, ok := ty.FieldByName(name)
		if !ok || f.Type != want {
			panic("luaengine: gopher-lua's LTable has no " + name + " " + want.String() + " field")
		}
		return f.Offset
	}
	list := reflect.TypeOf([]lua.LValue(nil))
	return off("array", list), off("keys", list), off("k2i", reflect.TypeOf(map[lua.LValue]int(nil)))
}

// tableArray is gopher-lua's array part: t[i+1] for integer keys from 1.
func tableArray(t *lua.LTable) []lua.LValue {
	return *(*[]lua.LValue)(unsafe.Add(unsafe.Pointer(t), tableArrayOff))
}

// tableKeyIndex is gopher-lua's index of tableKeys.
func tableKeyIndex(t *lua.LTable) map[lua.LValue]int {
	return *(*map[lua.LValue]int)(unsafe.Add(unsafe.Pointer(t), tableK2iOff))
}

// tableKeys is gopher-lua's list of the other keys in first-insertion
// order, including keys since set to nil.
func tableKeys(t *lua.LTable) []lua.LValue {
	return *(*[]lua.LValue)(unsafe.Add(unsafe.Pointer(t), tableKeysOff))
}

// deletion is a key set to nil by `t.k = nil`, when t's key list had at
// keys (gopher-lua records insertions, not deletions, nor a nil stored
// under a key the table does not hold, which Lua gives a node).
type deletion struct {
	key lua.LValue
	at  int
}

// tableLog holds a table's deletions, in a size marker of its own.
type tableLog struct{ dels []deletion }

// tableLogKey is where a table's own size marker keeps its tableLog.
const tableLogKey = "\x00lua51 deletions"

// maxDeletions bounds a table's log; later deletions go unrecorded.
const maxDeletions = 1 << 16

// recordDeletion notes that key was just set to nil in t. Integer keys of
// gopher-lua's array part are not recorded (their insertion order is not
// known either), nor deletions in a table with a script's metatable.
func recordDeletion(L *lua.LState, t *lua.LTable, key lua.LValue) {
	switch x := key.(type) {
	case *lua.LNilType:
		return
	case lua.LNumber:
		if f := float64(x); f != f || f == math.Trunc(f) && f >= 1 && f < float64(lua.MaxArrayIndex) {
			return
		}
	}
	var m *lua.LTable
	switch mt := t.Metatable.(type) {
	case *lua.LTable:
		if mt.RawGetString(tableHintKey) == lua.LNil {
			return
		}
		if _, ok := mt.RawGetString(tableLogKey).(*lua.LUserData); ok {
			m = mt
		}
	}
	if m == nil {
		m = L.NewTable()
		m.RawSetString(tableHintKey, lua.LNumber(tableHint(t)))
		ud := L.NewUserData()
		ud.Value = &tableLog{}
		m.RawSetString(tableLogKey, ud)
		t.Metatable = m
	}
	log := m.RawGetString(tableLogKey).(*lua.LUserData).Value.(*tableLog)
	if len(log.dels) >= maxDeletions || t.RawGet(key) != lua.LNil {
		return
	}
	// gopher-lua keeps a deleted key in its key list, so setting it again
	// would not show when: its entry becomes a tombstone (which gopher-lua
	// skips, having no value under it) and the key is forgotten, so that
	// setting it again appends it like a new key. A key the table does
	// not hold is logged too: Lua gives it a node.
	keys := tableKeys(t)
	k2i := tableKeyIndex(t)
	if i, ok := k2i[key]; ok {
		tomb := L.NewUserData()
		tomb.Value = tombstone{key}
		keys[i] = tomb
		delete(k2i, key)
	}
	log.dels = append(log.dels, deletion{key, len(keys)})
}

// tombstone stands, in gopher-lua's key list, for a key deleted there.
type tombstone struct{ key lua.LValue }

// originalKey is k, or the key a tombstone stands for.
func originalKey(k lua.LValue) lua.LValue {
	if ud, ok := k.(*lua.LUserData); ok {
		if t, ok := ud.Value.(tombstone); ok {
			return t.key
		}
	}
	return k
}

// tableDeletions is t's deletion log, oldest first.
func tableDeletions(t *lua.LTable) []deletion {
	if m, ok := t.Metatable.(*lua.LTable); ok {
		if ud, ok := m.RawGetString(tableLogKey).(*lua.LUserData); ok {
			return ud.Value.(*tableLog).dels
		}
	}
	return nil
}

// ---- Lua 5.1's ltable.c layout, for keys only ----

// maxBits bounds the array part to 2^26 slots (MAXBITS).
const maxBits = 26

// lkey is a key with what its main position needs.
type lkey struct {
	v     lua.LValue
	hash  uint32
	kind  uint8 // how the hash becomes a slot
	index int   // array index for integer keys, else -1
}

const (
	hashPow2 uint8 = iota // strings, booleans: hash & (size-1)
	hashMod               // numbers, addresses: hash % ((size-1)|1)
	hashZero              // the number 0: slot 0
)

func newLKey(v lua.LValue, rank uint32) lkey {
	k := lkey{v: v, index: -1}
	switch x := v.(type) {
	case lua.LString:
		k.kind, k.hash = hashPow2, luaStringHash(string(x))
	case lua.LBool:
		k.kind = hashPow2
		if x {
			k.hash = 1
		}
	case lua.LNumber:
		f := float64(x)
		if f == 0 {
			k.kind = hashZero
		} else {
			b := math.Float64bits(f)
			k.kind, k.hash = hashMod, uint32(b)+uint32(b>>32)
		}
		if f == math.Trunc(f) && f >= math.MinInt32 && f <= math.MaxInt32 {
			k.index = int(f)
		}
	default:
		k.kind, k.hash = hashMod, rank
	}
	return k
}

// luaStringHash is lstring.c's hash with Redis's patch: every character
// counts (stock Lua 5.1 skips characters of strings of 32 bytes or more).
func luaStringHash(s string) uint32 {
	h := uint32(len(s))
	for i := len(s); i >= 1; i-- {
		h ^= (h << 5) + (h >> 2) + uint32(s[i-1])
	}
	return h
}

type lnode struct {
	key  lkey
	used bool // key set (a free node has none)
	live bool // value set
	next int  // chained node, -1 for none
}

// ltable is a Lua 5.1 Table without values: an array part of live flags
// and the node vector (empty for the shared dummy node).
type ltable struct {
	array    []bool
	node     []lnode
	lastfree int
}

func (t *ltable) init(narray, nhash int) {
	t.array = make([]bool, narray)
	t.setNodeVector(nhash)
}

func ceilLog2(x int) int { return bits.Len(uint(x - 1)) }

func (t *ltable) setNodeVector(size int) {
	if size == 0 {
		t.node = nil
		t.lastfree = 0
		return
	}
	size = 1 << ceilLog2(size)
	t.node = make([]lnode, size)
	for i := range t.node {
		t.node[i].next = -1
	}
	t.lastfree = size
}

func (t *ltable) mainPosition(k lkey) int {
	if len(t.node) == 0 {
		return 0
	}
	switch k.kind {
	case hashPow2:
		return int(k.hash & uint32(len(t.node)-1))
	case hashMod:
		return int(k.hash % uint32((len(t.node)-1)|1))
	}
	return 0
}

func sameKey(a, b lkey) bool { return a.v == b.v }

// find is luaH_get: the node holding k, or -1.
func (t *ltable) find(k lkey) int {
	if len(t.node) == 0 {
		return -1
	}
	for n := t.mainPosition(k); n >= 0; n = t.node[n].next {
		if t.node[n].used && sameKey(t.node[n].key, k) {
			return n
		}
	}
	return -1
}

// set is luaH_set followed by a non-nil store.
func (t *ltable) set(k lkey) { t.assign(k, true) }

// assign is luaH_set followed by a store, nil unless live: a key not in
// the table gets a node even to hold nil.
func (t *ltable) assign(k lkey, live bool) {
	if k.index >= 1 && k.index <= len(t.array) {
		t.array[k.index-1] = live
		return
	}
	if n := t.find(k); n >= 0 {
		t.node[n].live = live
		return
	}
	if n := t.newKey(k, live); n >= 0 {
		t.node[n].live = live
	}
}

func (t *ltable) getFreePos() int {
	for t.lastfree > 0 {
		t.lastfree--
		if !t.node[t.lastfree].used {
			return t.lastfree
		}
	}
	return -1
}

// newKey inserts k (not present) and returns its node, or -1 when the
// table grew and k went in through set.
func (t *ltable) newKey(k lkey, live bool) int {
	mp := t.mainPosition(k)
	if len(t.node) == 0 || t.node[mp].live {
		free := t.getFreePos()
		if free < 0 {
			t.rehash(k)
			t.assign(k, live)
			return -1
		}
		other := t.mainPosition(t.node[mp].key)
		if other != mp {
			// The colliding node is out of its main position: move it.
			for t.node[other].next != mp {
				other = t.node[other].next
			}
			t.node[other].next = free
			t.node[free] = t.node[mp]
			t.node[mp].next = -1
			t.node[mp].live = false
		} else {
			// The new key goes to the free position.
			t.node[free].next = t.node[mp].next
			t.node[mp].next = free
			mp = free
		}
	}
	t.node[mp].key = k
	t.node[mp].used = true
	return mp
}

func countInt(k lkey, nums *[maxBits + 1]int) int {
	if k.index > 0 && k.index <= 1<<maxBits {
		nums[ceilLog2(k.index)]++
		return 1
	}
	return 0
}

func (t *ltable) numUseArray(nums *[maxBits + 1]int) int {
	ause, i := 0, 1
	for lg, ttlg := 0, 1; lg <= maxBits; lg, ttlg = lg+1, ttlg*2 {
		lc, lim := 0, ttlg
		if lim > len(t.array) {
			lim = len(t.array)
			if i > lim {
				break
			}
		}
		for ; i <= lim; i++ {
			if t.array[i-1] {
				lc++
			}
		}
		nums[lg] += lc
		ause += lc
	}
	return ause
}

func computeSizes(nums *[maxBits + 1]int, narray *int) int {
	a, na, n := 0, 0, 0
	for i, twotoi := 0, 1; twotoi/2 < *narray; i, twotoi = i+1, twotoi*2 {
		if nums[i] > 0 {
			a += nums[i]
			if a > twotoi/2 {
				n = twotoi
				na = a
			}
		}
		if a == *narray {
			break
		}
	}
	*narray = n
	return na
}

func (t *ltable) rehash(extra lkey) {
	var nums [maxBits + 1]int
	nasize := t.numUseArray(&nums)
	total := nasize
	for i := len(t.node) - 1; i >= 0; i-- {
		if t.node[i].live {
			nasize += countInt(t.node[i].key, &nums)
			total++
		}
	}
	nasize += countInt(extra, &nums)
	total++
	na := computeSizes(&nums, &nasize)
	t.resize(nasize, total-na)
}

func (t *ltable) resize(nasize, nhsize int) {
	oldArray, oldNode := t.array, t.node
	if nasize > len(oldArray) {
		grown := make([]bool, nasize)
		copy(grown, oldArray)
		t.array = grown
	}
	t.setNodeVector(nhsize)
	if nasize < len(oldArray) {
		t.array = make([]bool, nasize)
		copy(t.array, oldArray)
		for i := nasize; i < len(oldArray); i++ {
			if oldArray[i] {
				t.set(newLKey(lua.LNumber(i+1), 0))
			}
		}
	}
	for i := len(oldNode) - 1; i >= 0; i-- {
		if oldNode[i].live {
			t.set(oldNode[i].key)
		}
	}
}

// luaLen is Lua 5.1's length of a table (luaH_getn), on the array part
// and node vector Lua would have given it: a table whose integer keys are
// 1..n has the one border n; with holes Lua answers the border its layout
// leads it to, which gopher-lua's Len does not know.
func luaLen(t *lua.LTable) int {
	arr := tableArray(t)
	if len(tableKeys(t)) == 0 {
		if n := len(arr); n == 0 || arr[n-1] != lua.LNil && noHoles(arr) {
			return n // 1..n: the only border
		}
	}
	asize, nodes := lenLayout(t)
	nilAt := func(i int) bool { return t.RawGetInt(i) == lua.LNil }
	// border finds one between i (non-nil, or 0) and j (nil).
	border := func(i, j int) int {
		for j-i > 1 {
			m := (i + j) / 2
			if nilAt(m) {
				j = m
			} else {
				i = m
			}
		}
		return i
	}
	j := asize
	if j > 0 && nilAt(j) {
		return border(0, j) // a border inside the array part
	}
	if nodes == 0 {
		return j
	}
	// unbound_search
	i := j
	j++
	for !nilAt(j) {
		i = j
		if j > math.MaxInt32/2 {
			// Pathological table: linear search, as Lua does.
			i = 1
			for !nilAt(i) {
				i++
			}
			return i - 1
		}
		j *= 2
	}
	return border(i, j)
}

func noHoles(arr []lua.LValue) bool {
	for _, v := range arr {
		if v == lua.LNil {
			return false
		}
	}
	return true
}

// lenLayout is the array part and node vector sizes Lua gives t, for its
// length. Unlike the layout walks use, gopher-lua's array slots that hold
// nil count as inserted once: gopher-lua's array only grows by appending,
// so every slot below its length held a value, which Lua's array part
// kept room for (deleting a value never shrinks it).
func lenLayout(t *lua.LTable) (asize, nodes int) {
	hint := tableHint(t)
	if hint != 0 {
		o := layout(t)
		return o.asize, o.nodes
	}
	arr, keys := tableArray(t), tableKeys(t)
	var lt ltable
	lt.init(0, 0)
	for i := range arr {
		lt.set(newLKey(lua.LNumber(i+1), 0))
	}
	dels := tableDeletions(t)
	for i, k := range keys {
		for len(dels) > 0 && dels[0].at <= i {
			lt.assign(newLKey(dels[0].key, 0), false)
			dels = dels[1:]
		}
		lt.set(newLKey(originalKey(k), uint32(i)))
	}
	return len(lt.array), len(lt.node)
}
