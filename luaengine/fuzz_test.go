package luaengine

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/internal/resp"
)

// Fuzz targets for the code that walks what a script controls: the
// decoders and encoders of the libraries, and the conversions between
// Lua values and RESP. Each input must end in a reply (a value or a Lua
// error), never a crash or a recovered Go panic, and the round trips
// must be stable.
//
//	go test -run '^$' -fuzz FuzzCjson -fuzztime 3m -parallel 1 ./luaengine

// fuzzEngine runs scripts for a fuzz target; a recovered panic fails it.
type fuzzEngine struct {
	e      *Engine
	panics []string
	w      resp.Writer
}

func newFuzzEngine() *fuzzEngine {
	return &fuzzEngine{e: New(), w: resp.Writer{Proto: 2}}
}

func (fe *fuzzEngine) run(t *testing.T, sc *Script, args ...string) value {
	t.Helper()
	fe.w.Reset()
	// Scripts that run long (a backtracking pattern) are killed after
	// some 250000 steps (64 busy checks, one every busyPeriod steps):
	// far more than any round trip of a few KB takes.
	checks := 0
	r := &Run{Name: "fuzz", Eval: true, Out: &fe.w, Call: func([][]byte, int) []byte { return []byte("+OK\r\n") },
		Log:           func(level int, msg string) { fe.panics = append(fe.panics, msg) },
		BusyThreshold: 1, WhileBusy: func() { checks++ }, Killed: func() bool { return checks > 64 }}
	for _, a := range args {
		r.Args = append(r.Args, []byte(a))
	}
	// An input the engine cannot finish with is a failure too: the
	// panic ends the worker and the fuzzer keeps the input.
	watchdog := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("script still running after 10 s on %.300q", args)) })
	defer watchdog.Stop()
	fe.e.Run(sc, r)
	if len(fe.panics) > 0 {
		t.Fatalf("recovered: %q", fe.panics)
	}
	v, rest, ok := readRESP(fe.w.B)
	if !ok || len(rest) != 0 {
		t.Fatalf("malformed reply %.200q", fe.w.B)
	}
	return v
}

// value is a parsed RESP reply.
type value struct {
	kind  byte
	str   string
	elems []value
}

// readRESP parses one RESP2/RESP3 reply strictly.
func readRESP(b []byte) (value, []byte, bool) {
	if len(b) == 0 {
		return value{}, nil, false
	}
	kind := b[0]
	i := strings.Index(string(b), "\r\n")
	if i < 0 {
		return value{}, nil, false
	}
	line, rest := string(b[1:i]), b[i+2:]
	v := value{kind: kind, str: line}
	switch kind {
	case '+', '-', ':', ',', '(', '#', '_':
		return v, rest, true
	case '$', '=':
		n, err := strconv.Atoi(line)
		if err != nil || n < -1 {
			return value{}, nil, false
		}
		if n == -1 {
			return v, rest, kind == '$'
		}
		if len(rest) < n+2 || string(rest[n:n+2]) != "\r\n" {
			return value{}, nil, false
		}
		v.str = string(rest[:n])
		return v, rest[n+2:], true
	case '*', '%', '~', '>':
		n, err := strconv.Atoi(line)
		if err != nil || n < -1 || (n == -1 && kind != '*') {
			return value{}, nil, false
		}
		if kind == '%' {
			n *= 2
		}
		for j := 0; j < n; j++ {
			var e value
			var ok bool
			if e, rest, ok = readRESP(rest); !ok {
				return value{}, nil, false
			}
			v.elems = append(v.elems, e)
		}
		return v, rest, true
	}
	return value{}, nil, false
}

var cjsonRoundTrip = `
local ok, v = pcall(cjson.decode, ARGV[1])
if not ok then return {0, v} end
local ok1, s1 = pcall(cjson.encode, v)
if not ok1 then return {1, s1} end
local ok2, v2 = pcall(cjson.decode, s1)
if not ok2 then return {2, v2} end
return {3, s1, cjson.encode(v2)}`

