package lua51

import (
	"crypto/rand"
	"math"
	"strconv"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
	"github.com/lockkv/lockkv/third_party/yuin/gopher-lua/ast"
)

// gopher-lua and Lua 5.1 differ in places real scripts touch, all
// fixed here on the parsed script before it is compiled:
//
//   - `..` formats numbers with Go's shortest representation; Lua 5.1
//     uses "%.14g" ("x" .. 1/3 is "x0.33333333333333", 1e15 is "1e+15").
//     Non-literal operands of `..` go through a helper that formats
//     numbers as Lua does; number literals are formatted at compile time.
//   - A numeric `for` refuses strings; Lua 5.1 converts them, so a loop
//     may start from a value HGET returned. Non-literal bounds go through
//     a helper that converts them and raises Lua's own error otherwise.
//   - Table constructors, stores into table fields and `#` go through
//     helpers that give tables Lua 5.1's layout (order.go): constructors
//     record their sizes (and, with keys other than string constants,
//     the order of their stores; those gopher-lua's compiler gets wrong
//     store their fields from the split on through helpers, splitAt),
//     stores gopher-lua does not record are logged (assignment), `#` is
//     Lua's border.
//
// The helpers are locals of the script function, named so that no Lua
// source can spell them, loaded once per call from the string metatable
// (see Install); scripts that use none of these are left exactly
// as they were.

const (
	helperTick     = "(lockkv tick)"
	helperConcat   = "(lockkv concat)"
	helperForInit  = "(lockkv for init)"
	helperForLimit = "(lockkv for limit)"
	helperForStep  = "(lockkv for step)"
	helperTable    = "(lockkv table)"
	helperSet      = "(lockkv set)"
	helperField    = "(lockkv field)"
	helperValue    = "(lockkv value)"
	helperOrdered  = "(lockkv ordered table)"
	helperCount    = "(lockkv count)"
	helperLen      = "(lockkv len)"
	helperLenOf    = "(lockkv len of)"
	helperLenLast  = "(lockkv len last)"
	helperSlot     = "(lockkv slot)"
	helperStash    = "(lockkv stash)"
	helperSplit    = "(lockkv split table)"
	helperVarargs  = "(lockkv varargs)"
)

var helperOrder = []string{helperTick, helperConcat, helperForInit, helperForLimit, helperForStep, helperTable, helperSet, helperField, helperValue, helperOrdered, helperCount, helperLen, helperLenOf, helperLenLast, helperSlot, helperStash, helperSplit, helperVarargs}

// helperKey is where a helper lives in the table that indexes strings.
// Any script can index a string with any key (("")[k]), and the helpers
// store into whatever table they are handed (split table, a
// constructor's size marker), the read-only globals and libraries
// included: a key a script could spell would let it change what every
// later script sees. So the key ends in helperSecret, random for each
// process; only the rewritten code's own constants hold it, which no
// script can read. (The keys start with a NUL byte, which keeps them
// out of the string library's copy scripts see.)
func helperKey(name string) string { return "\x00" + name + helperSecret }

// helperSecret ends every helper's key (helperKey).
var helperSecret = func() string {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("lua51: no randomness for the helpers' keys: " + err.Error())
	}
	return string(b[:])
}()

// Host is what the helpers need from the engine that runs the scripts.
type Host struct {
	// Tick is the check point at the top of every loop and function
	// body, called with the body's weight (Rewrite's weight) when it is
	// more than 1.
	Tick lua.LGFunction
	// Concat is told the length of each operand of a `..` chain as the
	// concat helper formats it; chain carries ChainFirst on the first
	// operand the helper sees and ChainLast on the last.
	Concat func(L *lua.LState, n int, chain lua.LValue)
	// Values is charged for n values `...` passes on.
	Values func(L *lua.LState, n int)
	// Slots is charged for n array slots a constructor filled.
	Slots func(L *lua.LState, n int)
	// Scan is charged for a walk over a table's array part of array
	// slots and a layout of keys keys (its length, a traversal).
	Scan func(L *lua.LState, array, keys int)
}

// Runtime is the emulation's state in one interpreter: the fields
// constructors keep for their helpers, and the layouts Next keeps.
type Runtime struct {
	host   Host
	ctors  ctorStacks
	orders map[*lua.LTable]*keyOrder
}

