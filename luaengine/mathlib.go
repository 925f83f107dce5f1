package luaengine

import (
	"math"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"

	"github.com/lockkv/lockkv/luaengine/internal/lua51"
)

// defaultNaN is the NaN an x86-64 CPU and glibc's libm produce for an
// invalid operation (0/0, log(-1), fmod(x, 0)): the sign bit set, which C's
// printf shows as "-nan". Go's math functions return a NaN without it.
var defaultNaN = math.Float64frombits(0xfff8000000000000)

// cNaN gives r the NaN C would give: a NaN argument comes through as it
// is (the first one), a fresh NaN is defaultNaN.
func cNaN(r float64, args ...float64) float64 {
	if r == r {
		return r
	}
	for _, a := range args {
		if a != a {
			return a
		}
	}
	return defaultNaN
}

// openMath builds Lua 5.1's math library (lmathlib.c, with LUA_COMPAT_MOD's
// math.mod) over Go's math package: arguments read with luaL_checknumber
// and luaL_checkint, NaN results signed as glibc signs them. random and
// randomseed are Redis's (redisLrand48).
func (e *Engine) openMath(L *lua.LState) *lua.LTable {
	t := L.CreateTable(0, 32)
	// unary and binary read their arguments; f gives C's result, NaN's
	// sign included (see c1, c2).
	unary := func(name string, f func(float64) float64) lua.LGFunction {
		return func(L *lua.LState) int {
			x := checkNumber(L, 1, name)
			L.Push(lua.LNumber(f(x)))
			return 1
		}
	}
	binary := func(name string, f func(x, y float64) float64) lua.LGFunction {
		return func(L *lua.LState) int {
			x := checkNumber(L, 1, name)
			y := checkNumber(L, 2, name)
			L.Push(lua.LNumber(f(x, y)))
			return 1
		}
	}
	minmax := func(name string, less func(a, b float64) bool) lua.LGFunction {
		return func(L *lua.LState) int {
			r := checkNumber(L, 1, name)
			for i := 2; i <= L.GetTop(); i++ {
				if d := checkNumber(L, i, name); less(d, r) {
					r = d
				}
			}
			L.Push(lua.LNumber(r))
			return 1
		}
	}
	// In lmathlib.c's order: the order of insertion shapes the table's
	// layout and so pairs(math).
	lib := []struct {
		name string
		f    lua.LGFunction
	}{
		{"abs", unary("abs", math.Abs)},
		{"acos", unary("acos", positiveNaN(math.Acos))},
		{"asin", unary("asin", positiveNaN(math.Asin))},
		{"atan2", binary("atan2", c2(math.Atan2))},
		{"atan", unary("atan", c1(math.Atan))},
		{"ceil", unary("ceil", c1(math.Ceil))},
		{"cosh", unary("cosh", c1(math.Cosh))},
		{"cos", unary("cos", c1(math.Cos))},
		{"deg", unary("deg", c1(func(x float64) float64 { return x / radian }))},
		{"exp", unary("exp", c1(math.Exp))},
		{"floor", unary("floor", c1(math.Floor))},
		{"fmod", binary("fmod", c2(math.Mod))},
		{"frexp", func(L *lua.LState) int {
			x := checkNumber(L, 1, "frexp")
			m, exp := math.Frexp(x)
			L.Push(lua.LNumber(cNaN(m, x)))
			L.Push(lua.LNumber(int32(exp)))
			return 2
		}},
		{"ldexp", func(L *lua.LState) int {
			x := checkNumber(L, 1, "ldexp")
			exp := checkInt(L, 2, "ldexp")
			L.Push(lua.LNumber(cNaN(math.Ldexp(x, int(exp)), x)))
			return 1
		}},
		{"log10", unary("log10", positiveNaN(math.Log10))},
		{"log", unary("log", c1(math.Log))},
		{"max", minmax("max", func(a, b float64) bool { return a > b })},
		{"min", minmax("min", func(a, b float64) bool { return a < b })},
		{"modf", func(L *lua.LState) int {
			x := checkNumber(L, 1, "modf")
			ip, fp := math.Modf(x)
			if math.IsInf(x, 0) {
				fp = math.Copysign(0, x) // C's modf: the fraction of ±inf is ±0
			}
			L.Push(lua.LNumber(cNaN(ip, x)))
			L.Push(lua.LNumber(cNaN(fp, x)))
			return 2
		}},
		{"pow", binary("pow", func(x, y float64) float64 {
			if x != x && y != 0 && y == math.Trunc(y) && math.Mod(y, 2) != 0 {
				return math.Abs(x) // glibc's pow of a NaN to an odd power is unsigned
			}
			return cNaN(math.Pow(x, y), x, y)
		})},
		{"rad", unary("rad", c1(func(x float64) float64 { return x * radian }))},
		{"random", e.mathRandom},
		{"randomseed", e.mathRandomseed},
		{"sinh", unary("sinh", c1(math.Sinh))},
		{"sin", unary("sin", c1(math.Sin))},
		{"sqrt", unary("sqrt", c1(math.Sqrt))},
		{"tanh", unary("tanh", c1(math.Tanh))},
		{"tan", unary("tan", c1(math.Tan))},
	}
	for _, f := range lib {
		t.RawSetString(f.name, L.NewFunction(f.f))
	}
	t.RawSetString("pi", lua.LNumber(math.Pi))
	t.RawSetString("huge", lua.LNumber(math.Inf(1)))
	// LUA_COMPAT_MOD's math.mod is fmod; Lua names a function in its
	// argument errors as the call site named it.
	t.RawSetString("mod", L.NewFunction(binary("mod", c2(math.Mod))))
	// luaL_register sized the table for its 28 functions: pairs(math)
	// follows that layout.
	lua51.MarkSized(L, t, 0, len(lib))
	return t
}

// c1 is f with C's NaN (see cNaN).
func c1(f func(float64) float64) func(float64) float64 {
	return func(x float64) float64 { return cNaN(f(x), x) }
}

// c2 is f with C's NaN (see cNaN).
func c2(f func(x, y float64) float64) func(x, y float64) float64 {
	return func(x, y float64) float64 { return cNaN(f(x, y), x, y) }
}

// positiveNaN is f with its invalid-operation NaN unsigned, as glibc's
// asin, acos and log10 give it.
func positiveNaN(f func(float64) float64) func(float64) float64 {
	return func(x float64) float64 {
		r := f(x)
		if r != r && x == x {
			return math.NaN()
		}
		return cNaN(r, x)
	}
}

// radian is lmathlib.c's RADIANS_PER_DEGREE, PI/180 in double arithmetic.
var radian = func() float64 { pi := math.Pi; return pi / 180 }()