// FuzzCjson decodes any text; what decodes must encode to JSON that
// decodes again and encodes to as many bytes (key order may differ).
func FuzzCjson(f *testing.F) {
	for _, s := range []string{`{"a":[1,2,{"b":null}],"c":"\u00e9\ud83d\ude00"}`, `[1e308,-0,0.1,"x\/y"]`, `[[[[[]]]]]`,
		`{"a":{"a":{"a":1}}}`, strings.Repeat("[", 2000), `"\ud800"`, `[1,,2]`, `0x10`, `{"x":true,"y":false}`, "[1,2,3]   ", `{"1":1,"2":2}`} {
		f.Add(s)
	}
	fe := newFuzzEngine()
	sc := mustCompile(f, cjsonRoundTrip)
	f.Fuzz(func(t *testing.T, s string) {
		v := fe.run(t, sc, s)
		if v.kind != '*' || len(v.elems) < 2 {
			t.Fatalf("reply %+v", v)
		}
		switch v.elems[0].str {
		case "2":
			t.Fatalf("cjson.encode made %q from %q, which does not decode: %s", v.elems[1].str, s, v.elems[1].str)
		case "3":
			if len(v.elems[1].str) != len(v.elems[2].str) {
				t.Fatalf("%q encodes to %q, then to %q", s, v.elems[1].str, v.elems[2].str)
			}
		}
	})
}

// The first repacking may drop values: nil items of arrays (a table
// nested deeper than 16 packs as nil), so the second is compared.
var cmsgpackRoundTrip = `
local function repack(s) return cmsgpack.pack(cmsgpack.unpack(s)) end
local function again(...)
  if select('#', ...) == 0 then return {4} end
  local ok1, s1 = pcall(cmsgpack.pack, ...)
  if not ok1 then return {1, s1} end
  local ok2, s2 = pcall(repack, s1)
  if not ok2 then return {2, s2, s1} end
  local ok3, s3 = pcall(repack, s2)
  if not ok3 then return {2, s3, s2} end
  return {3, s2, s3}
end
local ok, r = pcall(function() return again(cmsgpack.unpack(ARGV[1])) end)
if not ok then return {0, r} end
local ok1, r1 = pcall(function() return {cmsgpack.unpack_one(ARGV[1])} end)
local ok2, r2 = pcall(function() return {cmsgpack.unpack_limit(ARGV[1], 3, 1)} end)
return r`

// FuzzCmsgpack unpacks any bytes (also one and three values at a time);
// what unpacks must pack and unpack again, and packing becomes stable.
func FuzzCmsgpack(f *testing.F) {
	for _, s := range []string{"\x93\x01\xa1x\xc0", "\x82\xa1a\x01\xa1b\x91\xc3", "\xcb\x7f\xf8\x00\x00\x00\x00\x00\x00",
		"\xdd\xff\xff\xff\xff", "\xdb\x00\x00\x00\x05hello", "\xcf\xff\xff\xff\xff\xff\xff\xff\xff", "\xd3\x80\x00\x00\x00\x00\x00\x00\x00",
		strings.Repeat("\x91", 5000) + "\x01", strings.Repeat("\x01", 9000), "\xc1", "\x81\xc0\x01"} {
		f.Add(s)
	}
	fe := newFuzzEngine()
	sc := mustCompile(f, cmsgpackRoundTrip)
	f.Fuzz(func(t *testing.T, s string) {
		v := fe.run(t, sc, s)
		if v.kind != '*' || len(v.elems) < 1 {
			t.Fatalf("reply %+v", v)
		}
		switch v.elems[0].str {
		case "2":
			t.Fatalf("cmsgpack.pack made %q from %q, which does not unpack: %s", v.elems[2].str, s, v.elems[1].str)
		case "3":
			if len(v.elems[1].str) != len(v.elems[2].str) {
				t.Fatalf("%q packs to %q, then to %q", s, v.elems[1].str, v.elems[2].str)
			}
		}
	})
}