// Install adds the helpers the rewritten code calls to the string method
// table strIndex (gopher-lua's builtin string metatable's __index, which
// scripts cannot reach: they see a clean copy of the string library,
// without the keys that start with a NUL byte).
func Install(L *lua.LState, strIndex *lua.LTable, host Host) *Runtime {
	rt := &Runtime{host: host}
	cs := &rt.ctors
	tick, concatLen := host.Tick, host.Concat
	strIndex.RawSetString(helperKey(helperTick), L.NewFunction(tick))
	// varargs(...) is every `...`: it passes the values on, charged a
	// step each (a call can pass thousands, copied at every `...`).
	strIndex.RawSetString(helperKey(helperVarargs), L.NewFunction(func(L *lua.LState) int {
		n := L.GetTop()
		host.Values(L, n)
		return n
	}))
	// concat(v, chain) formats an operand of `..`; chain tells whether it
	// is the first or the last operand of its `..` chain the helper sees
	// (concatChain), so that the chain's length can be bounded.
	strIndex.RawSetString(helperKey(helperConcat), L.NewFunction(func(L *lua.LState) int {
		switch v := L.Get(1).(type) {
		case lua.LNumber:
			s := formatNumber(v)
			concatLen(L, len(s), L.Get(2))
			L.SetTop(0)
			L.Push(lua.LString(s))
			return 1
		case lua.LString:
			concatLen(L, len(v), L.Get(2))
			L.SetTop(1)
			return 1
		default:
			if L.GetMetaField(v, "__concat") == lua.LNil {
				concatError(L, v)
			}
			concatLen(L, 0, L.Get(2))
		}
		L.SetTop(1)
		return 1
	}))
	forHelper := func(what string) lua.LGFunction {
		return func(L *lua.LState) int {
			switch v := L.Get(1).(type) {
			case lua.LNumber:
				L.Push(v)
				return 1
			case lua.LString:
				if f, ok := StrToNumber(string(v)); ok {
					L.Push(lua.LNumber(f))
					return 1
				}
			}
			L.RaiseError("'for' %s must be a number", what)
			return 0
		}
	}
	// A table constructor with keyed fields sizes its table for them, so
	// its layout (and so its key order, see order.go) differs from the
	// same keys assigned one by one. The helper records the sizes in a
	// metatable with no metamethods, one per size pair, that
	// getmetatable does not show.
	// A constructor whose last item is a call or "..." (a third argument)
	// has its array part grown to hold every item it stored, as OP_SETLIST
	// grows it to the last index stored (luaH_resizearray), nils included.
	markers := map[markerKey]*lua.LTable{}
	strIndex.RawSetString(helperKey(helperTable), L.NewFunction(func(L *lua.LState) int {
		t := L.Get(1).(*lua.LTable)
		hint := uint64(L.Get(2).(lua.LNumber))
		if L.GetTop() >= 3 {
			// The values of a closing call or `...` fill the array.
			host.Slots(L, len(tableArray(t)))
			if n := len(tableArray(t)); uint64(n) > hint>>32 {
				hint = packTableHint(n, int(hint&0xffffffff))
			}
			if hint == 0 {
				L.SetTop(1)
				return 1
			}
		}
		mk := markerKey{hint, len(tableKeys(t))}
		m := markers[mk]
		if m == nil {
			m = newMarker(L, hint, mk.nkeys, nil)
			if len(markers) < maxMarkers {
				markers[mk] = m
			}
		}
		t.Metatable = m
		L.SetTop(1)
		return 1
	}))
	// #t is Lua 5.1's border (Len); for anything else the helper
	// answers nil and the original # runs, with its own error text.
	strIndex.RawSetString(helperKey(helperLen), L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			a, k := Parts(t)
			host.Scan(L, a, k)
			L.Push(lua.LNumber(Len(t)))
		} else {
			L.Push(lua.LNil)
		}
		return 1
	}))
	// #e of an expression read once (a call, a constructor) is
	// (lenOf(e) or #lenLast()): lenOf answers for tables and strings and
	// keeps anything else for lenLast, so the original # runs on it.
	var lenKept lua.LValue = lua.LNil
	strIndex.RawSetString(helperKey(helperLenOf), L.NewFunction(func(L *lua.LState) int {
		switch v := L.Get(1).(type) {
		case *lua.LTable:
			a, k := Parts(v)
			host.Scan(L, a, k)
			L.Push(lua.LNumber(Len(v)))
		case lua.LString:
			L.Push(lua.LNumber(len(v)))
		default:
			lenKept = v
			L.Push(lua.LNil)
		}
		return 1
	}))
	strIndex.RawSetString(helperKey(helperLenLast), L.NewFunction(func(L *lua.LState) int {
		L.Push(lenKept)
		lenKept = lua.LNil
		return 1
	}))
	// set(t, k, v) comes before an assignment t[k] = v the rewrite pass
	// follows (see assignment), and logs it (logWrite).
	strIndex.RawSetString(helperKey(helperSet), L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			logWrite(L, t, L.Get(2), L.Get(3))
		}
		return 0
	}))
	// A constructor with a keyed field whose key is not a string constant
	// (see orderedTable) reads each keyed field's key through field,
	// which keeps it for the ordered table helper: Lua stores keyed
	// fields in their order, list items 50 at a time, and the keys may
	// be integers gopher-lua stores in its array.
	strIndex.RawSetString(helperKey(helperField), L.NewFunction(func(L *lua.LState) int {
		if len(cs.fieldKeys) >= maxFieldKeys {
			cs.fieldKeys = cs.fieldKeys[:0] // keys of constructors that failed
		}
		f := field{key: L.Get(1), live: -1}
		switch L.Get(2) {
		case lua.LTrue:
			f.live = 1
		case lua.LFalse:
			f.live = 0
		}
		cs.fieldKeys = append(cs.fieldKeys, f)
		L.SetTop(1)
		return 1
	}))
	// value passes on the value of a keyed field whose key field read,
	// noting whether it is nil (a key may be stored more than once).
	strIndex.RawSetString(helperKey(helperValue), L.NewFunction(func(L *lua.LState) int {
		if n := len(cs.fieldKeys); n > 0 {
			cs.fieldKeys[n-1].live = 0
			if L.Get(1) != lua.LNil {
				cs.fieldKeys[n-1].live = 1
			}
		}
		L.SetTop(1)
		return 1
	}))
	// count passes on the values of a call or "..." closing an ordered
	// constructor, keeping how many there are: OP_SETLIST stores them all,
	// nils included.
	multretCount := 0
	strIndex.RawSetString(helperKey(helperCount), L.NewFunction(func(L *lua.LState) int {
		multretCount = L.GetTop()
		host.Slots(L, multretCount)
		return multretCount
	}))
	// done makes t's log from the keyed fields read (keys and
	// liveness, in order), as ordered and split table give them.
	done := func(L *lua.LState, t *lua.LTable, hint uint64, keyed []field, nitems, multret int, flushes []int) {
		log := constructorLog(t, hint, keyed, nitems, multret, flushes)
		t.Metatable = newMarker(L, hint, len(tableKeys(t)), log)
		L.SetTop(1)
	}
	lost := func(L *lua.LState, t *lua.LTable, hint uint64) int {
		// Keys lost (a coroutine switched inside a constructor):
		// the layout is rebuilt from what gopher-lua shows.
		cs.fieldKeys = cs.fieldKeys[:0]
		t.Metatable = newMarker(L, hint, len(tableKeys(t)), nil)
		L.SetTop(1)
		return 1
	}
	flushArgs := func(L *lua.LState, from int) []int {
		var flushes []int
		for i := from; i <= L.GetTop(); i++ {
			flushes = append(flushes, int(L.Get(i).(lua.LNumber)))
		}
		return flushes
	}
	strIndex.RawSetString(helperKey(helperOrdered), L.NewFunction(func(L *lua.LState) int {
		t := L.Get(1).(*lua.LTable)
		hint := uint64(L.Get(2).(lua.LNumber))
		nkeyed := int(L.Get(3).(lua.LNumber))
		nitems := int(L.Get(4).(lua.LNumber))
		multret := -1
		if L.Get(5) == lua.LTrue {
			multret = multretCount
		}
		flushes := flushArgs(L, 6)
		if nkeyed > len(cs.fieldKeys) {
			return lost(L, t, hint)
		}
		keyed := cs.fieldKeys[len(cs.fieldKeys)-nkeyed:]
		done(L, t, hint, keyed, nitems, multret, flushes)
		clear(keyed)
		cs.fieldKeys = cs.fieldKeys[:len(cs.fieldKeys)-nkeyed]
		return 1
	}))
	// A constructor gopher-lua would miscompile (see splitAt) stores its
	// fields from the split on under the slot, a key no script can
	// reach, their values through stash, which keeps them (kind 1: a list
	// item, 2: a keyed field's key and value, 3: the closing call's
	// values) for split table to store as Lua would have. stash returns
	// nothing: the slot is stored nil, which gopher-lua does not record.
	slot := L.NewUserData()
	strIndex.RawSetString(helperKey(helperSlot), slot)
	strIndex.RawSetString(helperKey(helperStash), L.NewFunction(func(L *lua.LState) int {
		if len(cs.stash) >= maxFieldKeys {
			cs.stash = cs.stash[:0] // fields of constructors that failed
		}
		st := stashed{kind: int8(L.Get(1).(lua.LNumber)), value: L.Get(2)}
		switch st.kind {
		case 2:
			// The error OP_SETTABLE raises there, after the key
			// and value were evaluated.
			switch k := st.value.(type) {
			case *lua.LNilType:
				L.RaiseError("table index is nil")
			case lua.LNumber:
				if math.IsNaN(float64(k)) {
					L.RaiseError("table index is NaN")
				}
			}
			st.key, st.value = st.value, L.Get(3)
		case 3:
			st.values = make([]lua.LValue, L.GetTop()-1)
			for i := range st.values {
				st.values[i] = L.Get(i + 2)
			}
		}
		cs.stash = append(cs.stash, st)
		return 0
	}))
	strIndex.RawSetString(helperKey(helperSplit), L.NewFunction(func(L *lua.LState) int {
		t := L.Get(1).(*lua.LTable)
		hint := uint64(L.Get(2).(lua.LNumber))
		nkeyed := int(L.Get(3).(lua.LNumber))
		nitems := int(L.Get(4).(lua.LNumber))
		nstashed := int(L.Get(5).(lua.LNumber))
		items := int(L.Get(6).(lua.LNumber))
		flushes := flushArgs(L, 7)
		if nkeyed > len(cs.fieldKeys) || nstashed > len(cs.stash) {
			cs.stash = cs.stash[:0]
			return lost(L, t, hint)
		}
		keyed := append([]field(nil), cs.fieldKeys[len(cs.fieldKeys)-nkeyed:]...)
		clear(cs.fieldKeys[len(cs.fieldKeys)-nkeyed:])
		cs.fieldKeys = cs.fieldKeys[:len(cs.fieldKeys)-nkeyed]
		// Lua's stores from the split on: a keyed field when read,
		// list items when the 50th since the last flush is read and
		// at the end (OP_SETLIST), the closing call's values with
		// them. The items before the split were stored by gopher-lua
		// with the last ones, as Lua stores them with the first
		// stashed item.
		var pending []lua.LValue
		multret := -1
		flush := func() {
			for _, v := range pending {
				items++
				t.RawSetInt(items, v)
			}
			pending = pending[:0]
		}
		for _, st := range cs.stash[len(cs.stash)-nstashed:] {
			switch st.kind {
			case 1:
				pending = append(pending, st.value)
				if (items+len(pending))%50 == 0 {
					flush()
				}
			case 2:
				t.RawSet(st.key, st.value)
				f := field{key: st.key}
				if st.value != lua.LNil {
					f.live = 1
				}
				keyed = append(keyed, f)
			case 3:
				pending = append(pending, st.values...)
				multret = len(st.values)
			}
		}
		flush()
		clear(cs.stash[len(cs.stash)-nstashed:])
		cs.stash = cs.stash[:len(cs.stash)-nstashed]
		done(L, t, hint, keyed, nitems, multret, flushes)
		return 1
	}))
	strIndex.RawSetString(helperKey(helperForInit), L.NewFunction(forHelper("initial value")))
	strIndex.RawSetString(helperKey(helperForLimit), L.NewFunction(forHelper("limit")))
	strIndex.RawSetString(helperKey(helperForStep), L.NewFunction(forHelper("step")))
	return rt
}

