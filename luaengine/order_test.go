package luaengine

import (
	"fmt"
	"strconv"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"
	"github.com/yuin/gopher-lua/ast"
	"github.com/yuin/gopher-lua/parse"
)

func TestFloatingPointByte(t *testing.T) {
	// luaO_int2fb rounds up to (1xxx) * 2^(e-1); fb2int reads it back.
	prev := 0
	for x := 0; x < 100000; x++ {
		got := fb2int(int2fb(x))
		if got < x || got < prev {
			t.Fatalf("fb2int(int2fb(%d)) = %d", x, got)
		}
		if x < 8 && got != x {
			t.Fatalf("fb2int(int2fb(%d)) = %d, want exact below 8", x, got)
		}
		prev = got
	}
	for _, c := range []struct{ x, want int }{{9, 9}, {15, 15}, {16, 16}, {17, 18}, {33, 36}, {100, 104}} {
		if got := fb2int(int2fb(c.x)); got != c.want {
			t.Errorf("fb2int(int2fb(%d)) = %d, want %d", c.x, got, c.want)
		}
	}
}

func TestLuaStringHashEveryChar(t *testing.T) {
	// Redis hashes every character: strings differing only at a position
	// stock Lua 5.1 skips (step 3 for 64 bytes) hash differently.
	a := "a" + "A" + strings.Repeat("b", 62)
	b := "a" + "B" + strings.Repeat("b", 62)
	if luaStringHash(a) == luaStringHash(b) {
		t.Fatal("hash skips characters")
	}
	if got := luaStringHash(""); got != 0 {
		t.Fatalf("hash of empty string = %d", got)
	}
}

// keysOf runs body (which returns a table) and lists its keys through pairs.
func keysOf(t *testing.T, e *Engine, body string) string {
	t.Helper()
	sc := mustCompile(t, "local t = (function() "+body+" end)() local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end return table.concat(r, ',')")
	out := run(t, e, sc, &fakeCaller{}, nil, nil)
	if strings.HasPrefix(out, "-") {
		t.Fatalf("%s: %s", body, out)
	}
	return out
}

func TestPairsOrderIsLayoutNotInsertion(t *testing.T) {
	e := New()
	// The same keys assigned in two orders, or built by a constructor
	// instead of by assignments, may be visited in different orders, but
	// each table always in the same one.
	got := keysOf(t, e, "return {alpha=1, beta=2, gamma=3, delta=4, epsilon=5, zeta=6}")
	if again := keysOf(t, e, "return {alpha=1, beta=2, gamma=3, delta=4, epsilon=5, zeta=6}"); again != got {
		t.Fatalf("constructor order changed: %q then %q", got, again)
	}
	if got == "$32\r\nalpha,beta,gamma,delta,epsilon,zeta\r\n" {
		t.Fatalf("pairs visits insertion order: %q", got)
	}
	// Array part first, in order.
	if got := keysOf(t, e, "return {10, 20, 30}"); got != "$5\r\n1,2,3\r\n" {
		t.Fatalf("array keys: %q", got)
	}
}

func TestNextWhileClearing(t *testing.T) {
	e := New()
	// Clearing fields during a traversal is allowed: every key is still
	// visited once.
	sc := mustCompile(t, `
		local t = {}
		for i = 1, 300 do t['k' .. i] = i t[i] = i end
		local n = 0
		for k in pairs(t) do t[k] = nil n = n + 1 end
		return {n, next(t) == nil}`)
	if got := run(t, e, sc, &fakeCaller{}, nil, nil); got != "*2\r\n:600\r\n:1\r\n" {
		t.Fatalf("got %q", got)
	}
	// A key never in the table is Lua's error, without a position.
	sc = mustCompile(t, "return next({x=1}, 'y')")
	if got := run(t, e, sc, &fakeCaller{}, nil, nil); !strings.HasPrefix(got, "-ERR invalid key to 'next'") {
		t.Fatalf("got %q", got)
	}
}

func TestSizeMarkerHidden(t *testing.T) {
	e := New()
	sc := mustCompile(t, `
		local t = {a = 1}
		local mt = {}
		local before = getmetatable(t)
		setmetatable(t, mt)
		return {before == nil, getmetatable(t) == mt, t.b == nil}`)
	if got := run(t, e, sc, &fakeCaller{}, nil, nil); got != "*3\r\n:1\r\n:1\r\n:1\r\n" {
		t.Fatalf("got %q", got)
	}
}

