package luaengine

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/internal/resp"
	"github.com/lockkv/lockkv/luaengine/internal/lua51"
	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
)

func mustCompile(t testing.TB, body string) *Script {
	t.Helper()
	proto, flags, err := Compile([]byte(body))
	if err != nil {
		t.Fatalf("compile %q: %v", body, err)
	}
	return &Script{SHA: "test", Proto: proto, Flags: flags}
}

// fakeCaller answers every command with a fixed reply and records them.
type fakeCaller struct {
	calls [][]string
	reply []byte
}

func (f *fakeCaller) call(args [][]byte, proto int) []byte {
	cmd := make([]string, len(args))
	for i, a := range args {
		cmd[i] = string(a)
	}
	f.calls = append(f.calls, cmd)
	return f.reply
}

func run(t testing.TB, e *Engine, sc *Script, f *fakeCaller, keys, args []string) string {
	w := &resp.Writer{Proto: 2}
	r := &Run{Call: f.call, Name: sc.SHA, Eval: true, Out: w}
	for _, k := range keys {
		r.Keys = append(r.Keys, []byte(k))
	}
	for _, a := range args {
		r.Args = append(r.Args, []byte(a))
	}
	e.Run(sc, r)
	return string(w.B)
}

func TestRunConversions(t *testing.T) {
	e := New()
	f := &fakeCaller{reply: []byte(":7\r\n")}
	cases := []struct{ body, want string }{
		{"return 1.9", ":1\r\n"},
		{"return 'x'", "$1\r\nx\r\n"},
		{"return {1,'a',{2}}", "*3\r\n:1\r\n$1\r\na\r\n*1\r\n:2\r\n"},
		{"return true", ":1\r\n"},
		{"return false", "$-1\r\n"},
		{"return redis.call('incr', KEYS[1]) + 1", ":8\r\n"},
		{"return {ok='fine'}", "+fine\r\n"},
		{"return {err='MY err'}", "-MY err\r\n"},
		{"return ARGV[1] .. 1.5", "$4\r\nv1.5\r\n"},
	}
	for _, c := range cases {
		sc := mustCompile(t, c.body)
		if got := run(t, e, sc, f, []string{"k"}, []string{"v"}); got != c.want {
			t.Errorf("%s: got %q, want %q", c.body, got, c.want)
		}
	}
	if got := f.calls[0]; strings.Join(got, " ") != "incr k" {
		t.Errorf("call args %q", got)
	}
}

func TestGlobalsProtected(t *testing.T) {
	e := New()
	e.checkTaint = true
	f := &fakeCaller{reply: []byte("+OK\r\n")}
	for _, body := range []string{"x = 1", "string.x = 1", "rawset(_G, 'y', 1)", "setmetatable(_G, nil)", "table.insert(string, 1)"} {
		run(t, e, mustCompile(t, body), f, nil, nil)
	}
	for _, body := range []string{"return x", "return string.x", "return y", "return string[1]"} {
		got := run(t, e, mustCompile(t, body), f, nil, nil)
		if !strings.HasPrefix(got, "-") && got != "$-1\r\n" {
			t.Errorf("%s leaked state: %q", body, got)
		}
	}
	if e.tainted() {
		t.Errorf("a read-only table changed")
	}
}

func TestRand48MatchesRedis(t *testing.T) {
	// First values of a fresh Redis 7.0 server (math.random()).
	r := newRand48()
	got := formatNumber(luaNumber(float64(r.next()%lrand48Max) / float64(lrand48Max)))
	if got != "0.39646477363839" {
		t.Fatalf("first random %s", got)
	}
}

func TestCompileShebang(t *testing.T) {
	for body, want := range map[string]string{
		"#!lua\nreturn 1":                 "",
		"#!lua flags=no-writes\nreturn 1": "",
		"#!lux\nreturn 1":                 "ERR Unexpected engine in script shebang: #!lux",
		"#!lua flags=x\nreturn 1":         "ERR Unexpected flag in script shebang: x",
		"#!lua":                           "ERR Invalid script shebang",
	} {
		_, _, err := Compile([]byte(body))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != want {
			t.Errorf("%q: got %q want %q", body, got, want)
		}
	}
}

