package luaengine

import (
	"strconv"
	"strings"
	"testing"

	"github.com/lockkv/lockkv/internal/resp"
)

// arraysProbe shows everything a script can read of KEYS and ARGV: the
// border, the order pairs walks (Lua's layout), the metatable, what
// follows the last item, and then the same after stores whose layout
// depends on the table's history.
const arraysProbe = `
local function walk(t)
  local s = {}
  for k, v in pairs(t) do s[#s + 1] = tostring(k) .. '=' .. tostring(v) end
  return table.concat(s, ',')
end
local function probe(t)
  return #t .. '|' .. walk(t) .. '|' .. tostring(getmetatable(t)) .. '|' .. tostring(rawget(t, #t + 1)) .. '|' .. tostring(next(t))
end
local a = probe(KEYS) .. ';' .. probe(ARGV)
KEYS[#KEYS + 1] = 'z'; KEYS.x = 1; KEYS[#KEYS + 3] = 'w'; KEYS[7] = 7
ARGV[1] = nil; ARGV.y = 2
return a .. ';' .. probe(KEYS) .. ';' .. probe(ARGV) .. ';' .. cjson.encode(ARGV)`

// TestEvalArraysReused: KEYS and ARGV are reused between EVAL runs
// (evalArrays), and no script can tell: whatever a first run did to them
// (or to its error table, or however it failed), a second run sees
// exactly what it sees in a fresh interpreter, with more, fewer or as
// many keys and arguments.
func TestEvalArraysReused(t *testing.T) {
	firsts := []string{
		``,
		`return KEYS`,
		`return {KEYS, ARGV}`,
		`KEYS[1] = 'x'`,
		`ARGV[2] = 'x'`,
		`KEYS[#KEYS + 1] = 'a'`,
		`ARGV[#ARGV + 1] = 'a'; ARGV[#ARGV + 1] = 'b'`,
		`for i = 1, 100 do ARGV[#ARGV + 1] = i end`,
		`KEYS.foo = 1`,
		`KEYS.foo = 1; KEYS.foo = nil`,
		`KEYS.foo = nil`,
		`KEYS[1] = nil`,
		`ARGV[#ARGV] = nil`,
		`KEYS[5] = 'x'`,
		`KEYS[3.5] = 1`,
		`KEYS[true] = 1`,
		`KEYS[KEYS] = 1`,
		`setmetatable(KEYS, {})`,
		`setmetatable(KEYS, {}); setmetatable(KEYS, nil)`,
		`setmetatable(ARGV, {__index = function() return 'm' end})`,
		`table.insert(KEYS, 'a')`,
		`table.insert(KEYS, 1, 'a')`,
		`table.remove(KEYS)`,
		`table.remove(ARGV, 1)`,
		`table.sort(ARGV)`,
		`table.sort(ARGV, function(a, b) return a > b end)`,
		`rawset(KEYS, 2, 'x')`,
		`rawset(KEYS, 'k', 'v')`,
		`for k, v in pairs(KEYS) do end; for k, v in pairs(ARGV) do end`,
		`local t = {}; t[KEYS] = ARGV`,
		`error(KEYS)`,
		`error(ARGV)`,
		`KEYS[1] = 'x'; error('boom')`,
		`ARGV.z = 1; redis.call('nosuch')`,
		`KEYS[#KEYS + 1] = 'a'; return redis.pcall('nosuch')`,
		`cjson.decode('[1,2]'); ARGV[1] = cjson.encode(ARGV)`,
		`local co = coroutine.wrap(function() KEYS[2] = 'c'; coroutine.yield() end); co()`,
		`while true do KEYS[#KEYS + 1] = 'x' end`,
		arraysProbe,
	}
	sizes := [][2][]string{
		{{"k1"}, {"a1", "a2"}},
		{{"k1", "k2"}, {"a1", "a2", "a3"}},
		{{}, {"a1", "a2", "a3", "a4"}},
		{{"k1", "k2", "k3"}, {}},
		{{}, {}},
	}
	// A Script caches the function bound to an engine (bind): each
	// engine gets its own.
	f := &fakeCaller{reply: []byte("-ERR unknown command\r\n")}
	want := map[int]string{}
	for j, after := range sizes {
		want[j] = run(t, New(), mustCompile(t, arraysProbe), f, after[0], after[1])
	}
	for _, body := range firsts {
		for _, before := range sizes {
			for j, after := range sizes {
				e := New()
				sc, probe := mustCompile(t, body), mustCompile(t, arraysProbe)
				w := runLimited(e, sc, f, before[0], before[1], 100000)
				if body == `` && strings.HasPrefix(w, "-") {
					t.Fatalf("empty script failed: %q", w)
				}
				keysT, argsT := e.keysT, e.argsT
				if got := run(t, e, probe, f, after[0], after[1]); got != want[j] {
					t.Errorf("after %q with %d keys, %d args: a run with %d keys, %d args saw\n%q\nwant (fresh interpreter)\n%q",
						body, len(before[0]), len(before[1]), len(after[0]), len(after[1]), got, want[j])
				}
				if body == `` && (e.keysT != keysT || e.argsT != argsT) {
					t.Errorf("KEYS and ARGV were not reused after a run that left them as made")
				}
			}
		}
	}
}

