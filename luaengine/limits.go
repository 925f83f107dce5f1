package luaengine

import (
	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// Bounds on what one script can make the interpreter do. Every recursion
// over script-controlled data and every library function that pushes a
// script-chosen number of values has one, so that no script can crash the
// process (a Go stack overflow is a fatal error, not a panic) or hold it
// forever; every bound is a count, never a measure of time or memory, so
// a script fails at the same point on every node of a cluster.
//
// Where Redis (Lua 5.1 as deps/lua builds it, luaconf.h) has a limit,
// lockkv has the same one with the same error text:
//
//   - LUAI_MAXCSTACK, 8000 stack slots for a C function
//     (lua_checkstack): string.byte, unpack, struct.unpack,
//     cmsgpack.unpack/pack, cjson's nesting, coroutine transfers, the
//     captures of a match, and the conversions of a script's result to a
//     reply and of a command's reply to Lua count the slots Redis's C
//     code would hold (checkStack, stackFits).
//   - LUAI_MAXCCALLS, 200 nested C calls ("C stack overflow"): pcall,
//     xpcall, coroutine.resume/wrap, table.foreach/foreachi/sort,
//     string.gsub with a function, load's reader and tostring's
//     __tostring count as Lua's luaD_call counts them (enterC), so
//     coroutines nest at most 199 deep.
//   - LUAI_MAXCALLS, 20000 call frames ("stack overflow") for the main
//     thread (mainCallStack).
//   - the parser's 200 syntax levels (lua51.CheckSyntax).
//
// Where Redis has no limit of its own (its C stack or its memory would
// run out), lockkv's are:
//
//   - a coroutine's call frames (coCallStack) and Lua stack
//     (coRegistryMax), and the main thread's Lua stack (mainRegistryMax).
//     Past them the script fails with "stack overflow".
//   - the length of a string a script builds (maxStringLen), as
//     string.rep, `..`, table.concat, string.gsub and the encoders make
//     them, and of its reply: Redis's Lua fails with "not enough memory"
//     when malloc does; lockkv fails the same way at 512 MB,
//     proto-max-bulk-len's default and the largest value a client could
//     send.
//   - the recursion of a pattern match (maxMatchDepth, pattern.go).
//
// The Go stack a script can use is then bounded: only Go code calling back
// into Lua (metamethods, the C calls above) nests Go frames, at most
// mainCallStack frames in the main thread and coCallStack in each of at
// most luaMaxCCalls nested coroutines, about 1 KB each (some 200 MB at
// worst, against Go's limit of 1 GB).
const (
	luaMaxCStack = 8000
	luaMaxCCalls = lua51.MaxCCalls

	// mainCallStack is LUAI_MAXCALLS as gopher-lua counts frames: a
	// recursion of a Lua function overflows at the same depth as in
	// Redis (19998 nested calls of a function that calls nothing at the
	// deepest level succeed, 19999 fail). The check points at the top of
	// every function body enforce it and mainRegistryMax (Engine.tick),
	// so the interpreter keeps spare frames and stack slots above them
	// for the error handler: gopher-lua's own overflow, with no room for
	// the handler, builds a stack trace in time quadratic in the depth.
	mainCallStack     = 20000
	mainRegistryMax   = 1 << 20
	spareFrames       = 512
	spareRegistrySize = 1 << 14
	coCallStack       = 1024
	coRegistryMax     = 1 << 15
)

// maxStringLen bounds the strings a script builds and its reply (a
// variable only so that tests can lower it).
var maxStringLen = 512 << 20

// encodeTickPeriod is how many values the encoders (cjson, cmsgpack)
// convert between two check points: a table holding itself many times
// over takes long to encode before it reaches maxStringLen.
const encodeTickPeriod = 4096

// Error texts of the bounds above.
const (
	errCStackOverflow = "C stack overflow"
	errStackOverflow  = "stack overflow"
	errNoMemory       = "not enough memory"
	errErrorHandling  = "error in error handling"
)

// handlerFrames is how many frames beyond mainCallStack an error handler
// (xpcall's) may use: Lua grows its call stack past LUAI_MAXCALLS to run
// the handler of a stack overflow.
const handlerFrames = 256

// mainOptions are the interpreter's own options; coroutines get
// coOptions (see installCoroutines).
func mainOptions() lua.Options {
	return lua.Options{
		SkipOpenLibs:    true,
		CallStackSize:   mainCallStack + spareFrames,
		RegistrySize:    1024 * 4,
		RegistryMaxSize: mainRegistryMax + spareRegistrySize,
		// gopher-lua grows its Lua stack by this much at a time, copying
		// it: a small step makes filling it quadratic.
		RegistryGrowStep: 1 << 16,
	}
}

func coOptions() lua.Options {
	return lua.Options{
		SkipOpenLibs:        true,
		CallStackSize:       coCallStack,
		MinimizeStackMemory: true,
		RegistrySize:        256,
		RegistryMaxSize:     coRegistryMax,
		RegistryGrowStep:    1 << 12,
	}
}

// checkStack is luaL_checkstack for a C function whose frame holds used
// slots and wants n more: past LUAI_MAXCSTACK it raises Lua's
// "stack overflow (msg)".
func checkStack(L *lua.LState, used, n int, msg string) {
	if used+n > luaMaxCStack {
		luaError(L, "%s (%s)", errStackOverflow, msg)
	}
}

// stackFits is lua_checkstack: whether a C function whose frame holds
// used slots may push n more.
func stackFits(used, n int) bool { return n <= luaMaxCStack && used+n <= luaMaxCStack }

// enterC counts a call from Go back into Lua as Lua's luaD_call counts
// nested C calls: the one that makes the count LUAI_MAXCCALLS fails with
// "C stack overflow" (a count past it goes on, as in Lua, up to an eighth
// more, where Lua gives up with "error in error handling"). The caller
// decrements e.ccalls when the call returns; an error unwinds to a
// protected call (pcall, xpcall, resume, the script itself), which
// restores the count it started with, as luaD_pcall restores nCcalls.
func (e *Engine) enterC(L *lua.LState) {
	if msg := e.enterProtected(); msg != "" {
		L.Error(lua.LString(msg), 0)
	}
}

// enterProtected is enterC for pcall and xpcall, whose call fails inside
// the protection: it returns the error instead of raising it, with the
// count restored.
func (e *Engine) enterProtected() string {
	e.ccalls++
	switch {
	case e.ccalls == luaMaxCCalls:
		e.ccalls--
		return errCStackOverflow
	case e.ccalls >= luaMaxCCalls+luaMaxCCalls>>3:
		e.ccalls--
		return errErrorHandling
	}
	return ""
}

// callsBack wraps a library function that calls back into Lua while the
// call wants to (when it is given a function to call): the call counts
// as a nested C call while it runs (enterC).
func (e *Engine) callsBack(fn lua.LGFunction, wants func(L *lua.LState) bool) lua.LGFunction {
	return func(L *lua.LState) int {
		if !wants(L) {
			return fn(L)
		}
		e.enterC(L)
		n := fn(L)
		e.ccalls--
		return n
	}
}

// argIsFunction is callsBack's test for a callback at argument n.
func argIsFunction(n int) func(L *lua.LState) bool {
	return func(L *lua.LState) bool { return L.Get(n).Type() == lua.LTFunction }
}

// memoryError raises Lua's LUA_ERRMEM: "not enough memory", which in Lua
// skips error handlers (the error handler of the script and of xpcall),
// so the script's error reply is Redis's "Error running script" form.
func (e *Engine) memoryError(L *lua.LState) {
	L.Error(e.memErr, 0)
}

// checkStringLen refuses a string of n bytes (see maxStringLen).
func (e *Engine) checkStringLen(L *lua.LState, n int) {
	if n < 0 || n > maxStringLen {
		e.memoryError(L)
	}
}

// checkDepth is the main thread's stack check at a check point (the top
// of every function body): past mainCallStack frames or mainRegistryMax
// stack slots the call fails with Lua's "stack overflow", at the line of
// the call as Lua reports it.
func (e *Engine) checkDepth(L *lua.LState) {
	limit := mainCallStack
	if e.handling > 0 {
		limit += handlerFrames
	}
	if L != e.L || (e.interp.Frames() <= limit && e.interp.Top() <= mainRegistryMax) {
		return
	}
	e.overflowAtCaller = true
	L.Error(lua.LString(where(L, 2)+errStackOverflow), 0)
}

// concatLen sums the lengths of a `..` chain's operands as the concat
// helper formats them (chain: lua51.ChainFirst starts a sum, nested chains
// inside an operand keep theirs on concatOuter, lua51.ChainLast ends it) and
// refuses a chain whose result would pass maxStringLen. String constants
// are not counted: the script's own size bounds them.
func (e *Engine) concatLen(L *lua.LState, n int, chain lua.LValue) {
	c, _ := chain.(lua.LNumber)
	if int(c)&lua51.ChainFirst != 0 {
		e.concatOuter = append(e.concatOuter, e.concatSum)
		e.concatSum = 0
	}
	e.concatSum += n
	if e.concatSum > maxStringLen {
		e.memoryError(L)
	}
	e.chargeBytes(L, n)
	if int(c)&lua51.ChainLast != 0 && len(e.concatOuter) > 0 {
		e.concatSum = e.concatOuter[len(e.concatOuter)-1]
		e.concatOuter = e.concatOuter[:len(e.concatOuter)-1]
	}
}

// concatMark and concatUnwind keep the chains' sums across a protected
// call whose error may leave chains unfinished.
func (e *Engine) concatMark() (int, int) { return len(e.concatOuter), e.concatSum }

func (e *Engine) concatUnwind(n, sum int) {
	e.concatOuter = e.concatOuter[:n]
	e.concatSum = sum
}
