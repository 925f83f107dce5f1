// Package luaengine runs Redis scripts on gopher-lua with Redis 7.0's
// sandbox, redis.* API and reply conversions.
//
// It knows nothing about commands: the host passes a Caller that runs one
// command and returns its RESP reply, and a resp.Writer the script's reply
// is written to. Typical use (engine/scripting.go):
//
//	eng := luaengine.New()
//	proto, flags, err := luaengine.Compile(body)
//	eng.Run(&luaengine.Script{SHA: sha, Proto: proto}, &luaengine.Run{Call: ..., Out: w, Keys: keys, Args: argv, Eval: true})
//
// An Engine is used by one goroutine at a time (the command goroutine).
package luaengine

import (
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// Caller runs one command for redis.call/redis.pcall as the script's client
// and returns its RESP reply encoded in protocol version proto (2 or 3).
// The returned bytes are read before the next call and never retained.
type Caller func(args [][]byte, proto int) []byte

// Script is a compiled script. Fn caches the function bound to one engine
// state; the engine fills it in.
type Script struct {
	SHA   string
	Proto *lua.FunctionProto
	Flags uint64

	fn  *lua.LFunction
	gen uint64
}

// Run is one invocation.
type Run struct {
	Call Caller
	// Exists reports whether a command exists (redis.acl_check_cmd).
	Exists func(args [][]byte) bool
	// Log receives redis.log lines at or above Verbosity, and at
	// LogWarning the engine's own report of a Go panic it recovered from
	// while running the script.
	Log func(level int, msg string)
	// Verbosity, when set, is the lowest level of redis.log lines Log
	// receives (the server's loglevel when the line is logged, as
	// Redis reads it); without it Log receives all.
	Verbosity func() int
	// Name identifies the script in errors: the SHA for EVAL, the function
	// name for FCALL.
	Name       string
	Keys, Args [][]byte
	// Eval selects EVAL mode (KEYS and ARGV globals); otherwise the keys
	// and args tables are passed as the function's two arguments.
	Eval bool
	// Out receives the script's reply, in the caller's protocol.
	Out *resp.Writer
	// Errors, when set, is called after each error reply the script's
	// result writes to Out (its error, or errors inside an array): reply
	// is the text after '-', ignoreStats whether the error table carries
	// ignore_error_stats_update (an error redis.call or redis.pcall
	// returned: Redis counted it in INFO when the command replied, and
	// does not count it again).
	Errors func(reply []byte, ignoreStats bool)

	// Resp is the protocol redis.call uses, 2 unless redis.setresp changed it.
	Resp int
	// ReplFlags is what redis.set_repl last set (REPL_ALL by default).
	ReplFlags int
	// BusyThreshold is busy-reply-threshold; 0 disables the checks.
	BusyThreshold time.Duration
	// WhileBusy is called at the script's check points (loop iterations
	// and function calls, about every thousandth) once it has run longer
	// than BusyThreshold: the host serves other clients from there.
	WhileBusy func()
	// Killed, when it returns true, stops the script at its next check
	// point with Redis's SCRIPT KILL error.
	Killed func() bool
	// MaxSteps, when not 0, is the run's step budget (see steps.go): the
	// script fails with StepBudgetError's text once it has taken more. A
	// count, not a time, so that it stops at the same point wherever it
	// runs (a script applied from a cluster's log). Budget, when not 0,
	// is the budget the error names, of which MaxSteps is what is left
	// (the scripts of one transaction share one).
	MaxSteps, Budget uint64
}

// Engine is a Lua interpreter set up as Redis sets up its scripting
// environment.
type Engine struct {
	L   *lua.LState
	gen uint64

	globals *lua.LTable // the global table
	env     *lua.LTable // what scripts see as _G (setup)
	// frozen are the read-only tables (freeze); frozenAt is what they
	// held once set up, which tests compare with (checkTaint).
	frozen   []*lua.LTable
	frozenAt []frozenTable
	gmeta    *lua.LTable // _G's metatable, for getmetatable(_G)
	strmeta  *lua.LTable // the string metatable getmetatable("") shows
	handler  *lua.LFunction
	// emu is the Lua 5.1 emulation's state (lua51.Install): what
	// constructors keep for their helpers, which pcall and xpcall
	// unwind, and the layouts next keeps between calls.
	emu *lua51.Runtime
	// pcallHandler words errors caught by pcall as Lua 5.1 does.
	pcallHandler *lua.LFunction
	run          *Run
	errors       func([]byte, bool) // Run.Errors while the reply is written
	rand         *rand48
	// functions is set for the FUNCTION engine (see functions.go).
	functions bool
	loadIndex *lua.LTable // globals seen while a library loads
	loading   *Library
	argbuf    [][]byte
	// keysT and argsT are the tables the globals KEYS and ARGV hold,
	// kept for the next EVAL run (evalArrays); nil when it makes new ones.
	keysT, argsT *lua.LTable
	numbuf       []byte
	// steps counts what the running script did (steps.go); tick and
	// charge take their slow path once it reaches nextCheck, the lower of
	// stepLimit+1 and nextBusy.
	steps     uint64
	nextCheck uint64
	stepLimit uint64
	budget    uint64 // the budget the error names
	nextBusy  uint64
	// checkTaint makes every call verify that the read-only tables
	// hold what they held once set up (tests).
	checkTaint bool
	start      time.Time
	checking   bool
	killing    bool

	// ccalls counts nested calls from Go back into Lua (Lua's nCcalls,
	// see enterC).
	ccalls int
	// concatSum and concatOuter sum the lengths of `..` chains being
	// evaluated (concatLen).
	concatSum   int
	concatOuter []int
	// gcPause and gcStepmul are collectgarbage's settings, cjson the
	// settings of the cjson table (state.go).
	gcPause, gcStepmul int32
	cjson              *cjsonConfig
	// chunkNames maps the names of chunks loadstring and load compiled,
	// as messages show them (chunkID), to the names they were given.
	chunkNames map[string]string
	// handling counts the error handlers running (xpcall's), which may
	// go past the stack limit (checkDepth); passHandler is the handler
	// of their own protected calls, which only passes the error on.
	handling    int
	passHandler *lua.LFunction
	// handler is the error handler of a script's run (and of load's
	// reader); scriptHandler is the same (errHandler) as scripts see it,
	// __redis__err__handler. handlerDepth counts the error handlers
	// running (handler, and xpcall's), so that errHandler can tell
	// them from a script's own call; handlerLine is the line of Redis's
	// handler where the last such call failed.
	scriptHandler *lua.LFunction
	handlerDepth  int
	handlerLine   int
	// memErr is the value a memory error is raised with (memoryError).
	memErr *lua.LUserData

	// replyErr is set when parseReply meets a reply it cannot convert;
	// replyEnd is where the reply being written must end (writeResult).
	replyErr string
	replyEnd int
	// interp reaches the main thread's call stack and Lua stack;
	// overflowAtCaller tells the error handler that checkDepth raised
	// the error in a function about to run, so that it names the call.
	interp           lua51.Interp
	overflowAtCaller bool
}

// engineGen numbers the interpreters of all engines (Engine.gen).
var engineGen atomic.Uint64

// New returns an engine with a fresh interpreter.
func New() *Engine {
	r := newRand48()
	e := &Engine{rand: &r}
	e.reset()
	return e
}

// Reset discards the interpreter and builds a new one (SCRIPT FLUSH).
// Compiled scripts stay valid; their bound functions are rebuilt lazily.
func (e *Engine) Reset() { e.reset() }

func (e *Engine) reset() {
	if e.L != nil {
		e.L.Close()
	}
	// From one counter for all engines: a Script bound to another
	// engine's interpreter must not pass for bound to this one.
	e.gen = engineGen.Add(1)
	e.keysT, e.argsT = nil, nil
	e.L = lua.NewState(mainOptions())
	e.interp = lua51.NewInterp(e.L)
	e.setup()
}

// bind returns sc's function in the current interpreter.
func (e *Engine) bind(sc *Script) *lua.LFunction {
	if sc.fn != nil && sc.gen == e.gen {
		return sc.fn
	}
	fn := e.L.NewFunctionFromProto(sc.Proto)
	fn.Env = e.env
	sc.fn, sc.gen = fn, e.gen
	return fn
}

// Run executes sc and writes its reply (or error) to run.Out.
func (e *Engine) Run(sc *Script, run *Run) {
	e.call(e.bind(sc), run)
}

// call runs fn: in EVAL mode with KEYS and ARGV set as globals, otherwise
// with the keys and args tables as its two arguments (FCALL).
func (e *Engine) call(fn *lua.LFunction, run *Run) {
	L := e.L
	if run.Resp == 0 {
		run.Resp = 2
	}
	run.ReplFlags = 3
	e.run = run
	// The clock is read at the first check point, so a script that never
	// loops never reads it.
	e.startSteps(run.BusyThreshold > 0, run.MaxSteps, run.Budget)
	e.beginRun()
	L.Push(fn)
	nargs := 0
	if run.Eval {
		e.evalArrays(run.Keys, run.Args)
	} else {
		L.Push(e.array(run.Keys))
		L.Push(e.array(run.Args))
		nargs = 2
	}
	err := e.runProtected(run, nargs, e.handler)
	e.run = nil
	e.errors = run.Errors
	if err != nil {
		e.writeResult(run, nil, err)
	} else {
		e.writeResult(run, L.Get(-1), nil)
	}
	e.errors = nil
	L.SetTop(0)
	// What constructors kept goes with the run, also when it succeeded
	// with a coroutine suspended inside one: the next script's
	// constructors must find only their own keys.
	e.emu.Unwind(lua51.Mark{})
	e.emu.ForgetLayouts()
	if e.checkTaint && e.tainted() {
		// Every way into a read-only table is guarded; this is the safety
		// net tests switch on.
		panic("luaengine: a script changed a read-only table")
	}
}

// beginRun resets what a script's run counts (the script itself and a
// library's load code).
func (e *Engine) beginRun() {
	// The script is called from C (lua_pcall): one C call.
	e.ccalls = 1
	e.handling = 0
	e.handlerDepth = 0
	e.concatUnwind(0, 0)
	e.overflowAtCaller = false
	e.L.G.CurrentThread = e.L
}

// runProtected calls the function on the stack, below its nargs
// arguments, under handler, and returns its error; its result is left on
// the stack.
//
// gopher-lua runs an error handler before it unwinds, so an error raised
// when the Lua stack is full (registry overflow) raises again while the
// handler is being pushed and escapes PCall, as a Go panic. It is caught
// here (as is any Go panic), logged, and the interpreter unwound, so it
// stays usable and the script fails with that error.
func (e *Engine) runProtected(run *Run, nargs int, handler *lua.LFunction) (err error) {
	defer func() {
		if r := recover(); r != nil {
			e.interp.Unwind()
			e.recovered(run, r)
			if ae, ok := r.(*lua.ApiError); ok {
				err = ae
			} else {
				err = &lua.ApiError{Type: lua.ApiErrorPanic, Object: lua.LString(fmt.Sprint(r))}
			}
		}
	}()
	return e.L.PCall(nargs, 1, handler)
}

// writeResult writes the script's reply, or its error, to run.Out. A Go
// panic while converting becomes an error reply in place of whatever was
// written so far.
//
// A reply longer than maxStringLen (a table holding itself many times
// over makes one exponentially long) is a memory error instead.
func (e *Engine) writeResult(run *Run, v lua.LValue, err error) {
	from := len(run.Out.B)
	e.replyEnd = from + maxStringLen
	defer func() {
		if r := recover(); r != nil {
			run.Out.B = run.Out.B[:from]
			if r == errReplyTooLong {
				e.writeRunError(run, &lua.ApiError{Object: lua.LString(errNoMemory)})
				return
			}
			e.recovered(run, r)
			run.Out.Error("ERR Error running script " + run.Name + ", internal error converting the result")
		}
	}()
	if err != nil {
		e.writeRunError(run, err)
		return
	}
	e.writeReply(run.Out, v, run.Resp, 2)
}

// errReplyTooLong unwinds writeReply (see writeResult).
var errReplyTooLong = &struct{ error }{}

// recovered logs a Go panic (or an error gopher-lua let escape its error
// handling) the engine recovered from while running run's script.
func (e *Engine) recovered(run *Run, what any) {
	if run.Log != nil {
		run.Log(LogWarning, fmt.Sprintf("luaengine: recovered from a panic running script %s: %v", run.Name, what))
	}
}

// array makes the Lua array of items (a function's keys and args).
func (e *Engine) array(items [][]byte) *lua.LTable {
	t := e.L.CreateTable(len(items), 0)
	lua51.SetStrings(t, luaStrings(items))
	return t
}

// luaStrings is items as Lua strings. Their bytes share one allocation,
// and so do their headers (lua51.StringValue): an allocation for each
// would triple the allocations per item.
func luaStrings(items ...[][]byte) []lua.LString {
	n, count := 0, 0
	for _, list := range items {
		count += len(list)
		for _, a := range list {
			n += len(a)
		}
	}
	var b strings.Builder
	b.Grow(n)
	for _, list := range items {
		for _, a := range list {
			b.Write(a)
		}
	}
	all := b.String()
	strs := make([]lua.LString, 0, count)
	for _, list := range items {
		for _, a := range list {
			strs = append(strs, lua.LString(all[:len(a)]))
			all = all[len(a):]
		}
	}
	return strs
}

// maxReusedArray bounds the array kept for the next run's KEYS or ARGV,
// so that one call with many arguments does not hold its array for good.
const maxReusedArray = 64

// evalArrays makes the globals KEYS and ARGV hold keys and args
// (luaCallFunction's luaCreateArray and setglobal), reusing the tables of
// the last run when that run left them as they were made
// (lua51.ResetArray): a script can tell a reused table from a new one
// only through a reference to it kept from an earlier run, and an EVAL
// script has nowhere to keep one (the globals and library tables are
// read-only and KEYS is not reachable from anything a run leaves; a
// FUNCTION library's upvalues could, so FCALL's tables are new each
// call).
func (e *Engine) evalArrays(keys, args [][]byte) {
	strs := luaStrings(keys, args)
	strs = e.evalArray("KEYS", &e.keysT, keys, strs)
	e.evalArray("ARGV", &e.argsT, args, strs)
}

func (e *Engine) evalArray(name string, t **lua.LTable, items [][]byte, strs []lua.LString) []lua.LString {
	mine, rest := strs[:len(items)], strs[len(items):]
	if old := *t; old != nil && len(items) <= maxReusedArray && lua51.ResetArray(old, maxReusedArray) {
		lua51.SetStrings(old, mine)
		return rest
	}
	nt := e.L.CreateTable(len(items), 0)
	lua51.SetStrings(nt, mine)
	e.globals.RawSetString(name, nt)
	*t = nil
	if len(items) <= maxReusedArray {
		*t = nt
	}
	return rest
}

// frozenTable is what a read-only table holds: its metatable (nil for
// lua51's markers, which scripts cannot see) and its pairs.
type frozenTable struct {
	mt    lua.LValue
	pairs map[lua.LValue]lua.LValue
}

// fingerprint returns what the read-only tables hold, in e.frozen's
// order (the global table without KEYS and ARGV, which every EVAL sets).
func (e *Engine) fingerprint() []frozenTable {
	out := make([]frozenTable, len(e.frozen))
	for i, t := range e.frozen {
		out[i] = frozenTable{mt: t.Metatable, pairs: map[lua.LValue]lua.LValue{}}
		if lua51.IsMarker(t.Metatable) {
			out[i].mt = lua.LNil
		}
		lua51.Unordered(t, func(k, v lua.LValue) {
			if t == e.globals && (k == lua.LString("KEYS") || k == lua.LString("ARGV")) {
				return
			}
			out[i].pairs[k] = v
		})
	}
	return out
}

// tainted reports whether a read-only table changed since it was set up.
func (e *Engine) tainted() bool {
	for i, now := range e.fingerprint() {
		was := e.frozenAt[i]
		if now.mt != was.mt || len(now.pairs) != len(was.pairs) {
			return true
		}
		for k, v := range now.pairs {
			if w, ok := was.pairs[k]; !ok || w != v {
				return true
			}
		}
	}
	return false
}

// writeRunError formats an error that escaped the script as Redis's
// luaCallFunction does.
func (e *Engine) writeRunError(run *Run, err error) {
	var obj lua.LValue = lua.LString(err.Error())
	if ae, ok := err.(*lua.ApiError); ok {
		obj = ae.Object
	}
	if s, ok := obj.(lua.LString); ok {
		// The error handler could not run (stack overflow): take the
		// position from the message, as the handler would have.
		if src, line, ok := positionOf(string(s)); ok {
			t := e.L.CreateTable(0, 3)
			t.RawSetString("err", lua.LString("ERR "+lua51.Message(string(s))))
			t.RawSetString("source", lua.LString("@"+src))
			t.RawSetString("line", lua.LString(line))
			obj = t
		}
	}
	t, ok := obj.(*lua.LTable)
	if !ok {
		msg := "execution failure"
		if s, ok := obj.(lua.LString); ok {
			msg = string(s)
		} else if n, ok := obj.(lua.LNumber); ok {
			msg = formatNumber(n)
		}
		if len(msg) > 100 {
			msg = msg[:100]
		}
		from := len(run.Out.B)
		run.Out.Error("ERR Error running script " + run.Name + ", " + msg + "\n")
		e.errorWritten(run.Out, from, false)
		return
	}
	msg := ""
	if s, ok := luaString(errorField(t, "err")); ok {
		msg = s
	}
	out := msg
	src, okS := luaString(errorField(t, "source"))
	line, okL := luaString(errorField(t, "line"))
	if okS && okL {
		out += " script: " + run.Name + ", on " + src + ":" + line + "."
	}
	from := len(run.Out.B)
	writeErrorReply(run.Out, out)
	e.errorWritten(run.Out, from, lua.LVAsBool(errorField(t, "ignore_error_stats_update")))
}

// errorWritten reports the error reply written to w from offset from to
// Run.Errors.
func (e *Engine) errorWritten(w *resp.Writer, from int, ignoreStats bool) {
	if e.errors != nil {
		e.errors(w.B[from+1:], ignoreStats)
	}
}

// writeErrorReply is addReplyErrorFormat("-%s"): an error whose text
// carries its own code.
func writeErrorReply(w *resp.Writer, msg string) {
	w.B = append(w.B, '-')
	for i := 0; i < len(msg); i++ {
		c := msg[i]
		if c == '\r' || c == '\n' {
			c = ' '
		}
		w.B = append(w.B, c)
	}
	w.B = append(w.B, '\r', '\n')
}

// luaString is lua_isstring + lua_tostring: strings and numbers.
func luaString(v lua.LValue) (string, bool) {
	switch x := v.(type) {
	case lua.LString:
		return string(x), true
	case lua.LNumber:
		return formatNumber(x), true
	}
	return "", false
}

// formatNumber formats n as Lua 5.1 does (LUAI_NUMFFORMAT "%.14g").
func formatNumber(n lua.LNumber) string {
	var buf [32]byte
	return string(lua51.AppendNumber(buf[:0], float64(n)))
}

// errHandler is Redis's __redis__err__handler: it turns the error into a
// table {err=..., source=..., line=...} naming the script line that
// failed (the caller of a Go function when the error came from one).
func (e *Engine) errHandler(L *lua.LState) int {
	errv := L.Get(1)
	if errv == e.memErr {
		// LUA_ERRMEM skips the handler: the error stays a plain string.
		L.Push(lua.LString(errNoMemory))
		return 1
	}
	if e.handlerDepth == 0 {
		e.handlerLine = 0 // set again if this call's stores fail
	}
	var t *lua.LTable
	if tt, ok := errv.(*lua.LTable); ok {
		t = tt
	} else {
		t = L.CreateTable(0, 3)
		s, _ := luaString(errv)
		if errv.Type() != lua.LTString && errv.Type() != lua.LTNumber {
			s = L.ToStringMeta(errv).String()
		}
		lua51.Set(L, t, lua.LString("err"), lua.LString("ERR "+e.describe(L, s)))
	}
	skip := e.overflowAtCaller
	e.overflowAtCaller = false
	for level := 1; ; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		fn, err := L.GetInfo("Slf", dbg, lua.LNil)
		if err != nil {
			break
		}
		src, curLine := dbg.Source, dbg.CurrentLine
		if level == 1 && fn == e.scriptHandler && e.handlerLine != 0 {
			// A script's call of __redis__err__handler failed (below):
			// Redis's handler is Lua code, the error was raised on its
			// line.
			src, curLine = "err_handler_def", e.handlerLine
		} else if dbg.What == "G" || dbg.CurrentLine < 0 {
			continue
		}
		if skip {
			skip = false
			continue
		}
		if src == SourceName || src == FunctionSourceName || src == "err_handler_def" {
			src = "@" + src
		} else if name, ok := e.chunkNames[src]; ok {
			src = name
		}
		// t may be the script's own error table: Redis's handler (Lua
		// code loaded as "@err_handler_def") assigns err['source'] on
		// its line 10 and err['line'] on its line 11, which may fail.
		for i, kv := range [2]struct {
			k string
			v lua.LValue
		}{{"source", lua.LString(src)}, {"line", lua.LNumber(curLine)}} {
			if msg := handlerStore(L, t, kv.k, kv.v); msg != "" {
				line := 10 + i
				if e.handlerDepth == 0 {
					// A script called __redis__err__handler: the
					// error is its to catch.
					e.handlerLine = line
					L.Error(lua.LString(fmt.Sprintf("err_handler_def:%d: %s", line, msg)), 0)
				}
				// As the error handler: Lua calls it again with that
				// error, which names the handler's own line.
				t = L.CreateTable(0, 3)
				lua51.Set(L, t, lua.LString("err"), lua.LString(fmt.Sprintf("ERR err_handler_def:%d: %s", line, msg)))
				lua51.Set(L, t, lua.LString("source"), lua.LString("@err_handler_def"))
				lua51.Set(L, t, lua.LString("line"), lua.LNumber(line))
				break
			}
		}
		break
	}
	L.Push(t)
	return 1
}

