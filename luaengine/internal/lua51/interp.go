package lua51

import (
	"reflect"
	"unsafe"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
)

// Interp reaches, once per interpreter, the parts of L gopher-lua keeps
// unexported: its call stack and Lua stack (the depth and top the check
// points read) and its current frame, which Unwind resets. They are the
// values of unexported fields (checked: a gopher-lua that changed them
// fails at start-up, not silently).
type Interp struct {
	stack interface {
		Sp() int
		SetSp(int)
	}
	reg interface {
		Top() int
		SetTop(int)
	}
	frame reflect.Value // *callFrame, settable
}

// NewInterp reaches L's call stack, Lua stack and current frame.
func NewInterp(L *lua.LState) Interp {
	field := func(name string) reflect.Value {
		f := reflect.ValueOf(L).Elem().FieldByName(name)
		if !f.IsValid() {
			panic("lua51: gopher-lua's LState has no " + name + " field")
		}
		return reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	}
	var st Interp
	var ok1, ok2 bool
	st.stack, ok1 = field("stack").Interface().(interface {
		Sp() int
		SetSp(int)
	})
	st.reg, ok2 = field("reg").Interface().(interface {
		Top() int
		SetTop(int)
	})
	st.frame = field("currentFrame")
	if !ok1 || !ok2 || st.frame.Kind() != reflect.Pointer {
		panic("lua51: gopher-lua's call stack, registry or current frame changed")
	}
	return st
}

// Unwind empties the interpreter's stacks after a panic that escaped
// every protected call (what PCall does after an error).
func (st Interp) Unwind() {
	st.stack.SetSp(0)
	st.frame.Set(reflect.Zero(st.frame.Type()))
	st.reg.SetTop(0)
}

// Frames is the number of call frames on the interpreter's call stack.
func (st Interp) Frames() int { return st.stack.Sp() }

// Top is the number of Lua stack slots in use.
func (st Interp) Top() int { return st.reg.Top() }