// ctorStacks holds what constructors' helpers keep until their table
// helper runs: the keyed fields read (field) and the fields stashed
// (stash). A constructor that fails leaves its entries behind; pcall and
// xpcall drop those of the constructors their call began (unwind), so the
// constructor the protected call sits in finds its own on top.
type ctorStacks struct {
	fieldKeys []field
	stash     []stashed
}

// Mark is where the constructors' stacks stand before a protected call.
type Mark [2]int

// Mark returns where the constructors' stacks stand, for Unwind.
func (r *Runtime) Mark() Mark {
	cs := &r.ctors
	return Mark{len(cs.fieldKeys), len(cs.stash)}
}

// Unwind drops what constructors kept since m, after a protected call
// failed (Mark{} after a script failed).
func (r *Runtime) Unwind(m Mark) {
	if r == nil {
		return
	}
	cs := &r.ctors
	if m[0] <= len(cs.fieldKeys) {
		clear(cs.fieldKeys[m[0]:])
		cs.fieldKeys = cs.fieldKeys[:m[0]]
	}
	if m[1] <= len(cs.stash) {
		clear(cs.stash[m[1]:])
		cs.stash = cs.stash[:m[1]]
	}
}

type rewriter struct {
	used   map[string]bool
	weight func(body []ast.Stmt, cond ast.Expr) int
}

