package luaengine

import (
	"bytes"
	"strings"
	"time"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
	"github.com/lockkv/lockkv/third_party/yuin/gopher-lua/parse"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// FunctionSourceName is the chunk name of FUNCTION libraries.
const FunctionSourceName = "user_function"

// LoadTimeout bounds the code FUNCTION LOAD runs (Redis's 500 ms) where
// no step budget does.
const LoadTimeout = 500 * time.Millisecond

// NoLimit is a step budget no library reaches: for code that already
// loaded once under its budget (a snapshot's libraries), whose load is
// deterministic.
const NoLimit = ^uint64(0)

// Library is a loaded FUNCTION library.
type Library struct {
	Name      string
	Code      string // the full code, shebang included (FUNCTION LIST WITHCODE)
	Functions []*Function
	// names are the Functions' names, while the library loads.
	names map[string]bool
}

// Function is a function a library registered.
type Function struct {
	Name        string
	Description string
	HasDesc     bool
	Flags       uint64
	Lib         *Library
	fn          *lua.LFunction
}

// FlagNames returns the names of the function's flags in Redis's order.
func (f *Function) FlagNames() []string {
	var out []string
	for _, fn := range flagNames {
		if f.Flags&fn.flag != 0 {
			out = append(out, fn.name)
		}
	}
	return out
}

// NewFunctionEngine returns the interpreter FUNCTION libraries run in (Redis
// keeps them apart from EVAL scripts: no KEYS/ARGV globals). It draws
// math.random from the same generator as eval.
func NewFunctionEngine(eval *Engine) *Engine {
	e := &Engine{rand: eval.rand, functions: true}
	e.reset()
	return e
}

// setupLoadEnv builds what a library sees while it loads: only a `redis`
// table with register_function, log, LOG_* and the version; any other
// global or field is an error.
func (e *Engine) setupLoadEnv() {
	L := e.L
	r := L.CreateTable(0, 8)
	r.RawSetString("register_function", L.NewFunction(e.registerFunction))
	full := e.globals.RawGetString("redis").(*lua.LTable)
	for _, k := range []string{"log", "LOG_DEBUG", "LOG_VERBOSE", "LOG_NOTICE", "LOG_WARNING", "REDIS_VERSION", "REDIS_VERSION_NUM"} {
		r.RawSetString(k, full.RawGetString(k))
	}
	errMeta := L.CreateTable(0, 1)
	errMeta.RawSetString("__index", L.NewFunction(globalError))
	e.freeze(errMeta)
	L.SetMetatable(r, errMeta)
	g := L.CreateTable(0, 1)
	g.RawSetString("redis", e.freeze(r))
	e.freeze(g)
	L.SetMetatable(g, errMeta)
	e.loadIndex = g
}

// ParseLibraryMeta reads a library's "#!<engine> name=<name>" first line.
// It returns the engine, the name and the offset of the code after the
// shebang (its newline included), or the error text Redis sends.
func ParseLibraryMeta(code []byte) (engine, name string, off int, errMsg string) {
	if !bytes.HasPrefix(code, []byte("#!")) {
		return "", "", 0, "ERR Missing library metadata"
	}
	nl := bytes.IndexByte(code, '\n')
	if nl < 0 {
		return "", "", 0, "ERR Invalid library metadata"
	}
	parts := strings.Split(string(code[:nl]), " ")
	engine = parts[0][2:]
	for _, p := range parts[1:] {
		if strings.HasPrefix(p, "name=") {
			if name != "" {
				return "", "", 0, "ERR Invalid metadata value, name argument was given multiple times"
			}
			name = p[len("name="):]
			continue
		}
		if p == "" {
			continue
		}
		return "", "", 0, "ERR Invalid metadata value given: " + p
	}
	if name == "" {
		return "", "", 0, "ERR Library name was not given"
	}
	return engine, name, nl, ""
}

// ValidName is functionsVerifyName: letters, digits and '_', not empty.
func ValidName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// LoadLibrary compiles a library's code (what follows the shebang) and
// runs it so that it registers its functions. The error is the reply
// text Redis sends. With maxSteps 0 the code may run LoadTimeout, as in
// Redis; otherwise it may take maxSteps steps (of budget, as Run's) and
// the clock is never
// read, so that it loads or fails alike wherever it runs (a library
// loaded from a cluster's log).
func (e *Engine) LoadLibrary(lib *Library, code []byte, maxSteps, budget uint64) error {
	m, src := lua51.CheckSyntax(string(code), FunctionSourceName, true, 0)
	if m != "" {
		return &CompileError{"ERR Error compiling function: " + m}
	}
	chunk, err := parse.Parse(strings.NewReader(src), FunctionSourceName)
	if err != nil {
		return &CompileError{"ERR Error compiling function: " + luaSyntaxError(err, FunctionSourceName).Error()}
	}
	chunk = lua51.Rewrite(chunk, 1, loopWeight)
	proto, err := lua.Compile(chunk, FunctionSourceName)
	if err != nil {
		return &CompileError{"ERR Error compiling function: " + luaSyntaxError(err, FunctionSourceName).Error()}
	}
	L := e.L
	fn := L.NewFunctionFromProto(proto)
	fn.Env = e.env
	em := L.GetMetatable(e.env).(*lua.LTable)
	em.RawSetString("__index", e.loadIndex)
	e.loading = lib
	e.run = &Run{BusyThreshold: LoadTimeout, MaxSteps: maxSteps}
	if maxSteps != 0 {
		e.run.BusyThreshold = 0
	}
	e.startSteps(e.run.BusyThreshold > 0, maxSteps, budget)
	e.beginRun()
	L.Push(fn)
	// The error passes unchanged (Redis runs the code without a
	// handler); a handler that only passes it on spares gopher-lua a
	// stack trace, which is quadratic in the depth.
	perr := e.runProtected(e.run, 0, e.passHandler)
	e.emu.Unwind(lua51.Mark{}) // as after a script (call)
	e.loading, e.run, e.checking = nil, nil, false
	lib.names = nil
	em.RawSetString("__index", e.globals)
	L.SetTop(0)
	if perr != nil {
		var obj lua.LValue = lua.LString(perr.Error())
		if ae, ok := perr.(*lua.ApiError); ok {
			obj = ae.Object
		}
		if obj == e.memErr {
			obj = lua.LString(errNoMemory)
		}
		msg := ""
		if s, ok := luaString(obj); ok {
			msg = "ERR " + lua51.Message(s)
		}
		if t, ok := obj.(*lua.LTable); ok {
			if s, ok := luaString(t.RawGetString("err")); ok {
				msg = s
			}
		}
		return &CompileError{"ERR Error registering functions: " + msg}
	}
	if len(lib.Functions) == 0 {
		return &CompileError{"ERR No functions registered"}
	}
	return nil
}

// Call runs a library function with the keys and args tables.
func (e *Engine) Call(f *Function, run *Run) {
	run.Eval = false
	e.call(f.fn, run)
}

// registerFunction is redis.register_function.
func (e *Engine) registerFunction(L *lua.LState) int {
	lib := e.loading
	if lib == nil {
		raise(L, "redis.register_function can only be called on FUNCTION LOAD command")
	}
	f := &Function{Lib: lib}
	var cb *lua.LFunction
	switch L.GetTop() {
	case 1:
		t, ok := L.Get(1).(*lua.LTable)
		if !ok {
			raise(L, "calling redis.register_function with a single argument is only applicable to Lua table (representing named arguments).")
		}
		haveName := false
		var errMsg string
		lua51.ForEach(t, func(k, v lua.LValue) {
			if errMsg != "" {
				return
			}
			key, ok := luaString(k)
			if !ok {
				errMsg = "named argument key given to redis.register_function is not a string"
				return
			}
			switch strings.ToLower(key) {
			case "function_name":
				s, ok := luaString(v)
				if !ok {
					errMsg = "function_name argument given to redis.register_function must be a string"
					return
				}
				f.Name, haveName = s, true
			case "description":
				s, ok := luaString(v)
				if !ok {
					errMsg = "description argument given to redis.register_function must be a string"
					return
				}
				f.Description, f.HasDesc = s, true
			case "callback":
				fn, ok := v.(*lua.LFunction)
				if !ok {
					errMsg = "callback argument given to redis.register_function must be a function"
					return
				}
				cb = fn
			case "flags":
				ft, ok := v.(*lua.LTable)
				if !ok {
					errMsg = "flags argument to redis.register_function must be a table representing function flags"
					return
				}
				var flags uint64
				for j := 1; ; j++ {
					fv := ft.RawGetInt(j)
					if fv == lua.LNil {
						break
					}
					s, ok := luaString(fv)
					found := false
					for _, fn := range flagNames {
						if ok && strings.EqualFold(fn.name, s) {
							flags |= fn.flag
							found = true
						}
					}
					if !found {
						errMsg = "unknown flag given"
						return
					}
				}
				f.Flags = flags
			default:
				errMsg = "unknown argument given to redis.register_function"
			}
		})
		if errMsg != "" {
			raise(L, errMsg)
		}
		if !haveName {
			raise(L, "redis.register_function must get a function name argument")
		}
		if cb == nil {
			raise(L, "redis.register_function must get a callback argument")
		}
	case 2:
		s, ok := luaString(L.Get(1))
		if !ok {
			raise(L, "first argument to redis.register_function must be a string")
		}
		fn, ok := L.Get(2).(*lua.LFunction)
		if !ok {
			raise(L, "second argument to redis.register_function must be a function")
		}
		f.Name, cb = s, fn
	default:
		raise(L, "wrong number of arguments to redis.register_function")
	}
	if !ValidName(f.Name) {
		raise(L, "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long")
	}
	// A map, not a scan of Functions: a library may register 100,000.
	if lib.names == nil {
		lib.names = make(map[string]bool, len(lib.Functions))
		for _, g := range lib.Functions {
			lib.names[g.Name] = true
		}
	}
	if lib.names[f.Name] {
		raise(L, "Function already exists in the library")
	}
	lib.names[f.Name] = true
	f.fn = cb
	lib.Functions = append(lib.Functions, f)
	return 0
}