func BenchmarkPairs(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			e := New()
			sc := mustCompile(b, fmt.Sprintf(`
				local t = {}
				for i = 1, %d do t['key' .. i] = i end
				local s = 0
				for k, v in pairs(t) do s = s + v end
				return s`, n))
			f := &fakeCaller{}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				run(b, e, sc, f, nil, nil)
			}
		})
	}
}

func BenchmarkCjsonEncodeObject(b *testing.B) {
	e := New()
	sc := mustCompile(b, `return cjson.encode({name='lock', owner='abc:1', ttl=30000, count=1, kind='reentrant', fair=false})`)
	f := &fakeCaller{}
	for i := 0; i < b.N; i++ {
		run(b, e, sc, f, nil, nil)
	}
}

func BenchmarkArrayIpairsAndPairs(b *testing.B) {
	e := New()
	sc := mustCompile(b, `
		local t = {}
		for i = 1, 1000 do t[i] = i end
		local s = 0
		for k, v in pairs(t) do s = s + v end
		return cjson.encode(t):len() + s`)
	f := &fakeCaller{}
	for i := 0; i < b.N; i++ {
		run(b, e, sc, f, nil, nil)
	}
}

func TestLogCompactsTombstones(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	tb := L.NewTable()
	// Each deletion turns the key's entry in gopher-lua's list into a
	// tombstone, so that setting it again is a new insertion; the list
	// must not grow with every round.
	for i := 0; i < 10000; i++ {
		rawSetLogged(L, tb, lua.LString("x"), lua.LNumber(i))
		rawSetLogged(L, tb, lua.LString("x"), lua.LNil)
	}
	rawSetLogged(L, tb, lua.LString("y"), lua.LNumber(1))
	if n := len(tableKeys(tb)); n > 200 {
		t.Fatalf("%d entries in the key list", n)
	}
	var got []string
	forEach(tb, func(k, _ lua.LValue) { got = append(got, k.String()) })
	if strings.Join(got, ",") != "y" {
		t.Fatalf("keys %v", got)
	}
}

func TestAppendsNeedNoLog(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	tb := L.NewTable()
	for i := 1; i <= 100; i++ {
		rawSetLogged(L, tb, lua.LNumber(i), lua.LNumber(i))
	}
	if tableLogOf(tb) != nil {
		t.Fatal("1..n appended in order got a log")
	}
	rawSetLogged(L, tb, lua.LNumber(50), lua.LNil)
	if tableLogOf(tb) == nil {
		t.Fatal("a deletion was not logged")
	}
	// Lua's array part holds 128 slots: the border search finds 100.
	if n := luaLen(tb); n != 100 {
		t.Fatalf("#t = %d", n)
	}
}

// splitAt finds exactly the shapes gopher-lua's compileTableExpr gets
// wrong: a keyed field or a closing call or "..." right after a multiple
// of 50 list items.
func TestSplitAt(t *testing.T) {
	items := func(n int) string {
		s := make([]string, n)
		for i := range s {
			s[i] = strconv.Itoa(i + 1)
		}
		return strings.Join(s, ", ")
	}
	for _, c := range []struct {
		fields string
		want   int
	}{
		{items(50) + ", x=1, 51", 49},
		{items(50) + ", [k]=1", 49},
		{items(50) + ", f()", 49},
		{items(50) + ", ...", 49},
		{items(50) + ", (f())", -1},
		{items(50) + ", f(), 51", -1},
		{items(51) + ", x=1, f()", -1},
		{items(49) + ", f()", -1},
		{"x=1, " + items(50) + ", y=1", 50},
		{items(100) + ", x=1", 99},
		{items(60) + ", x=1, " + items(40) + ", f()", 100},
		{"x=1, f()", -1},
	} {
		chunk, err := parse.Parse(strings.NewReader("return {"+c.fields+"}"), "t")
		if err != nil {
			t.Fatal(err)
		}
		x := chunk[0].(*ast.ReturnStmt).Exprs[0].(*ast.TableExpr)
		if got := splitAt(x); got != c.want {
			t.Errorf("{%.40s...}: splitAt %d, want %d", c.fields, got, c.want)
		}
	}
}
