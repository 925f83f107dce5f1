package lua51

import (
	"runtime"
	"testing"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
)

// TestStringValue: a value StringValue makes is the same Lua string as
// a conversion makes, to every comparison, type switch and table, and
// keeps the headers it points into alive.
func TestStringValue(t *testing.T) {
	words := []string{"", "a", "KEYS", "a longer string past any small-size class of the allocator"}
	strs := make([]lua.LString, len(words))
	for i, w := range words {
		strs[i] = lua.LString(w + "")
	}
	vals := make([]lua.LValue, len(strs))
	for i := range strs {
		vals[i] = StringValue(&strs[i])
	}
	strs = nil
	runtime.GC()
	tb := &lua.LTable{Metatable: lua.LNil}
	for i, w := range words {
		v := vals[i]
		s, ok := v.(lua.LString)
		if !ok || string(s) != w || v != lua.LValue(lua.LString(w)) || v.Type() != lua.LTString || v.String() != w {
			t.Fatalf("StringValue(%q) = %#v", w, v)
		}
		switch x := v.(type) {
		case lua.LString:
			if string(x) != w {
				t.Fatalf("type switch gives %q for %q", x, w)
			}
		default:
			t.Fatalf("type switch: %T for %q", v, w)
		}
		if w != "" {
			tb.RawSet(v, lua.LNumber(i))
			if tb.RawGetString(w) != lua.LNumber(i) || tb.RawGet(lua.LString(w)) != lua.LNumber(i) {
				t.Fatalf("table key %q not found", w)
			}
		}
	}
}

// TestSetStrings: SetStrings fills an empty plain table as SetInt's
// appends would, and refuses a table that is not empty and plain.
func TestSetStrings(t *testing.T) {
	L := lua.NewState()
	defer L.Close()
	strs := []lua.LString{"a", "", "ccc"}
	for _, tb := range []*lua.LTable{L.CreateTable(3, 0), L.CreateTable(0, 0), L.CreateTable(1, 0)} {
		if !SetStrings(tb, strs) {
			t.Fatal("SetStrings refused an empty table")
		}
		if tb.Len() != 3 || Len(tb) != 3 || tb.RawGetInt(1) != lua.LString("a") || tb.RawGetInt(2) != lua.LString("") || tb.RawGetInt(3) != lua.LString("ccc") || tb.RawGetInt(4) != lua.LNil {
			t.Fatalf("after SetStrings: len %d, %v %v %v", tb.Len(), tb.RawGetInt(1), tb.RawGetInt(2), tb.RawGetInt(3))
		}
		if err := Check(tb); err != nil {
			t.Fatal(err)
		}
		if SetStrings(tb, strs) {
			t.Fatal("SetStrings filled a table that is not empty")
		}
		if !ResetArray(tb, 8) || tb.Len() != 0 || !SetStrings(tb, strs[:1]) || tb.Len() != 1 {
			t.Fatal("ResetArray then SetStrings did not refill the table")
		}
	}
	keyed := L.CreateTable(0, 0)
	keyed.RawSetString("k", lua.LTrue)
	withMeta := L.CreateTable(0, 0)
	withMeta.Metatable = L.CreateTable(0, 0)
	for _, tb := range []*lua.LTable{keyed, withMeta} {
		if SetStrings(tb, strs) || ResetArray(tb, 8) {
			t.Fatal("a table with a key or a metatable was filled or reset")
		}
	}
}
