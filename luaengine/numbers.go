package luaengine

import (
	"bytes"
	"math"
	"math/bits"
	"slices"
	"strings"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// appendArg formats a number argument of redis.call ("%.17g").
func appendArg(dst []byte, f float64) []byte { return lua51.AppendG(dst, f, 17) }

func baseTostring(L *lua.LState) int {
	v := L.CheckAny(1)
	if n, ok := v.(lua.LNumber); ok {
		L.Push(lua.LString(formatNumber(n)))
		return 1
	}
	if ud, ok := v.(*lua.LUserData); ok && ud.Value == cjsonNullTag {
		L.Push(lua.LString("userdata: (nil)"))
		return 1
	}
	L.Push(L.ToStringMeta(v))
	return 1
}

// strtoul is C's: leading white space, a sign, "0x" for base 16, then
// digits of base; a minus negates the unsigned result, an overflow gives
// the largest value. ok is false without a digit; rest is what follows.
func strtoul(s string, base int) (n uint64, rest string, ok bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg, t = t[0] == '-', t[1:]
	}
	if base == 16 && len(t) > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X') && digitValue(t[2]) < 16 {
		t = t[2:]
	}
	over := false
	i := 0
	for ; i < len(t); i++ {
		d := digitValue(t[i])
		if d >= base {
			break
		}
		hi, lo := bits.Mul64(n, uint64(base))
		lo, carry := bits.Add64(lo, uint64(d), 0)
		if hi != 0 || carry != 0 {
			over = true
		}
		n = lo
	}
	if i == 0 {
		return 0, s, false
	}
	switch {
	case over:
		n = math.MaxUint64
	case neg:
		n = -n
	}
	return n, t[i:], true
}

// digitValue is a character's value as a digit of bases up to 36, 99
// for anything else.
func digitValue(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'z':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'Z':
		return int(c-'A') + 10
	}
	return 99
}

func baseTonumber(L *lua.LState) int {
	v := L.CheckAny(1)
	base := 10
	if L.Get(2) != lua.LNil {
		base = int(checkInt(L, 2, "tonumber")) // luaL_optint: a C int
	}
	if base == 10 {
		switch x := v.(type) {
		case lua.LNumber:
			L.Push(x)
			return 1
		case lua.LString:
			if f, ok := lua51.StrToNumber(string(x)); ok {
				L.Push(lua.LNumber(f))
				return 1
			}
		}
		L.Push(lua.LNil)
		return 1
	}
	if base < 2 || base > 36 {
		L.ArgError(2, "base out of range")
	}
	n, rest, ok := strtoul(L.CheckString(1), base)
	if !ok || strings.TrimLeft(rest, " \t\n\v\f\r") != "" {
		L.Push(lua.LNil)
		return 1
	}
	f := float64(n)
	L.Push(lua.LNumber(f))
	return 1
}

// baseUnpack is Lua 5.1's luaB_unpack: i and j are C ints, and the
// values must fit the C stack above the arguments (LUAI_MAXCSTACK).
func baseUnpack(L *lua.LState) int {
	t := checkTable(L, 1)
	i := int32(1)
	if L.Get(2) != lua.LNil {
		i = checkInt(L, 2, "unpack")
	}
	var j int32
	if L.Get(3) == lua.LNil {
		j = int32(lua51.Len(t))
	} else {
		j = checkInt(L, 3, "unpack")
	}
	if i > j {
		return 0
	}
	n := j - i + 1 // int arithmetic: n <= 0 is an overflow
	if n <= 0 || !stackFits(L.GetTop(), int(n)) {
		luaError(L, "too many results to unpack")
	}
	for k := i; ; k++ {
		L.Push(t.RawGetInt(int(k)))
		if k == j {
			break
		}
	}
	return int(n)
}

// checkInt is luaL_checkint: the number (or numeric string) converted
// to lua_Integer and cut to a C int, as x86-64 C converts it.
func checkInt(L *lua.LState, n int, fname string) int32 {
	return int32(toInt64(checkNumber(L, n, fname)))
}

// strLen is Lua 5.1's str_len.
func strLen(L *lua.LState) int {
	L.Push(lua.LNumber(len(checkString(L, 1, "len"))))
	return 1
}

// strReverse is Lua 5.1's str_reverse.
func strReverse(L *lua.LState) int {
	s := checkString(L, 1, "reverse")
	b := make([]byte, len(s))
	for i := range b {
		b[i] = s[len(s)-1-i]
	}
	L.Push(lua.LString(b))
	return 1
}

