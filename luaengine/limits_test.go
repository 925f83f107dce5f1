package luaengine

import (
	"runtime"
	"strings"
	"testing"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/internal/resp"
)

// Scripts that crashed the process (a Go stack overflow is fatal), hung it
// or grew it by gigabytes before luaengine bounded them. Each must end
// with Redis's answer (checked against redis-server by the conformance
// suite) and leave the interpreter usable, without allocating more than
// a generous bound.
var crashers = []struct {
	name, body string
	want       string // the reply's start
	// limit, when set, lowers maxStringLen for the case: the scripts
	// that make exponentially long output stop at it sooner.
	limit int
}{
	{"self-referencing reply", "local t={} t[1]=t return t", "*1\r\n*1\r\n", 0},
	{"self-referencing map reply", "redis.setresp(3) local t={} t.map={a=t} return t", "*2\r\n$1\r\na\r\n*2\r\n", 0},
	{"exponential reply", "local t={} for i=1,100 do t[i]=t end return t", "-ERR Error running script test, not enough memory", 16 << 20},
	{"string.byte 300000", "return select('#', string.byte(string.rep('a',300000),1,-1))", "-ERR user_script:1: stack overflow (string slice too long)", 0},
	{"unpack huge range", "return select('#', unpack({}, 1, 1e6))", "-ERR user_script:1: too many results to unpack", 0},
	{"unpack overflowing range", "return select('#', unpack({}, -2147483648, 2147483647))", "-ERR user_script:1: too many results to unpack", 0},
	{"struct.unpack many", "return select('#', struct.unpack(string.rep('b', 300000), string.rep('x', 300000)))", "-ERR user_script:1: stack overflow (too many results)", 0},
	{"struct size overflow", "return struct.pack('c99999999999', 'x')", "-ERR user_script:1: integral size overflow", 0},
	{"cmsgpack.unpack many", "return select('#', cmsgpack.unpack(string.rep(string.char(1), 300000)))", "-ERR user_script:1: stack overflow (too many return values at once", 0},
	{"cmsgpack.unpack deep", "return cmsgpack.unpack(string.rep(string.char(0x91), 100000)..string.char(1))", "-ERR user_script:1: stack overflow (in function mp_decode_to_lua_array)", 0},
	{"cmsgpack.pack many args", "local t = {} for i=1,5000 do t[i]=i end return cmsgpack.pack(unpack(t))", "-ERR user_script:1: bad argument #0 to 'pack' (Too many arguments for MessagePack pack.)", 0},
	{"cmsgpack.pack exponential", "local t={} for i=1,100 do t[i]=t end return cmsgpack.pack(t)", "-ERR Error running script test, not enough memory", 16 << 20},
	{"cjson.decode deep", "cjson.decode_max_depth(2^31-1) return cjson.decode(string.rep('[', 1000000))", "-ERR user_script:1: Found too many nested data structures (7999) at character 7999", 0},
	{"cjson.encode deep", "cjson.encode_max_depth(2^31-1) local t={} t[1]=t return cjson.encode(t)", "-ERR user_script:1: Cannot serialise, excessive nesting (7998)", 0},
	{"cjson.encode exponential", "local t = {} for d=1,6 do local u = {} for i=1,100 do u[i]=t end t = u end return cjson.encode(t)", "-ERR Error running script test, not enough memory", 16 << 20},
	{"plain recursion", "local function f() return f() + 1 end return f()", "-ERR user_script:1: stack overflow", 0},
	{"coroutine nest", "local function f(n) if n == 0 then return 0 end local co = coroutine.create(f) local ok, v = coroutine.resume(co, n-1) if not ok then error(v, 0) end return v + 1 end return f(250)", "-ERR C stack overflow", 0},
	{"coroutine.wrap nest", "local function f(n) if n == 0 then return 0 end return coroutine.wrap(f)(n-1) + 1 end return f(250)", "-ERR user_script:1: user_script:1: ", 0},
	{"pcall nest", "local d = 0 local function f() d = d + 1 local ok, e = pcall(f) return e end local r = f() return {d, r}", "*2\r\n:199\r\n$16\r\nC stack overflow\r\n", 0},
	{"coroutine and pcall nest", "local d = 0 local function f() d = d + 1 local co = coroutine.create(function() return pcall(f) end) local ok, a, b = coroutine.resume(co) return tostring(ok) .. tostring(a) .. tostring(b) end local r = f() return {d, #r}", "*2\r\n:101\r\n:824\r\n", 0},
	{"metamethods in nested coroutines", "local function f(n) if n == 0 then return 0 end local co = coroutine.wrap(function() local t = setmetatable({}, {__index=function(t,k) if k == 0 then return f(n-1) end return t[k-1] end}) return t[1000] end) return co() + 1 end return f(250)", "-ERR user_script:1: user_script:1: ", 0},
	{"string.rep huge", "return #string.rep('x', 2^29 + 1)", "-ERR Error running script test, not enough memory", 0},
	{"string.rep C int", "return #string.rep('x', 2^32 + 3)", ":3\r\n", 0},
	{"concatenation", "local s = string.rep('x', 2^27) return #(s .. s .. s .. s .. s)", "-ERR Error running script test, not enough memory", 0},
	{"table.concat", "local s = string.rep('x', 2^27) return #table.concat({s, s, s, s, s})", "-ERR Error running script test, not enough memory", 0},
	{"gsub result", "local s = string.rep('x', 2^20) return #string.gsub(s, 'x', s)", "-ERR Error running script test, not enough memory", 16 << 20},
	{"gsub many matches", "return select(2, string.gsub(string.rep('x', 1000000), 'x', 'y'))", ":1000000\r\n", 0},
	{"deep pattern", "return string.find(string.rep('a', 300000), string.rep('a?', 300000))", "-ERR user_script:1: pattern too complex", 0},
	{"deep script", "return loadstring('return ' .. string.rep('(', 1000000) .. '1' .. string.rep(')', 1000000))", "$-1\r\n", 0},
	{"deep script error", "return select(2, loadstring('return ' .. string.rep('(', 1000000)))", `$113` + "\r\n" + `[string "return ((((`, 0},
	{"xpcall handler recursion", "local function h(m) return h(m) .. 'x' end return {xpcall(function() error('x') end, h)}", "*2\r\n$-1\r\n$23\r\nerror in error handling\r\n", 0},
	{"load reader", "local n = 0 return select(2, load(function() n = n + 1 if n < 100000 then return ' ' end end))", "$-1\r\n", 0},
}

