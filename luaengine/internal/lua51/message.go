package lua51

import (
	"regexp"
	"strings"
)

// gopher-lua words some runtime errors differently from Lua 5.1. These
// rewrites give Lua 5.1's wording where it does not depend on variable
// names (Lua adds " local 'x'" and the like when it can name the value).
var (
	reBadArg  = regexp.MustCompile(`bad argument #(\d+) to ([A-Za-z_][A-Za-z0-9_.:]*) \(`)
	reArith   = regexp.MustCompile(`cannot perform (\w+) operation between (\w+) and (\w+)`)
	reCompare = regexp.MustCompile(`attempt to compare (\w+) with (\w+)`)
	reIndex   = regexp.MustCompile(`attempt to index a non-table object\((\w+)\) with key '[^']*'`)
)

func Message(s string) string {
	if !strings.Contains(s, "bad argument") && !strings.Contains(s, "cannot perform") &&
		!strings.Contains(s, "attempt to") && !strings.Contains(s, "too many recursions in ") {
		return s
	}
	// gopher-lua's bound on __index/__newindex chains is Lua's MAXTAGLOOP.
	s = strings.Replace(s, "too many recursions in gettable", "loop in gettable", 1)
	s = strings.Replace(s, "too many recursions in settable", "loop in settable", 1)
	s = reBadArg.ReplaceAllString(s, "bad argument #$1 to '$2' (")
	s = reArith.ReplaceAllStringFunc(s, func(m string) string {
		g := reArith.FindStringSubmatch(m)
		op, a, b := g[1], g[2], g[3]
		if op == "concat" {
			bad := a
			if a == "string" || a == "number" {
				bad = b
			}
			return "attempt to concatenate a " + bad + " value"
		}
		bad := b
		if a != "number" && a != "string" {
			bad = a
		}
		return "attempt to perform arithmetic on a " + bad + " value"
	})
	s = reCompare.ReplaceAllStringFunc(s, func(m string) string {
		g := reCompare.FindStringSubmatch(m)
		if g[1] == g[2] {
			return "attempt to compare two " + g[1] + " values"
		}
		return m
	})
	s = reIndex.ReplaceAllString(s, "attempt to index a $1 value")
	return s
}
