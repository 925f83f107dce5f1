package commands

import (
	"math"
	"strconv"

	"github.com/lockkv/lockkv/internal/cstr"
)

// strtod parses the longest prefix of s that C's strtod accepts (glibc):
// leading white space, a sign, then "inf"/"infinity", "nan"/"nan(...)",
// a hexadecimal float ("0x1.8p3", "0x10") or a decimal float. It returns
// the value, the number of bytes consumed (0 when nothing parses) and
// whether the result was out of range (ERANGE: overflow to ±Inf, or a
// non-zero number that underflowed to zero or to a subnormal).
func strtod(s []byte) (f float64, n int, erange bool) {
	i := 0
	for i < len(s) && isSpaceByte(s[i]) {
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

// parseScore parses a score as Redis's getDoubleFromObject (string2d)
// does: the whole argument must parse, no leading space, no overflow, no
// underflow to zero, no NaN.
func parseScore(b []byte) (float64, bool) {
	if len(b) == 0 || isSpaceByte(b[0]) {
		return 0, false
	}
	// Fast path: a plain integer, the common case (timestamps, counters).
	if len(b) <= 15 {
		if v, ok := ParseInt(b); ok {
			return float64(v), true
		}
	}
	f, n, erange := strtod(b)
	if n != len(b) || f != f || (erange && (math.IsInf(f, 0) || f == 0)) {
		return 0, false
	}
	return f, true
}

// parseRangeScore parses a ZRANGEBYSCORE bound as zslParseRange does: an
// optional '(' for an exclusive bound, then strtod up to the end of the C
// string (so "" is 0, " 1" is 1, "1e999" is inf), NaN refused.
func parseRangeScore(b []byte) (f float64, ex bool, ok bool) {
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
	f, n, _ := strtod(b)
	if n != len(b) || f != f {
		return 0, false, false
	}
	return f, ex, true
}
