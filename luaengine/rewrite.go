package luaengine

import (
	"strconv"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
)

// gopher-lua and Lua 5.1 differ in two places real scripts touch, both
// fixed here on the parsed script before it is compiled:
//
//   - `..` formats numbers with Go's shortest representation; Lua 5.1
//     uses "%.14g" ("x" .. 1/3 is "x0.33333333333333", 1e15 is "1e+15").
//     Non-literal operands of `..` go through a helper that formats
//     numbers as Lua does; number literals are formatted at compile time.
//   - A numeric `for` refuses strings; Lua 5.1 converts them, so a loop
//     may start from a value HGET returned. Non-literal bounds go through
//     a helper that converts them and raises Lua's own error otherwise.
//
// The helpers are locals of the script function, named so that no Lua
// source can spell them, loaded once per call from the string metatable
// (see installHelpers); scripts that do not use `..` or `for` are left
// exactly as they were.

const (
	helperTick     = "(lockkv tick)"
	helperConcat   = "(lockkv concat)"
	helperForInit  = "(lockkv for init)"
	helperForLimit = "(lockkv for limit)"
	helperForStep  = "(lockkv for step)"
	helperTable    = "(lockkv table)"
	helperDelete   = "(lockkv delete)"
	helperLen      = "(lockkv len)"
	helperLenOf    = "(lockkv len of)"
	helperLenLast  = "(lockkv len last)"
)

var helperOrder = []string{helperTick, helperConcat, helperForInit, helperForLimit, helperForStep, helperTable, helperDelete, helperLen, helperLenOf, helperLenLast}

// helperKey is where a helper lives in the table that indexes strings.
func helperKey(name string) string { return "\x00" + name }

