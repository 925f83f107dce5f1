// Package longdouble reproduces the x87 80-bit "long double" arithmetic
// that Redis uses for INCRBYFLOAT and HINCRBYFLOAT: strtold parsing
// (string2ld), addition rounded to a 64-bit significand, and printf
// "%.17Lf" output with trailing zeros removed (ld2string LD_STR_HUMAN).
// With a 64-bit significand 0.1+0.2 prints "0.3", and values up to about
// 1.19e4932 stay finite, so float64 would give different replies.
//
// Values are *big.Float with precision 64 rounded to nearest even, the x87
// default; the exponent range is checked by hand.
package longdouble

import (
	"math/big"

	"github.com/lockkv/lockkv/internal/cstr"
)

const (
	prec = 64
	// big.Float exponents (x = mant * 2^exp, 0.5 <= |mant| < 1).
	maxExp    = 16384  // largest finite long double < 2^16384
	minNormal = -16381 // 2^-16382 is the smallest normal long double
	minDenorm = -16444 // 2^-16445 is the smallest denormal
)

// Parse parses b as Redis's string2ld does with glibc's strtold: optional
// sign, decimal or 0x hexadecimal digits with an optional fraction and
// exponent, "inf"/"infinity" (any case). It refuses empty input, leading
// spaces, trailing bytes, NaN, and values that overflow or underflow to
// zero (strtold's ERANGE). The result may be infinite.
func Parse(b []byte) (*big.Float, bool) {
	if len(b) == 0 || len(b) >= 5*1024 {
		return nil, false
	}
	i := 0
	neg := false
	if b[i] == '+' || b[i] == '-' {
		neg = b[i] == '-'
		i++
	}
	rest := b[i:]
	if cstr.EqualFold(rest, "inf") || cstr.EqualFold(rest, "infinity") {
		return new(big.Float).SetInf(neg), true
	}
	var z *big.Float
	var ok bool
	if len(rest) > 2 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X') {
		z, ok = parseHex(rest[2:])
	} else {
		z, ok = parseDec(rest)
	}
	if !ok {
		return nil, false
	}
	if z.Sign() == 0 {
		if neg {
			z.Neg(z)
		}
		return z, true
	}
	z, ok = clamp(z)
	if !ok {
		return nil, false // ERANGE: overflow to HUGE_VALL or underflow to 0
	}
	if neg {
		z.Neg(z)
	}
	return z, true
}