func TestBoundsSurviveCrashers(t *testing.T) {
	f := &fakeCaller{reply: []byte("+OK\r\n")}
	defer func(n int) { maxStringLen = n }(maxStringLen)
	for _, c := range crashers {
		t.Run(c.name, func(t *testing.T) {
			e := New() // cjson's settings last as long as the interpreter
			maxStringLen = 512 << 20
			if c.limit != 0 {
				maxStringLen = c.limit
			}
			runtime.GC()
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got := run(t, e, mustCompile(t, c.body), f, nil, nil)
			runtime.ReadMemStats(&after)
			if !strings.HasPrefix(got, c.want) {
				t.Errorf("got %.200q, want it to start with %q", got, c.want)
			}
			// The largest strings the scripts build are 128 MB (and
			// those they are refused are never built); the output
			// buffers that reach the limit grow by doubling, and the
			// exponential encodings make garbage (gopher-lua boxes the
			// numbers a table walk returns) on the way to it.
			if d := after.TotalAlloc - before.TotalAlloc; d > 1<<30 {
				t.Errorf("the script allocated %d MB", d>>20)
			}
			if got := run(t, e, mustCompile(t, "return 1"), f, nil, nil); got != ":1\r\n" {
				t.Errorf("the interpreter is not usable after it: %q", got)
			}
		})
	}
}

// The coroutine nest, with metamethod recursion at every level, is the
// deepest Go stack a script can build: bounded by the frames of 200
// threads, it must stay far below Go's 1 GB stack limit and the heap
// must come back.
func TestCoroutineNestMemory(t *testing.T) {
	e := New()
	f := &fakeCaller{reply: []byte("+OK\r\n")}
	body := "local function f(n) if n == 0 then return 0 end local co = coroutine.wrap(function() local t = setmetatable({}, {__index=function(t,k) if k == 0 then return f(n-1) end return t[k-1] end}) return t[1000] end) return co() + 1 end return f(250)"
	var stack uint64
	e.Run(mustCompile(t, body), &Run{Name: "test", Eval: true, Out: &resp.Writer{Proto: 2}, Call: func(args [][]byte, proto int) []byte {
		return f.reply
	}})
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	stack = ms.StackInuse
	if stack > 512<<20 {
		t.Errorf("stacks in use after the script: %d MB", stack>>20)
	}
	e = nil
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if ms.HeapAlloc > 256<<20 {
		t.Errorf("heap after the script: %d MB", ms.HeapAlloc>>20)
	}
}

// A depth probe: the deepest Go stack the nest reaches while it runs.
func TestCoroutineNestStackPeak(t *testing.T) {
	e := New()
	var peak uint64
	body := "local function f(n) if n == 0 then return redis.call('ping') end local co = coroutine.wrap(function() local t = setmetatable({}, {__index=function(t,k) if k == 0 then return f(n-1) end return t[k-1] end}) return t[1000] end) return co() end return f(198)"
	w := &resp.Writer{Proto: 2}
	e.Run(mustCompile(t, body), &Run{Name: "test", Eval: true, Out: w, Call: func(args [][]byte, proto int) []byte {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = ms.StackInuse
		return []byte("+PONG\r\n")
	}})
	if string(w.B) != "+PONG\r\n" {
		t.Fatalf("reply %q", w.B)
	}
	if peak == 0 || peak > 512<<20 {
		t.Errorf("stacks in use at the deepest point: %d MB", peak>>20)
	}
}