// handlerStore is the error handler's assignment err[k] = v to the error
// table t: Lua stores into the first table of t's __newindex chain that
// holds k or has no __newindex table, and fails with the message
// handlerStore returns on a read-only table on the way (the scripts'
// shared tables: error(string), error(_G)) or when the chain is too long.
// A __newindex function is not called (Redis may crash on one): the
// value is stored into the table that has it.
func handlerStore(L *lua.LState, t *lua.LTable, k string, v lua.LValue) string {
	for range lua.MaxTableGetLoop {
		if t.ReadOnly() {
			return errReadonly
		}
		if t.RawGetString(k) == lua.LNil {
			if next, ok := metaTable(t, "__newindex"); ok {
				t = next
				continue
			}
		}
		lua51.Set(L, t, lua.LString(k), v)
		return ""
	}
	return "loop in settable"
}

// metaTable returns t's metamethod event when it is a table (a
// metatable a script set: lua51's size markers have none).
func metaTable(t *lua.LTable, event string) (*lua.LTable, bool) {
	mt, ok := t.Metatable.(*lua.LTable)
	if !ok || lua51.IsMarker(mt) {
		return nil, false
	}
	next, ok := mt.RawGetString(event).(*lua.LTable)
	return next, ok
}

// errorField is lua_getfield(t, k) on an error table, as Redis reads its
// err, source and line: through t's __index chain of tables (a function
// is not called).
func errorField(t *lua.LTable, k string) lua.LValue {
	for range lua.MaxTableGetLoop {
		if v := t.RawGetString(k); v != lua.LNil {
			return v
		}
		next, ok := metaTable(t, "__index")
		if !ok {
			break
		}
		t = next
	}
	return lua.LNil
}

// describe gives a runtime error message Lua 5.1's wording
// (lua51.Describe).
func (e *Engine) describe(L *lua.LState, s string) string { return lua51.Describe(L, s) }

// positionOf splits "user_script:12: message" into its source and line.
func positionOf(s string) (src, line string, ok bool) {
	for _, name := range []string{SourceName, FunctionSourceName} {
		if strings.HasPrefix(s, name+":") {
			rest := s[len(name)+1:]
			i := strings.IndexByte(rest, ':')
			if i <= 0 {
				return "", "", false
			}
			for _, c := range rest[:i] {
				if c < '0' || c > '9' {
					return "", "", false
				}
			}
			return name, rest[:i], true
		}
	}
	return "", "", false
}