// strChar is Lua 5.1's str_char: each argument a C int that must be a
// byte.
func strChar(L *lua.LState) int {
	n := L.GetTop()
	b := make([]byte, n)
	for i := 1; i <= n; i++ {
		c := checkInt(L, i, "char")
		if c < 0 || c > 255 {
			argError(L, i, "char", "invalid value")
		}
		b[i-1] = uint8(c)
	}
	L.Push(lua.LString(b))
	return 1
}

// strSub is Lua 5.1's str_sub: positions are ptrdiff_t (luaL_checkinteger),
// so NaN and huge values are INT64_MIN.
func strSub(L *lua.LState) int {
	s := checkString(L, 1, "sub")
	l := int64(len(s))
	posrelat := func(pos int64) int64 {
		if pos < 0 {
			pos += l + 1
		}
		return max(pos, 0)
	}
	start := posrelat(toInt64(checkNumber(L, 2, "sub")))
	end := int64(-1)
	if L.Get(3) != lua.LNil {
		end = toInt64(checkNumber(L, 3, "sub"))
	}
	end = posrelat(end)
	start = max(start, 1)
	end = min(end, l)
	if start <= end {
		L.Push(lua.LString(s[start-1 : end]))
	} else {
		L.Push(lua.LString(""))
	}
	return 1
}

// strByte is Lua 5.1's str_byte: the values must fit the C stack above
// the arguments ("string slice too long").
func strByte(L *lua.LState) int {
	s := checkString(L, 1, "byte")
	l := int64(len(s))
	posrelat := func(pos int64) int64 {
		if pos < 0 {
			pos += l + 1
		}
		return max(pos, 0)
	}
	posi := int64(1)
	if L.Get(2) != lua.LNil {
		posi = toInt64(checkNumber(L, 2, "byte"))
	}
	posi = posrelat(posi)
	pose := posi
	if L.Get(3) != lua.LNil {
		pose = toInt64(checkNumber(L, 3, "byte"))
	}
	pose = posrelat(pose)
	posi = max(posi, 1)
	pose = min(pose, l)
	if posi > pose {
		return 0
	}
	n := int(pose - posi + 1)
	checkStack(L, L.GetTop(), n, "string slice too long")
	for i := 0; i < n; i++ {
		L.Push(lua.LNumber(s[int(posi)-1+i]))
	}
	return n
}

// strRep is Lua 5.1's str_rep (the count a C int); a result longer than
// maxStringLen is a memory error.
func (e *Engine) strRep(L *lua.LState) int {
	s := checkString(L, 1, "rep")
	n := checkInt(L, 2, "rep")
	if n <= 0 || len(s) == 0 {
		L.Push(lua.LString(""))
		return 1
	}
	e.checkStringLen(L, len(s)*int(n))
	e.chargeBytes(L, len(s)*int(n))
	L.Push(lua.LString(strings.Repeat(s, int(n))))
	return 1
}

// tableConcat is Lua 5.1's tconcat: the range's defaults are 1 and #t,
// numbers are formatted as Lua formats them, and a result longer than
// maxStringLen is a memory error.
func (e *Engine) tableConcat(L *lua.LState) int {
	sep := ""
	if L.Get(2) != lua.LNil {
		sep = checkString(L, 2, "concat")
	}
	t, ok := L.Get(1).(*lua.LTable)
	if !ok {
		argError(L, 1, "concat", "table expected, got "+typeName(L, 1))
	}
	i := int32(1)
	if L.Get(3) != lua.LNil {
		i = checkInt(L, 3, "concat")
	}
	var last int32
	if L.Get(4) == lua.LNil {
		e.charge(L, lenSteps(t))
		last = int32(lua51.Len(t))
	} else {
		last = checkInt(L, 4, "concat")
	}
	// Two passes: the first checks the values in order and sums their
	// lengths (a memory error where the result would pass the bound),
	// the second builds the result.
	field := func(i int32) string {
		v, ok := luaString(t.RawGetInt(int(i)))
		if !ok {
			// Redis's Lua names the value's type.
			luaError(L, "invalid value (%s) at index %d in table for 'concat'", t.RawGetInt(int(i)).Type().String(), i)
		}
		return v
	}
	n := 0
	for k := i; k <= last; k++ {
		n += len(field(k))
		if k < last {
			n += len(sep)
		}
		e.checkStringLen(L, n)
		if k == last {
			break // last may be the largest int
		}
	}
	if i <= last {
		e.chargeBytes(L, n)
		e.charge(L, int(last-i)+1)
	}
	b := make([]byte, 0, n)
	for ; i < last; i++ {
		b = append(b, field(i)...)
		b = append(b, sep...)
	}
	if i == last {
		b = append(b, field(i)...)
	}
	L.Push(lua.LString(b))
	return 1
}

