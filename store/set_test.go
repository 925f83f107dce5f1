package store

import (
	"fmt"
	"math/rand/v2"
	"sort"
	"strconv"
	"testing"

	"github.com/lockkv/lockkv/internal/chisquare"
	"github.com/lockkv/lockkv/internal/redisnum"
)

func setModelCheck(t *testing.T, s *Set, model map[string]bool) {
	t.Helper()
	if s.Len() != len(model) {
		t.Fatalf("Len = %d, model %d", s.Len(), len(model))
	}
	var got []string
	s.Range(func(m []byte) bool { got = append(got, string(m)); return true })
	if len(got) != len(model) {
		t.Fatalf("Range gave %d, model %d", len(got), len(model))
	}
	for _, m := range got {
		if !model[m] {
			t.Fatalf("member %q not in model", m)
		}
	}
	if s.Encoding() == "intset" {
		if !sort.SliceIsSorted(got, func(i, j int) bool {
			a, _ := strconv.ParseInt(got[i], 10, 64)
			b, _ := strconv.ParseInt(got[j], 10, 64)
			return a < b
		}) {
			t.Fatalf("intset not ascending: %v", got)
		}
	}
}

func TestSetModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	rnd := func(n uint64) uint64 { return rng.Uint64N(n) }
	for round := 0; round < 40; round++ {
		maxIntset := 1 + rng.IntN(20)
		s := NewSet()
		model := map[string]bool{}
		strProb := 5 + rng.IntN(200)
		for op := 0; op < 400; op++ {
			m := fmt.Sprint(rng.IntN(40) - 20)
			switch rng.IntN(strProb) {
			case 0:
				m = "m" + m
			case 1:
				m = "0" + m // not canonical: a string member
			case 2:
				m = "9223372036854775808"
			}
			switch rng.IntN(7) {
			case 0, 1, 2:
				wasIntset := s.Encoding() == "intset"
				if s.Add([]byte(m), maxIntset) == model[m] {
					t.Fatalf("Add(%q) result wrong", m)
				}
				model[m] = true
				_, isInt := redisnum.ParseInt([]byte(m))
				if wasIntset && (!isInt || len(model) > maxIntset) && s.Encoding() != "hashtable" {
					t.Fatalf("not converted after %q (len %d max %d)", m, len(model), maxIntset)
				}
			case 3, 4:
				if s.Remove([]byte(m)) != model[m] {
					t.Fatalf("Remove(%q) result wrong", m)
				}
				delete(model, m)
			case 5:
				if s.Has([]byte(m)) != model[m] {
					t.Fatalf("Has(%q) != %v", m, model[m])
				}
				if len(model) > 0 && !model[string(s.Random(rnd))] {
					t.Fatal("Random returned a non-member")
				}
				if len(model) > 0 && !model[string(s.AppendRandom([]byte("junk")[:0], rnd))] {
					t.Fatal("AppendRandom returned a non-member")
				}
			case 6:
				if len(model) > 0 {
					p := string(s.Pop(rnd))
					if !model[p] {
						t.Fatalf("Pop returned non-member %q", p)
					}
					delete(model, p)
				}
			}
			setModelCheck(t, s, model)
		}
		c := s.Clone().(*Set)
		setModelCheck(t, c, model)
		c.Add([]byte("clone-only"), maxIntset)
		if s.Has([]byte("clone-only")) {
			t.Fatal("clone shares storage")
		}
	}
}

// TestSetPopStable: sets with the same members in hash tables of different
// layout (insertion order, deletions, growth) pop the same members for the
// same keys, as replicated nodes must.
func TestSetPopStable(t *testing.T) {
	a, b := NewSet(), NewSet()
	for i := 0; i < 400; i++ {
		a.Add([]byte(fmt.Sprintf("m%d", i)), 512)
	}
	for i := 999; i >= 0; i-- { // other order, a bigger table, then deletions
		b.Add([]byte(fmt.Sprintf("m%d", i)), 512)
	}
	for i := 400; i < 1000; i++ {
		b.Remove([]byte(fmt.Sprintf("m%d", i)))
	}
	if a.Encoding() != "hashtable" || a.Len() != b.Len() {
		t.Fatalf("setup: %s %d %d", a.Encoding(), a.Len(), b.Len())
	}
	for key := uint64(1); a.Len() > 0; key = key*6364136223846793005 + 1442695040888963407 {
		x, y := a.PopStable(key), b.PopStable(key)
		if string(x) != string(y) {
			t.Fatalf("key %d: popped %q and %q", key, x, y)
		}
	}
	// The encoding does not matter either: an intset and a hashtable of
	// the same integers (another set-max-intset-entries) choose alike.
	is, ht := NewSet(), NewSet()
	for i := 0; i < 100; i++ {
		m := []byte(strconv.Itoa(i * 7))
		is.Add(m, 512)
		ht.Add(m, 10)
	}
	if is.Encoding() != "intset" || ht.Encoding() != "hashtable" {
		t.Fatalf("setup: %s %s", is.Encoding(), ht.Encoding())
	}
	for key := uint64(3); is.Len() > 0; key += 0x9e3779b97f4a7c15 {
		if x, y := is.PopStable(key), ht.PopStable(key); string(x) != string(y) {
			t.Fatalf("key %d: intset popped %q, hashtable %q", key, x, y)
		}
	}
}

// TestStableOrderUniform: over random keys, the member RandomStable picks
// and the first two of StableOrder are uniformly distributed, for members
// that differ only in their last byte (which plain FNV-1a barely mixes).
func TestStableOrderUniform(t *testing.T) {
	s := NewSet()
	idx := map[string]int{}
	for i := 0; i < 15; i++ {
		m := fmt.Sprintf("m%d", i)
		idx[m] = i
		s.Add([]byte(m), 512)
	}
	r := rand.New(rand.NewPCG(11, 12))
	one, two := make([]int, 15), make([]int, 15)
	for i := 0; i < 30000; i++ {
		one[idx[string(s.RandomStable(r.Uint64()))]]++
		o := s.StableOrder(r.Uint64())
		two[idx[string(o[0])]]++
		two[idx[string(o[1])]]++
	}
	for name, counts := range map[string][]int{"RandomStable": one, "StableOrder[:2]": two} {
		if x2 := chisquare.Uniform(counts); x2 > chisquare.Bound(14) {
			t.Errorf("%s: chi-square %.1f > %.1f: %v", name, x2, chisquare.Bound(14), counts)
		}
	}
}
