package luaengine

import (
	"encoding/binary"
	"fmt"
	"math"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// luaError is luaL_error: the message after the position of the calling
// function (none when a Go function, pcall for one, called it: gopher-lua's
// RaiseError looks further, for the first Lua function).
func luaError(L *lua.LState, format string, args ...any) {
	L.Error(lua.LString(where(L, 1)+fmt.Sprintf(format, args...)), 0)
}

// argError raises Lua 5.1's luaL_argerror text.
func argError(L *lua.LState, n int, fname, msg string) {
	L.RaiseError("bad argument #%d to '%s' (%s)", n, fname, msg)
}

// typeName is luaL_typename, "no value" past the top.
func typeName(L *lua.LState, n int) string {
	if n > L.GetTop() {
		return "no value"
	}
	return L.Get(n).Type().String()
}

// checkNumber is luaL_checknumber: numbers and numeric strings.
func checkNumber(L *lua.LState, n int, fname string) float64 {
	if f, ok := toNumber(L.Get(n)); ok && n <= L.GetTop() {
		return f
	}
	argError(L, n, fname, "number expected, got "+typeName(L, n))
	return 0
}

// checkString is luaL_checklstring: strings and numbers.
func checkString(L *lua.LState, n int, fname string) string {
	if s, ok := luaString(L.Get(n)); ok && n <= L.GetTop() {
		return s
	}
	argError(L, n, fname, "string expected, got "+typeName(L, n))
	return ""
}

// checkTable is luaL_checktype(L, n, LUA_TTABLE): "got no value" past
// the top, where gopher-lua's CheckTable says nil.
func checkTable(L *lua.LState, n int) *lua.LTable {
	if n > L.GetTop() {
		L.ArgError(n, "table expected, got no value")
	}
	return L.CheckTable(n)
}

// checkFunction is checkTable for a function.
func checkFunction(L *lua.LState, n int) *lua.LFunction {
	if n > L.GetTop() {
		L.ArgError(n, "function expected, got no value")
	}
	return L.CheckFunction(n)
}

// tableArg wraps a gopher-lua function whose first argument is a table,
// so none there is "no value" (checkTable). The wrapper keeps fn's
// upvalues (ipairs keeps its iterator in one).
func tableArg(L *lua.LState, fn *lua.LFunction) *lua.LFunction {
	inner := fn.GFunction
	ups := make([]lua.LValue, len(fn.Upvalues))
	for i, u := range fn.Upvalues {
		ups[i] = u.Value()
	}
	return L.NewClosure(func(L *lua.LState) int {
		checkTable(L, 1)
		return inner(L)
	}, ups...)
}

// ---- bit (LuaBitOp) ----

func openBit(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 12)
	unary := map[string]func(uint32) uint32{
		"tobit": func(x uint32) uint32 { return x },
		"bnot":  func(x uint32) uint32 { return ^x },
		"bswap": func(x uint32) uint32 { return x>>24 | x>>8&0xff00 | x<<8&0xff0000 | x<<24 },
	}
	for name, f := range unary {
		name, f := name, f
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			L.Push(lua.LNumber(int32(f(bitArg(L, 1, name)))))
			return 1
		}))
	}
	variadic := map[string]func(a, b uint32) uint32{
		"band": func(a, b uint32) uint32 { return a & b },
		"bor":  func(a, b uint32) uint32 { return a | b },
		"bxor": func(a, b uint32) uint32 { return a ^ b },
	}
	for name, f := range variadic {
		name, f := name, f
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			r := bitArg(L, 1, name)
			for i := 2; i <= L.GetTop(); i++ {
				r = f(r, bitArg(L, i, name))
			}
			L.Push(lua.LNumber(int32(r)))
			return 1
		}))
	}
	shifts := map[string]func(x, n uint32) uint32{
		"lshift":  func(x, n uint32) uint32 { return x << n },
		"rshift":  func(x, n uint32) uint32 { return x >> n },
		"arshift": func(x, n uint32) uint32 { return uint32(int32(x) >> n) },
		"rol":     func(x, n uint32) uint32 { return x<<n | x>>((32-n)&31) },
		"ror":     func(x, n uint32) uint32 { return x>>n | x<<((32-n)&31) },
	}
	for name, f := range shifts {
		name, f := name, f
		t.RawSetString(name, L.NewFunction(func(L *lua.LState) int {
			x := bitArg(L, 1, name)
			n := bitArg(L, 2, name) & 31
			L.Push(lua.LNumber(int32(f(x, n))))
			return 1
		}))
	}
	t.RawSetString("tohex", L.NewFunction(func(L *lua.LState) int {
		x := bitArg(L, 1, "tohex")
		n := int32(8)
		if L.GetTop() >= 2 { // lua_isnone: nil is refused by barg
			n = int32(bitArg(L, 2, "tohex"))
		}
		digits := "0123456789abcdef"
		if n < 0 {
			if n == math.MinInt32 { // Redis's fix of -INT32_MIN
				n++
			}
			n = -n
			digits = "0123456789ABCDEF"
		}
		if n > 8 {
			n = 8
		}
		buf := make([]byte, n)
		for i := int(n) - 1; i >= 0; i-- {
			buf[i] = digits[x&15]
			x >>= 4
		}
		L.Push(lua.LString(buf))
		return 1
	}))
	return t
}