// Rewrite rewrites a chunk (a script, a library, what loadstring
// compiles) parsed by gopher-lua so that its compiled code behaves as
// Lua 5.1's and passes a check point at the top of every loop and
// function body, and declares the helpers it uses at its top, on line.
// weight is the check point's argument: the weight of a body, and of a
// while or repeat loop's condition (nil for none), evaluated with each
// iteration.
func Rewrite(stmts []ast.Stmt, line int, weight func(body []ast.Stmt, cond ast.Expr) int) []ast.Stmt {
	r := &rewriter{used: map[string]bool{}, weight: weight}
	stmts = r.stmts(stmts)
	if len(r.used) == 0 {
		return stmts
	}
	// local helper = ("")["\0helper"], for each helper used.
	var decl []ast.Stmt
	for _, name := range helperOrder {
		if !r.used[name] {
			continue
		}
		get := &ast.AttrGetExpr{Object: &ast.StringExpr{Value: ""}, Key: &ast.StringExpr{Value: helperKey(name)}}
		st := &ast.LocalAssignStmt{Names: []string{name}, Exprs: []ast.Expr{get}}
		st.SetLine(line)
		st.SetLastLine(line)
		get.SetLine(line)
		get.SetLastLine(line)
		decl = append(decl, st)
	}
	return append(decl, stmts...)
}

func (r *rewriter) wrap(name string, e ast.Expr) ast.Expr {
	r.used[name] = true
	fn := &ast.IdentExpr{Value: name}
	fn.SetLine(e.Line())
	fn.SetLastLine(e.LastLine())
	call := &ast.FuncCallExpr{Func: fn, Args: []ast.Expr{e}, AdjustRet: true}
	call.SetLine(e.Line())
	call.SetLastLine(e.LastLine())
	return call
}

// concatChain rewrites a chain of `..` (a .. b .. c, which gopher-lua
// compiles to one OP_CONCAT over all its operands): string constants
// stay, number constants are formatted now, every other operand goes
// through the concat helper. The first and the last operand the helper
// sees are marked (ChainFirst, ChainLast), so that it can sum the
// lengths of the chain's operands and refuse a result longer than
// the host's limit before gopher-lua builds it.
func (r *rewriter) concatChain(x *ast.StringConcatOpExpr) {
	ops := []*ast.Expr{&x.Lhs}
	for cur := x; ; {
		next, ok := cur.Rhs.(*ast.StringConcatOpExpr)
		if !ok {
			ops = append(ops, &cur.Rhs)
			break
		}
		ops = append(ops, &next.Lhs)
		cur = next
	}
	var calls []*ast.FuncCallExpr
	for _, op := range ops {
		switch e := (*op).(type) {
		case *ast.StringExpr:
			continue
		case *ast.NumberExpr:
			if f, ok := StrToNumber(e.Value); ok {
				s := &ast.StringExpr{Value: formatNumber(lua.LNumber(f))}
				s.SetLine(e.Line())
				s.SetLastLine(e.LastLine())
				*op = s
				continue
			}
		}
		call := r.wrap(helperConcat, r.expr(*op)).(*ast.FuncCallExpr)
		*op = call
		calls = append(calls, call)
	}
	for i, call := range calls {
		chain := 0
		if i == 0 {
			chain |= ChainFirst
		}
		if i == len(calls)-1 {
			chain |= ChainLast
		}
		if chain != 0 {
			n := &ast.NumberExpr{Value: strconv.Itoa(chain)}
			n.SetLine(call.Line())
			n.SetLastLine(call.LastLine())
			call.Args = append(call.Args, n)
		}
	}
}

// The marks of concatChain, in Host.Concat's chain.
const (
	ChainFirst = 1
	ChainLast  = 2
)

func (r *rewriter) forBound(name string, e ast.Expr) ast.Expr {
	if e == nil {
		return nil
	}
	if _, ok := e.(*ast.NumberExpr); ok {
		return e
	}
	if u, ok := e.(*ast.UnaryMinusOpExpr); ok {
		if _, ok := u.Expr.(*ast.NumberExpr); ok {
			return e
		}
	}
	return r.wrap(name, r.expr(e))
}

// stmts rewrites a block; an assignment to a table field that gopher-lua
// would not record is replaced by statements that log it (see
// assignment).
func (r *rewriter) stmts(list []ast.Stmt) []ast.Stmt {
	var out []ast.Stmt
	for i, s := range list {
		r.stmt(s)
		var rep []ast.Stmt
		if a, ok := s.(*ast.AssignStmt); ok {
			rep = r.assignment(a)
		}
		if rep != nil {
			if out == nil {
				out = append(make([]ast.Stmt, 0, len(list)+1), list[:i]...)
			}
			out = append(out, rep...)
		} else if out != nil {
			out = append(out, s)
		}
	}
	if out == nil {
		return list
	}
	return out
}