// clamp applies the long double exponent range to a value already rounded
// to 64 bits: ok is false on overflow or when it underflows to zero;
// denormals lose precision as on x87.
func clamp(z *big.Float) (*big.Float, bool) {
	if z.IsInf() {
		return nil, false
	}
	e := z.MantExp(nil)
	if e > maxExp {
		return nil, false
	}
	if e < minNormal {
		p := prec - (minNormal - e)
		if p <= 0 {
			// Below half the smallest denormal rounds to zero; exactly
			// around it rounds up to the smallest denormal.
			if e < minDenorm {
				return nil, false
			}
			p = 1
		}
		z.SetPrec(uint(p))
		z.SetPrec(prec)
	}
	return z, true
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// parseExp parses an exponent ([+-]digits) that must end the input.
// Huge exponents saturate.
func parseExp(b []byte) (int64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	neg := false
	if b[0] == '+' || b[0] == '-' {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, false
	}
	var e int64
	for _, c := range b {
		if !isDigit(c) {
			return 0, false
		}
		if e < 1e9 {
			e = e*10 + int64(c-'0')
		}
	}
	if neg {
		e = -e
	}
	return e, true
}

func parseDec(b []byte) (*big.Float, bool) {
	var mant []byte
	digits, fracDigits := 0, 0
	i := 0
	for ; i < len(b) && isDigit(b[i]); i++ {
		mant = append(mant, b[i])
		digits++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && isDigit(b[i]); i++ {
			mant = append(mant, b[i])
			digits++
			fracDigits++
		}
	}
	if digits == 0 {
		return nil, false
	}
	var exp int64
	if i < len(b) {
		if b[i] != 'e' && b[i] != 'E' {
			return nil, false
		}
		var ok bool
		if exp, ok = parseExp(b[i+1:]); !ok {
			return nil, false
		}
	}
	m, _ := new(big.Int).SetString(string(mant), 10)
	if m.Sign() == 0 {
		return new(big.Float).SetPrec(prec), true
	}
	exp -= int64(fracDigits)
	// Magnitude check before exact arithmetic: the value is about
	// 10^(exp+len(m)).
	mag := exp + int64(len(m.String()))
	if mag > 4940 {
		return big.NewFloat(0).SetPrec(prec).SetInf(false), true // clamp refuses it
	}
	if mag < -4960 {
		return nil, false
	}
	z := new(big.Float).SetPrec(prec)
	if exp >= 0 {
		m.Mul(m, new(big.Int).Exp(big.NewInt(10), big.NewInt(exp), nil))
		z.SetInt(m)
	} else {
		d := new(big.Int).Exp(big.NewInt(10), big.NewInt(-exp), nil)
		z.SetRat(new(big.Rat).SetFrac(m, d))
	}
	return z, true
}

func parseHex(b []byte) (*big.Float, bool) {
	m := new(big.Int)
	digits, fracDigits := 0, 0
	i := 0
	for ; i < len(b) && hexVal(b[i]) >= 0; i++ {
		m.Lsh(m, 4).Or(m, big.NewInt(int64(hexVal(b[i]))))
		digits++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b) && hexVal(b[i]) >= 0; i++ {
			m.Lsh(m, 4).Or(m, big.NewInt(int64(hexVal(b[i]))))
			digits++
			fracDigits++
		}
	}
	if digits == 0 {
		return nil, false
	}
	var exp int64
	if i < len(b) {
		if b[i] != 'p' && b[i] != 'P' {
			return nil, false
		}
		var ok bool
		if exp, ok = parseExp(b[i+1:]); !ok {
			return nil, false
		}
	}
	z := new(big.Float).SetPrec(prec)
	if m.Sign() == 0 {
		return z, true
	}
	exp -= 4 * int64(fracDigits)
	mag := exp + int64(m.BitLen())
	if mag > maxExp+10 {
		return z.SetInf(false), true
	}
	if mag < minDenorm-10 {
		return nil, false
	}
	z.SetInt(m)
	return z.SetMantExp(z, int(exp)), true
}

// Add returns a+b rounded to a long double; ok is false when the result is
// NaN or infinite (Redis: "increment would produce NaN or Infinity").
func Add(a, b *big.Float) (*big.Float, bool) {
	if a.IsInf() || b.IsInf() {
		return nil, false
	}
	z := new(big.Float).SetPrec(prec).Add(a, b)
	if z.Sign() == 0 {
		return z, true
	}
	return clamp(z)
}

// IsInf reports whether x is infinite.
func IsInf(x *big.Float) bool { return x.IsInf() }

// FromInt returns n as a long double (exact: 64-bit significand).
func FromInt(n int64) *big.Float { return new(big.Float).SetPrec(prec).SetInt64(n) }

// AppendHuman appends x formatted as Redis's ld2string(LD_STR_HUMAN):
// printf("%.17Lf") without trailing fractional zeros, "-0" as "0".
func AppendHuman(dst []byte, x *big.Float) []byte {
	start := len(dst)
	dst = x.Append(dst, 'f', 17)
	l := len(dst)
	for l > start && dst[l-1] == '0' {
		l--
	}
	if l > start && dst[l-1] == '.' {
		l--
	}
	dst = dst[:l]
	if string(dst[start:]) == "-0" {
		dst = append(dst[:start], '0')
	}
	return dst
}
