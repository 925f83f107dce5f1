package luaengine

import (
	"math/bits"
	"strings"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// Errors of the read-only global table, as Redis 7.0 words them.
const (
	errReadonly  = "Attempt to modify a readonly table"
	errNoGlobalF = "Script attempted to access nonexistent global variable '"
)

// globalsAllowed are the globals Redis 7.0 leaves to scripts (besides
// KEYS, ARGV and the libraries).
var globalsAllowed = map[string]bool{
	"_G": true, "_VERSION": true, "assert": true, "collectgarbage": true,
	"error": true, "gcinfo": true, "getmetatable": true, "ipairs": true,
	"load": true, "loadstring": true, "next": true, "pairs": true,
	"pcall": true, "rawequal": true, "rawget": true, "rawset": true,
	"select": true, "setmetatable": true, "tonumber": true, "tostring": true,
	"type": true, "unpack": true, "xpcall": true,
	"string": true, "table": true, "math": true, "coroutine": true,
}

// setup builds the environment Redis's scriptingInit builds: base, table,
// string, math (with Redis's random), coroutine, cjson, struct, cmsgpack,
// bit and the redis table, with every global and library table read-only.
//
// Every global and library table is read-only as in Redis 7.0, which
// patches its Lua for it (lua_enablereadonlytable): lockkv's copy of
// gopher-lua has the same mark (third_party/yuin/gopher-lua,
// lua.LTable.SetReadOnly), which assignments check in the VM; rawset,
// setmetatable and table.insert (tableInsert), which store without it,
// check it here.
// Scripts therefore can never change what the next script sees.
func (e *Engine) setup() {
	L := e.L
	for _, open := range []lua.LGFunction{lua.OpenBase, lua.OpenTable, lua.OpenString, lua.OpenMath, lua.OpenCoroutine} {
		L.Push(L.NewFunction(open))
		L.Call(0, 0)
	}
	G := L.G.Global
	e.globals = G
	e.frozen = nil

	var drop []string
	lua51.Unordered(G, func(k, _ lua.LValue) {
		if s, ok := k.(lua.LString); !ok || !globalsAllowed[string(s)] {
			drop = append(drop, k.String())
		}
	})
	for _, k := range drop {
		G.RawSetString(k, lua.LNil)
	}
	G.RawSetString("_VERSION", lua.LString("Lua 5.1"))
	G.RawSetString("gcinfo", L.NewFunction(baseGcinfo))
	e.gcPause, e.gcStepmul = defaultGCSetting, defaultGCSetting
	G.RawSetString("collectgarbage", L.NewFunction(e.baseCollectgarbage))
	e.pcallHandler = L.NewFunction(func(L *lua.LState) int {
		v := L.Get(1)
		if s, ok := v.(lua.LString); ok {
			v = lua.LString(e.describe(L, string(s)))
		} else if v == e.memErr {
			v = lua.LString(errNoMemory)
		}
		L.Push(v)
		return 1
	})
	G.RawSetString("pcall", L.NewFunction(e.basePcall))
	G.RawSetString("xpcall", L.NewFunction(e.baseXpcall))
	G.RawSetString("error", L.NewFunction(baseError))
	G.RawSetString("assert", L.NewFunction(baseAssert))
	G.RawSetString("tostring", L.NewFunction(e.callsBack(baseTostring, func(L *lua.LState) bool {
		return L.GetMetaField(L.Get(1), "__tostring") != lua.LNil
	})))
	G.RawSetString("tonumber", L.NewFunction(baseTonumber))
	G.RawSetString("unpack", L.NewFunction(e.chargeLen(e.chargeValues(baseUnpack))))
	e.chunkNames = map[string]string{}
	G.RawSetString("loadstring", L.NewFunction(e.baseLoadstring))
	G.RawSetString("load", L.NewFunction(e.baseLoad))
	G.RawSetString("rawset", L.NewFunction(e.baseRawset))
	G.RawSetString("rawget", L.NewFunction(e.baseRawget))
	G.RawSetString("setmetatable", L.NewFunction(e.baseSetmetatable))
	G.RawSetString("getmetatable", L.NewFunction(e.baseGetmetatable))
	coerceNumArgs(L, "_G", G)
	// select's first argument is a count unless it starts with '#'.
	if sel, ok := G.RawGetString("select").(*lua.LFunction); ok {
		inner := sel.GFunction
		G.RawSetString("select", L.NewFunction(func(L *lua.LState) int {
			if s, ok := L.Get(1).(lua.LString); ok && strings.HasPrefix(string(s), "#") {
				L.Replace(1, lua.LString("#"))
			} else if coerceArg(L, 1); L.Get(1).Type() != lua.LTNumber {
				argError(L, 1, "select", "number expected, got "+typeName(L, 1))
			} else if n, ok := L.Get(1).(lua.LNumber); ok {
				// luaL_checkint: a C int.
				L.Replace(1, lua.LNumber(int32(toInt64(float64(n)))))
			}
			return inner(L)
		}))
	}
	if ip, ok := G.RawGetString("ipairs").(*lua.LFunction); ok {
		G.RawSetString("ipairs", tableArg(L, ip))
	}
	next := L.NewFunction(e.baseNext)
	G.RawSetString("next", next)
	G.RawSetString("pairs", L.NewClosure(e.basePairs, next))

	// string: a clean copy (gopher-lua's table doubles as the string
	// metatable and holds __index).
	str := L.CreateTable(0, 20)
	gstr := G.RawGetString("string").(*lua.LTable)
	e.emu = lua51.Install(L, gstr, lua51.Host{
		Tick:   e.tick,
		Concat: e.concatLen,
		Values: e.charge,
		Slots:  func(L *lua.LState, n int) { e.charge(L, n*weightArraySlot) },
		Scan:   func(L *lua.LState, array, keys int) { e.charge(L, scanSteps(array, keys)) },
	})
	installStringArith(L, gstr)
	// C's tolower/toupper in the C locale: ASCII only (also for s:lower()).
	gstr.RawSetString("lower", L.NewFunction(e.chargeStrings(strLowerASCII)))
	gstr.RawSetString("upper", L.NewFunction(e.chargeStrings(strUpperASCII)))
	coerceNumArgs(L, "string", gstr)
	gstr.RawSetString("reverse", L.NewFunction(e.chargeStrings(strReverse)))
	gstr.RawSetString("char", L.NewFunction(e.chargeStrings(strChar)))
	gstr.RawSetString("len", L.NewFunction(strLen))
	gstr.RawSetString("sub", L.NewFunction(strSub))
	gstr.RawSetString("byte", L.NewFunction(e.chargeValues(strByte)))
	gstr.RawSetString("rep", L.NewFunction(e.strRep))
	gstr.RawSetString("find", L.NewFunction(func(L *lua.LState) int { return e.strFind(L, true) }))
	gstr.RawSetString("match", L.NewFunction(func(L *lua.LState) int { return e.strFind(L, false) }))
	gstr.RawSetString("gmatch", L.NewFunction(e.strGmatch))
	gstr.RawSetString("gsub", L.NewFunction(e.callsBack(e.strGsub, argIsFunction(3))))
	lua51.Unordered(gstr, func(k, v lua.LValue) {
		if ks := k.String(); !strings.HasPrefix(ks, "__") && (len(ks) == 0 || ks[0] != 0) {
			str.RawSet(k, v)
		}
	})
	str.RawSetString("format", L.NewFunction(e.chargeStrings(strFormat)))
	G.RawSetString("string", str)
	e.sealStringIndex(gstr, str)

	tbl := G.RawGetString("table").(*lua.LTable)
	if ins, ok := tbl.RawGetString("insert").(*lua.LFunction); ok {
		inner := ins.GFunction
		tbl.RawSetString("insert", L.NewFunction(func(L *lua.LState) int {
			if L.GetTop() == 3 { // table.insert(t, pos, v)
				coerceArg(L, 2)
			}
			if _, ok := L.Get(1).(*lua.LTable); !ok {
				return inner(L) // its argument errors
			}
			return e.tableInsert(L)
		}))
	}
	coerceNumArgs(L, "table", tbl)
	// remove and concat's defaults are #t: Lua 5.1's border (lua51.Len).
	if rm, ok := tbl.RawGetString("remove").(*lua.LFunction); ok {
		inner := rm.GFunction
		tbl.RawSetString("remove", L.NewFunction(func(L *lua.LState) int {
			if _, ok := L.Get(1).(*lua.LTable); !ok {
				checkTable(L, 1)
				return inner(L)
			}
			if L.GetTop() >= 2 {
				coerceArg(L, 2)
			}
			return e.tableRemove(L)
		}))
	}
	if mx, ok := tbl.RawGetString("maxn").(*lua.LFunction); ok {
		tbl.RawSetString("maxn", tableArg(L, mx))
	}
	tbl.RawSetString("concat", L.NewFunction(e.tableConcat))
	tbl.RawSetString("foreach", L.NewFunction(e.callsBack(e.tableForeach, argIsFunction(2))))
	tbl.RawSetString("foreachi", L.NewFunction(e.callsBack(e.chargeLen(tableForeachi), argIsFunction(2))))
	sort := func(L *lua.LState) int {
		if t, ok := L.Get(1).(*lua.LTable); ok {
			// The comparisons of a sort of n elements.
			e.charge(L, lenSteps(t))
			n := lua51.Len(t)
			e.charge(L, n*bits.Len(uint(n)))
		}
		return tableSort(L)
	}
	tbl.RawSetString("sort", L.NewFunction(e.callsBack(sort, argIsFunction(2))))
	tbl.RawSetString("setn", L.NewFunction(tableSetn))
	tbl.RawSetString("getn", L.NewFunction(e.chargeLen(tableGetn)))

	G.RawSetString("math", e.openMath(L))

	e.installCoroutines(G.RawGetString("coroutine").(*lua.LTable))
	G.RawSetString("redis", e.redisTable())
	e.cjson = defaultCjsonConfig()
	G.RawSetString("cjson", e.openCjson(L, e.cjson))
	G.RawSetString("struct", openStruct(L))
	G.RawSetString("cmsgpack", e.openCmsgpack(L))
	G.RawSetString("bit", openBit(L))

	e.scriptHandler = L.NewFunction(e.errHandler)
	e.handler = L.NewFunction(func(L *lua.LState) int {
		e.handlerDepth++
		defer func() { e.handlerDepth-- }()
		return e.errHandler(L)
	})
	e.passHandler = L.NewFunction(func(L *lua.LState) int { return 1 })
	e.memErr = L.NewUserData()
	if !e.functions {
		G.RawSetString("__redis__err__handler", e.scriptHandler)
	}

	// The library tables are read-only.
	for _, name := range []string{"string", "table", "math", "coroutine", "redis", "cjson", "struct", "cmsgpack", "bit"} {
		if t, ok := G.RawGetString(name).(*lua.LTable); ok {
			e.freeze(t)
		}
	}

	// _G's own metatable: reading an unknown global is an error.
	gm := L.CreateTable(0, 1)
	gm.RawSetString("__index", L.NewFunction(globalError))
	L.SetMetatable(G, gm)
	e.gmeta = e.freeze(gm)

	// The environment scripts run in: the global table itself, read-only
	// as in Redis 7.0. A library's functions (the FUNCTION engine) run in
	// an empty read-only table that reads through to the globals, or to
	// what a library sees while it loads (LoadLibrary switches its
	// __index): the functions a library defines keep the environment they
	// were made in, and must see every global once it has loaded.
	env := G
	if e.functions {
		env = L.CreateTable(0, 0)
		em := L.CreateTable(0, 1)
		em.RawSetString("__index", G)
		L.SetMetatable(env, e.freeze(em))
		e.freeze(env)
	}
	e.env = env
	G.RawSetString("_G", env)
	e.freeze(G)
	L.Env = env

	if e.functions {
		e.setupLoadEnv()
	}

	// The string metatable, as getmetatable("") shows it.
	sm := L.CreateTable(0, 1)
	sm.RawSetString("__index", G.RawGetString("string"))
	e.strmeta = e.freeze(sm)
	e.frozenAt = e.fingerprint()
}

// sealStringIndex makes gopher-lua's string table (gstr: the string
// library with the emulation's helpers and the arithmetic metamethods,
// which gopher-lua also makes the string metatable, its own __index)
// what strings are indexed through and nothing more, as Lua 5.1's string
// metatable {__index = string} is: a script indexing a string
// (("").upper, s:format()) reaches the functions of the string library
// scripts see (str), the same values, and the helpers under their keys
// (lua51.Install), never ("").__index, a table it could write to, nor
// ("").__add and the other metamethods, which Lua 5.1 strings do not
// have. The metamethods move to a metatable of their own; both tables
// are read-only.
func (e *Engine) sealStringIndex(gstr, str *lua.LTable) {
	L := e.L
	mt := L.CreateTable(0, 8)
	var meta []lua.LValue
	lua51.Unordered(gstr, func(k, v lua.LValue) {
		if strings.HasPrefix(k.String(), "__") {
			meta = append(meta, k)
			if k.String() != "__index" {
				mt.RawSet(k, v)
			}
		}
	})
	for _, k := range meta {
		gstr.RawSet(k, lua.LNil)
	}
	lua51.Unordered(str, func(k, v lua.LValue) { gstr.RawSet(k, v) })
	mt.RawSetString("__index", e.freeze(gstr))
	L.SetMetatable(lua.LString(""), e.freeze(mt))
}

// freeze makes t read-only (lua.LTable.SetReadOnly): scripts cannot
// assign to it, rawset it, change its metatable or table.insert into it.
// Go code still fills it (RawSet and the other table methods).
func (e *Engine) freeze(t *lua.LTable) *lua.LTable {
	t.SetReadOnly(true)
	e.frozen = append(e.frozen, t)
	return t
}

func readonlyError(L *lua.LState) int {
	L.RaiseError(errReadonly)
	return 0
}

func globalError(L *lua.LState) int {
	name, _ := luaString(L.Get(2))
	L.RaiseError("%s", errNoGlobalF+name+"'")
	return 0
}

func (e *Engine) baseRawset(L *lua.LState) int {
	t := checkTable(L, 1)
	L.CheckAny(2)
	L.CheckAny(3)
	if t.ReadOnly() {
		L.Error(lua.LString(errReadonly), 0)
	}
	switch k := L.Get(2).(type) {
	case *lua.LNilType:
		L.Error(lua.LString("table index is nil"), 0)
	case lua.LNumber:
		if k != k {
			L.Error(lua.LString("table index is NaN"), 0)
		}
	}
	lua51.Set(L, t, L.Get(2), L.Get(3))
	L.SetTop(1)
	return 1
}

func (e *Engine) baseRawget(L *lua.LState) int {
	t := checkTable(L, 1)
	L.CheckAny(2)
	L.Push(t.RawGet(L.Get(2)))
	return 1
}

func (e *Engine) baseSetmetatable(L *lua.LState) int {
	t := checkTable(L, 1)
	mt := L.Get(2)
	if mt.Type() != lua.LTNil && mt.Type() != lua.LTTable {
		L.ArgError(2, "nil or table expected")
	}
	if t.ReadOnly() {
		L.Error(lua.LString(errReadonly), 0)
	}
	if cur, ok := t.Metatable.(*lua.LTable); ok && !lua51.IsMarker(cur) && cur.RawGetString("__metatable") != lua.LNil {
		L.RaiseError("cannot change a protected metatable")
	}
	if mt == lua.LNil && lua51.IsMarker(t.Metatable) {
		// Removing a metatable the script cannot see keeps the table's
		// sizes and log (lua51.IsMarker).
		L.SetTop(1)
		return 1
	}
	L.SetMetatable(t, mt)
	L.SetTop(1)
	return 1
}

func (e *Engine) baseGetmetatable(L *lua.LState) int {
	v := L.CheckAny(1)
	switch x := v.(type) {
	case *lua.LTable:
		if x == e.env {
			L.Push(e.gmeta)
			return 1
		}
	case lua.LString:
		L.Push(e.strmeta)
		return 1
	}
	mt := L.GetMetatable(v)
	if lua51.IsMarker(mt) {
		mt = lua.LNil
	}
	if t, ok := mt.(*lua.LTable); ok {
		if p := t.RawGetString("__metatable"); p != lua.LNil {
			L.Push(p)
			return 1
		}
	}
	L.Push(mt)
	return 1
}

func (e *Engine) baseNext(L *lua.LState) int {
	t := checkTable(L, 1)
	k, v, ok := e.emu.Next(L, t, L.Get(2))
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(k)
	L.Push(v)
	return 2
}

func (e *Engine) basePairs(L *lua.LState) int {
	t := checkTable(L, 1)
	L.Push(L.Get(lua.UpvalueIndex(1)))
	L.Push(t)
	L.Push(lua.LNil)
	return 3
}

func baseGcinfo(L *lua.LState) int {
	L.Push(lua.LNumber(64))
	return 1
}

// defaultGCSetting is Lua 5.1's LUAI_GCPAUSE and LUAI_GCMUL.
const defaultGCSetting = 200

// baseCollectgarbage is Lua 5.1's collectgarbage without a collector to
// drive: gopher-lua's ran Go's garbage collector over the whole server
// on every call, so a loop of calls held the server (every node of a
// cluster) for minutes. The count is gcinfo's, the same on every node;
// setpause and setstepmul keep their values, as Lua's do.
func (e *Engine) baseCollectgarbage(L *lua.LState) int {
	opt := "collect"
	if L.Get(1) != lua.LNil {
		opt = checkString(L, 1, "collectgarbage")
	}
	ex := int32(0)
	if L.Get(2) != lua.LNil {
		ex = checkInt(L, 2, "collectgarbage")
	}
	switch opt {
	case "stop", "restart", "collect":
		L.Push(lua.LNumber(0))
	case "count":
		L.Push(lua.LNumber(64))
	case "step":
		L.Push(lua.LFalse)
	case "setpause":
		L.Push(lua.LNumber(e.gcPause))
		e.gcPause = ex
	case "setstepmul":
		L.Push(lua.LNumber(e.gcStepmul))
		e.gcStepmul = ex
	default:
		argError(L, 1, "collectgarbage", "invalid option '"+opt+"'")
	}
	return 1
}

// basePcall is Redis's pcall: like Lua's, but an error table carrying an
// "err" string is reduced to that string (Redis 6 compatibility).
func (e *Engine) basePcall(L *lua.LState) int {
	if L.GetTop() == 0 {
		// Redis's luaRedisPcall calls lua_pcall with -1 arguments: the
		// slot above its placeholder, a boolean.
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a boolean value"))
		return 2
	}
	n := L.GetTop()
	fn := L.Get(1)
	if fn.Type() != lua.LTFunction && L.GetMetaField(fn, "__call").Type() != lua.LTFunction {
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(lua.LString("attempt to call a " + fn.Type().String() + " value"))
		return 2
	}
	mark := e.emu.Mark()
	cc := e.ccalls
	if msg := e.enterProtected(); msg != "" {
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(lua.LString(msg))
		return 2
	}
	cn, cs := e.concatMark()
	err := L.PCall(n-1, lua.MultRet, e.pcallHandler)
	e.ccalls = cc
	e.concatUnwind(cn, cs)
	if err != nil {
		e.emu.Unwind(mark)
		var obj lua.LValue = lua.LString(err.Error())
		if ae, ok := err.(*lua.ApiError); ok {
			obj = ae.Object
		}
		if t, ok := obj.(*lua.LTable); ok {
			if s, ok := luaString(t.RawGetString("err")); ok {
				obj = lua.LString(s)
			}
		}
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(obj)
		return 2
	}
	L.Insert(lua.LTrue, 1)
	return L.GetTop()
}

// baseError is Lua 5.1's error: strings and numbers get the position of
// the function `level` levels up (1 by default); nil is a valid message.
func baseError(L *lua.LState) int {
	v := L.Get(1)
	level := L.OptInt(2, 1)
	switch x := v.(type) {
	case lua.LString, lua.LNumber:
		msg, _ := luaString(x)
		if level > 0 {
			msg = where(L, level) + msg
		}
		L.Error(lua.LString(msg), 0)
	}
	L.Error(v, 0)
	return 0
}

// baseXpcall is Lua 5.1's xpcall; the handler sees runtime errors worded
// as Lua 5.1 words them.
func (e *Engine) baseXpcall(L *lua.LState) int {
	if L.GetTop() < 2 { // luaL_checkany(L, 2) comes first
		L.ArgError(2, "value expected")
	}
	fn := L.Get(1)
	h := checkFunction(L, 2)
	top := L.GetTop()
	// handle runs the handler on an error value v and pushes its result.
	// An error in the handler is Lua's LUA_ERRERR; the handler gets room
	// beyond the stack limit the error may have hit (checkDepth), as
	// Lua's does.
	handle := func(L *lua.LState, v lua.LValue) {
		if s, ok := v.(lua.LString); ok {
			v = lua.LString(e.describe(L, string(s)))
		} else if v == e.memErr {
			// A memory error skips the handler (LUA_ERRMEM).
			L.Push(lua.LString(errNoMemory))
			return
		}
		L.Push(h)
		L.Push(v)
		e.handling++
		e.handlerDepth++
		err := L.PCall(1, 1, e.passHandler)
		e.handlerDepth--
		e.handling--
		if err != nil {
			L.Push(lua.LString(errErrorHandling))
		}
	}
	cc := e.ccalls
	if msg := e.enterProtected(); msg != "" {
		// The call fails before fn runs; the handler still sees it.
		L.Push(lua.LFalse)
		handle(L, lua.LString(msg))
		e.ccalls = cc
		return 2
	}
	wrapped := L.NewFunction(func(L *lua.LState) int {
		handle(L, L.Get(1))
		return 1
	})
	L.Push(fn)
	mark := e.emu.Mark()
	cn, cs := e.concatMark()
	err := L.PCall(0, lua.MultRet, wrapped)
	e.ccalls = cc
	e.concatUnwind(cn, cs)
	if err != nil {
		e.emu.Unwind(mark)
		L.Push(lua.LFalse)
		if ae, ok := err.(*lua.ApiError); ok {
			L.Push(ae.Object)
		} else {
			L.Push(lua.LString(err.Error()))
		}
		return 2
	}
	L.Insert(lua.LTrue, top+1)
	return L.GetTop() - top
}

// baseAssert is Lua 5.1's luaB_assert: the message may be a number.
func baseAssert(L *lua.LState) int {
	if L.GetTop() == 0 {
		L.ArgError(1, "value expected")
	}
	if !lua.LVAsBool(L.Get(1)) {
		msg := "assertion failed!"
		if L.Get(2) != lua.LNil {
			msg = checkString(L, 2, "assert")
		}
		luaError(L, "%s", msg)
	}
	return L.GetTop()
}