// assignment returns the statements replacing a when one of its targets
// is a table field that may be stored under an integer key of
// gopher-lua's array part or may be stored nil (which gopher-lua does
// not record, see order.go), nil to keep a as it is. Each such store is
// preceded by a call to the set helper with the table, key and value
// (logWrite); a field under a constant key that is not an integer gets
// it only when the value is nil. Keys other than names, values and table
// expressions other than names and fields of names by constants or names
// (which are read again, after the values, as Lua reads a local's
// register) are evaluated once, into locals, in Lua's order (each
// target's table and key, then the values, then stores from the last
// target to the first).
func (r *rewriter) assignment(a *ast.AssignStmt) []ast.Stmt {
	follow := false
	names := map[string]bool{}
	for _, lhs := range a.Lhs {
		if id, ok := lhs.(*ast.IdentExpr); ok {
			names[id.Value] = true
		}
	}
	for _, lhs := range a.Lhs {
		get, ok := lhs.(*ast.AttrGetExpr)
		if !ok {
			continue
		}
		if len(a.Lhs) == 1 && len(a.Rhs) == 1 && !mayBeArrayKey(get.Key) && notNil(a.Rhs[0]) {
			continue
		}
		follow = true
	}
	if !follow {
		return nil
	}
	b := builder{line: a.Line(), last: a.LastLine()}
	r.used[helperSet] = true
	var (
		out   []ast.Stmt
		temps []string
		exprs []ast.Expr
	)
	objects := make([]ast.Expr, len(a.Lhs))
	keys := make([]ast.Expr, len(a.Lhs))
	values := make([]ast.Expr, len(a.Lhs))
	for i, lhs := range a.Lhs {
		if get, ok := lhs.(*ast.AttrGetExpr); ok {
			if pureCopy(get.Object) == nil || len(a.Lhs) > 1 && mentions(get.Object, names) {
				// Read once, before the key, as Lua does. A runtime
				// error names it as Lua would: locals whose names start
				// with "(" are named by what loaded them (varinfo.go).
				name := "(lockkv object " + strconv.Itoa(i+1) + ")"
				temps, exprs = append(temps, name), append(exprs, get.Object)
				get.Object = b.ident(name)
			}
			objects[i] = get.Object
			keys[i] = get.Key
			_, name := get.Key.(*ast.IdentExpr)
			if name && !(len(a.Lhs) > 1 && mentions(get.Key, names)) {
				// A name is read when the value is stored, as Lua reads
				// a local's register (a value may change it through an
				// upvalue); globals cannot change.
			} else if !isConstant(get.Key) {
				name := "(lockkv key " + strconv.Itoa(i+1) + ")"
				temps, exprs = append(temps, name), append(exprs, get.Key)
				keys[i] = b.ident(name)
			}
		}
	}
	if len(a.Lhs) == 1 && len(a.Rhs) == 1 && isConstant(a.Rhs[0]) {
		values[0] = a.Rhs[0]
	} else {
		for i := range a.Lhs {
			name := "(lockkv value " + strconv.Itoa(i+1) + ")"
			temps = append(temps, name)
			values[i] = b.ident(name)
		}
		exprs = append(exprs, a.Rhs...)
	}
	if len(temps) > 0 {
		out = append(out, b.stmt(&ast.LocalAssignStmt{Names: temps, Exprs: exprs}))
	}
	for i := len(a.Lhs) - 1; i >= 0; i-- {
		get, ok := a.Lhs[i].(*ast.AttrGetExpr)
		if !ok {
			out = append(out, b.stmt(&ast.AssignStmt{Lhs: []ast.Expr{a.Lhs[i]}, Rhs: []ast.Expr{values[i]}}))
			continue
		}
		set := b.stmt(&ast.FuncCallStmt{Expr: b.call(helperSet, pureCopy(objects[i]), b.copy(keys[i]), b.copy(values[i]))})
		if !mayBeArrayKey(get.Key) {
			if _, isNil := values[i].(*ast.NilExpr); !isNil {
				// Only a nil needs logging.
				cond := &ast.RelationalOpExpr{Operator: "==", Lhs: b.copy(values[i]), Rhs: b.expr(&ast.NilExpr{})}
				set = b.stmt(&ast.IfStmt{Condition: b.expr(cond), Then: []ast.Stmt{set}})
			}
		}
		get.Key = keys[i]
		out = append(out, set, b.stmt(&ast.AssignStmt{Lhs: []ast.Expr{get}, Rhs: []ast.Expr{values[i]}}))
	}
	if len(temps) > 0 {
		return []ast.Stmt{b.stmt(&ast.DoBlockStmt{Stmts: out})}
	}
	return out
}

// builder makes the nodes a rewrite adds, on the lines of the code they
// stand for.
type builder struct{ line, last int }

func (b builder) stmt(s ast.Stmt) ast.Stmt {
	s.SetLine(b.line)
	s.SetLastLine(b.last)
	return s
}

func (b builder) expr(e ast.Expr) ast.Expr {
	e.SetLine(b.line)
	e.SetLastLine(b.last)
	return e
}

func (b builder) ident(name string) ast.Expr { return b.expr(&ast.IdentExpr{Value: name}) }

func (b builder) call(fn string, args ...ast.Expr) ast.Expr {
	return b.expr(&ast.FuncCallExpr{Func: b.ident(fn), Args: args})
}

// copy is a second node for a name or a constant.
func (b builder) copy(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.NilExpr:
		return b.expr(&ast.NilExpr{})
	case *ast.TrueExpr:
		return b.expr(&ast.TrueExpr{})
	case *ast.FalseExpr:
		return b.expr(&ast.FalseExpr{})
	case *ast.UnaryMinusOpExpr:
		return b.expr(&ast.UnaryMinusOpExpr{Expr: b.copy(x.Expr)})
	}
	return pureCopy(e)
}

// isConstant reports whether e is a literal nil, boolean, number or
// string.
func isConstant(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.NilExpr, *ast.TrueExpr, *ast.FalseExpr, *ast.NumberExpr, *ast.StringExpr:
		return true
	case *ast.UnaryMinusOpExpr:
		_, ok := x.Expr.(*ast.NumberExpr)
		return ok
	}
	return false
}

// notNil reports whether e is sure not to be nil: a constant other than
// nil, a function or a table constructor.
func notNil(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.TrueExpr, *ast.FalseExpr, *ast.NumberExpr, *ast.StringExpr, *ast.FunctionExpr, *ast.TableExpr:
		return true
	case *ast.UnaryMinusOpExpr:
		_, ok := x.Expr.(*ast.NumberExpr)
		return ok
	case *ast.FuncCallExpr:
		if id, ok := x.Func.(*ast.IdentExpr); ok {
			return id.Value == helperTable || id.Value == helperOrdered
		}
	}
	return false
}

// mayBeArrayKey reports whether key may be an integer gopher-lua stores
// in its array part: anything but a string constant, a concatenation or a
// number constant that is not such an integer.
func mayBeArrayKey(key ast.Expr) bool {
	switch x := key.(type) {
	case *ast.StringExpr, *ast.StringConcatOpExpr:
		// `..` makes strings (but for a __concat metamethod's result).
		return false
	case *ast.NumberExpr:
		f, ok := StrToNumber(x.Value)
		return !ok || f == math.Trunc(f) && f >= 1 && f < float64(lua.MaxArrayIndex)
	case *ast.UnaryMinusOpExpr:
		_, ok := x.Expr.(*ast.NumberExpr)
		return !ok
	}
	return true
}