func (e *Engine) tableForeach(L *lua.LState) int {
	t := checkTable(L, 1)
	fn := checkFunction(L, 2)
	k, v, ok := e.emu.Next(L, t, lua.LNil)
	for ok {
		L.Push(fn)
		L.Push(k)
		L.Push(v)
		L.Call(2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
		k, v, ok = e.emu.Next(L, t, k)
	}
	return 0
}

func tableForeachi(L *lua.LState) int {
	t := checkTable(L, 1)
	fn := checkFunction(L, 2)
	n := lua51.Len(t)
	for i := 1; i <= n; i++ {
		L.Push(fn)
		L.Push(lua.LNumber(i))
		L.Push(t.RawGetInt(i))
		L.Call(2, 1)
		if r := L.Get(-1); r != lua.LNil {
			return 1
		}
		L.Pop(1)
	}
	return 0
}

func tableSetn(L *lua.LState) int {
	checkTable(L, 1)
	L.RaiseError("'setn' is obsolete")
	return 0
}

func tableGetn(L *lua.LState) int {
	L.Push(lua.LNumber(lua51.Len(checkTable(L, 1))))
	return 1
}

// strFormat is Lua 5.1's string.format, C printf semantics included.
func strFormat(L *lua.LState) int {
	fmtStr := checkString(L, 1, "format")
	arg := 1
	var out []byte
	for i := 0; i < len(fmtStr); i++ {
		c := fmtStr[i]
		if c != '%' {
			out = append(out, c)
			continue
		}
		i++
		if i >= len(fmtStr) {
			L.RaiseError("invalid option '%%' to 'format'")
		}
		if fmtStr[i] == '%' {
			out = append(out, '%')
			continue
		}
		arg++
		if arg > L.GetTop() {
			argError(L, arg, "format", "no value")
		}
		start := i
		for i < len(fmtStr) && strings.IndexByte("-+ #0", fmtStr[i]) >= 0 {
			i++
		}
		if i-start > 5 {
			L.RaiseError("invalid format (repeated flags)")
		}
		digits := 0
		for i < len(fmtStr) && fmtStr[i] >= '0' && fmtStr[i] <= '9' {
			i++
			digits++
		}
		if digits > 2 {
			L.RaiseError("invalid format (width or precision too long)")
		}
		if i < len(fmtStr) && fmtStr[i] == '.' {
			i++
			digits = 0
			for i < len(fmtStr) && fmtStr[i] >= '0' && fmtStr[i] <= '9' {
				i++
				digits++
			}
			if digits > 2 {
				L.RaiseError("invalid format (width or precision too long)")
			}
		}
		if i >= len(fmtStr) {
			L.RaiseError("invalid option '%%' to 'format'")
		}
		spec := fmtStr[start:i]
		conv := fmtStr[i]
		switch conv {
		case 'c':
			n := checkNumber(L, arg, "format")
			// Lua adds sprintf's buffer up to its first NUL (strlen):
			// a char 0 (256, NaN) cuts the field there.
			c := []byte(cFormat(spec, 'c', toInt64(n)))
			if z := bytes.IndexByte(c, 0); z >= 0 {
				c = c[:z]
			}
			out = append(out, c...)
		case 'd', 'i':
			n := checkNumber(L, arg, "format")
			out = append(out, cFormat(spec, 'd', toInt64(n))...)
		case 'o', 'u', 'x', 'X':
			n := checkNumber(L, arg, "format")
			out = append(out, cFormat(spec, conv, toUint64C(n))...)
		case 'e', 'E', 'f', 'g', 'G':
			n := checkNumber(L, arg, "format")
			out = append(out, cFormat(spec, conv, n)...)
		case 'q':
			out = appendQuoted(out, checkString(L, arg, "format"))
		case 's':
			v := L.Get(arg)
			var s string
			switch x := v.(type) {
			case lua.LString:
				s = string(x)
			case lua.LNumber:
				s = formatNumber(x)
			default:
				s = L.CheckString(arg)
			}
			if !strings.Contains(spec, ".") && len(s) >= 100 {
				out = append(out, s...)
			} else {
				out = append(out, cFormat(spec, 's', s)...)
			}
		default:
			L.RaiseError("invalid option '%%%c' to 'format'", conv)
		}
	}
	L.Push(lua.LString(out))
	return 1
}

func toInt64(f float64) int64 {
	if f != f || f >= 9.2233720368547758e18 || f < -9.2233720368547758e18 {
		return math.MinInt64
	}
	return int64(f)
}

func appendQuoted(out []byte, s string) []byte {
	out = append(out, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\', '\n':
			out = append(out, '\\', c)
		case '\r':
			out = append(out, "\\r"...)
		case 0:
			out = append(out, "\\000"...)
		default:
			out = append(out, c)
		}
	}
	return append(out, '"')
}

