package luaengine

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// The invariant of package lua51 (see its doc): a library function that
// stores into a table a script can reach does so through lua51.Set, so
// that the table's log, from which next, pairs and the encoders take Lua
// 5.1's order, agrees with what the table holds.

// libraryFunctions lists every function a script can call from the
// libraries, as "name" (base) or "lib.name", in a fixed order.
func libraryFunctions(e *Engine) []string {
	var names []string
	lua51.Unordered(e.globals, func(k, v lua.LValue) {
		name := k.String()
		if _, ok := v.(*lua.LFunction); ok && !strings.HasPrefix(name, "__") {
			names = append(names, name)
			return
		}
		p, ok := v.(*lua.LTable)
		if !ok || name == "_G" {
			return
		}
		lua51.Unordered(p, func(k, v lua.LValue) {
			if _, ok := v.(*lua.LFunction); ok {
				names = append(names, name+"."+k.String())
			}
		})
	})
	slices.Sort(names)
	return names
}

// TestLibrariesKeepTableLogs calls every library function on tables of
// every kind (logged, unlogged, made by constructors, with holes and
// deleted keys) and with the strings the decoders and redis.call turn
// into tables, and checks, after each call, every table it was given or
// returned with lua51.Check. A library that stores into a script's table
// without lua51.Set fails it.
func TestLibrariesKeepTableLogs(t *testing.T) {
	e := New()
	fns := libraryFunctions(e)
	for _, want := range []string{"rawset", "table.insert", "table.remove", "table.sort", "cjson.decode", "cmsgpack.unpack", "redis.call", "redis.pcall"} {
		if !slices.Contains(fns, want) {
			t.Fatalf("%s missing from the libraries: %v", want, fns)
		}
	}
	var current string
	var failures []string
	checked := 0
	e.globals.RawSetString("__check", e.L.NewFunction(func(L *lua.LState) int {
		seen := map[*lua.LTable]bool{}
		var walk func(v lua.LValue, depth int)
		walk = func(v lua.LValue, depth int) {
			tb, ok := v.(*lua.LTable)
			if !ok || seen[tb] || depth > 4 {
				return
			}
			if tb.ReadOnly() {
				return
			}
			seen[tb] = true
			checked++
			if err := lua51.Check(tb); err != nil && len(failures) < 20 {
				failures = append(failures, fmt.Sprintf("%s (call %d): %v", current, L.Get(1), err))
			}
			lua51.Unordered(tb, func(k, v lua.LValue) {
				walk(k, depth+1)
				walk(v, depth+1)
			})
		}
		for i := 2; i <= L.GetTop(); i++ {
			walk(L.Get(i), 0)
		}
		return 0
	}))
	// A reply of every shape redis.call converts, nulls inside included.
	f := &fakeCaller{reply: []byte("*6\r\n:1\r\n_\r\n$1\r\nx\r\n%3\r\n+a\r\n:1\r\n+b\r\n_\r\n:7\r\n*2\r\n_\r\n:2\r\n~3\r\n:1\r\n_\r\n+c\r\n*-1\r\n")}
	const script = `
local f = ...
local function shapes()
	return {
		(function() local t = {} for i = 1, 10 do t[i] = i end t[5] = nil return t end)(),
		(function() local t = {} t[3] = 3 t[1] = 1 t[2] = 2 return t end)(),
		(function() local t = {} for i = 1, 5 do t[i] = i * 10 end t.x = 1 return t end)(),
		{10, 20, 30},
		{a = 1, b = 2, [1] = 'x', [2] = 'y'},
		{},
		(function() local t = {x = 1, y = 2, z = 3} t.y = nil return t end)(),
		{1, nil, 3, n = 3},
	}
end
local args = {
	function() return end,
	function() return 1 end,
	function() return 2, 'v' end,
	function() return 'k', 'v' end,
	function() return 3, nil end,
	function() return 'x', nil end,
	function() return 20 end,
	function() return 1, 2, 3 end,
	function() return function(a, b) return tostring(a) < tostring(b) end end,
	function() return function(k, v) if type(v) == 'table' then v[#v + 1] = k end end end,
	function() return {} end,
}
local n = 0
for s = 1, #shapes() do
	for _, a in ipairs(args) do
		local t = shapes()[s]
		n = n + 1
		__check(n, t, pcall(f, t, a()))
	end
end
local strings = {
	'[1,2,null,{"a":1,"b":[3,null,4]},[]]',
	'{"1":1,"2":2,"a":{"b":null},"c":[null,null,1]}',
	cmsgpack.pack({1, 2, {a = 1, b = {3, 4}}, 5}),
	cmsgpack.pack({[1] = 1, [3] = 3, x = 'y', [2] = {}}),
	cmsgpack.pack(1, {2}, 'x'),
	'\147\1\192\3', -- a msgpack array holding nil: {1, nil, 3}
	'GET', '>i4i4', 'x',
}
for _, s in ipairs(strings) do
	for _, a in ipairs(args) do
		n = n + 1
		__check(n, pcall(f, s, a()))
	end
end
return n`
	for _, name := range fns {
		current = name
		path := "_G['" + strings.ReplaceAll(name, ".", "']['") + "']"
		sc := mustCompile(t, strings.Replace(script, "local f = ...", "local f = "+path, 1))
		out := run(t, e, sc, f, nil, nil)
		if !strings.HasPrefix(out, ":") {
			t.Fatalf("%s: the calls did not run: %q", name, out)
		}
	}
	if len(failures) > 0 {
		t.Fatalf("library stores that bypass the log:\n%s", strings.Join(failures, "\n"))
	}
	if checked < 10000 {
		t.Fatalf("only %d tables checked", checked)
	}
}