// mentions reports whether e reads one of names.
func mentions(e ast.Expr, names map[string]bool) bool {
	switch x := e.(type) {
	case *ast.IdentExpr:
		return names[x.Value]
	case *ast.AttrGetExpr:
		return mentions(x.Object, names) || mentions(x.Key, names)
	}
	return false
}

// body rewrites a loop or function body and puts a check point (a call to
// the tick helper) at its top, so a long script can be noticed and killed,
// charged the body's weight (Rewrite's weight) and that of cond, a loop's
// condition evaluated with each iteration (nil for none).
func (r *rewriter) body(list []ast.Stmt, line int, cond ast.Expr) []ast.Stmt {
	list = r.stmts(list)
	r.used[helperTick] = true
	fn := &ast.IdentExpr{Value: helperTick}
	fn.SetLine(line)
	fn.SetLastLine(line)
	call := &ast.FuncCallExpr{Func: fn}
	if w := r.weight(list, cond); w > 1 {
		n := &ast.NumberExpr{Value: strconv.Itoa(w)}
		n.SetLine(line)
		n.SetLastLine(line)
		call.Args = []ast.Expr{n}
	}
	call.SetLine(line)
	call.SetLastLine(line)
	st := &ast.FuncCallStmt{Expr: call}
	st.SetLine(line)
	st.SetLastLine(line)
	return append([]ast.Stmt{st}, list...)
}

func (r *rewriter) exprs(list []ast.Expr) {
	for i, e := range list {
		list[i] = r.expr(e)
	}
}

func (r *rewriter) stmt(s ast.Stmt) {
	switch x := s.(type) {
	case *ast.AssignStmt:
		r.exprs(x.Lhs)
		r.exprs(x.Rhs)
	case *ast.LocalAssignStmt:
		r.exprs(x.Exprs)
	case *ast.FuncCallStmt:
		x.Expr = r.expr(x.Expr)
	case *ast.DoBlockStmt:
		x.Stmts = r.stmts(x.Stmts)
	case *ast.WhileStmt:
		x.Condition = r.expr(x.Condition)
		x.Stmts = r.body(x.Stmts, x.Line(), x.Condition)
	case *ast.RepeatStmt:
		x.Condition = r.expr(x.Condition)
		x.Stmts = r.body(x.Stmts, x.Line(), x.Condition)
	case *ast.IfStmt:
		x.Condition = r.expr(x.Condition)
		x.Then = r.stmts(x.Then)
		x.Else = r.stmts(x.Else)
	case *ast.NumberForStmt:
		x.Init = r.forBound(helperForInit, x.Init)
		x.Limit = r.forBound(helperForLimit, x.Limit)
		x.Step = r.forBound(helperForStep, x.Step)
		x.Stmts = r.body(x.Stmts, x.Line(), nil)
	case *ast.GenericForStmt:
		r.exprs(x.Exprs)
		x.Stmts = r.body(x.Stmts, x.Line(), nil)
	case *ast.FuncDefStmt:
		if x.Name != nil {
			if x.Name.Func != nil {
				x.Name.Func = r.expr(x.Name.Func)
			}
			if x.Name.Receiver != nil {
				x.Name.Receiver = r.expr(x.Name.Receiver)
			}
		}
		x.Func.Stmts = r.body(x.Func.Stmts, x.Func.Line(), nil)
	case *ast.ReturnStmt:
		r.exprs(x.Exprs)
	}
}

func (r *rewriter) expr(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.AttrGetExpr:
		x.Object = r.expr(x.Object)
		x.Key = r.expr(x.Key)
	case *ast.TableExpr:
		na, nh := 0, 0
		for i, f := range x.Fields {
			if f.Key != nil {
				f.Key = r.expr(f.Key)
				nh++
			} else if i < len(x.Fields)-1 || !multret(f.Value) {
				na++
			}
			f.Value = r.expr(f.Value)
		}
		if split := splitAt(x); split >= 0 {
			return r.orderedTable(x, na, nh, split)
		}
		if ordered(x) {
			return r.orderedTable(x, na, nh, -1)
		}
		if nh > 0 || na > 0 || len(x.Fields) > 0 {
			// List items size the array part too: # on a table with
			// holes depends on it.
			return r.sizedTable(x, na, nh)
		}
	case *ast.FuncCallExpr:
		if x.Func != nil {
			x.Func = r.expr(x.Func)
		}
		if x.Receiver != nil {
			x.Receiver = r.expr(x.Receiver)
		}
		r.exprs(x.Args)
	case *ast.LogicalOpExpr:
		x.Lhs = r.expr(x.Lhs)
		x.Rhs = r.expr(x.Rhs)
	case *ast.RelationalOpExpr:
		x.Lhs = r.expr(x.Lhs)
		x.Rhs = r.expr(x.Rhs)
	case *ast.ArithmeticOpExpr:
		x.Lhs = r.expr(x.Lhs)
		x.Rhs = r.expr(x.Rhs)
	case *ast.StringConcatOpExpr:
		r.concatChain(x)
	case *ast.UnaryMinusOpExpr:
		x.Expr = r.expr(x.Expr)
	case *ast.UnaryNotOpExpr:
		x.Expr = r.expr(x.Expr)
	case *ast.UnaryLenOpExpr:
		x.Expr = r.expr(x.Expr)
		if c := pureCopy(x.Expr); c != nil {
			// (len(e) or #e) for plain names and field reads, which
			// read the same twice; anything else is read once, through
			// lenOf and lenLast.
			or := &ast.LogicalOpExpr{Operator: "or", Lhs: r.wrap(helperLen, x.Expr), Rhs: &ast.UnaryLenOpExpr{Expr: c}}
			or.SetLine(x.Line())
			or.SetLastLine(x.LastLine())
			or.Rhs.SetLine(x.Line())
			or.Rhs.SetLastLine(x.LastLine())
			return or
		}
		r.used[helperLenLast] = true
		last := &ast.FuncCallExpr{Func: &ast.IdentExpr{Value: helperLenLast}, AdjustRet: true}
		rhs := &ast.UnaryLenOpExpr{Expr: last}
		or := &ast.LogicalOpExpr{Operator: "or", Lhs: r.wrap(helperLenOf, x.Expr), Rhs: rhs}
		for _, n := range []interface {
			SetLine(int)
			SetLastLine(int)
		}{or, rhs, last, last.Func} {
			n.SetLine(x.Line())
			n.SetLastLine(x.LastLine())
		}
		return or
	case *ast.FunctionExpr:
		x.Stmts = r.body(x.Stmts, x.Line(), nil)
	case *ast.Comma3Expr:
		r.used[helperVarargs] = true
		fn := &ast.IdentExpr{Value: helperVarargs}
		fn.SetLine(x.Line())
		fn.SetLastLine(x.LastLine())
		inner := &ast.Comma3Expr{}
		inner.SetLine(x.Line())
		inner.SetLastLine(x.LastLine())
		call := &ast.FuncCallExpr{Func: fn, Args: []ast.Expr{inner}, AdjustRet: x.AdjustRet}
		call.SetLine(x.Line())
		call.SetLastLine(x.LastLine())
		return call
	}
	return e
}

