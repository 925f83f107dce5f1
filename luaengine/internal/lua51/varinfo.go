package lua51

import (
	"reflect"
	"strings"
	"unsafe"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
)

// Lua 5.1 names the value a runtime error is about when it can ("attempt
// to index field 'x' (a nil value)", "attempt to call local 'f' (a nil
// value)"); gopher-lua does not. Redis sends these texts, so lockkv
// reconstructs them from the failing instruction, as Lua's getobjname
// does: the error handler reads the failing frame's instruction and
// registers. gopher-lua does not export its call frames and registers, so
// they are read through reflection; if anything is not as expected the
// message keeps its plain Lua 5.1 form without a name.

type frameInfo struct {
	proto     *lua.FunctionProto
	pc        int // index of the failing instruction
	localBase int
}

// frameAt returns the Lua frame of a Debug record.
func frameAt(dbg *lua.Debug) (fi frameInfo, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	fv := reflect.ValueOf(dbg).Elem().FieldByName("frame")
	if fv.Kind() != reflect.Pointer || fv.IsNil() {
		return fi, false
	}
	frame := reflect.NewAt(fv.Type().Elem(), unsafe.Pointer(fv.Pointer())).Elem()
	fn, _ := frame.FieldByName("Fn").Interface().(*lua.LFunction)
	if fn == nil || fn.IsG || fn.Proto == nil {
		return fi, false
	}
	pc := int(frame.FieldByName("Pc").Int()) - 1
	if pc < 0 || pc >= len(fn.Proto.Code) {
		return fi, false
	}
	return frameInfo{proto: fn.Proto, pc: pc, localBase: int(frame.FieldByName("LocalBase").Int())}, true
}

// register returns the value of register r of frame fi.
func register(L *lua.LState, fi frameInfo, r int) (v lua.LValue, ok bool) {
	defer func() {
		if recover() != nil {
			ok = false
		}
	}()
	rv := reflect.ValueOf(L).Elem().FieldByName("reg")
	reg := reflect.NewAt(rv.Type().Elem(), unsafe.Pointer(rv.Pointer())).Elem()
	arr := reg.FieldByName("array")
	arr = reflect.NewAt(arr.Type(), unsafe.Pointer(arr.UnsafeAddr())).Elem()
	i := fi.localBase + r
	if i < 0 || i >= arr.Len() {
		return nil, false
	}
	v, _ = arr.Index(i).Interface().(lua.LValue)
	if v == nil {
		v = lua.LNil
	}
	return v, true
}

func opCode(inst uint32) int { return int(inst >> 26) }
func argA(inst uint32) int   { return int(inst>>18) & 0xff }
func argB(inst uint32) int   { return int(inst & 0x1ff) }
func argC(inst uint32) int   { return int(inst>>9) & 0x1ff }
func argBx(inst uint32) int  { return int(inst & 0x3ffff) }

const rkBit = 1 << 8

// localName is luaF_getlocalname: the n-th (0-based) local active at pc.
func localName(p *lua.FunctionProto, n, pc int) string {
	for _, l := range p.DbgLocals {
		if l.StartPc > pc {
			break
		}
		if pc < l.EndPc || l.EndPc == 0 {
			if n == 0 {
				return l.Name
			}
			n--
		}
	}
	return ""
}

// kname is Lua's kname: a constant string key, else "?".
func kname(p *lua.FunctionProto, rk int) string {
	if rk&rkBit != 0 {
		if i := rk &^ rkBit; i < len(p.Constants) {
			if s, ok := p.Constants[i].(lua.LString); ok {
				return string(s)
			}
		}
	}
	return "?"
}

// setsRegister reports whether inst writes register r.
func setsRegister(inst uint32, r int) bool {
	a := argA(inst)
	switch opCode(inst) {
	case lua.OP_MOVE, lua.OP_LOADK, lua.OP_LOADBOOL, lua.OP_GETUPVAL, lua.OP_GETGLOBAL,
		lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_NEWTABLE, lua.OP_ADD, lua.OP_SUB, lua.OP_MUL,
		lua.OP_DIV, lua.OP_MOD, lua.OP_POW, lua.OP_UNM, lua.OP_NOT, lua.OP_LEN, lua.OP_CONCAT,
		lua.OP_CLOSURE, lua.OP_TESTSET:
		return a == r
	case lua.OP_MOVEN:
		return r >= a && r <= a+argC(inst)
	case lua.OP_LOADNIL:
		return r >= a && r <= argB(inst)
	case lua.OP_SELF:
		return r == a || r == a+1
	case lua.OP_CALL:
		c := argC(inst)
		return r >= a && (c == 0 || r <= a+c-2)
	case lua.OP_TFORLOOP:
		return r >= a+3
	case lua.OP_VARARG:
		b := argB(inst)
		return r >= a && (b == 0 || r <= a+b-2)
	}
	return false
}

// objName is Lua's getobjname for register r before instruction pc: the
// kind ("local", "global", "field", "upvalue", "method") and the name.
func objName(p *lua.FunctionProto, pc, r int, depth int) (string, string) {
	if name := localName(p, r, pc); name != "" && !strings.HasPrefix(name, "(") {
		return "local", name
	}
	if depth > 8 {
		return "", ""
	}
	for i := pc - 1; i >= 0; i-- {
		inst := p.Code[i]
		if opCode(inst) == lua.OP_JMP {
			continue
		}
		if !setsRegister(inst, r) {
			continue
		}
		switch opCode(inst) {
		case lua.OP_GETGLOBAL:
			if k := argBx(inst); k < len(p.Constants) {
				if s, ok := p.Constants[k].(lua.LString); ok {
					return "global", string(s)
				}
			}
		case lua.OP_MOVE:
			if b := argB(inst); b < argA(inst) {
				return objName(p, i, b, depth+1)
			}
		case lua.OP_MOVEN:
			if r == argA(inst) {
				if b := argB(inst); b < r {
					return objName(p, i, b, depth+1)
				}
			}
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS:
			return "field", kname(p, argC(inst))
		case lua.OP_GETUPVAL:
			if b := argB(inst); b < len(p.DbgUpvalues) {
				return "upvalue", p.DbgUpvalues[b]
			}
		case lua.OP_SELF:
			if r == argA(inst) {
				return "method", kname(p, argC(inst))
			}
		}
		return "", ""
	}
	return "", ""
}

