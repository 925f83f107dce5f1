package dict

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/lockkv/lockkv/internal/chisquare"
)

func TestDictModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	d := New[int]()
	model := map[string]int{}
	for i := 0; i < 200000; i++ {
		k := strconv.Itoa(r.IntN(5000))
		switch r.IntN(4) {
		case 0, 1:
			v := r.Int()
			added := d.Set(k, v)
			_, had := model[k]
			if added == had {
				t.Fatalf("Set(%q) added=%v, model had=%v", k, added, had)
			}
			model[k] = v
		case 2:
			if d.Delete(k) != (func() bool { _, ok := model[k]; return ok })() {
				t.Fatalf("Delete(%q) disagrees with model", k)
			}
			delete(model, k)
		case 3:
			p := d.Get(k)
			v, ok := model[k]
			if (p != nil) != ok || (ok && *p != v) {
				t.Fatalf("Get(%q) = %v, model %v %v", k, p, v, ok)
			}
		}
		if d.Len() != len(model) {
			t.Fatalf("Len %d, model %d", d.Len(), len(model))
		}
	}
	n := 0
	d.Range(func(k string, v *int) bool {
		if model[k] != *v {
			t.Fatalf("Range %q=%d, model %d", k, *v, model[k])
		}
		n++
		return true
	})
	if n != len(model) {
		t.Fatalf("Range visited %d, want %d", n, len(model))
	}
}

// TestScanGuarantee checks Redis's SCAN promise: every element present for
// the whole iteration is returned, even while the table grows and shrinks
// between calls.
func TestScanGuarantee(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for round := 0; round < 30; round++ {
		d := New[struct{}]()
		stable := map[string]bool{}
		for i := 0; i < 1000; i++ {
			k := "s" + strconv.Itoa(i)
			d.Set(k, struct{}{})
			stable[k] = true
		}
		seen := map[string]bool{}
		cursor := uint64(0)
		var churn []string
		next := 0
		for {
			cursor = d.Scan(cursor, func(k string, _ *struct{}) { seen[k] = true })
			// Grow or shrink between calls with keys that are not stable.
			if r.IntN(2) == 0 {
				n := r.IntN(40)
				if r.IntN(25) == 0 {
					n = 4000 // a burst that forces a resize mid-iteration
				}
				for j := n; j > 0; j-- {
					k := "c" + strconv.Itoa(next)
					next++
					d.Set(k, struct{}{})
					churn = append(churn, k)
				}
			} else {
				for _, k := range churn {
					d.Delete(k)
				}
				churn = churn[:0]
			}
			if cursor == 0 {
				break
			}
		}
		for k := range stable {
			if !seen[k] {
				t.Fatalf("round %d: stable key %q not returned by a full scan", round, k)
			}
		}
	}
}

func TestRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	rnd := func(n uint64) uint64 { return r.Uint64N(n) }
	d := New[int]()
	if _, _, ok := d.Random(rnd); ok {
		t.Fatal("Random on empty dict returned an entry")
	}
	for i := 0; i < 100; i++ {
		d.Set(strconv.Itoa(i), i)
	}
	seen := map[string]bool{}
	for i := 0; i < 10000; i++ {
		k, v, ok := d.Random(rnd)
		if !ok || strconv.Itoa(*v) != k {
			t.Fatalf("Random returned %q %v %v", k, v, ok)
		}
		seen[k] = true
	}
	if len(seen) < 95 {
		t.Fatalf("Random reached only %d of 100 keys", len(seen))
	}
}

// TestRandomUniform: every entry is drawn equally often, whatever its
// chain, in tables of a few entries (where Redis's fair sampler is exact
// and chains are shared all the same), larger ones and ones rehashing.
func TestRandomUniform(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	rnd := func(n uint64) uint64 { return r.Uint64N(n) }
	for _, c := range []struct {
		n, draws int
		rehash   bool
	}{{15, 30000, false}, {200, 200000, false}, {33, 66000, true}} {
		d := New[int]()
		for i := 0; i < c.n; i++ {
			d.Set(strconv.Itoa(i), i)
		}
		counts := make([]int, c.n)
		for i := 0; i < c.draws; i++ {
			if c.rehash && !d.rehashing() {
				// Grow and shrink again and again, so most draws find a
				// table being rehashed.
				for j := 0; j < 40; j++ {
					d.Set("extra"+strconv.Itoa(j), -1)
				}
				for j := 0; j < 40; j++ {
					d.Delete("extra" + strconv.Itoa(j))
				}
			}
			_, v, ok := d.Random(rnd)
			if !ok {
				t.Fatal("Random found nothing")
			}
			if *v >= 0 {
				counts[*v]++
			}
		}
		if x2, bound := chisquare.Uniform(counts), chisquare.Bound(c.n-1); x2 > bound {
			t.Errorf("%d entries (rehashing %v): chi-square %.1f > %.1f: %v", c.n, c.rehash, x2, bound, counts)
		}
	}
}

// TestMaxChainBound: maxChain bounds every chain of its table through
// inserts, deletes, growing, shrinking and rehashing, which is what makes
// Random uniform.
func TestMaxChainBound(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	d := New[int]()
	check := func() {
		for ti := range d.ht {
			tb := &d.ht[ti]
			for _, e := range tb.buckets {
				n := 0
				for ; e != nil; e = e.next {
					n++
				}
				if n > tb.maxChain {
					t.Fatalf("table %d has a chain of %d, maxChain %d", ti, n, tb.maxChain)
				}
			}
		}
	}
	for i := 0; i < 50000; i++ {
		k := strconv.Itoa(r.IntN(3000))
		switch r.IntN(5) {
		case 0, 1:
			d.Set(k, 0)
		case 2, 3:
			d.Delete(k)
		default:
			d.Get(k)
		}
		if i%97 == 0 {
			check()
		}
	}
	check()
}

func BenchmarkDictGet(b *testing.B) {
	d := New[int]()
	keys := make([]string, 100000)
	for i := range keys {
		keys[i] = "key:" + strconv.Itoa(i)
		d.Set(keys[i], i)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		d.Get(keys[i%len(keys)])
	}
}

func BenchmarkGoMapGet(b *testing.B) {
	m := map[string]int{}
	keys := make([]string, 100000)
	for i := range keys {
		keys[i] = "key:" + strconv.Itoa(i)
		m[keys[i]] = i
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = m[keys[i%len(keys)]]
	}
}

// TestTouch checks that Touch visits the value of every key present, once
// per occurrence, and of no absent key, in blocks of every size around its
// 16, and changes nothing.
func TestTouch(t *testing.T) {
	d := New[int]()
	for i := 0; i < 1000; i++ {
		d.Set("k"+strconv.Itoa(i), i)
	}
	for _, n := range []int{0, 1, 15, 16, 17, 40} {
		var keys []string
		want := 0
		for i := 0; i < n; i++ {
			if i%3 == 0 {
				keys = append(keys, "missing"+strconv.Itoa(i))
				continue
			}
			keys = append(keys, "k"+strconv.Itoa(i*7))
			want += i * 7
		}
		got, visits := 0, 0
		d.Touch(keys, func(v *int) uint64 { got += *v; visits++; return 0 })
		if got != want || visits != n-(n+2)/3 {
			t.Fatalf("%d keys: visited %d values summing %d, want %d", n, visits, got, want)
		}
	}
	if d.Len() != 1000 {
		t.Fatalf("Touch changed the dict: %d entries", d.Len())
	}
}