var structRoundTrip = `
local fmt, data = ARGV[1], ARGV[2]
local oksize, size = pcall(struct.size, fmt)
local ok, r = pcall(function() return {struct.unpack(fmt, data)} end)
if not ok then return {0, r} end
table.remove(r)
local okp, packed = pcall(function() return struct.pack(fmt, unpack(r)) end)
if not okp then return {1, packed} end
if oksize then return {2, size, #packed} end
return {3}`

// FuzzStruct runs struct.size, unpack and pack on any format and data:
// values a fixed-size format unpacks pack back to that size.
func FuzzStruct(f *testing.F) {
	for _, c := range [][2]string{{">i4", "\x00\x00\x00\x01"}, {"<hHbB", "\x01\x02\x03\x04\x05\x06"}, {"!4 b i", "\x01\x00\x00\x00\x02\x00\x00\x00"},
		{"c3 s", "abcxyz\x00"}, {"bc0", "\x03abc"}, {"d f", "\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x80\x3f"}, {"i32", strings.Repeat("\xff", 32)},
		{"c99999999999", "x"}, {"!3", ""}, {"x x x", "abc"}, {strings.Repeat("b", 9000), strings.Repeat("x", 9000)}} {
		f.Add(c[0], c[1])
	}
	fe := newFuzzEngine()
	sc := mustCompile(f, structRoundTrip)
	f.Fuzz(func(t *testing.T, format, data string) {
		v := fe.run(t, sc, format, data)
		if v.kind != '*' || len(v.elems) < 1 {
			t.Fatalf("reply %+v", v)
		}
		if v.elems[0].str == "2" && v.elems[1].str != v.elems[2].str {
			t.Fatalf("format %q has size %s, packs %s bytes", format, v.elems[1].str, v.elems[2].str)
		}
	})
}

// FuzzLuaReply builds a graph of tables from the input (tables holding
// each other, themselves, maps, sets, errors, strings) and converts it to
// a reply: the reply must be well-formed RESP, whatever the graph's depth
// or cycles, and end where the Lua stack would run out.
func FuzzLuaReply(f *testing.F) {
	f.Add([]byte{0, 1, 0, 0}, uint8(2))
	f.Add([]byte{0, 2, 0, 0, 0, 3, 0, 0}, uint8(3))
	f.Add([]byte{0, 0, 1, 1, 0, 1, 2, 1, 1, 1, 0, 2, 3, 0, 4}, uint8(3))
	f.Add([]byte{5, 0, 0, 6, 1, 0, 7, 0, 9}, uint8(2))
	e := New()
	defer func(n int) { maxStringLen = n }(maxStringLen)
	maxStringLen = 1 << 20
	f.Fuzz(func(t *testing.T, prog []byte, protos uint8) {
		L := e.L
		tables := []*lua.LTable{L.NewTable()}
		pick := func(b byte) *lua.LTable { return tables[int(b)%len(tables)] }
		for i := 0; i+2 < len(prog); i += 3 {
			a, b := pick(prog[i+1]), pick(prog[i+2])
			switch prog[i] % 9 {
			case 0:
				if len(tables) < 64 {
					tables = append(tables, L.NewTable())
				}
			case 1:
				a.Append(b)
			case 2:
				a.RawSetString("map", b)
			case 3:
				a.RawSetString("set", b)
			case 4:
				a.RawSet(b, lua.LTrue)
			case 5:
				a.RawSetString("err", lua.LString("ERR e"+strconv.Itoa(int(prog[i+2]))))
			case 6:
				a.RawSetString("ok", lua.LString("o\r\n"))
			case 7:
				a.Append(lua.LNumber(float64(prog[i+2]) / 3))
			case 8:
				a.RawSetString("double", lua.LNumber(prog[i+2]))
			}
		}
		var w resp.Writer
		w.Proto = 2 + int(protos&1)
		run := &Run{Name: "fuzz", Out: &w, Resp: 2 + int(protos>>1&1),
			Log: func(level int, msg string) { t.Fatalf("recovered: %s", msg) }}
		e.writeResult(run, tables[0], nil)
		if _, rest, ok := readRESP(w.B); !ok || len(rest) != 0 {
			t.Fatalf("malformed reply %.200q", w.B)
		}
		if len(w.B) > maxStringLen+1<<10 {
			t.Fatalf("reply of %d bytes", len(w.B))
		}
	})
}

