package luaengine

import (
	"fmt"
	"math"
	"strings"
)

// cFormat formats one value with a printf conversion spec (flags, width,
// precision) the way C does; Go's fmt differs for %c, %u, %g with '#',
// and inf/nan.
func cFormat(spec string, conv byte, v any) string {
	switch conv {
	case 'c':
		return pad(spec, string([]byte{byte(v.(int64))}))
	case 'd':
		return fmt.Sprintf("%"+spec+"d", v)
	case 'u':
		return fmt.Sprintf("%"+spec+"d", v)
	case 'o':
		return fmt.Sprintf("%"+spec+"o", v)
	case 'x', 'X':
		return fmt.Sprintf("%"+spec+string(conv), v)
	case 's':
		return fmt.Sprintf("%"+spec+"s", v)
	}
	f := v.(float64)
	if math.IsInf(f, 0) || math.IsNaN(f) {
		s := "inf"
		if math.IsNaN(f) {
			s = "nan"
			if math.Signbit(f) {
				s = "-nan"
			}
		} else if f < 0 {
			s = "-inf"
		} else if strings.Contains(spec, "+") {
			s = "+inf"
		}
		if conv == 'E' || conv == 'G' {
			s = strings.ToUpper(s)
		}
		return pad(strings.ReplaceAll(spec, "0", ""), s)
	}
	return fmt.Sprintf("%"+spec+string(conv), f)
}

// pad applies a width and the '-' flag to s.
func pad(spec string, s string) string {
	left := strings.Contains(spec, "-")
	w := 0
	for _, c := range strings.TrimLeft(spec, "-+ #0") {
		if c < '0' || c > '9' {
			break
		}
		w = w*10 + int(c-'0')
	}
	for len(s) < w {
		if left {
			s += " "
		} else {
			s = " " + s
		}
	}
	return s
}
