package lua51

import (
	"strconv"
	"strings"
	"testing"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
	"github.com/lockkv/lockkv/third_party/yuin/gopher-lua/ast"
	"github.com/lockkv/lockkv/third_party/yuin/gopher-lua/parse"
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

func TestLogCompactsTombstones(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	tb := L.NewTable()
	// Each deletion turns the key's entry in gopher-lua's list into a
	// tombstone, so that setting it again is a new insertion; the list
	// must not grow with every round.
	for i := 0; i < 10000; i++ {
		Set(L, tb, lua.LString("x"), lua.LNumber(i))
		Set(L, tb, lua.LString("x"), lua.LNil)
	}
	Set(L, tb, lua.LString("y"), lua.LNumber(1))
	if n := len(tableKeys(tb)); n > 200 {
		t.Fatalf("%d entries in the key list", n)
	}
	var got []string
	ForEach(tb, func(k, _ lua.LValue) { got = append(got, k.String()) })
	if strings.Join(got, ",") != "y" {
		t.Fatalf("keys %v", got)
	}
}

func TestAppendsNeedNoLog(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	tb := L.NewTable()
	for i := 1; i <= 100; i++ {
		Set(L, tb, lua.LNumber(i), lua.LNumber(i))
	}
	if tableLogOf(tb) != nil {
		t.Fatal("1..n appended in order got a log")
	}
	Set(L, tb, lua.LNumber(50), lua.LNil)
	if tableLogOf(tb) == nil {
		t.Fatal("a deletion was not logged")
	}
	// Lua's array part holds 128 slots: the border search finds 100.
	if n := Len(tb); n != 100 {
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
