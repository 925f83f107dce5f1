// Package glob implements Redis's glob-style pattern matching (util.c
// stringmatchlen), used by KEYS, SCAN/HSCAN/SSCAN/ZSCAN MATCH, PSUBSCRIBE
// and CONFIG GET. The rules, quirks included:
//
//   - '*' matches any run of bytes (also empty); '?' matches one byte.
//   - '[...]' matches one byte from a set; '[^...]' negates it. Inside a
//     set, "x-y" is a range (a reversed range "z-a" means "a-z"), '\'
//     escapes the next byte, and a set left open at the end of the pattern
//     runs to the end of the pattern.
//   - '\x' matches x literally; a '\' at the very end matches '\'.
//   - nocase folds ASCII letters only (the C locale's tolower).
//   - a match needing more than 1000 nested '*' fails, as Redis's
//     protection against abusive patterns does.
//
// Matching is on bytes: patterns and subjects may hold any binary data.
package glob

// Match reports whether s matches pattern. It accepts strings and byte
// slices in any combination and never allocates.
//
// Like Redis's stringmatchlen, an empty subject matches only an empty
// pattern: Match("*", "") is false. KEYS and SCAN treat the pattern "*" as
// "everything" before matching (so they do return the empty key); callers
// that need that shortcut test MatchAll first. PSUBSCRIBE does not.
func Match[P, S ~string | ~[]byte](pattern P, s S, nocase bool) bool {
	if len(s) > 0 && len(pattern) == 1 && pattern[0] == '*' {
		return true
	}
	m := matcher[P, S]{p: pattern, s: s, nocase: nocase}
	return m.match(0, 0, 0)
}

// MatchAll reports whether pattern is "*", which KEYS and SCAN MATCH treat
// as matching every key, the empty key included, without matching.
func MatchAll[P ~string | ~[]byte](pattern P) bool {
	return len(pattern) == 1 && pattern[0] == '*'
}

type matcher[P, S ~string | ~[]byte] struct {
	p      P
	s      S
	nocase bool
	// giveUp is set once the rest of the pattern after some '*' failed to
	// match at every position of the rest of the subject: no earlier '*'
	// can then succeed by consuming more, so the whole search stops. This
	// keeps patterns like "a*a*a*a*b" linear-ish instead of exponential,
	// and does not change the result.
	giveUp bool
}

func lower(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + ('a' - 'A')
	}
	return c
}

func (m *matcher[P, S]) eq(a, b byte) bool {
	if m.nocase {
		return lower(a) == lower(b)
	}
	return a == b
}

// maxNesting bounds the recursion through '*' as Redis does: a pattern
// needing deeper recursion does not match.
const maxNesting = 1000

// match reports whether p[pi:] matches s[si:]; depth counts the '*'
// recursion.
func (m *matcher[P, S]) match(pi, si, depth int) bool {
	if depth > maxNesting {
		return false
	}
	p, s := m.p, m.s
	for pi < len(p) && si < len(s) {
		switch p[pi] {
		case '*':
			for pi+1 < len(p) && p[pi+1] == '*' {
				pi++
			}
			if pi+1 == len(p) {
				return true
			}
			for ; si < len(s); si++ {
				if m.match(pi+1, si, depth+1) {
					return true
				}
				if m.giveUp {
					return false
				}
			}
			m.giveUp = true
			return false
		case '?':
			si++
		case '[':
			var ok bool
			pi, ok = m.class(pi+1, s[si])
			if !ok {
				return false
			}
			si++
		case '\\':
			if pi+1 < len(p) {
				pi++
			}
			fallthrough
		default:
			if !m.eq(p[pi], s[si]) {
				return false
			}
			si++
		}
		pi++
		if si == len(s) {
			for pi < len(p) && p[pi] == '*' {
				pi++
			}
			break
		}
	}
	return pi == len(p) && si == len(s)
}

// class matches byte c against the set starting at p[pi] (just after '[')
// and returns the index of the set's closing ']' (or of its last byte when
// the set is left open) and whether c is in the set.
func (m *matcher[P, S]) class(pi int, c byte) (int, bool) {
	p := m.p
	negate := pi < len(p) && p[pi] == '^'
	if negate {
		pi++
	}
	in := false
	for {
		if pi < len(p) && p[pi] == '\\' && len(p)-pi >= 2 {
			pi++
			if p[pi] == c {
				in = true
			}
		} else if pi < len(p) && p[pi] == ']' {
			break
		} else if pi >= len(p) {
			pi = len(p) - 1
			break
		} else if len(p)-pi >= 3 && p[pi+1] == '-' {
			lo, hi, x := p[pi], p[pi+2], c
			if lo > hi {
				lo, hi = hi, lo
			}
			if m.nocase {
				lo, hi, x = lower(lo), lower(hi), lower(x)
			}
			if x >= lo && x <= hi {
				in = true
			}
			pi += 2
		} else if m.eq(p[pi], c) {
			in = true
		}
		pi++
	}
	return pi, in != negate
}
