package commands

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/lockkv/lockkv/internal/resp"
)

func sprintf(format string, a ...any) string { return fmt.Sprintf(format, a...) }

// ParseInt parses b as Redis's string2ll does: optional '-', no '+', no
// leading zeros, no spaces, within int64.
func ParseInt(b []byte) (int64, bool) { return resp.ParseInt(b) }

// ParseFloat parses b as Redis's getDoubleFromObject does (strtod): no
// leading space, no trailing garbage, "inf"/"-inf" accepted, NaN refused.
func ParseFloat(b []byte) (float64, bool) {
	if len(b) == 0 || isSpaceByte(b[0]) {
		return 0, false
	}
	s := string(b)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		if ne, ok := err.(*strconv.NumError); ok && ne.Err == strconv.ErrRange {
			// strtod returns HUGE_VAL with ERANGE; Redis refuses it.
			return 0, false
		}
		return 0, false
	}
	if math.IsNaN(f) {
		return 0, false
	}
	if strings.ContainsAny(s, "_xXpP") && !isHexFloat(s) {
		return 0, false
	}
	return f, true
}

func isHexFloat(s string) bool {
	t := strings.TrimLeft(s, "+-")
	return strings.HasPrefix(t, "0x") || strings.HasPrefix(t, "0X")
}

func isSpaceByte(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

// EqualFold reports whether b equals the lower-case ASCII word s, ignoring
// case, without allocating.
func EqualFold(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != s[i] {
			return false
		}
	}
	return true
}