// bitArg is LuaBitOp's barg: the number rounded to an integer (by adding
// 2^52+2^51) and cut to 32 bits.
func bitArg(L *lua.LState, n int, fname string) uint32 {
	v := L.Get(n)
	var f float64
	switch x := v.(type) {
	case lua.LNumber:
		f = float64(x)
	case lua.LString:
		// lua_tonumber converts numeric strings; others count as 0 and are
		// then refused (b == 0 && !lua_isnumber).
		if g, ok := lua51.StrToNumber(string(x)); ok {
			f = g
		} else {
			argError(L, n, fname, "number expected, got "+typeName(L, n))
		}
	default:
		argError(L, n, fname, "number expected, got "+typeName(L, n))
	}
	return uint32(math.Float64bits(f + 6755399441055744.0))
}

// ---- struct (Roberto Ierusalimschy's struct library, as Redis ships it) ----

const structMaxIntSize = 32

type structHeader struct {
	little bool
	align  int
}

// structGetnum is getnum: a size in the format, a C int ("integral size
// overflow" past INT_MAX).
func structGetnum(L *lua.LState, fmt string, i *int, def int) int {
	if *i >= len(fmt) || fmt[*i] < '0' || fmt[*i] > '9' {
		return def
	}
	a := 0
	for *i < len(fmt) && fmt[*i] >= '0' && fmt[*i] <= '9' {
		d := int(fmt[*i] - '0')
		if a > math.MaxInt32/10 || a*10 > math.MaxInt32-d {
			luaError(L, "integral size overflow")
		}
		a = a*10 + d
		*i++
	}
	return a
}

func structOptsize(L *lua.LState, fname string, opt byte, fmt string, i *int) int {
	switch opt {
	case 'B', 'b':
		return 1
	case 'H', 'h':
		return 2
	case 'L', 'l', 'T':
		return 8
	case 'f':
		return 4
	case 'd':
		return 8
	case 'x':
		return 1
	case 'c':
		return structGetnum(L, fmt, i, 1)
	case 'i', 'I':
		sz := structGetnum(L, fmt, i, 4)
		if sz > structMaxIntSize {
			luaError(L, "integral size %d is larger than limit of %d", sz, structMaxIntSize)
		}
		return sz
	case ' ', '<', '>', '!', 's':
		return 0
	}
	argError(L, 1, fname, "invalid format option '"+string(opt)+"'")
	return 0
}

func structToAlign(n int, h *structHeader, opt byte, size int) int {
	if size == 0 || opt == 'c' {
		return 0
	}
	if size > h.align {
		size = h.align
	}
	return (size - (n & (size - 1))) & (size - 1)
}

func structCommon(L *lua.LState, opt byte, fmt string, i *int, h *structHeader) {
	switch opt {
	case '>':
		h.little = false
	case '<':
		h.little = true
	case '!':
		a := structGetnum(L, fmt, i, 8)
		if a <= 0 || a&(a-1) != 0 {
			luaError(L, "alignment %d is not a power of 2", a)
		}
		h.align = a
	}
}

func openStruct(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 3)
	t.RawSetString("pack", L.NewFunction(structPack))
	t.RawSetString("unpack", L.NewFunction(structUnpack))
	t.RawSetString("size", L.NewFunction(structSize))
	return t
}

func structPutInt(out []byte, n float64, little bool, size int) []byte {
	// C's (Uinttype)(Itype)n below 0, (Uinttype)n from 0: x86-64's
	// conversions, out-of-range values give INT64_MIN and 0.
	var v uint64
	if n < 0 {
		v = uint64(toInt64(n))
	} else {
		v = toUint64C(n)
	}
	b := make([]byte, size)
	for k := 0; k < size; k++ {
		var c byte
		if k < 8 {
			c = byte(v >> (8 * k))
		}
		if little {
			b[k] = c
		} else {
			b[size-1-k] = c
		}
	}
	return append(out, b...)
}

func structPack(L *lua.LState) int {
	fmt := checkString(L, 1, "pack")
	h := structHeader{little: true, align: 1}
	arg := 2
	var out []byte
	for i := 0; i < len(fmt); {
		opt := fmt[i]
		i++
		size := structOptsize(L, "pack", opt, fmt, &i)
		for k := structToAlign(len(out), &h, opt, size); k > 0; k-- {
			out = append(out, 0)
		}
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			out = structPutInt(out, checkNumber(L, arg, "pack"), h.little, size)
			arg++
		case 'x':
			out = append(out, 0)
		case 'f':
			f := float32(checkNumber(L, arg, "pack"))
			arg++
			out = appendUint(out, uint64(math.Float32bits(f)), 4, h.little)
		case 'd':
			d := checkNumber(L, arg, "pack")
			arg++
			out = appendUint(out, math.Float64bits(d), 8, h.little)
		case 'c', 's':
			s := checkString(L, arg, "pack")
			arg++
			if size == 0 {
				size = len(s)
			}
			if len(s) < size {
				argError(L, arg, "pack", "string too short")
			}
			out = append(out, s[:size]...)
			if opt == 's' {
				out = append(out, 0)
			}
		default:
			structCommon(L, opt, fmt, &i, &h)
		}
	}
	L.Push(lua.LString(out))
	return 1
}

