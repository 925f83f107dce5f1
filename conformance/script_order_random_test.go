package conformance

import (
	"fmt"
	"math/rand"
	"strings"
	"testing"
)

// TestScriptTableOrderRandom builds tables by random sequences (fixed
// seed) of constructors, new keys, keys set again, and deletions by a
// literal nil (of keys held, deleted or never held), with string and
// non-integer number keys, and compares the order pairs visits them in.
func TestScriptTableOrderRandom(t *testing.T) {
	p := NewPair(t)
	r := rand.New(rand.NewSource(5))
	key := func() string {
		switch r.Intn(4) {
		case 0:
			return fmt.Sprintf("%q", fmt.Sprintf("k%d", r.Intn(60)))
		case 1:
			return fmt.Sprintf("%q", strings.Repeat("x", r.Intn(40))+fmt.Sprint(r.Intn(9)))
		case 2:
			return fmt.Sprintf("%d.5", r.Intn(50)-25)
		default:
			return fmt.Sprintf("%q", fmt.Sprintf("user:%d:name", r.Intn(30)))
		}
	}
	for n := 0; n < 120; n++ {
		var b strings.Builder
		b.WriteString("local t = {")
		if n%2 == 0 {
			for i, m := 0, r.Intn(12); i < m; i++ {
				fmt.Fprintf(&b, "[%s]=%d,", key(), i)
			}
		}
		b.WriteString("} ")
		var seen []string
		for i, m := 0, r.Intn(100); i < m; i++ {
			if r.Intn(3) == 0 && len(seen) > 0 {
				fmt.Fprintf(&b, "t[%s] = nil ", seen[r.Intn(len(seen))])
			} else {
				k := key()
				seen = append(seen, k)
				fmt.Fprintf(&b, "t[%s] = %d ", k, i)
			}
		}
		b.WriteString("local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end return r")
		p.Do("EVAL", b.String(), "0")
	}
}
