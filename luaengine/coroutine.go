package luaengine

import (
	"strings"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
)

// Lua 5.1's coroutine library over gopher-lua's threads: Lua's texts
// ("cannot resume dead coroutine"), coroutine.wrap's error position, and
// Lua's bounds. A resume is a nested C call (lua_resume refuses one at
// LUAI_MAXCCALLS, so coroutines nest at most 199 deep), values moved in
// and out are checked against the C stack, and threads get their own
// smaller interpreter options (coOptions): gopher-lua would give every
// coroutine the main thread's call stack.

const (
	errYieldOutside = "attempt to yield across metamethod/C-call boundary"
	errResumeArgs   = "too many arguments to resume"
	errResumeResult = "too many results to resume"
)

// installCoroutines replaces create, resume, wrap and yield in the
// coroutine library co (gopher-lua's, whose resume and yield do the work).
func (e *Engine) installCoroutines(co *lua.LTable) {
	L := e.L
	create := co.RawGetString("create").(*lua.LFunction).GFunction
	resume := co.RawGetString("resume").(*lua.LFunction).GFunction
	yield := co.RawGetString("yield").(*lua.LFunction).GFunction
	opts := coOptions()
	// newThread is luaB_cocreate: a thread for the Lua function at 1.
	newThread := func(L *lua.LState, fname string) *lua.LState {
		if fn, ok := L.Get(1).(*lua.LFunction); !ok || fn.IsG {
			argError(L, 1, fname, "Lua function expected")
		}
		L.SetTop(1)
		e.charge(L, weightThread)
		saved := L.Options
		L.Options = opts
		create(L)
		L.Options = saved
		th := L.Get(-1).(*lua.LState)
		L.Pop(1)
		return th
	}
	co.RawSetString("create", L.NewFunction(func(L *lua.LState) int {
		L.Push(newThread(L, "create"))
		return 1
	}))
	co.RawSetString("resume", L.NewFunction(func(L *lua.LState) int {
		th, ok := L.Get(1).(*lua.LState)
		if !ok {
			argError(L, 1, "resume", "coroutine expected")
		}
		return e.resume(L, th, resume)
	}))
	co.RawSetString("wrap", L.NewFunction(func(L *lua.LState) int {
		th := newThread(L, "wrap")
		L.Push(L.NewClosure(func(L *lua.LState) int {
			L.Insert(L.Get(lua.UpvalueIndex(1)), 1)
			n := e.resume(L, th, resume)
			top := L.GetTop()
			if L.Get(top-n+1) == lua.LFalse {
				// auxwrap: a string (or number) error gets the caller's
				// position in front.
				v := L.Get(top)
				if s, ok := luaString(v); ok {
					v = lua.LString(where(L, 1) + s)
				}
				L.Error(v, 0)
			}
			L.Remove(top - n + 1)
			return n - 1
		}, th))
		return 1
	}))
	co.RawSetString("status", L.NewFunction(func(L *lua.LState) int {
		th, ok := L.Get(1).(*lua.LState)
		if !ok {
			argError(L, 1, "status", "coroutine expected")
		}
		L.Push(lua.LString(coStatus(L, th)))
		return 1
	}))
	co.RawSetString("yield", L.NewFunction(func(L *lua.LState) int {
		if L == L.G.MainThread {
			L.Error(lua.LString(errYieldOutside), 0)
		}
		return yield(L)
	}))
}

// resume is auxresume + luaB_coresume: it runs th with the values above
// index 1 of L's stack and pushes true and what th returned or yielded,
// or false and an error; it returns how many values it pushed.
func (e *Engine) resume(L *lua.LState, th *lua.LState, resume lua.LGFunction) int {
	narg := L.GetTop() - 1
	if !stackFits(1, narg) {
		luaError(L, errResumeArgs)
	}
	fail := func(msg string) int {
		L.SetTop(0)
		L.Push(lua.LFalse)
		L.Push(lua.LString(msg))
		return 2
	}
	if st := coStatus(L, th); st != "suspended" {
		return fail("cannot resume " + st + " coroutine")
	}
	// lua_resume: a nested C call, refused at the limit.
	if e.ccalls >= luaMaxCCalls {
		return fail(errCStackOverflow)
	}
	cc := e.ccalls
	cn, cs := e.concatMark()
	e.ccalls++
	n := resume(L)
	e.ccalls = cc
	e.concatUnwind(cn, cs)
	if L.Get(L.GetTop()-n+1) == lua.LTrue && !stackFits(1, n-1) {
		luaError(L, errResumeResult)
	}
	return n
}

// coStatus is costatus: gopher-lua's Status calls only the direct
// resumer of L "normal", not every coroutine that is resuming another.
func coStatus(L, th *lua.LState) string {
	switch {
	case th.Dead:
		return "dead"
	case th == L.G.CurrentThread:
		return "running"
	}
	for p := L.Parent; p != nil; p = p.Parent {
		if p == th {
			return "normal"
		}
	}
	return "suspended"
}

// where is luaL_where: "chunk:line: " of the function level levels up,
// or "" for a Go function.
func where(L *lua.LState, level int) string {
	w := L.Where(level)
	if w == "" || strings.HasPrefix(w, "[G]") {
		return ""
	}
	return w + " "
}