// multret reports whether e yields all its results as the last item of a
// list (a call or "..." not in parentheses).
func multret(e ast.Expr) bool {
	switch x := e.(type) {
	case *ast.FuncCallExpr:
		return !x.AdjustRet
	case *ast.Comma3Expr:
		return !x.AdjustRet
	}
	return false
}

// sizedTable wraps a constructor with na list items and nh keyed fields
// in the table helper, which records the sizes Lua 5.1 gives its table:
// luaH_new(fb2int(int2fb(na)), fb2int(int2fb(nh))), as lparser.c codes
// them in OP_NEWTABLE.
func (r *rewriter) sizedTable(x *ast.TableExpr, na, nh int) ast.Expr {
	r.used[helperTable] = true
	fn := &ast.IdentExpr{Value: helperTable}
	hint := &ast.NumberExpr{Value: strconv.FormatUint(packTableHint(fb2int(int2fb(na)), fb2int(int2fb(nh))), 10)}
	call := &ast.FuncCallExpr{Func: fn, Args: []ast.Expr{x, hint}, AdjustRet: true}
	nodes := []interface {
		SetLine(int)
		SetLastLine(int)
	}{fn, hint, call}
	if growsArray(x) {
		grow := &ast.TrueExpr{}
		call.Args = append(call.Args, grow)
		nodes = append(nodes, grow)
	}
	for _, n := range nodes {
		n.SetLine(x.Line())
		n.SetLastLine(x.LastLine())
	}
	return call
}

// ordered reports whether x has a keyed field whose key is not a string
// constant: gopher-lua's key list does not record when such a key (an
// integer of its array part, a key stored nil) was stored relative to
// the others.
//
// A constructor with keyed fields whose last item is a call or "..." is
// ordered too: OP_SETLIST may grow its array part, which re-inserts its
// nodes.
func ordered(x *ast.TableExpr) bool {
	any := false
	if n := len(x.Fields); n > 1 && x.Fields[n-1].Key == nil && multret(x.Fields[n-1].Value) {
		for _, f := range x.Fields {
			any = any || f.Key != nil
		}
	}
	for _, f := range x.Fields {
		if f.Key == nil {
			continue
		}
		if _, ok := f.Key.(*ast.StringExpr); !ok {
			any = true
		}
	}
	return any
}

// orderedTable wraps a constructor with keyed fields of any keys in the
// ordered table helper, its keys in the field helper, which keeps them
// in the order they are evaluated: the helper replays the stores as Lua
// makes them (constructorLog): each keyed field when it is read, list
// items 50 at a time (LFIELDS_PER_FLUSH) before the field after the
// 50th, and the rest at the end. Its arguments: the table, the sizes,
// the number of keyed fields and list items, whether the last item is a
// call or "...", and for each flush before the end the number of keyed
// fields read before it.
//
// With split >= 0 (see splitAt), the fields from x.Fields[split] on are
// stashed instead: each becomes a keyed field under the slot helper (a
// private key), its value the stash helper's call on the item (kind 1),
// the keyed field's key and value (kind 2) or the closing call's values
// (kind 3), evaluated where the field was, in Lua's order. The split
// table helper (arguments: the table, the sizes, the number of keyed
// fields read by the field helper, of list items, of fields stashed, of
// list items before the split, then the flushes) makes the stashed stores as Lua's OP_SETTABLE and OP_SETLIST would
// have made them, then the log as the ordered helper does.
func (r *rewriter) orderedTable(x *ast.TableExpr, na, nh, split int) ast.Expr {
	b := builder{line: x.Line(), last: x.LastLine()}
	r.used[helperOrdered] = true
	num := func(n int) ast.Expr { return b.expr(&ast.NumberExpr{Value: strconv.Itoa(n)}) }
	var flushes []ast.Expr
	keyed, pending, fielded, stashed, before := 0, 0, 0, 0, 0
	n := len(x.Fields)
	for i, f := range x.Fields {
		if i > 0 && pending == 50 {
			flushes = append(flushes, num(keyed))
			pending = 0
		}
		if split >= 0 && i >= split {
			r.used[helperStash] = true
			r.used[helperSlot] = true
			kind := 1
			args := []ast.Expr{f.Value}
			switch {
			case f.Key != nil:
				kind, args = 2, []ast.Expr{f.Key, f.Value}
				keyed++
			case i == n-1 && multret(f.Value):
				kind = 3
			default:
				pending++
			}
			f.Key = b.ident(helperSlot)
			f.Value = b.call(helperStash, append([]ast.Expr{num(kind)}, args...)...)
			f.Value.(*ast.FuncCallExpr).AdjustRet = true
			stashed++
			continue
		}
		if f.Key != nil {
			// The value's liveness, when it is a constant; else the
			// value helper notes it.
			var live ast.Expr = b.expr(&ast.NilExpr{})
			switch {
			case notNil(f.Value):
				live = b.expr(&ast.TrueExpr{})
			case isNilConstant(f.Value):
				live = b.expr(&ast.FalseExpr{})
			default:
				r.used[helperValue] = true
				f.Value = b.call(helperValue, f.Value)
				f.Value.(*ast.FuncCallExpr).AdjustRet = true
			}
			r.used[helperField] = true
			f.Key = b.call(helperField, f.Key, live)
			f.Key.(*ast.FuncCallExpr).AdjustRet = true
			keyed++
			fielded++
		} else {
			pending++
			if i < n-1 || !multret(f.Value) {
				before++
			}
		}
	}
	hint := b.expr(&ast.NumberExpr{Value: strconv.FormatUint(packTableHint(fb2int(int2fb(na)), fb2int(int2fb(nh))), 10)})
	var args []ast.Expr
	if split >= 0 {
		r.used[helperSplit] = true
		args = append([]ast.Expr{x, hint, num(fielded), num(na), num(stashed), num(before)}, flushes...)
		call := b.call(helperSplit, args...).(*ast.FuncCallExpr)
		call.AdjustRet = true
		return call
	}
	var mr ast.Expr = b.expr(&ast.FalseExpr{})
	if n > 0 && x.Fields[n-1].Key == nil && multret(x.Fields[n-1].Value) {
		mr = b.expr(&ast.TrueExpr{})
		r.used[helperCount] = true
		x.Fields[n-1].Value = b.call(helperCount, x.Fields[n-1].Value)
	}
	args = append([]ast.Expr{x, hint, num(keyed), num(na), mr}, flushes...)
	call := b.call(helperOrdered, args...).(*ast.FuncCallExpr)
	call.AdjustRet = true
	return call
}

