package glob

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	cases := []struct {
		pat, s string
		nocase bool
		want   bool
	}{
		{"*", "", false, false}, // as stringmatchlen; KEYS special-cases "*"
		{"**", "", false, false},
		{"*", "anything", false, true},
		{"", "", false, true},
		{"", "a", false, false},
		{"a", "", false, false},
		{"h?llo", "hello", false, true},
		{"h?llo", "hllo", false, false},
		{"h*llo", "hllo", false, true},
		{"h*llo", "heeeello", false, true},
		{"h[ae]llo", "hallo", false, true},
		{"h[ae]llo", "hillo", false, false},
		{"h[^e]llo", "hallo", false, true},
		{"h[^e]llo", "hello", false, false},
		{"h[a-b]llo", "hbllo", false, true},
		{"h[a-b]llo", "hcllo", false, false},
		{"h[b-a]llo", "hallo", false, true}, // reversed range
		{"[z-a]", "m", false, true},
		{"\\*", "*", false, true},
		{"\\*", "a", false, false},
		{"a\\", "a\\", false, true}, // trailing backslash is literal
		{"[\\]]", "]", false, true},
		{"[\\-]", "-", false, true},
		{"[a\\-z]", "b", false, false},
		{"[abc", "b", false, true}, // open set runs to the end
		{"[abc", "d", false, false},
		{"[", "a", false, false},
		{"[^", "a", false, true},
		{"[^", "", false, false},
		{"[]", "a", false, false},
		{"[a-]", "a", false, true}, // "a-]" is a range a..']'
		{"[a-]", "^", false, true},
		{"[a-]", "b", false, false},
		{"[a-]x", "ax", false, false}, // the set never closes
		{"[a-]x", "a", false, true},
		{"HELLO", "hello", true, true},
		{"HELLO", "hello", false, false},
		{"[A-C]", "b", true, true},
		{"[a-c]", "B", true, true},
		{"[Z-a]", "z", true, false}, // folded bounds become reversed
		{"[^A]", "a", true, false},
		{"a*b*c", "aXXbYYc", false, true},
		{"a*b*c", "aXXbYYd", false, false},
		{"*a", "bbba", false, true},
		{"a**", "a", false, true},
		{"a*", "a", false, true},
		{"a?", "a", false, false},
		{"*?", "", false, false},
		{"\xff*", "\xff\x00", false, true},
		{"k[\x00-\x02]", "k\x01", false, true},
		{"**a**", "xxa", false, true},
	}
	for _, c := range cases {
		if got := Match(c.pat, c.s, c.nocase); got != c.want {
			t.Errorf("Match(%q, %q, %v) = %v, want %v", c.pat, c.s, c.nocase, got, c.want)
		}
		if got := Match([]byte(c.pat), []byte(c.s), c.nocase); got != c.want {
			t.Errorf("Match bytes(%q, %q, %v) = %v, want %v", c.pat, c.s, c.nocase, got, c.want)
		}
	}
}

func TestNesting(t *testing.T) {
	s := strings.Repeat("a", 1100)
	if !Match(strings.Repeat("a*", 1001), s, false) {
		t.Error("1001 stars should match")
	}
	if !Match(strings.Repeat("a*", 1000)+"a", s, false) {
		t.Error("1000 nested stars should match")
	}
	if Match(strings.Repeat("a*", 1001)+"a", s, false) {
		t.Error("1001 nested stars must not match")
	}
}

func TestPathological(t *testing.T) {
	// Without the give-up rule this is exponential.
	s := strings.Repeat("a", 200)
	if Match(strings.Repeat("a*", 30)+"b", s, false) {
		t.Error("unexpected match")
	}
}

// naive is an independent, exponential reference implementation of the
// same rules, used by the fuzz test.
func naive(p, s string, nocase bool, depth int) bool {
	if depth > maxNesting {
		return false
	}
	if len(s) == 0 {
		return len(p) == 0
	}
	return naiveRest(p, s, nocase, depth)
}

// naiveRest matches s (non-empty) against p; once s runs out after a byte
// was consumed, trailing stars are ignored.
func naiveRest(p, s string, nocase bool, depth int) bool {
	if depth > maxNesting {
		return false
	}
	if len(s) == 0 {
		return strings.TrimLeft(p, "*") == ""
	}
	if len(p) == 0 {
		return false
	}
	switch p[0] {
	case '*':
		for len(p) > 1 && p[1] == '*' {
			p = p[1:]
		}
		if len(p) == 1 {
			return true
		}
		for i := 0; i < len(s); i++ {
			if naiveRest(p[1:], s[i:], nocase, depth+1) {
				return true
			}
		}
		return false
	case '?':
		return naiveRest(p[1:], s[1:], nocase, depth)
	case '[':
		m := matcher[string, string]{p: p, nocase: nocase}
		end, ok := m.class(1, s[0])
		if !ok {
			return false
		}
		return naiveRest(p[end+1:], s[1:], nocase, depth)
	case '\\':
		if len(p) >= 2 {
			p = p[1:]
		}
	}
	a, b := p[0], s[0]
	if nocase {
		a, b = lower(a), lower(b)
	}
	return a == b && naiveRest(p[1:], s[1:], nocase, depth)
}

func FuzzMatch(f *testing.F) {
	for _, seed := range []string{"*", "h?llo", "h[a-b]llo", "[^x]*", "\\*a", "[a-", "a*b*c"} {
		f.Add(seed, "hello", false)
	}
	f.Fuzz(func(t *testing.T, p, s string, nocase bool) {
		if len(p) > 12 || len(s) > 12 {
			return
		}
		got := Match(p, s, nocase)
		if want := naive(p, s, nocase, 0); got != want {
			t.Fatalf("Match(%q, %q, %v) = %v, reference says %v", p, s, nocase, got, want)
		}
		if Match([]byte(p), s, nocase) != got {
			t.Fatal("bytes and string disagree")
		}
	})
}

func BenchmarkMatch(b *testing.B) {
	s := "lock:order:12345:payment"
	for i := 0; i < b.N; i++ {
		Match("lock:*:[0-9]*:pay*", s, false)
	}
}
