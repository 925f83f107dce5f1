package lua51

import (
	"math"
	"math/bits"
	"reflect"
	"unsafe"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
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
// Every store gopher-lua does not record (an integer key of its array
// part set or cleared, any key set to nil) is logged as it happens, into
// the table's own copy of Lua's layout (tableLog, kept in its size
// marker; see "Following a table's layout event by event" below); the
// keys gopher-lua lists in first-insertion order are inserted into it
// between the logged events, as they came. A table without a log (no
// such store yet) is rebuilt from what it shows: its integer keys 1..n
// (inserted first, in ascending order; last for a table made by a sized
// constructor, whose list items are stored last), then the other keys
// in their order, into a table sized as its constructor sized it (see
// tableHint). A deleted key keeps its node, as in Lua until a rehash (or
// a garbage collection, which lockkv takes as not happening). Keys
// hashed by address in Lua (tables, functions) get the rank the log
// first saw them at instead. Stores not followed (into a table with a
// script's metatable) are taken as made when the layout is next read.
//
// ForEach visits t's live entries in Lua 5.1's order: for library
// functions whose result shows the order (cjson.encode, cmsgpack.pack,
// map and set replies, table.foreach). next and pairs use Runtime.Next.
func ForEach(t *lua.LTable, fn func(k, v lua.LValue)) {
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

// Unordered visits t's live entries in gopher-lua's order, for
// walks whose result does not depend on the order (counting, checking
// the key types), which need no layout.
func Unordered(t *lua.LTable, fn func(k, v lua.LValue)) {
	k, v := t.Next(lua.LNil)
	for k != lua.LNil {
		fn(k, v)
		k, v = t.Next(k)
	}
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
	// lengths, the events logged, and the live integer keys' count and
	// sum.
	nkeys, narray int
	version       int
	intCount      int
	intSum        int
	hint          uint64
}

// Next is lua_next over t in Lua 5.1's order: the entry after key (the
// first for nil), ok false at the end. A key t never held is Lua's
// error. Layouts are kept between calls (until ForgetLayouts), so that a
// traversal lays its table out once; the host's Scan is charged for each
// layout made and each traversal started.
func (r *Runtime) Next(L *lua.LState, t *lua.LTable, key lua.LValue) (lua.LValue, lua.LValue, bool) {
	o := r.orders[t]
	if o != nil && (o.nkeys != len(tableKeys(t)) || o.narray != len(tableArray(t)) || o.hint != tableHint(t) || o.version != logVersion(t)) {
		o = nil
	}
	if o != nil && key == lua.LNil {
		// A traversal starts: integer keys may have been set or cleared
		// without changing the array's length.
		r.host.Scan(L, len(tableArray(t)), 0)
		c, s := liveInts(tableArray(t))
		if c != o.intCount || s != o.intSum {
			o = nil
		}
	}
	if o == nil {
		if r.orders == nil || len(r.orders) >= maxOrders {
			r.orders = map[*lua.LTable]*keyOrder{}
		}
		o = layout(t)
		r.orders[t] = o
		r.host.Scan(L, o.asize, len(o.keys))
	}
	i := -1 // position: array part first, then nodes
	if key != lua.LNil {
		i = o.find(key)
		if i < 0 {
			// An integer key set after the layout was computed.
			o = layout(t)
			r.orders[t] = o
			r.host.Scan(L, o.asize, len(o.keys))
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

// ForgetLayouts drops the layouts Next keeps (at the end of a run).
func (r *Runtime) ForgetLayouts() {
	if r.orders != nil {
		clear(r.orders)
	}
}

// maxOrders bounds the layouts a Runtime keeps between Next calls.
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
	o := &keyOrder{nkeys: len(keys), narray: len(arr), hint: hint}
	o.intCount, o.intSum = liveInts(arr)
	log := tableLogOf(t)
	if log == nil && len(keys) == 0 && o.intCount == len(arr) && hint == 0 {
		// 1..n inserted in order end up in the array part, in order.
		o.asize = len(arr)
		return o
	}
	if log == nil {
		log = newTableLog(t, hint)
	} else {
		log.sync(t)
		o.version = log.version
	}
	o.asize = len(log.lt.array)
	o.nodes = len(log.lt.node)
	for _, n := range log.lt.node {
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
	list := reflect.TypeOf([]lua.LValue(nil))
	return tableFieldOffset("array", list), tableFieldOffset("keys", list), tableFieldOffset("k2i", reflect.TypeOf(map[lua.LValue]int(nil)))
}

// tableFieldOffset is the offset of gopher-lua's LTable field name,
// which must have type want.
func tableFieldOffset(name string, want reflect.Type) uintptr {
	f, ok := reflect.TypeOf(lua.LTable{}).FieldByName(name)
	if !ok || f.Type != want {
		panic("lua51: gopher-lua's LTable has no " + name + " " + want.String() + " field")
	}
	return f.Offset
}

// tableDictOff and tableStrdictOff locate gopher-lua's maps of a
// table's other keys (ResetArray).
var (
	tableDictOff    = tableFieldOffset("dict", reflect.TypeOf(map[lua.LValue]lua.LValue(nil)))
	tableStrdictOff = tableFieldOffset("strdict", reflect.TypeOf(map[string]lua.LValue(nil)))
)

// ResetArray empties t for reuse, keeping its array storage, and reports
// whether it could: t must be a table whose only stores were values
// appended under 1..n in order (what lockkv's KEYS and ARGV are made
// with) and unlogged stores into its array part (SetInt's appends), so
// that, emptied and filled again (SetStrings), it is what a table just
// made and filled in order would be. Not so once a script gave it a
// metatable, or a store was logged (a size marker, which setmetatable(t,
// nil) keeps), or any key outside the array part was set, even to nil
// (gopher-lua's key list or maps are not empty): it returns false and
// leaves t as it was. Nor when its array storage holds more than max
// values, which would stay allocated.
func ResetArray(t *lua.LTable, max int) bool {
	if t.Metatable != lua.LNil || len(tableKeys(t)) != 0 ||
		len(*(*map[lua.LValue]lua.LValue)(unsafe.Add(unsafe.Pointer(t), tableDictOff))) != 0 ||
		len(*(*map[string]lua.LValue)(unsafe.Add(unsafe.Pointer(t), tableStrdictOff))) != 0 {
		return false
	}
	p := (*[]lua.LValue)(unsafe.Add(unsafe.Pointer(t), tableArrayOff))
	if cap(*p) > max {
		return false
	}
	clear(*p)
	*p = (*p)[:0]
	return true
}

// iface is the layout of a lua.LValue: gopher-lua's type word (its
// itab) and a pointer to the value.
type iface struct{ tab, data unsafe.Pointer }

// lstringTab is the type word of a lua.LString held as a lua.LValue.
var lstringTab = func() unsafe.Pointer {
	var v lua.LValue = lua.LString("")
	return (*iface)(unsafe.Pointer(&v)).tab
}()

// StringValue is *s as a lua.LValue pointing at *s itself, where a
// conversion would copy the string's header into an allocation of its
// own: the headers of many strings can then share one. *s must never
// change again (Go takes what an interface points at as immutable).
func StringValue(s *lua.LString) lua.LValue {
	var v lua.LValue
	p := (*iface)(unsafe.Pointer(&v))
	p.tab, p.data = lstringTab, unsafe.Pointer(s)
	return v
}

// SetStrings stores strs[i] at i+1 of t (StringValue, so t's values
// point into strs), as appending them in order with SetInt would, and
// reports whether it could: t must be empty, with no metatable and no
// other key (a table just made, or one ResetArray emptied).
func SetStrings(t *lua.LTable, strs []lua.LString) bool {
	p := (*[]lua.LValue)(unsafe.Add(unsafe.Pointer(t), tableArrayOff))
	if t.Metatable != lua.LNil || len(*p) != 0 || len(tableKeys(t)) != 0 {
		return false
	}
	arr := *p
	for i := range strs {
		arr = append(arr, StringValue(&strs[i]))
	}
	*p = arr
	return true
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

func setTableKeys(t *lua.LTable, keys []lua.LValue) {
	*(*[]lua.LValue)(unsafe.Add(unsafe.Pointer(t), tableKeysOff)) = keys
}

// ---- Following a table's layout event by event ----
//
// gopher-lua records when a key other than 1..MaxArrayIndex-1 was first
// set (its key list), nothing else: not when an integer key of its array
// part was set or cleared, nor when any key was set to nil, nor whether a
// nil it stores under an integer key was ever a value (it pads its array
// with nils up to the highest index set). So every write gopher-lua does
// not record is logged as it happens, by the code that does it: the
// rewrite pass puts a call to the write helper (logWrite) before every
// assignment to a table field that may store under an integer key or may
// store nil, and rawset, table.insert and table.remove call it for each
// store they make. A table's log is Lua's own layout of it (ltable),
// kept up to date at each event: the keys gopher-lua appended to its list
// since the last event are inserted first (catchUp), then the event is
// applied. Before a table's first event, its layout is rebuilt from what
// gopher-lua shows (newTableLog), which is exact for a table whose only
// writes so far stored values under keys gopher-lua lists, or 1..n in
// order.

// tableLog is Lua's layout of a table whose writes are followed.
type tableLog struct {
	lt      ltable
	applied int // entries of gopher-lua's key list inserted in lt
	version int // events applied
	tombs   int // tombstones in gopher-lua's key list
	ranks   map[lua.LValue]uint32
}

// markerTag marks a size marker: a metatable lockkv puts on a table
// (array item 1), holding the sizes its constructor gave it (item 2), its
// tableLog (item 3, false until it has one) and the number of keys
// gopher-lua listed when the constructor returned (item 4). Scripts never
// see a marker: getmetatable hides it.
var markerTag = &lua.LUserData{Metatable: lua.LNil}

func newMarker(L *lua.LState, hint uint64, nkeys int, log *tableLog) *lua.LTable {
	m := L.CreateTable(4, 0)
	m.RawSetInt(1, markerTag)
	m.RawSetInt(2, lua.LNumber(hint))
	if log != nil {
		ud := L.NewUserData()
		ud.Value = log
		m.RawSetInt(3, ud)
	} else {
		m.RawSetInt(3, lua.LFalse)
	}
	m.RawSetInt(4, lua.LNumber(nkeys))
	return m
}

// marker is t's size marker, nil if t has none.
func marker(t *lua.LTable) *lua.LTable {
	if m, ok := t.Metatable.(*lua.LTable); ok && m.RawGetInt(1) == markerTag {
		return m
	}
	return nil
}

// IsMarker reports whether mt is a size marker (the metatable in which
// a table keeps its constructor's sizes and its log) rather than a
// metatable a script set: getmetatable shows none, and setmetatable(t,
// nil) keeps it.
func IsMarker(mt lua.LValue) bool {
	m, ok := mt.(*lua.LTable)
	return ok && m.RawGetInt(1) == markerTag
}

// MarkSized gives t, a table a library builds, the layout of a
// constructor of narray list items and nhash keyed fields, stored in
// t's current order (math's table, built like Lua's luaL_register).
func MarkSized(L *lua.LState, t *lua.LTable, narray, nhash int) {
	t.Metatable = newMarker(L, packTableHint(narray, nhash), len(tableKeys(t)), nil)
}

// Parts is the size of gopher-lua's array part of t and the number of
// entries in its list of t's other keys: what a scan of t for its length
// or layout goes through.
func Parts(t *lua.LTable) (array, keys int) {
	return len(tableArray(t)), len(tableKeys(t))
}

// tableHint is the sizes packTableHint packed for t's constructor, 0 for
// a table not made by a sized constructor.
func tableHint(t *lua.LTable) uint64 {
	if m := marker(t); m != nil {
		if h, ok := m.RawGetInt(2).(lua.LNumber); ok {
			return uint64(h)
		}
	}
	return 0
}

// tableLogOf is t's log, nil while its writes are not followed.
func tableLogOf(t *lua.LTable) *tableLog {
	if m := marker(t); m != nil {
		if ud, ok := m.RawGetInt(3).(*lua.LUserData); ok {
			return ud.Value.(*tableLog)
		}
	}
	return nil
}

func logVersion(t *lua.LTable) int {
	if log := tableLogOf(t); log != nil {
		return log.version
	}
	return 0
}

// newTableLog rebuilds t's layout from what gopher-lua shows: a table of
// the constructor's sizes, its integer keys 1..n inserted in ascending
// order, and the other keys in first-insertion order. The integer keys
// come first, but for a table made by a sized constructor, which stores
// its list items after its keyed fields: after the keys listed when it
// returned.
func newTableLog(t *lua.LTable, hint uint64) *tableLog {
	log := &tableLog{}
	lt := &log.lt
	lt.init(int(hint>>32), int(hint&0xffffffff))
	if m := marker(t); m != nil {
		n, _ := m.RawGetInt(4).(lua.LNumber)
		for keys := tableKeys(t); log.applied < min(int(n), len(keys)); log.applied++ {
			lt.set(log.key(originalKey(keys[log.applied])))
		}
	}
	for i, v := range tableArray(t) {
		if v != lua.LNil {
			lt.set(newLKey(lua.LNumber(i+1), 0))
		}
	}
	log.catchUp(t)
	return log
}

// constructorLog is the layout Lua gives t, made by a constructor with
// keyed fields (their keys and values' liveness, in order) and nitems list items, then (unless
// multret is -1) the multret values of a call or "...", stored in Lua's
// order: the list items pending are stored before the keyed field
// flushes[i] (their count at the flush), the rest at the end. OP_SETLIST
// grows the array part to the last item it stores, then stores them from
// the last down (all into the array part). A key stored nil takes a
// node, as in Lua.
func constructorLog(t *lua.LTable, hint uint64, keyed []field, nitems, multret int, flushes []int) *tableLog {
	log := &tableLog{}
	lt := &log.lt
	lt.init(int(hint>>32), int(hint&0xffffffff))
	stored := 0
	flush := func(last int) {
		if last > len(lt.array) {
			lt.resize(last, len(lt.node))
		}
		for i := last; i > stored; i-- {
			lt.assign(newLKey(lua.LNumber(i), 0), t.RawGetInt(i) != lua.LNil)
		}
		stored = last
	}
	next := 0
	store := func(upto int) {
		for ; next < upto && next < len(keyed); next++ {
			f := keyed[next]
			live := f.live > 0
			if f.live < 0 {
				live = t.RawGet(f.key) != lua.LNil
			}
			lt.assign(log.key(f.key), live)
		}
	}
	for i, f := range flushes {
		store(f)
		flush(min(50*(i+1), nitems))
	}
	store(len(keyed))
	last := nitems + max(multret, 0)
	if last > stored || multret >= 0 {
		flush(max(last, stored))
	}
	log.applied = len(tableKeys(t))
	return log
}

// catchUp inserts the keys gopher-lua listed since the last event.
func (log *tableLog) catchUp(t *lua.LTable) {
	keys := tableKeys(t)
	for ; log.applied < len(keys); log.applied++ {
		log.lt.set(log.key(originalKey(keys[log.applied])))
	}
}

// key is k with what its main position needs. Keys Lua hashes by address
// get their rank in the order the log first saw them.
func (log *tableLog) key(k lua.LValue) lkey {
	switch k.(type) {
	case lua.LString, lua.LNumber, lua.LBool:
		return newLKey(k, 0)
	}
	r, ok := log.ranks[k]
	if !ok {
		if log.ranks == nil {
			log.ranks = map[lua.LValue]uint32{}
		}
		r = uint32(len(log.ranks))
		log.ranks[k] = r
	}
	return newLKey(k, r)
}

// sync brings the layout up to date before it is read: the keys listed
// since the last event, and integer keys set or cleared by writes that
// were not followed (into a table with a script's metatable), taken as
// done now.
func (log *tableLog) sync(t *lua.LTable) {
	log.catchUp(t)
	lt := &log.lt
	arr := tableArray(t)
	for i, v := range arr {
		k := newLKey(lua.LNumber(i+1), 0)
		if live := v != lua.LNil; lt.live(k) != live {
			lt.assign(k, live)
		}
	}
	// Live integer keys beyond gopher-lua's array are gone.
	for i := len(arr); i < len(lt.array); i++ {
		if lt.array[i] {
			lt.array[i] = false
		}
	}
	for n := range lt.node {
		nd := &lt.node[n]
		if nd.live && nd.key.index > len(arr) && nd.key.index < lua.MaxArrayIndex && isArrayKeyValue(nd.key.v) {
			nd.live = false
		}
	}
}

func isArrayKeyValue(v lua.LValue) bool {
	n, ok := v.(lua.LNumber)
	f := float64(n)
	return ok && f == math.Trunc(f) && f >= 1 && f < float64(lua.MaxArrayIndex)
}

// logWrite follows a raw store of v under k in t that is about to be
// made (before it, so the key's old value shows). Stores gopher-lua
// records need nothing: a value under a key other than an integer of its
// array part, or a value replacing a value. A store that will fail (a nil
// or NaN key) or goes to a script's metatable is not followed, nor any
// write to a table with a script's metatable.
func logWrite(L *lua.LState, t *lua.LTable, k, v lua.LValue) {
	if t.ReadOnly() {
		// The store it precedes fails (the VM raises): a read-only
		// table's key list and log must stay as they are.
		return
	}
	intKey := false
	switch x := k.(type) {
	case lua.LNumber:
		f := float64(x)
		if f != f {
			return
		}
		intKey = f == math.Trunc(f) && f >= 1 && f < float64(lua.MaxArrayIndex)
	case *lua.LNilType:
		return
	}
	if !intKey && v != lua.LNil {
		return
	}
	if intKey && v != lua.LNil && t.RawGet(k) != lua.LNil {
		return
	}
	var log *tableLog
	switch mt := t.Metatable.(type) {
	case *lua.LNilType:
	case *lua.LTable:
		if mt.RawGetInt(1) != markerTag {
			return
		}
		if ud, ok := mt.RawGetInt(3).(*lua.LUserData); ok {
			log = ud.Value.(*tableLog)
		}
	default:
		return
	}
	if log == nil {
		if intKey && v != lua.LNil && len(tableKeys(t)) == 0 && int(k.(lua.LNumber)) == len(tableArray(t))+1 {
			// Appending to a table that holds integer keys alone:
			// newTableLog inserts them in ascending order, as they were.
			return
		}
		hint := tableHint(t)
		log = newTableLog(t, hint)
		t.Metatable = newMarker(L, hint, len(tableKeys(t)), log)
	} else {
		log.catchUp(t)
	}
	k2i := tableKeyIndex(t)
	i, listed := k2i[k]
	log.lt.assign(log.key(k), v != lua.LNil)
	log.version++
	if listed && v == lua.LNil {
		// gopher-lua keeps a deleted key in its key list, so setting it
		// again would not show: its entry becomes a tombstone (which
		// gopher-lua skips, having no value under it) and the key is
		// forgotten, so that setting it again appends it like a new key.
		tomb := L.NewUserData()
		tomb.Value = tombstone{k}
		tableKeys(t)[i] = tomb
		delete(k2i, k)
		log.tombs++
		if log.tombs > 64 && log.tombs*2 > len(tableKeys(t)) {
			log.compact(t)
		}
	}
}

// compact drops the tombstones from gopher-lua's key list (all of them
// entries already in the layout).
func (log *tableLog) compact(t *lua.LTable) {
	keys := tableKeys(t)
	k2i := tableKeyIndex(t)
	out := keys[:0]
	for _, k := range keys {
		if _, ok := k.(*lua.LUserData); ok && originalKey(k) != k {
			log.applied--
			continue
		}
		k2i[k] = len(out)
		out = append(out, k)
	}
	clear(keys[len(out):])
	setTableKeys(t, out)
	log.tombs = 0
}

// Set is t[k] = v, raw, and followed by t's log: the only way a library
// function stores into a table a script can reach (see the package doc).
// The key must not be nil or NaN (the caller raises Lua's error first).
func Set(L *lua.LState, t *lua.LTable, k, v lua.LValue) {
	if t.ReadOnly() {
		// The library functions refuse such a table first; this keeps
		// one that did not from storing into it.
		L.Error(lua.LString(lua.ReadOnlyError), 0)
	}
	logWrite(L, t, k, v)
	t.RawSet(k, v)
}

// SetInt is Set under the integer key i, without boxing i for the
// common store that needs no log: a value appended to a table without a
// metatable holding 1..n alone (a decoder filling an array).
func SetInt(L *lua.LState, t *lua.LTable, i int, v lua.LValue) {
	if v != lua.LNil && t.Metatable == lua.LNil && i >= 1 && i < lua.MaxArrayIndex && i == len(tableArray(t))+1 && len(tableKeys(t)) == 0 {
		t.RawSetInt(i, v)
		return
	}
	Set(L, t, lua.LNumber(i), v)
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

// live reports whether k holds a value.
func (t *ltable) live(k lkey) bool {
	if k.index >= 1 && k.index <= len(t.array) {
		return t.array[k.index-1]
	}
	n := t.find(k)
	return n >= 0 && t.node[n].live
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

// Len is Lua 5.1's length of a table (luaH_getn), on the array part
// and node vector Lua would have given it: a table whose integer keys are
// 1..n has the one border n; with holes Lua answers the border its layout
// leads it to, which gopher-lua's Len does not know.
func Len(t *lua.LTable) int {
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
// length. For a table without a log, gopher-lua's array slots that hold
// nil count as inserted once, unlike in the layout walks use: such a
// table's integer keys were appended in order (or stored into a table
// with a script's metatable, approximately).
func lenLayout(t *lua.LTable) (asize, nodes int) {
	if log := tableLogOf(t); log != nil {
		log.sync(t)
		return len(log.lt.array), len(log.lt.node)
	}
	if hint := tableHint(t); hint != 0 {
		o := layout(t)
		return o.asize, o.nodes
	}
	arr := tableArray(t)
	log := &tableLog{}
	log.lt.init(0, 0)
	for i := range arr {
		log.lt.set(newLKey(lua.LNumber(i+1), 0))
	}
	log.catchUp(t)
	return len(log.lt.array), len(log.lt.node)
}