// numArgs are, per library, the argument positions of functions that Lua
// 5.1 reads with luaL_checknumber/checkint/optint, which accept numeric
// strings as tonumber reads them; gopher-lua reads strings there with its
// own parser ("010" as octal 8, "0x1p4" refused). -1 means every argument.
var numArgs = map[string]map[string][]int{
	"table": {"remove": {2}},
	"_G":    {"tonumber": {2}, "error": {2}},
}

// coerceNumArgs wraps lib's functions listed in numArgs[name] so numeric
// strings are converted where Lua 5.1 converts them.
func coerceNumArgs(L *lua.LState, name string, lib *lua.LTable) {
	for fname, pos := range numArgs[name] {
		fn, ok := lib.RawGetString(fname).(*lua.LFunction)
		if !ok {
			continue
		}
		pos := pos
		inner := fn.GFunction
		lib.RawSetString(fname, L.NewFunction(func(L *lua.LState) int {
			top := L.GetTop()
			for _, p := range pos {
				if p == -1 {
					for i := 1; i <= top; i++ {
						coerceArg(L, i)
					}
				} else if p <= top {
					coerceArg(L, p)
				}
			}
			return inner(L)
		}))
	}
}

func coerceArg(L *lua.LState, i int) {
	if s, ok := L.Get(i).(lua.LString); ok {
		if f, ok := lua51.StrToNumber(string(s)); ok {
			L.Replace(i, lua.LNumber(f))
		}
	}
}

func luaNumber(f float64) lua.LNumber { return lua.LNumber(f) }

// toUint64C is C's (unsigned long) conversion of a double as x86-64 code
// does it: values from 2^63 go through a subtraction, out-of-range ones
// end up 0.
func toUint64C(f float64) uint64 {
	if !(f >= 9.2233720368547758e18) { // NaN takes this branch, as x86's comisd does
		return uint64(toInt64(f))
	}
	return uint64(toInt64(f-9.2233720368547758e18)) ^ (1 << 63)
}

func strLowerASCII(L *lua.LState) int {
	s := []byte(checkString(L, 1, "lower"))
	for i, c := range s {
		if c >= 'A' && c <= 'Z' {
			s[i] = c + 'a' - 'A'
		}
	}
	L.Push(lua.LString(s))
	return 1
}

func strUpperASCII(L *lua.LState) int {
	s := []byte(checkString(L, 1, "upper"))
	for i, c := range s {
		if c >= 'a' && c <= 'z' {
			s[i] = c - ('a' - 'A')
		}
	}
	L.Push(lua.LString(s))
	return 1
}