func appendUint(out []byte, v uint64, size int, little bool) []byte {
	var b [8]byte
	if little {
		binary.LittleEndian.PutUint64(b[:], v)
		return append(out, b[:size]...)
	}
	binary.BigEndian.PutUint64(b[:], v<<(64-8*size))
	return append(out, b[:size]...)
}

func structGetInt(b []byte, little, signed bool, size int) float64 {
	var l uint64
	if little {
		for k := size - 1; k >= 0; k-- {
			l = l<<8 | uint64(b[k])
		}
	} else {
		for k := 0; k < size; k++ {
			l = l<<8 | uint64(b[k])
		}
	}
	if !signed {
		return float64(l)
	}
	if size < 8 {
		mask := ^uint64(0) << (size*8 - 1)
		if l&mask != 0 {
			l |= mask
		}
	}
	return float64(int64(l))
}

func structUnpack(L *lua.LState) int {
	fmt := checkString(L, 1, "unpack")
	data := checkString(L, 2, "unpack")
	// The offset is a size_t: only 0 is refused as such; one past the
	// data (-1 is 2^64-1) fails the first option's length check.
	upos := uint64(1)
	if L.Get(3) != lua.LNil {
		upos = uint64(toInt64(checkNumber(L, 3, "unpack")))
	}
	if upos == 0 {
		argError(L, 3, "unpack", "offset must be 1 or greater")
	}
	upos--
	if upos > uint64(len(data)) {
		if fmt == "" {
			L.Push(lua.LNumber(int64(upos + 1)))
			return 1
		}
		argError(L, 2, "unpack", "data string too short")
	}
	pos := int(upos)
	h := structHeader{little: true, align: 1}
	// The results go on the stack above the arguments, each checked
	// against the C stack with room for the next position.
	args, n := L.GetTop(), 0
	for i := 0; i < len(fmt); {
		opt := fmt[i]
		i++
		size := structOptsize(L, "unpack", opt, fmt, &i)
		pos += structToAlign(pos, &h, opt, size)
		if pos+size > len(data) {
			argError(L, 2, "unpack", "data string too short")
		}
		checkStack(L, args+n, 2, "too many results")
		top := L.GetTop()
		switch opt {
		case 'b', 'B', 'h', 'H', 'l', 'L', 'T', 'i', 'I':
			signed := opt >= 'a' && opt <= 'z'
			L.Push(lua.LNumber(structGetInt([]byte(data[pos:pos+size]), h.little, signed, size)))
		case 'x':
		case 'f':
			var v uint32
			if h.little {
				v = binary.LittleEndian.Uint32([]byte(data[pos:]))
			} else {
				v = binary.BigEndian.Uint32([]byte(data[pos:]))
			}
			L.Push(lua.LNumber(math.Float32frombits(v)))
		case 'd':
			var v uint64
			if h.little {
				v = binary.LittleEndian.Uint64([]byte(data[pos:]))
			} else {
				v = binary.BigEndian.Uint64([]byte(data[pos:]))
			}
			L.Push(lua.LNumber(math.Float64frombits(v)))
		case 'c':
			if size == 0 {
				f, ok := toNumber(L.Get(-1))
				if n == 0 || !ok {
					luaError(L, "format 'c0' needs a previous size")
				}
				size = int(f)
				L.Pop(1)
				if pos+size > len(data) || size < 0 {
					argError(L, 2, "unpack", "data string too short")
				}
			}
			L.Push(lua.LString(data[pos : pos+size]))
		case 's':
			e := -1
			for k := pos; k < len(data); k++ {
				if data[k] == 0 {
					e = k
					break
				}
			}
			if e < 0 {
				luaError(L, "unfinished string in data")
			}
			size = e - pos + 1
			L.Push(lua.LString(data[pos:e]))
		default:
			structCommon(L, opt, fmt, &i, &h)
		}
		n += L.GetTop() - top
		pos += size
	}
	L.Push(lua.LNumber(pos + 1))
	return n + 1
}

func structSize(L *lua.LState) int {
	fmt := checkString(L, 1, "size")
	h := structHeader{little: true, align: 1}
	pos := 0
	for i := 0; i < len(fmt); {
		opt := fmt[i]
		i++
		size := structOptsize(L, "size", opt, fmt, &i)
		pos += structToAlign(pos, &h, opt, size)
		if opt == 's' {
			argError(L, 1, "size", "option 's' has no fixed size")
		} else if opt == 'c' && size == 0 {
			argError(L, 1, "size", "option 'c0' has no fixed size")
		}
		if opt == '!' || opt == '>' || opt == '<' || opt == ' ' {
			structCommon(L, opt, fmt, &i, &h)
		}
		pos += size
	}
	L.Push(lua.LNumber(pos))
	return 1
}