// typeError is luaG_typeerror's text for register r (or constant) of fi.
func typeError(fi frameInfo, r int, op, typ string) string {
	if r&rkBit == 0 {
		if kind, name := objName(fi.proto, fi.pc, r, 0); kind != "" {
			return "attempt to " + op + " " + kind + " '" + name + "' (a " + typ + " value)"
		}
	}
	return "attempt to " + op + " a " + typ + " value"
}

// rkValue reads operand rk (register or constant) of fi.
func rkValue(L *lua.LState, fi frameInfo, rk int) (lua.LValue, bool) {
	if rk&rkBit != 0 {
		i := rk &^ rkBit
		if i < len(fi.proto.Constants) {
			return fi.proto.Constants[i], true
		}
		return nil, false
	}
	return register(L, fi, rk)
}

func isNumberLike(v lua.LValue) bool {
	switch x := v.(type) {
	case lua.LNumber:
		return true
	case lua.LString:
		_, ok := StrToNumber(string(x))
		return ok
	}
	return false
}

// describeError rewrites a gopher-lua runtime error raised at frame fi
// into Lua 5.1's wording, with the value's name where Lua gives one. msg
// has no position prefix; ok is false when it is not one of these errors.
func describeError(L *lua.LState, fi frameInfo, msg string) (string, bool) {
	inst := fi.proto.Code[fi.pc]
	op := opCode(inst)
	switch {
	case strings.HasPrefix(msg, "attempt to index a non-table object("):
		typ := msg[len("attempt to index a non-table object("):]
		if i := strings.IndexByte(typ, ')'); i >= 0 {
			typ = typ[:i]
		}
		switch op {
		case lua.OP_GETTABLE, lua.OP_GETTABLEKS, lua.OP_SELF:
			return typeError(fi, argB(inst), "index", typ), true
		case lua.OP_SETTABLE, lua.OP_SETTABLEKS:
			return typeError(fi, argA(inst), "index", typ), true
		}
		return "attempt to index a " + typ + " value", true
	case msg == "attempt to call a non-function object":
		if op == lua.OP_CALL || op == lua.OP_TAILCALL {
			if v, ok := register(L, fi, argA(inst)); ok {
				return typeError(fi, argA(inst), "call", v.Type().String()), true
			}
		}
	case msg == "__len undefined":
		if op == lua.OP_LEN {
			if v, ok := register(L, fi, argB(inst)); ok {
				return typeError(fi, argB(inst), "get length of", v.Type().String()), true
			}
		}
	case msg == "__unm undefined":
		if op == lua.OP_UNM {
			if v, ok := register(L, fi, argB(inst)); ok {
				return typeError(fi, argB(inst), "perform arithmetic on", v.Type().String()), true
			}
		}
	case strings.HasPrefix(msg, "cannot perform ") && !strings.HasPrefix(msg, "cannot perform concat"):
		if op >= lua.OP_ADD && op <= lua.OP_POW {
			b, c := argB(inst), argC(inst)
			vb, ok1 := rkValue(L, fi, b)
			vc, ok2 := rkValue(L, fi, c)
			if ok1 && ok2 {
				if !isNumberLike(vb) {
					return typeError(fi, b, "perform arithmetic on", vb.Type().String()), true
				}
				return typeError(fi, c, "perform arithmetic on", vc.Type().String()), true
			}
		}
	}
	return "", false
}

// Describe words a runtime error message s ("source:line: message")
// raised in L's running function as Lua 5.1 does, for the error handler
// to call: the value's name where the failing instruction tells it
// ("attempt to index field 'x' (a nil value)"), else Message's form.
func Describe(L *lua.LState, s string) string {
	// The first Lua frame below the handler is where the error happened
	// (skipping a Go function such as an arithmetic metamethod).
	for level := 1; level < 4; level++ {
		dbg, ok := L.GetStack(level)
		if !ok {
			break
		}
		if fi, ok := frameAt(dbg); ok {
			// s is "source:line: message".
			if i := strings.Index(s, ": "); i >= 0 && strings.HasPrefix(s, fi.proto.SourceName+":") {
				if m, ok := describeError(L, fi, s[i+2:]); ok {
					return s[:i+2] + m
				}
			}
			break
		}
	}
	return Message(s)
}

// concatError is raised by the concat helper for an operand that is
// neither a string nor a number: it names the operand the way Lua does,
// from the helper call's argument register in the calling frame.
func concatError(L *lua.LState, v lua.LValue) {
	typ := v.Type().String()
	if dbg, ok := L.GetStack(1); ok {
		if fi, ok := frameAt(dbg); ok {
			inst := fi.proto.Code[fi.pc]
			if opCode(inst) == lua.OP_CALL {
				L.RaiseError("%s", typeError(fi, argA(inst)+1, "concatenate", typ))
			}
		}
	}
	L.RaiseError("attempt to concatenate a %s value", typ)
}