// runLimited runs sc under a step budget (a script that loops forever
// ends).
func runLimited(e *Engine, sc *Script, f *fakeCaller, keys, args []string, steps uint64) string {
	r := &Run{Call: f.call, Name: sc.SHA, Eval: true, MaxSteps: steps, Budget: steps}
	r.Out = &resp.Writer{Proto: 2}
	for _, k := range keys {
		r.Keys = append(r.Keys, []byte(k))
	}
	for _, a := range args {
		r.Args = append(r.Args, []byte(a))
	}
	e.Run(sc, r)
	return string(r.Out.B)
}

// TestEvalArraysBounded: a table a script grew past maxReusedArray is
// not kept for the next run, nor one for more items than that.
func TestEvalArraysBounded(t *testing.T) {
	e := New()
	f := &fakeCaller{reply: []byte("+OK\r\n")}
	grow, empty := mustCompile(t, `for i = 1, 100 do ARGV[#ARGV + 1] = i end`), mustCompile(t, `return 1`)
	run(t, e, grow, f, nil, []string{"a"})
	grown := e.argsT
	run(t, e, empty, f, nil, []string{"a"})
	if e.argsT == grown || e.argsT == nil {
		t.Fatalf("ARGV grown to 101 items was reused")
	}
	many := make([]string, maxReusedArray+1)
	run(t, e, empty, f, many, nil)
	if e.keysT != nil {
		t.Fatalf("KEYS of %d items kept for the next run", len(many))
	}
	kept := e.argsT
	run(t, e, empty, f, nil, []string{"a", "b"})
	if e.argsT != kept {
		t.Fatalf("ARGV left as made was not reused")
	}
}

// FuzzEvalArraysReused runs any script and then arraysProbe on two
// engines, one of which makes KEYS and ARGV afresh for the probe (as
// lockkv did before it reused them): the probe must see the same on
// both, whatever the script did to the tables it was given.
//
//	go test -run '^$' -fuzz FuzzEvalArraysReused -fuzztime 2m -parallel 1 ./luaengine
func FuzzEvalArraysReused(f *testing.F) {
	for _, s := range []string{"KEYS[1] = 'x'", "KEYS.foo = 1", "table.insert(ARGV, 1, 'a')", "setmetatable(KEYS, {})", "error(KEYS)",
		"for i = 1, 70 do ARGV[i] = i end", "KEYS[#KEYS + 1] = nil", "rawset(ARGV, 0, 1)", "table.remove(KEYS)", "return KEYS"} {
		f.Add(s, uint8(1), uint8(2), uint8(2), uint8(3))
	}
	strs := func(prefix string, n uint8) []string {
		out := make([]string, n%70)
		for i := range out {
			out[i] = prefix + strconv.Itoa(i)
		}
		return out
	}
	fc := &fakeCaller{reply: []byte("+OK\r\n")}
	f.Fuzz(func(t *testing.T, src string, nk, na, nk2, na2 uint8) {
		if _, _, err := Compile([]byte(src)); err != nil {
			return
		}
		var got [2]string
		for i := range got {
			e := New()
			runLimited(e, mustCompile(t, src), fc, strs("k", nk), strs("a", na), fuzzSteps/1000)
			if i == 1 {
				e.keysT, e.argsT = nil, nil
			}
			got[i] = runLimited(e, mustCompile(t, arraysProbe), fc, strs("K", nk2), strs("A", na2), fuzzSteps/10)
		}
		if got[0] != got[1] {
			t.Fatalf("after %q the probe saw\n%q\nwith KEYS and ARGV reused, and\n%q\nwith new ones", src, got[0], got[1])
		}
	})
}