func BenchmarkRunLockAcquire(b *testing.B) {
	e := New()
	sc := mustCompile(b, `if (redis.call('exists', KEYS[1]) == 0) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
return redis.call('pttl', KEYS[1]);`)
	f := &fakeCaller{reply: []byte(":0\r\n")}
	w := &resp.Writer{Proto: 2}
	r := &Run{Call: func(args [][]byte, proto int) []byte { return f.reply }, Name: "x", Eval: true, Out: w,
		Keys: [][]byte{[]byte("lock")}, Args: [][]byte{[]byte("30000"), []byte("uuid:1")}}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		w.Reset()
		e.Run(sc, r)
	}
}

// The lock scripts' hot path must stay cheap: a regression that adds
// allocations per call (an `arg` table, a copy of the reply) shows here.
func TestRunAllocations(t *testing.T) {
	e := New()
	sc := mustCompile(t, `if (redis.call('exists', KEYS[1]) == 0) then
    redis.call('hincrby', KEYS[1], ARGV[2], 1);
    redis.call('pexpire', KEYS[1], ARGV[1]);
    return nil;
end;
return redis.call('pttl', KEYS[1]);`)
	reply := []byte(":0\r\n")
	w := &resp.Writer{Proto: 2}
	r := &Run{Call: func(args [][]byte, proto int) []byte { return reply }, Name: "x", Eval: true, Out: w,
		Keys: [][]byte{[]byte("lock")}, Args: [][]byte{[]byte("30000"), []byte("uuid:1")}}
	allocs := testing.AllocsPerRun(200, func() {
		w.Reset()
		e.Run(sc, r)
	})
	// KEYS and ARGV's strings: their bytes and their headers.
	if allocs > 2 {
		t.Fatalf("%.0f allocations per call", allocs)
	}
}

// TestIntegerReplies: integer replies convert to the same Lua numbers
// inside the range answered from pre-made values and outside it.
func TestIntegerReplies(t *testing.T) {
	e := New()
	sc := mustCompile(t, `local n = redis.call('incr', 'k'); return {type(n), tostring(n), n + 1, math.type and 1 or 0}`)
	for _, n := range []string{"-9223372036854775808", "-3", "-2", "-1", "0", "1", "1023", "1024", "30000"} {
		f := &fakeCaller{reply: []byte(":" + n + "\r\n")}
		w := &resp.Writer{Proto: 2}
		e.Run(sc, &Run{Call: f.call, Name: "x", Eval: true, Out: w})
		v, _ := strconv.ParseInt(n, 10, 64)
		want := fmt.Sprintf("*4\r\n$6\r\nnumber\r\n$%d\r\n%s\r\n:%d\r\n:0\r\n", len(n), n, v+1)
		if n == "-9223372036854775808" {
			want = "*4\r\n$6\r\nnumber\r\n$20\r\n-9.2233720368548e+18\r\n:-9223372036854775808\r\n:0\r\n"
		}
		if got := string(w.B); got != want {
			t.Errorf(":%s: got %q, want %q", n, got, want)
		}
	}
}

// TestCallNumberArgs: numbers passed to redis.call are formatted with
// %.17g into one buffer that grows while the arguments are read; every
// argument keeps its own bytes, and the next call's do not overwrite
// them while the command runs.
func TestCallNumberArgs(t *testing.T) {
	e := New()
	sc := mustCompile(t, `local a = {}
for i = 1, 300 do a[#a + 1] = (i % 3 == 0) and ('s' .. i) or (i * 1.5 + 1e15) end
redis.call('x', unpack(a))
return redis.call('y', 0.1, -2.5, 1/0, 'z', 2^63)`)
	var got [][]string
	w := &resp.Writer{Proto: 2}
	e.Run(sc, &Run{Name: "x", Eval: true, Out: w, Call: func(args [][]byte, proto int) []byte {
		cmd := make([]string, len(args))
		for i, a := range args {
			cmd[i] = string(a)
		}
		got = append(got, cmd)
		return []byte("+OK\r\n")
	}})
	if len(got) != 2 || len(got[0]) != 301 {
		t.Fatalf("calls %d, reply %q", len(got), w.B)
	}
	for i := 1; i <= 300; i++ {
		want := "s" + strconv.Itoa(i)
		if i%3 != 0 {
			want = strconv.FormatFloat(float64(i)*1.5+1e15, 'g', 17, 64)
		}
		if got[0][i] != want {
			t.Fatalf("argument %d: %q, want %q", i, got[0][i], want)
		}
	}
	if s := strings.Join(got[1], " "); s != "y 0.10000000000000001 -2.5 inf z 9.2233720368547758e+18" {
		t.Fatalf("second call: %q", s)
	}
}

