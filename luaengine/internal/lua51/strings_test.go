package lua51

import (
	"runtime"
	"testing"

	lua "github.com/yuin/gopher-lua"
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