// installStringArith gives strings arithmetic metamethods that convert them
// as Lua 5.1 does (luaO_str2d: decimal or hex, surrounding spaces).
// gopher-lua's own conversion reads "010" as octal and accepts "0b11" and
// "1_0"; it is only reached when an operand is a string, so arithmetic on
// numbers pays nothing. The methods sit on the string metatable gopher-lua
// uses internally; scripts see a different one (getmetatable).
func installStringArith(L *lua.LState, mt *lua.LTable) {
	ops := []struct {
		event, name string
		f           func(a, b float64) float64
	}{
		{"__add", "add", func(a, b float64) float64 { return a + b }},
		{"__sub", "sub", func(a, b float64) float64 { return a - b }},
		{"__mul", "mul", func(a, b float64) float64 { return a * b }},
		{"__div", "div", func(a, b float64) float64 { return a / b }},
		{"__mod", "mod", func(a, b float64) float64 { return a - math.Floor(a/b)*b }},
		{"__pow", "pow", math.Pow},
	}
	for _, op := range ops {
		op := op
		mt.RawSetString(op.event, L.NewFunction(func(L *lua.LState) int {
			a, b := L.Get(1), L.Get(2)
			x, ok1 := toNumber(a)
			y, ok2 := toNumber(b)
			if !ok1 || !ok2 {
				L.RaiseError("cannot perform %s operation between %s and %s", op.name, a.Type().String(), b.Type().String())
			}
			L.Push(lua.LNumber(op.f(x, y)))
			return 1
		}))
	}
	// Unary minus: gopher-lua would negate parseNumber's reading ("010"
	// as octal 8); Lua 5.1 negates tonumber's.
	mt.RawSetString("__unm", L.NewFunction(func(L *lua.LState) int {
		x, ok := toNumber(L.Get(1))
		if !ok {
			L.RaiseError("__unm undefined")
		}
		L.Push(lua.LNumber(-x))
		return 1
	}))
}

// tableInsert is Lua 5.1's table.insert (ltablib.c tinsert) with its #t,
// charged a slot for each element it stores (steps.go).
func (eng *Engine) tableInsert(L *lua.LState) int {
	t := checkTable(L, 1)
	eng.charge(L, lenSteps(t))
	e := lua51.Len(t) + 1 // first empty element
	pos := e
	switch L.GetTop() {
	case 2:
	case 3:
		pos = int(checkInt(L, 2, "insert")) // a C int: NaN and 2^53 are INT_MIN
	default:
		luaError(L, "wrong number of arguments to 'insert'")
	}
	if t.ReadOnly() {
		// Lua's first store (lua_rawseti) fails, once the arguments
		// are checked.
		L.Error(lua.LString(errReadonly), 0)
	}
	if L.GetTop() == 3 {
		if pos > e {
			e = pos // grow the array if necessary
		}
		if e > pos {
			eng.charge(L, (e-pos)*stepsPerMove)
		}
		moveUp(L, t, pos, e)
	}
	eng.charge(L, weightSlot)
	lua51.Set(L, t, lua.LNumber(pos), L.Get(L.GetTop()))
	return 0
}

// moveUp is tinsert's loop, t[i] = t[i-1] for i from e down to pos+1.
// Where the range (up to 2^32 indexes from a position like INT_MIN) is
// far longer than the table, only the moves that change something are
// made: those next to a present key.
func moveUp(L *lua.LState, t *lua.LTable, pos, e int) {
	n := 0
	lua51.Unordered(t, func(_, _ lua.LValue) { n++ })
	if e-pos <= 4*n+64 {
		for i := e; i > pos; i-- {
			lua51.Set(L, t, lua.LNumber(i), t.RawGetInt(i-1))
		}
		return
	}
	var idx []int
	lua51.Unordered(t, func(k, _ lua.LValue) {
		if f, ok := k.(lua.LNumber); ok && float64(f) == math.Trunc(float64(f)) && float64(f) >= float64(pos) && float64(f) <= float64(e) {
			i := int(f)
			if i > pos {
				idx = append(idx, i)
			}
			if i+1 <= e {
				idx = append(idx, i+1)
			}
		}
	})
	slices.Sort(idx)
	idx = slices.Compact(idx)
	for j := len(idx) - 1; j >= 0; j-- {
		i := idx[j]
		lua51.Set(L, t, lua.LNumber(i), t.RawGetInt(i-1))
	}
}

// tableRemove is Lua 5.1's table.remove (ltablib.c tremove) with its #t,
// charged a step for each element it moves.
func (eng *Engine) tableRemove(L *lua.LState) int {
	t := checkTable(L, 1)
	eng.charge(L, lenSteps(t))
	e := lua51.Len(t)
	pos := e
	if L.Get(2) != lua.LNil {
		pos = int(checkInt(L, 2, "remove")) // luaL_optint: a C int
	}
	if !(1 <= pos && pos <= e) { // position is outside bounds
		return 0
	}
	eng.charge(L, (e-pos+1)*stepsPerMove)
	L.Push(t.RawGetInt(pos))
	for ; pos < e; pos++ {
		lua51.Set(L, t, lua.LNumber(pos), t.RawGetInt(pos+1))
	}
	lua51.Set(L, t, lua.LNumber(e), lua.LNil)
	return 1
}
