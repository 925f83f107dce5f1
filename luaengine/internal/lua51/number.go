package lua51

import (
	"math"
	"strconv"
	"strings"

	lua "github.com/lockkv/lockkv/third_party/yuin/gopher-lua"
)

// Numbers as Lua 5.1 reads and writes them: gopher-lua formats with Go's
// shortest representation and reads no hex floats.

// AppendNumber formats f like Lua 5.1's lua_Number2str ("%.14g").
func AppendNumber(dst []byte, f float64) []byte { return AppendG(dst, f, 14) }

// AppendG formats f as C's printf "%.<digits>g" does with glibc: nan,
// -nan, inf, -inf, -0, and integers below 10^digits without an exponent.
func AppendG(dst []byte, f float64, digits int) []byte {
	switch {
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(dst, "-nan"...)
		}
		return append(dst, "nan"...)
	case math.IsInf(f, 1):
		return append(dst, "inf"...)
	case math.IsInf(f, -1):
		return append(dst, "-inf"...)
	}
	if f == 0 && math.Signbit(f) {
		return append(dst, "-0"...)
	}
	if f == math.Trunc(f) && math.Abs(f) < math.Pow10(digits) {
		return strconv.AppendInt(dst, int64(f), 10)
	}
	return strconv.AppendFloat(dst, f, 'g', digits, 64)
}

// StrToNumber is Lua 5.1's luaO_str2d: strtod (decimal, or hex after
// "0x"), surrounding white space allowed, nothing else.
func StrToNumber(s string) (float64, bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	t = strings.TrimRight(t, " \t\n\v\f\r")
	if t == "" {
		return 0, false
	}
	body := t
	neg := false
	if body[0] == '-' || body[0] == '+' {
		neg = body[0] == '-'
		body = body[1:]
	}
	if len(body) > 2 && body[0] == '0' && (body[1] == 'x' || body[1] == 'X') {
		f, ok := hexFloat(body[2:])
		if neg {
			f = -f
		}
		return f, ok
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= '0' && c <= '9' || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-') {
			low := strings.ToLower(body)
			if low == "inf" || low == "infinity" {
				if neg {
					return math.Inf(-1), true
				}
				return math.Inf(1), true
			}
			if low == "nan" || strings.HasPrefix(low, "nan(") && strings.HasSuffix(low, ")") &&
				strings.Trim(low[4:len(low)-1], "abcdefghijklmnopqrstuvwxyz0123456789_") == "" {
				if neg {
					return math.Copysign(math.NaN(), -1), true
				}
				return math.NaN(), true
			}
			return 0, false
		}
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// hexFloat reads what glibc's strtod accepts after "0x": hex digits with
// an optional point ("10.8") and an optional binary exponent ("1p4").
func hexFloat(s string) (float64, bool) {
	mant, exp := s, ""
	if i := strings.IndexAny(s, "pP"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
		e := exp
		if e != "" && (e[0] == '+' || e[0] == '-') {
			e = e[1:]
		}
		if e == "" || strings.Trim(e, "0123456789") != "" {
			return 0, false
		}
	}
	intPart, frac, _ := strings.Cut(mant, ".")
	if intPart == "" && frac == "" {
		return 0, false
	}
	for _, part := range []string{intPart, frac} {
		if strings.Trim(part, "0123456789abcdefABCDEF") != "" {
			return 0, false
		}
	}
	if intPart == "" {
		intPart = "0"
	}
	if exp == "" {
		exp = "0"
	}
	f, err := strconv.ParseFloat("0x"+intPart+"."+frac+"p"+exp, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			return f, true
		}
		return 0, false
	}
	return f, true
}

// formatNumber is AppendNumber as a string.
func formatNumber(n lua.LNumber) string {
	var buf [32]byte
	return string(AppendNumber(buf[:0], float64(n)))
}