// FuzzReplyToLua converts any bytes as redis.call converts a command's
// reply: never a crash; what converts converts back (RESP3) to a reply
// that converts and converts back to as many bytes.
func FuzzReplyToLua(f *testing.F) {
	for _, s := range []string{":1\r\n", "$3\r\nabc\r\n", "*2\r\n+OK\r\n-ERR x\r\n", "%1\r\n$1\r\na\r\n,1.5\r\n", "~2\r\n:1\r\n:2\r\n",
		"|1\r\n+a\r\n+b\r\n:7\r\n", "=8\r\ntxt:abcd\r\n", "(123\r\n", "#t\r\n", "_\r\n", "*-1\r\n", "$-1\r\n", ">2\r\n:1\r\n:2\r\n",
		strings.Repeat("*1\r\n", 5000) + ":1\r\n", "*99999999\r\n", "$99\r\nab\r\n"} {
		f.Add([]byte(s))
	}
	e := New()
	convert := func(b []byte) ([]byte, bool) {
		e.replyErr = ""
		v, _ := e.parseReply(b, 0)
		if e.replyErr != "" {
			return nil, false
		}
		w := resp.Writer{Proto: 3}
		e.replyEnd = 1 << 30
		e.writeReply(&w, v, 3, 2)
		return w.B, true
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		b1, ok := convert(b)
		if !ok {
			return
		}
		b2, ok := convert(b1)
		if !ok {
			t.Fatalf("%q converts to %q, which does not convert: %s", b, b1, e.replyErr)
		}
		if len(b1) != len(b2) {
			t.Fatalf("%q converts to %q, then to %q", b, b1, b2)
		}
	})
}

var patternProbe = `
local s, p, r = ARGV[1], ARGV[2], ARGV[3]
local okf, i = pcall(string.find, s, p)
local okm = pcall(string.match, s, p)
local n, okg = 0, pcall(function() for _ in string.gmatch(s, p) do n = n + 1 end end)
local oks, out, count = pcall(string.gsub, s, p, r)
if not oks then return {0, out} end
if okg and string.sub(p, 1, 1) ~= '^' and n ~= count then return {2, n, count} end
if okf and not string.find(p, '%z') and (i ~= nil) ~= (count > 0) then return {3, tostring(i), count} end
return {1, out, count}`

