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

// TestScriptTableLayoutRandom builds tables by random sequences (fixed
// seeds) of integer and other keys set in shuffled orders, by constructors
// with keyed fields of any keys (integers out of order included), by
// assignments with constant and computed keys, rawset, table.insert and
// table.remove, and deletions by every means (a literal nil, a nil value
// computed at run time, rawset, multiple assignment, table.remove), and
// compares the order pairs visits them in and #t.
func TestScriptTableLayoutRandom(t *testing.T) {
	p := NewPair(t)
	r := rand.New(rand.NewSource(51))
	intKey := func() string {
		if r.Intn(8) == 0 {
			return fmt.Sprint(r.Intn(4) - 2) // 0 and negatives: hash keys
		}
		return fmt.Sprint(1 + r.Intn(1+r.Intn(40)))
	}
	strKey := func() string {
		if r.Intn(2) == 0 {
			return fmt.Sprintf("k%d", r.Intn(30))
		}
		return fmt.Sprintf("user:%d:f", r.Intn(20))
	}
	key := func() string { // a Lua expression
		switch r.Intn(5) {
		case 0, 1:
			return intKey()
		case 2:
			return fmt.Sprintf("%d.5", r.Intn(10))
		}
		return fmt.Sprintf("%q", strKey())
	}
	value := func(i int) string { return fmt.Sprint(i + 1) }
	const n = 240
	for s := 0; s < n; s++ {
		var b strings.Builder
		b.WriteString("local function none() end local t = {")
		if s%3 != 0 {
			for i, m := 0, r.Intn(10); i < m; i++ {
				switch r.Intn(4) {
				case 0:
					fmt.Fprintf(&b, "%s,", value(i))
				case 1:
					fmt.Fprintf(&b, "%s=%s,", strings.ReplaceAll(strKey(), ":", "_"), value(i))
				default:
					fmt.Fprintf(&b, "[%s]=%s,", key(), value(i))
				}
			}
		}
		b.WriteString("} ")
		var keys []string
		pick := func() string {
			if len(keys) == 0 || r.Intn(5) == 0 {
				return key()
			}
			return keys[r.Intn(len(keys))]
		}
		for i, m := 0, r.Intn(70); i < m; i++ {
			switch op := r.Intn(20); {
			case op < 7: // set, with a constant key
				k := key()
				keys = append(keys, k)
				fmt.Fprintf(&b, "t[%s] = %s ", k, value(i))
			case op < 9: // set, with a computed key
				k := key()
				keys = append(keys, k)
				fmt.Fprintf(&b, "do local k = %s t[k] = %s end ", k, value(i))
			case op == 9:
				k := key()
				keys = append(keys, k)
				fmt.Fprintf(&b, "rawset(t, %s, %s) ", k, value(i))
			case op == 10:
				fmt.Fprintf(&b, "t[%s] = nil ", pick())
			case op == 11:
				fmt.Fprintf(&b, "t[%s] = none() ", pick())
			case op == 12:
				fmt.Fprintf(&b, "do local v t[%s] = v end ", pick())
			case op == 13:
				fmt.Fprintf(&b, "rawset(t, %s, nil) ", pick())
			case op == 14:
				fmt.Fprintf(&b, "t[%s], t[%s] = nil, %s ", pick(), pick(), []string{"nil", "none()", value(i)}[r.Intn(3)])
			case op == 15:
				fmt.Fprintf(&b, "table.insert(t, %s) ", value(i))
			case op == 16:
				fmt.Fprintf(&b, "table.insert(t, %d, %s) ", 1+r.Intn(6), value(i))
			case op == 17:
				b.WriteString("table.remove(t) ")
			case op == 18:
				fmt.Fprintf(&b, "table.remove(t, %d) ", 1+r.Intn(6))
			default: // a field by name
				k := strings.ReplaceAll(strKey(), ":", "_")
				if r.Intn(3) == 0 {
					fmt.Fprintf(&b, "t.%s = nil ", k)
				} else {
					fmt.Fprintf(&b, "t.%s = %s ", k, value(i))
				}
			}
		}
		b.WriteString("local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end r[#r+1] = '#' .. #t return r")
		p.Do("EVAL", b.String(), "0")
	}
	// Constructors of up to 120 list items and keyed fields of any keys
	// (some read through a call) in shuffled order (stored as Lua stores
	// them: keyed fields in order, list items 50 at a time), some closing
	// with a call; keyed fields and calls right after a multiple of 50
	// list items included, which gopher-lua's compiler gets wrong
	// (luaengine splitAt).
	for s := 0; s < 150; s++ {
		nitems := []int{0, 3, 5, 20, 49, 50, 51, 60, 100, 120}[r.Intn(10)]
		var fields []string
		for i := 1; i <= nitems; i++ {
			fields = append(fields, fmt.Sprint(i))
		}
		for j, m := 0, 1+r.Intn(12); j < m; j++ {
			switch c := r.Intn(11); {
			case c < 5:
				fields = append(fields, fmt.Sprintf("[%d]=%d", 1+r.Intn(130), j))
			case c < 7:
				fields = append(fields, fmt.Sprintf("k%d=%d", r.Intn(20), j))
			case c < 8:
				fields = append(fields, fmt.Sprintf("[%d.5]=%d", r.Intn(20), j))
			case c < 9:
				fields = append(fields, fmt.Sprintf("[%d]=nil", 1+r.Intn(130)))
			case c < 10:
				fields = append(fields, fmt.Sprintf("[id(%d)]=id(%d)", 1+r.Intn(130), j))
			default:
				fields = append(fields, fmt.Sprintf("[-%d]=%d", r.Intn(6), j))
			}
		}
		r.Shuffle(len(fields), func(i, j int) { fields[i], fields[j] = fields[j], fields[i] })
		if r.Intn(3) == 0 {
			fields = append(fields, "f()")
		}
		b := "local function f() return 1, nil, 3 end local function id(x) return x end local t = {" + strings.Join(fields, ", ") + "} "
		if r.Intn(2) == 0 {
			b += fmt.Sprintf("t[%d] = 1 t.zz = 2 t[%d] = nil ", 1+r.Intn(140), 1+r.Intn(140))
		}
		b += "local r = {} for k in pairs(t) do r[#r+1] = tostring(k) end r[#r+1] = '#' .. #t return r"
		p.Do("EVAL", b, "0")
	}
	// Integer keys alone, assigned in a shuffled order, some cleared.
	for s := 0; s < 120; s++ {
		var b strings.Builder
		b.WriteString("local t = {} ")
		size := 1 + r.Intn(40)
		for _, i := range r.Perm(size) {
			fmt.Fprintf(&b, "t[%d] = %d ", i+1, i+1)
			if r.Intn(6) == 0 {
				fmt.Fprintf(&b, "t[%d] = nil ", 1+r.Intn(size))
			}
		}
		b.WriteString("local r = {} for k in pairs(t) do r[#r+1] = k end r[#r+1] = #t return r")
		p.Do("EVAL", b.String(), "0")
	}
}
