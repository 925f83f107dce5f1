// Package redisnum parses numbers as Redis 7.0 does, byte for byte: its
// util.c string2ll (ParseInt) and string2d (ParseFloat), glibc's strtod
// (Strtod), and the bounds of ZRANGEBYSCORE (ParseRangeScore). Each
// function names the Redis or C function it reproduces; a caller that
// needs another one (strtol's leading spaces and '+', strtold) does not
// use these.
package redisnum

import (
	"math"
	"strconv"

	"github.com/lockkv/lockkv/internal/cstr"
)

// ParseInt parses b as Redis's string2ll does: an optional '-', then
// decimal digits with no leading zero ("0" alone, never "-0"), no '+', no
// spaces, at most 20 bytes, within int64. string2l on a 64-bit build and
// listpack's lpStringToInt64 are the same function, so this is also what
// decides Redis's "int" encodings (strings, intsets, listpack entries).
func ParseInt(b []byte) (int64, bool) {
	if len(b) == 0 || len(b) > 20 {
		return 0, false
	}
	p := b
	neg := p[0] == '-'
	if neg {
		p = p[1:]
		if len(p) == 0 {
			return 0, false
		}
	}
	if p[0] < '1' || p[0] > '9' {
		if len(b) == 1 && b[0] == '0' {
			return 0, true
		}
		return 0, false
	}
	if len(p) > 18 {
		return parseLong(p, neg)
	}
	// 18 digits or fewer cannot overflow.
	var v int64
	for _, c := range p {
		c -= '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int64(c)
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseLong is ParseInt for 19 and 20 digits, checking for overflow.
func parseLong(p []byte, neg bool) (int64, bool) {
	var v uint64
	for _, c := range p {
		c -= '0'
		if c > 9 {
			return 0, false
		}
		if v > (math.MaxUint64-uint64(c))/10 {
			return 0, false
		}
		v = v*10 + uint64(c)
	}
	if neg {
		if v > 1<<63 {
			return 0, false
		}
		return -int64(v), true
	}
	if v > math.MaxInt64 {
		return 0, false
	}
	return int64(v), true
}

// ParseInt32 parses b as Redis's getIntFromObject does: ParseInt, within
// the range of a C int.
func ParseInt32(b []byte) (int, bool) {
	n, ok := ParseInt(b)
	if !ok || n < math.MinInt32 || n > math.MaxInt32 {
		return 0, false
	}
	return int(n), true
}

// IsSpace is C's isspace in the "C" locale: space, \t, \n, \v, \f, \r.
func IsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// ParseFloat parses b as Redis's string2d (getDoubleFromObject) does: the
// whole of b must be what strtod reads, with no leading space, no
// overflow, no underflow to zero (a subnormal result is kept), no NaN.
// "inf", "-infinity" (any case) and hexadecimal floats ("0x1p3", "0x10")
// are accepted.
func ParseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || IsSpace(b[0]) {
		return 0, false
	}
	// Fast path: a plain integer, the common case (timestamps, counters),
	// which float64 holds exactly.
	if len(b) <= 15 {
		if v, ok := ParseInt(b); ok {
			return float64(v), true
		}
	}
	f, n, erange := Strtod(b)
	if n != len(b) || f != f || (erange && (math.IsInf(f, 0) || f == 0)) {
		return 0, false
	}
	return f, true
}

// ParseRangeScore parses a ZRANGEBYSCORE bound as zslParseRange does: an
// optional '(' for an exclusive bound, then strtod up to the end of the C
// string (so "" is 0, " 1" is 1, "1\x00x" is 1, "1e999" is inf), NaN
// refused.
func ParseRangeScore(b []byte) (f float64, ex bool, ok bool) {
	b = cstr.CString(b)
	if len(b) > 0 && b[0] == '(' {
		ex = true
		b = b[1:]
	}
	if len(b) > 0 && len(b) <= 15 {
		if v, ok := ParseInt(b); ok {
			return float64(v), ex, true
		}
	}
	f, n, _ := Strtod(b)
	if n != len(b) || f != f {
		return 0, false, false
	}
	return f, ex, true
}

// Strtod parses the longest prefix of s that C's strtod accepts (glibc):
// leading white space, a sign, then "inf"/"infinity", "nan"/"nan(...)",
// a hexadecimal float ("0x1.8p3", "0x10") or a decimal float. It returns
// the value, the number of bytes consumed (0 when nothing parses) and
// whether the result was out of range (ERANGE: overflow to ±Inf, or a
// non-zero number that underflowed to zero or to a subnormal). A NUL byte
// ends the number as any other byte strtod does not read would; callers
// that hand C a string cut s with cstr.CString first.
func Strtod(s []byte) (f float64, n int, erange bool) {
	i := 0
	for i < len(s) && IsSpace(s[i]) {
		i++
	}
	start := i
	neg := false
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		neg = s[i] == '-'
		i++
	}
	sign := 1.0
	if neg {
		sign = -1
	}
	if w := matchFold(s[i:], "infinity"); w > 0 {
		return math.Inf(int(sign)), i + w, false
	}
	if w := matchFold(s[i:], "inf"); w > 0 {
		return math.Inf(int(sign)), i + w, false
	}
	if w := matchFold(s[i:], "nan"); w > 0 {
		j := i + w
		if j < len(s) && s[j] == '(' {
			k := j + 1
			for k < len(s) && (isAlnum(s[k]) || s[k] == '_') {
				k++
			}
			if k < len(s) && s[k] == ')' {
				j = k + 1
			}
		}
		return math.NaN(), j, false
	}
	// Hexadecimal: 0x followed by at least one hex digit (before or after
	// the point); otherwise only the "0" parses.
	if i+1 < len(s) && s[i] == '0' && (s[i+1] == 'x' || s[i+1] == 'X') {
		j := i + 2
		digits, nonzero := 0, false
		for j < len(s) && isHex(s[j]) {
			nonzero = nonzero || s[j] != '0'
			j++
			digits++
		}
		if j < len(s) && s[j] == '.' {
			j++
			for j < len(s) && isHex(s[j]) {
				nonzero = nonzero || s[j] != '0'
				j++
				digits++
			}
		}
		if digits > 0 {
			end := j
			if j < len(s) && (s[j] == 'p' || s[j] == 'P') {
				k := j + 1
				if k < len(s) && (s[k] == '+' || s[k] == '-') {
					k++
				}
				if k < len(s) && isDigit(s[k]) {
					for k < len(s) && isDigit(s[k]) {
						k++
					}
					end = k
				}
			}
			lit := string(s[start:end])
			if end == j {
				lit += "p0"
			}
			v, err := strconv.ParseFloat(lit, 64)
			return v, end, rangeErr(v, err, nonzero)
		}
		return 0 * sign, i + 1, false
	}
	j := i
	digits, nonzero := 0, false
	for j < len(s) && isDigit(s[j]) {
		nonzero = nonzero || s[j] != '0'
		j++
		digits++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			nonzero = nonzero || s[j] != '0'
			j++
			digits++
		}
	}
	if digits == 0 {
		return 0, 0, false
	}
	end := j
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			end = k
		}
	}
	v, err := strconv.ParseFloat(string(s[start:end]), 64)
	return v, end, rangeErr(v, err, nonzero)
}

func rangeErr(v float64, err error, nonzero bool) bool {
	if err != nil {
		return true // strconv reports only ErrRange here: overflow
	}
	if nonzero && (v == 0 || math.Abs(v) < 0x1p-1022) {
		return true // underflow
	}
	return false
}

func matchFold(b []byte, word string) int {
	if len(b) < len(word) || !cstr.EqualFold(b[:len(word)], word) {
		return 0
	}
	return len(word)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isHex(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isAlnum(c byte) bool {
	return isDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}