// FuzzPattern runs find, match, gmatch and gsub with any subject,
// pattern and replacement: gsub replaces as many matches as gmatch
// visits, and find finds one exactly when gsub replaces any (unless the
// pattern holds a NUL: lstrlib.c reads patterns as C strings, except in
// find's plain search).
func FuzzPattern(f *testing.F) {
	for _, c := range [][3]string{{"hello world", "o", "0"}, {"key=val", "(%w+)=(%w+)", "%2=%1"}, {"f(a(b)c)", "%b()", "[%0]"},
		{"THE (quick) fox", "%f[%a]%a+", "%%"}, {"abc", "", "-"}, {"aaa", "a-", "x"}, {"abc", "(()", "%1"}, {"x", "[%", "y"},
		{"abcabc", "(abc)%1", "%0"}, {strings.Repeat("a", 300), strings.Repeat("a?", 300) + "b", ""}, {"a.b", "%.", "%"}} {
		f.Add(c[0], c[1], c[2])
	}
	fe := newFuzzEngine()
	sc := mustCompile(f, patternProbe)
	defer func(n int) { matchTickPeriod = n }(matchTickPeriod)
	matchTickPeriod = 1
	f.Fuzz(func(t *testing.T, s, p, r string) {
		v := fe.run(t, sc, s, p, r)
		if v.kind != '*' || len(v.elems) < 1 {
			if v.kind == '-' && strings.Contains(v.str, errKilled) {
				return
			}
			t.Fatalf("reply %+v", v)
		}
		switch v.elems[0].str {
		case "2":
			t.Fatalf("gmatch %q in %q visits %s matches, gsub replaces %s", p, s, v.elems[1].str, v.elems[2].str)
		case "3":
			t.Fatalf("find %q in %q gives %s, gsub replaces %s", p, s, v.elems[1].str, v.elems[2].str)
		}
	})
}

// FuzzScript compiles any source as EVAL does (and as a FUNCTION
// library) and runs what compiles, stopping it after a bounded number of
// check points: no source may crash the compiler, and every script must
// reach a check point or end.
func FuzzScript(f *testing.F) {
	for _, s := range []string{"return 1", "local t={} t[1]=t return t", "return " + strings.Repeat("(", 300) + "1" + strings.Repeat(")", 300),
		"local function f() return f() end return f()", "return {1,2,{a=3}}", "while true do end", "return #KEYS .. 'x' .. 1.5",
		"local co = coroutine.wrap(function(...) coroutine.yield(...) end) return co(1, 2)", "return string.rep('x', 3):gsub('x', '%0%0')",
		"return loadstring('return 1 +')", "for i = 1, 10 do local t = {i, n = i} end", "goto x", "return 0x1p4", "return [[a]] .. [==[b]==]"} {
		f.Add(s)
	}
	fe := newFuzzEngine()
	fn := NewFunctionEngine(fe.e)
	f.Fuzz(func(t *testing.T, src string) {
		proto, flags, err := Compile([]byte(src))
		lib := &Library{Name: "fuzz"}
		_ = fn.LoadLibrary(lib, []byte(src), fuzzSteps, 0)
		if err != nil {
			return
		}
		fe.w.Reset()
		ticks := 0
		r := &Run{Name: "fuzz", Eval: true, Out: &fe.w, Call: func([][]byte, int) []byte { return []byte("+OK\r\n") },
			Log:           func(level int, msg string) { fe.panics = append(fe.panics, msg) },
			BusyThreshold: 1, WhileBusy: func() { ticks++ }, Killed: func() bool { return ticks > 1 }}
		watchdog := time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("script still running after 10 s: %.300q", src)) })
		fe.e.Run(&Script{SHA: "fuzz", Proto: proto, Flags: flags}, r)
		watchdog.Stop()
		if len(fe.panics) > 0 {
			t.Fatalf("recovered: %q", fe.panics)
		}
		if _, rest, ok := readRESP(fe.w.B); !ok || len(rest) != 0 {
			t.Fatalf("malformed reply %.200q", fe.w.B)
		}
		// Under a step budget instead (a cluster's apply), with no clock:
		// every script ends.
		fe.w.Reset()
		r = &Run{Name: "fuzz", Eval: true, Out: &fe.w, Call: r.Call, Log: r.Log, MaxSteps: fuzzSteps}
		watchdog = time.AfterFunc(10*time.Second, func() { panic(fmt.Sprintf("script still running under its budget after 10 s: %.300q", src)) })
		fe.e.Run(&Script{SHA: "fuzz", Proto: proto, Flags: flags}, r)
		watchdog.Stop()
		if len(fe.panics) > 0 {
			t.Fatalf("recovered: %q", fe.panics)
		}
		if _, rest, ok := readRESP(fe.w.B); !ok || len(rest) != 0 {
			t.Fatalf("malformed reply %.200q", fe.w.B)
		}
	})
}