// installHelpers adds the helper functions to the string method table
// (gopher-lua's builtin string metatable __index, which scripts cannot
// reach: they see a clean copy of the string library).
func installHelpers(L *lua.LState, strIndex *lua.LTable, tick lua.LGFunction) {
	strIndex.RawSetString(helperKey(helperTick), L.NewFunction(tick))
	strIndex.RawSetString(helperKey(helperConcat), L.NewFunction(func(L *lua.LState) int {
		switch v := L.Get(1).(type) {
		case lua.LNumber:
			L.Push(lua.LString(formatNumber(v)))
			return 1
		case lua.LString:
			L.SetTop(1)
			return 1
		default:
			if L.GetMetaField(v, "__concat") == lua.LNil {
				concatError(L, v)
			}
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
				if f, ok := str2number(string(v)); ok {
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
	markers := map[uint64]*lua.LTable{}
	strIndex.RawSetString(helperKey(helperTable), L.NewFunction(func(L *lua.LState) int {
		t := L.Get(1).(*lua.LTable)
		hint := uint64(L.Get(2).(lua.LNumber))
		if L.GetTop() >= 3 {
			if n := len(tableArray(t)); uint64(n) > hint>>32 {
				hint = packTableHint(n, int(hint&0xffffffff))
			}
			if hint == 0 {
				L.SetTop(1)
				return 1
			}
		}
		m := markers[hint]
		if m == nil {
			m = L.NewTable()
			m.RawSetString(tableHintKey, lua.LNumber(hint))
			if len(markers) < maxMarkers {
				markers[hint] = m
			}
		}
		t.Metatable = m
		L.SetTop(1)
		return 1
	}))
	// #t is Lua 5.1's border (luaLen); for anything else the helper
	// answers nil and the original # runs, with its own error text.
	strIndex.RawSetString(helperKey(helperLen), L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			L.Push(lua.LNumber(luaLen(t)))
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
			L.Push(lua.LNumber(luaLen(v)))
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
	strIndex.RawSetString(helperKey(helperDelete), L.NewFunction(func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			recordDeletion(L, t, L.Get(2))
		}
		return 0
	}))
	strIndex.RawSetString(helperKey(helperForInit), L.NewFunction(forHelper("initial value")))
	strIndex.RawSetString(helperKey(helperForLimit), L.NewFunction(forHelper("limit")))
	strIndex.RawSetString(helperKey(helperForStep), L.NewFunction(forHelper("step")))
}

type rewriter struct {
	used map[string]bool
}

// rewriteBlock rewrites a function body (or a library chunk) and declares
// the helpers it uses at its top.
func rewriteBlock(stmts []ast.Stmt, line int) []ast.Stmt {
	r := &rewriter{used: map[string]bool{}}
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

func (r *rewriter) concatOperand(e ast.Expr) ast.Expr {
	switch x := e.(type) {
	case *ast.StringExpr, *ast.StringConcatOpExpr:
		return r.expr(e)
	case *ast.NumberExpr:
		if f, ok := str2number(x.Value); ok {
			s := &ast.StringExpr{Value: formatNumber(lua.LNumber(f))}
			s.SetLine(x.Line())
			s.SetLastLine(x.LastLine())
			return s
		}
	}
	return r.wrap(helperConcat, r.expr(e))
}

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

// stmts rewrites a block; a deletion of a field by assigning it a
// literal nil is followed by a call to the deletion helper (see
// deletionAfter).
func (r *rewriter) stmts(list []ast.Stmt) []ast.Stmt {
	var out []ast.Stmt
	for i, s := range list {
		r.stmt(s)
		if del := r.deletionAfter(s); del != nil {
			if out == nil {
				out = append(make([]ast.Stmt, 0, len(list)+1), list[:i]...)
			}
			out = append(out, s, del)
		} else if out != nil {
			out = append(out, s)
		}
	}
	if out == nil {
		return list
	}
	return out
}

// deletionAfter returns, for `t.k = nil` or `t[k] = nil` with t a name and
// k a name or a constant, a call recording the deletion in t (see
// recordDeletion in order.go): when a key was deleted, relative to the
// keys inserted later, shapes a Lua 5.1 table. nil otherwise.
func (r *rewriter) deletionAfter(s ast.Stmt) ast.Stmt {
	a, ok := s.(*ast.AssignStmt)
	if !ok || len(a.Lhs) != 1 || len(a.Rhs) != 1 {
		return nil
	}
	if _, ok := a.Rhs[0].(*ast.NilExpr); !ok {
		return nil
	}
	get, ok := a.Lhs[0].(*ast.AttrGetExpr)
	if !ok {
		return nil
	}
	obj, ok := get.Object.(*ast.IdentExpr)
	if !ok {
		return nil
	}
	var key ast.Expr
	switch k := get.Key.(type) {
	case *ast.StringExpr:
		key = &ast.StringExpr{Value: k.Value}
	case *ast.NumberExpr:
		key = &ast.NumberExpr{Value: k.Value}
	case *ast.IdentExpr:
		key = &ast.IdentExpr{Value: k.Value}
	case *ast.UnaryMinusOpExpr:
		n, ok := k.Expr.(*ast.NumberExpr)
		if !ok {
			return nil
		}
		num := &ast.NumberExpr{Value: n.Value}
		num.SetLine(a.Line())
		num.SetLastLine(a.LastLine())
		key = &ast.UnaryMinusOpExpr{Expr: num}
	default:
		return nil
	}
	r.used[helperDelete] = true
	fn := &ast.IdentExpr{Value: helperDelete}
	o := &ast.IdentExpr{Value: obj.Value}
	call := &ast.FuncCallExpr{Func: fn, Args: []ast.Expr{o, key}}
	st := &ast.FuncCallStmt{Expr: call}
	for _, n := range []interface {
		SetLine(int)
		SetLastLine(int)
	}{fn, o, key, call, st} {
		n.SetLine(a.Line())
		n.SetLastLine(a.LastLine())
	}
	return st
}

// body rewrites a loop or function body and puts a check point (a call to
// the tick helper) at its top, so a long script can be noticed and killed.
func (r *rewriter) body(list []ast.Stmt, line int) []ast.Stmt {
	list = r.stmts(list)
	r.used[helperTick] = true
	fn := &ast.IdentExpr{Value: helperTick}
	fn.SetLine(line)
	fn.SetLastLine(line)
	call := &ast.FuncCallExpr{Func: fn}
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
		x.Stmts = r.body(x.Stmts, x.Line())
	case *ast.RepeatStmt:
		x.Condition = r.expr(x.Condition)
		x.Stmts = r.body(x.Stmts, x.Line())
	case *ast.IfStmt:
		x.Condition = r.expr(x.Condition)
		x.Then = r.stmts(x.Then)
		x.Else = r.stmts(x.Else)
	case *ast.NumberForStmt:
		x.Init = r.forBound(helperForInit, x.Init)
		x.Limit = r.forBound(helperForLimit, x.Limit)
		x.Step = r.forBound(helperForStep, x.Step)
		x.Stmts = r.body(x.Stmts, x.Line())
	case *ast.GenericForStmt:
		r.exprs(x.Exprs)
		x.Stmts = r.body(x.Stmts, x.Line())
	case *ast.FuncDefStmt:
		if x.Name != nil {
			if x.Name.Func != nil {
				x.Name.Func = r.expr(x.Name.Func)
			}
			if x.Name.Receiver != nil {
				x.Name.Receiver = r.expr(x.Name.Receiver)
			}
		}
		x.Func.Stmts = r.body(x.Func.Stmts, x.Func.Line())
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
		x.Lhs = r.concatOperand(x.Lhs)
		x.Rhs = r.concatOperand(x.Rhs)
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
		x.Stmts = r.body(x.Stmts, x.Line())
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

// tableHintKey is where a size marker keeps its sizes; no Lua source can
// spell it.
const tableHintKey = "\x00lua51 table sizes"

// maxMarkers bounds the size markers an engine keeps for reuse.
const maxMarkers = 1024

func packTableHint(na, nh int) uint64 {
	const max = 1<<20 - 1
	na, nh = min(na, max), min(nh, max)
	return uint64(na)<<32 | uint64(nh)
}

// tableHint is the sizes packTableHint packed for t's constructor, 0 for
// a table not made by a constructor with keyed fields.
func tableHint(t *lua.LTable) uint64 {
	if m, ok := t.Metatable.(*lua.LTable); ok {
		if h, ok := m.RawGetString(tableHintKey).(lua.LNumber); ok {
			return uint64(h)
		}
	}
	return 0
}

// isSizeMarker reports whether mt is a size marker rather than a
// metatable a script set.
func isSizeMarker(mt lua.LValue) bool {
	m, ok := mt.(*lua.LTable)
	return ok && m.RawGetString(tableHintKey) != lua.LNil
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