// An error raised with the Lua stack exactly full escapes gopher-lua's
// error handling (it pushes the handler first); runProtected recovers it
// and unwinds the interpreter, the script fails with an error, the
// recovery is logged and the interpreter goes on.
func TestEscapedErrorRecovered(t *testing.T) {
	e := New()
	e.globals.RawSetString("fill", e.L.NewFunction(func(L *lua.LState) int {
		for {
			L.Push(lua.LTrue) // until gopher-lua raises "registry overflow"
		}
	}))
	var logged []string
	w := &resp.Writer{Proto: 2}
	r := &Run{Name: "sha1", Eval: true, Out: w, Call: func([][]byte, int) []byte { return nil },
		Log: func(level int, msg string) { logged = append(logged, msg) }}
	e.Run(mustCompile(t, "return fill()"), r)
	if got := string(w.B); !strings.HasPrefix(got, "-ERR ") || !strings.Contains(got, "registry overflow") {
		t.Errorf("reply %q", got)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "sha1") {
		t.Errorf("logged %q", logged)
	}
	w.Reset()
	e.Run(mustCompile(t, "return {1, 'two', redis.status_reply('x')}"), r)
	if got := string(w.B); got != "*3\r\n:1\r\n$3\r\ntwo\r\n+x\r\n" {
		t.Errorf("after the recovery: %q", got)
	}
}

// A Go panic in the host's command is the command's error reply, logged.
func TestGoPanicRecovered(t *testing.T) {
	e := New()
	var logged []string
	w := &resp.Writer{Proto: 2}
	r := &Run{Name: "sha2", Eval: true, Out: w, Call: func([][]byte, int) []byte { panic("boom") },
		Log: func(level int, msg string) { logged = append(logged, msg) }}
	e.Run(mustCompile(t, "return redis.call('get', 'k')"), r)
	if got := string(w.B); got != "-ERR internal error running the command script: sha2, on @user_script:1.\r\n" {
		t.Errorf("reply %q", got)
	}
	if len(logged) != 1 || !strings.Contains(logged[0], "sha2") || !strings.Contains(logged[0], "boom") {
		t.Errorf("logged %q", logged)
	}
}

// A loadstring'ed loop passes the check points, so SCRIPT KILL stops it
// (it used to hold the server for good).
func TestLoadstringKillable(t *testing.T) {
	e := New()
	w := &resp.Writer{Proto: 2}
	calls := 0
	r := &Run{Name: "x", Eval: true, Out: w, BusyThreshold: 1, Call: func([][]byte, int) []byte { return nil },
		WhileBusy: func() { calls++ }, Killed: func() bool { return calls > 2 }}
	e.Run(mustCompile(t, "loadstring('while true do end')()"), r)
	if got := string(w.B); !strings.Contains(got, errKilled) {
		t.Errorf("reply %q", got)
	}
	// So does a match that backtracks for ever (in Redis it cannot be
	// stopped, no Lua hook runs inside string.find).
	w.Reset()
	calls = 0
	e.Run(mustCompile(t, "return string.find(string.rep('a', 3000), string.rep('a?', 3000) .. 'b')"), r)
	if got := string(w.B); !strings.Contains(got, errKilled) {
		t.Errorf("reply %q", got)
	}
}

// parseReply takes any bytes: malformed or too deeply nested replies are
// redis.call errors, never a crash.
func TestParseReplyBounded(t *testing.T) {
	e := New()
	for _, c := range []struct{ reply, want string }{
		{":1\r\n", ":1\r\n"},
		{"*2\r\n:1\r\n$1\r\nx\r\n", "*2\r\n:1\r\n$1\r\nx\r\n"},
		{"*99999999999\r\n", "-ERR Protocol error: malformed reply from the command"},
		{"*3\r\n:1\r\n", "-ERR Protocol error: malformed reply from the command"},
		{"$5\r\nab\r\n", "-ERR Protocol error: malformed reply from the command"},
		{"$-5\r\n", "-ERR Protocol error: malformed reply from the command"},
		{"%-1\r\n", "-ERR Protocol error: malformed reply from the command"},
		{"", "-ERR Protocol error: malformed reply from the command"},
		{strings.Repeat("*1\r\n", 4000) + ":1\r\n", strings.Repeat("*1\r\n", 4000) + ":1\r\n"},
		{strings.Repeat("*1\r\n", 4001) + ":1\r\n", "-ERR lua stack limit reach when parsing redis.call reply"},
		{strings.Repeat("*1\r\n", 1000000) + ":1\r\n", "-ERR lua stack limit reach when parsing redis.call reply"},
	} {
		f := &fakeCaller{reply: []byte(c.reply)}
		got := run(t, e, mustCompile(t, "return redis.pcall('x')"), f, nil, nil)
		if !strings.HasPrefix(got, c.want) {
			t.Errorf("%.40q: got %.80q, want %.80q", c.reply, got, c.want)
		}
	}
}