// fuzzSteps is the step budget of fuzzed scripts: a tenth of a cluster's.
const fuzzSteps = ReplicatedMaxSteps / 10

// FuzzReadOnlyTables composes scripts of writes, by every means a script
// has, to the tables it shares with every other script (the globals, the
// libraries, their metatables and the string metatable), each write in
// its own pcall, optionally followed by an error whose value is one of
// those tables, and checks after every run that no read-only table
// changed (checkTaint) and that the next script still sees the same
// globals.
func FuzzReadOnlyTables(f *testing.F) {
	for _, s := range [][]byte{
		{0, 0, 0, 1, 1, 1, 2, 2, 2},
		{10, 8, 4, 11, 11, 2, 12, 9, 3},
		{13, 14, 5, 1, 15, 6, 6, 3, 7, 4, 10, 8},
		{5, 6, 9, 0, 7, 10, 3, 2, 1, 9, 13, 0},
		{9, 1, 2, 1},
		{0, 0, 0, 13},
	} {
		f.Add(s)
	}
	targets := []string{"_G", "string", "table", "math", "coroutine", "redis", "cjson", "struct", "cmsgpack", "bit",
		"getmetatable(_G)", "getmetatable('')", "getmetatable('').__index", "_G._G", "KEYS"}
	keys := []string{"'x'", "1", "'format'", "'call'", "'__index'", "'__newindex'", "'_G'", "'redis'", "'KEYS'", "2^53", "true"}
	values := []string{"1", "{}", "function() end", "'s'", "string", "nil"}
	ops := []string{
		"$T[$K] = $V",
		"rawset($T, $K, $V)",
		"table.insert($T, $V)",
		"table.insert($T, 1, $V)",
		"table.remove($T)",
		"table.sort($T)",
		"setmetatable($T, {})",
		"setmetatable($T, nil)",
		"local p = setmetatable({}, {__newindex = $T}) p[$K] = $V",
		"$T[$K] = nil",
		"for k in pairs($T) do $T[k] = $V break end",
		"local mt = getmetatable($T) if mt then mt[$K] = $V end",
		"loadstring('x = 1')()",
		"coroutine.wrap(function() $T[$K] = $V end)()",
		"local t = $T local u = t[$K] t[$K] = u",
		"x = $V",
	}
	e := New()
	e.checkTaint = true
	fc := &fakeCaller{reply: []byte("+OK\r\n")}
	const probe = "return {type(redis.call), type(string.format), type(getmetatable('').__index), tostring(rawget(_G, 'x')), tostring(rawget(string, 1))}"
	want := run(f, e, mustCompile(f, probe), fc, nil, nil)
	f.Fuzz(func(t *testing.T, prog []byte) {
		var b strings.Builder
		for i := 0; i+2 < len(prog) && i < 3*24; i += 3 {
			st := ops[int(prog[i])%len(ops)]
			st = strings.NewReplacer("$T", targets[int(prog[i+1])%len(targets)],
				"$K", keys[int(prog[i+2])%len(keys)],
				"$V", values[int(prog[i+2]/16)%len(values)]).Replace(st)
			fmt.Fprintf(&b, "pcall(function() %s end)\n", st)
		}
		if len(prog)%3 == 1 {
			// An error escaping the script, whose value is a shared
			// table: the error handler must not store into it.
			fmt.Fprintf(&b, "error(%s)\n", targets[int(prog[len(prog)-1])%len(targets)])
		}
		b.WriteString("return 1")
		run(t, e, mustCompile(t, b.String()), fc, []string{"k"}, []string{"a"})
		if got := run(t, e, mustCompile(t, probe), fc, nil, nil); got != want {
			t.Fatalf("after\n%s\nthe globals read %q, want %q", b.String(), got, want)
		}
	})
}