// splitAt returns the index in x.Fields of the list item gopher-lua's
// compiler mishandles what follows, or -1. compileTableExpr (gopher-lua
// 1.1.2) flushes the list items with OP_SETLIST after every field that
// leaves their count a multiple of 50 (LFIELDS_PER_FLUSH), and counts
// no closing call or "...". So after the 50th (100th, ...) list item:
//
//   - a keyed field is followed by a second OP_SETLIST of the last 50
//     items, from the registers the field's key and value were just
//     evaluated in (and a call's frame used): items are lost, and an
//     item overwrites a keyed field stored under its index;
//   - a closing call or "..." is stored from the first index of the
//     last 50 items instead of after them (its OP_SETLIST's C is
//     computed without it).
//
// Everything from that item on is stashed (see orderedTable): the item,
// 50 list items after the last flush, is the one whose OP_SETLIST Lua
// makes, so the list items left in the constructor are 1 less than a
// multiple of 50 and gopher-lua stores them right.
func splitAt(x *ast.TableExpr) int {
	items, last := 0, -1
	for i, f := range x.Fields {
		closing := f.Key == nil && i == len(x.Fields)-1 && multret(f.Value)
		if (f.Key != nil || closing) && items > 0 && items%50 == 0 {
			return last
		}
		if f.Key == nil {
			items++
			last = i
		}
	}
	return -1
}

// growsArray reports whether x's last item is a call or "..." whose
// values OP_SETLIST may store beyond the array part x sizes, and no keyed
// field could lengthen gopher-lua's array (the helper takes its length
// for the index of the last item stored).
func growsArray(x *ast.TableExpr) bool {
	n := len(x.Fields)
	if n == 0 || x.Fields[n-1].Key != nil || !multret(x.Fields[n-1].Value) {
		return false
	}
	for _, f := range x.Fields {
		if f.Key != nil {
			if _, ok := f.Key.(*ast.StringExpr); !ok {
				return false
			}
		}
	}
	return true
}

// int2fb is luaO_int2fb: x rounded up to a "floating point byte"
// (eeeeexxx: (1xxx) * 2^(eeeee-1) when eeeee > 0).
func int2fb(x int) int {
	e := 0
	for x >= 16 {
		x = (x + 1) >> 1
		e++
	}
	if x < 8 {
		return x
	}
	return ((e + 1) << 3) | (x - 8)
}

// fb2int is luaO_fb2int.
func fb2int(x int) int {
	e := (x >> 3) & 31
	if e == 0 {
		return x
	}
	return ((x & 7) + 8) << (e - 1)
}

// markerKey is what a shared size marker holds: the sizes and the number
// of keys listed when the constructor returned.
type markerKey struct {
	hint  uint64
	nkeys int
}

// maxMarkers bounds the size markers an engine keeps for reuse.
const maxMarkers = 1024

// field is a keyed field of an ordered constructor: its key, and whether
// its value is nil (0), not (1) or not yet known (-1).
type field struct {
	key  lua.LValue
	live int8
}

// stashed is a field of a constructor split by splitAt, kept by the
// stash helper: its kind (1: list item, 2: keyed field, 3: closing
// call), key and value, or values.
type stashed struct {
	kind       int8
	key, value lua.LValue
	values     []lua.LValue
}

// isNilConstant reports whether e is a literal nil.
func isNilConstant(e ast.Expr) bool {
	_, ok := e.(*ast.NilExpr)
	return ok
}

// maxFieldKeys bounds the keys the field helper keeps.
const maxFieldKeys = 1 << 16

func packTableHint(na, nh int) uint64 {
	const max = 1<<20 - 1
	na, nh = min(na, max), min(nh, max)
	return uint64(na)<<32 | uint64(nh)
}

// pureCopy returns a copy of e when reading it twice is the same as once:
// a name, a constant, or a field of such by a constant or a name.
func pureCopy(e ast.Expr) ast.Expr {
	var c ast.Expr
	switch x := e.(type) {
	case *ast.IdentExpr:
		c = &ast.IdentExpr{Value: x.Value}
	case *ast.StringExpr:
		c = &ast.StringExpr{Value: x.Value}
	case *ast.NumberExpr:
		c = &ast.NumberExpr{Value: x.Value}
	case *ast.AttrGetExpr:
		obj, key := pureCopy(x.Object), pureCopy(x.Key)
		if obj == nil || key == nil {
			return nil
		}
		c = &ast.AttrGetExpr{Object: obj, Key: key}
	default:
		return nil
	}
	c.SetLine(e.Line())
	c.SetLastLine(e.LastLine())
	return c
}