// TestReadOnlyTables: every table a script can reach from the globals
// (the libraries, the global table, their metatables and the string
// metatable), in both engines, is read-only, so a table added to the
// sandbox without freeze fails here; KEYS and ARGV are not.
func TestReadOnlyTables(t *testing.T) {
	for _, e := range []*Engine{New(), NewFunctionEngine(New())} {
		seen := map[*lua.LTable]bool{}
		var walk func(path string, v lua.LValue)
		walk = func(path string, v lua.LValue) {
			tb, ok := v.(*lua.LTable)
			if !ok || seen[tb] {
				return
			}
			seen[tb] = true
			if !tb.ReadOnly() {
				t.Errorf("functions=%v: %s is writable", e.functions, path)
			}
			if mt, ok := tb.Metatable.(*lua.LTable); ok && !lua51.IsMarker(mt) {
				walk(path+" metatable", mt)
			}
			lua51.Unordered(tb, func(k, v lua.LValue) {
				if tb == e.globals && (k == lua.LString("KEYS") || k == lua.LString("ARGV")) {
					return
				}
				walk(path+"."+k.String(), v)
			})
		}
		walk("_G", e.env)
		walk("string metatable", e.strmeta)
		if e.functions {
			walk("load environment", e.loadIndex)
		}
		if len(seen) < 12 {
			t.Errorf("functions=%v: walked %d tables", e.functions, len(seen))
		}
	}
}

// TestStringIndexSealed: what strings are indexed through (("").k, the
// string metatable's __index) gives a script neither a table it could
// write to, nor metamethods Lua 5.1 does not have, nor the Lua 5.1
// emulation's helpers, which store into any table they are handed (the
// read-only globals included). Each attempt is followed by a script that
// would see what it changed.
func TestStringIndexSealed(t *testing.T) {
	e := New()
	e.checkTaint = true
	f := &fakeCaller{reply: []byte("+OK\r\n")}
	for _, c := range []struct{ body, want string }{
		{"return type(('').__index)", "$3\r\nnil\r\n"},
		{"return type(('').__add)", "$3\r\nnil\r\n"},
		{"return rawequal(('').format, string.format)", ":1\r\n"},
		{"return rawequal(('').upper, string.upper)", ":1\r\n"},
		{"return type(('')['\\0(lockkv table)'])", "$3\r\nnil\r\n"},
		{"return type(('')['\\0(lockkv split table)'])", "$3\r\nnil\r\n"},
		{"return ('%d'):format(7)", "$1\r\n7\r\n"},
	} {
		if got := run(t, e, mustCompile(t, c.body), f, nil, nil); got != c.want {
			t.Errorf("%s: got %q want %q", c.body, got, c.want)
		}
	}
	for _, body := range []string{
		"pcall(function() ('').__index.upper = function() return 'x' end end)",
		"pcall(function() ('')['\\0(lockkv table)'](_G, 0) end)",
		"pcall(function() local s, p = ('')['\\0(lockkv stash)'], ('')['\\0(lockkv split table)'] s(2, 'redis', 1) p(_G, 0, 0, 0, 1, 0) end)",
	} {
		run(t, e, mustCompile(t, body), f, nil, nil)
	}
	for body, want := range map[string]string{
		"return ('a'):upper()": "$1\r\nA\r\n",
		"return type(redis)":   "$5\r\ntable\r\n",
		"return nosuch":        "-ERR user_script:1: Script attempted to access nonexistent global variable 'nosuch'",
	} {
		if got := run(t, e, mustCompile(t, body), f, nil, nil); !strings.HasPrefix(got, want) {
			t.Errorf("%s: got %q want %q", body, got, want)
		}
	}
}

// TestConstructorStateEndsWithRun: a script that ends with a coroutine
// suspended inside a table constructor leaves nothing of it in the Lua
// 5.1 emulation (the keys its fields read), which the next script's
// constructors would otherwise take for theirs.
func TestConstructorStateEndsWithRun(t *testing.T) {
	e := New()
	f := &fakeCaller{reply: []byte("+OK\r\n")}
	for _, body := range []string{
		"local co = coroutine.wrap(function() local k = 1 return {[k] = 1, [k + 1] = coroutine.yield()} end) co() return 1",
		"local co = coroutine.wrap(function() local k = 1 return {[k] = 1, [k + 1] = coroutine.yield()} end) co() error('x')",
	} {
		run(t, e, mustCompile(t, body), f, nil, nil)
		if m := e.emu.Mark(); m != (lua51.Mark{}) {
			t.Errorf("%s: the emulation kept %v", body, m)
		}
	}
}
