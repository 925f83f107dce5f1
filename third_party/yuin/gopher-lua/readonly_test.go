package lua

import (
	"strings"
	"testing"
)

// TestReadOnlyTable: a script's writes to a read-only table fail, by
// assignment (a field, a global, a __newindex chain that reaches it) and
// through LState.RawSet and RawSetInt; reads, writes to other tables and
// the table's own methods still work.
func TestReadOnlyTable(t *testing.T) {
	L := NewState()
	defer L.Close()
	ro := L.NewTable()
	ro.RawSetString("a", LNumber(1))
	ro.SetReadOnly(true)
	if !ro.ReadOnly() {
		t.Fatal("ReadOnly() = false after SetReadOnly(true)")
	}
	L.SetGlobal("ro", ro)
	for _, code := range []string{
		"ro.a = 2",
		"ro.b = 2",
		"ro[1] = 2",
		"ro[{}] = 2",
		"local t = setmetatable({}, {__newindex = ro}) t.x = 1",
		"local t = setmetatable({}, {__newindex = setmetatable({}, {__newindex = ro})}) t.x = 1",
	} {
		err := L.DoString(code)
		if err == nil || !strings.Contains(err.Error(), ReadOnlyError) {
			t.Errorf("%s: got %v, want %q", code, err, ReadOnlyError)
		}
	}
	if err := L.DoString("assert(ro.a == 1) local t = setmetatable({}, {__index = ro}) t.x = 1 assert(t.a == 1 and t.x == 1)"); err != nil {
		t.Errorf("reads and other tables: %v", err)
	}
	env := L.NewTable()
	env.RawSetString("assert", L.GetGlobal("assert"))
	env.SetReadOnly(true)
	fn, err := L.LoadString("x = 1")
	if err != nil {
		t.Fatal(err)
	}
	fn.Env = env
	L.Push(fn)
	if err := L.PCall(0, 0, nil); err == nil || !strings.Contains(err.Error(), ReadOnlyError) {
		t.Errorf("global in a read-only environment: got %v", err)
	}
	for name, set := range map[string]func(){
		"RawSet":    func() { L.RawSet(ro, LString("c"), LTrue) },
		"RawSetInt": func() { L.RawSetInt(ro, 1, LTrue) },
	} {
		L.Push(L.NewFunction(func(L *LState) int { set(); return 0 }))
		if err := L.PCall(0, 0, nil); err == nil || !strings.Contains(err.Error(), ReadOnlyError) {
			t.Errorf("%s: got %v", name, err)
		}
	}
	ro.RawSetString("host", LTrue)
	ro.SetReadOnly(false)
	if err := L.DoString("ro.a = 3 assert(ro.a == 3 and ro.host == true)"); err != nil {
		t.Errorf("after SetReadOnly(false): %v", err)
	}
}
