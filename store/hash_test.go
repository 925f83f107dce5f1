package store

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"testing"
)

func hashModelCheck(t *testing.T, h *Hash, model map[string]string, order []string) {
	t.Helper()
	if h.Len() != len(model) {
		t.Fatalf("Len = %d, model %d", h.Len(), len(model))
	}
	got := map[string]string{}
	var gotOrder []string
	h.Range(func(f, v []byte) bool {
		got[string(f)] = string(v)
		gotOrder = append(gotOrder, string(f))
		return true
	})
	if len(got) != len(model) {
		t.Fatalf("Range saw %d distinct fields, model %d", len(got), len(model))
	}
	for k, v := range model {
		if got[k] != v {
			t.Fatalf("field %q = %q, model %q", k, got[k], v)
		}
		if gv, ok := h.Get([]byte(k)); !ok || string(gv) != v {
			t.Fatalf("Get(%q) = %q %v, model %q", k, gv, ok, v)
		}
	}
	if h.Encoding() == "listpack" && strings.Join(gotOrder, ",") != strings.Join(order, ",") {
		t.Fatalf("listpack order %v, want insertion order %v", gotOrder, order)
	}
}

// TestHashModel runs random operations against a Go map, crossing both
// conversion thresholds.
func TestHashModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rnd := func(n uint64) uint64 { return rng.Uint64N(n) }
	for round := 0; round < 40; round++ {
		maxEntries := 1 + rng.IntN(20)
		maxValue := 1 + rng.IntN(12)
		h := NewHash()
		model := map[string]string{}
		var order []string
		keySpace := 1 + rng.IntN(30)
		for op := 0; op < 400; op++ {
			f := fmt.Sprintf("f%d", rng.IntN(keySpace))
			if rng.IntN(50) == 0 {
				f = strings.Repeat("x", rng.IntN(2*maxValue+1))
			}
			switch rng.IntN(6) {
			case 0, 1, 2:
				v := strings.Repeat("v", rng.IntN(maxValue+2))
				if rng.IntN(3) == 0 {
					v = fmt.Sprint(rng.IntN(1000))
				}
				wasLP := h.Encoding() == "listpack"
				_, existed := model[f]
				added := h.Set([]byte(f), []byte(v), maxEntries, maxValue)
				if added == existed {
					t.Fatalf("Set(%q) added=%v, model existed=%v", f, added, existed)
				}
				if !existed {
					order = append(order, f)
				}
				model[f] = v
				if wasLP && (len(f) > maxValue || len(v) > maxValue || len(model) > maxEntries) && h.Encoding() != "hashtable" {
					t.Fatalf("not converted: len %d (max %d), field %d value %d (max %d)", len(model), maxEntries, len(f), len(v), maxValue)
				}
			case 3, 4:
				_, existed := model[f]
				if h.Delete([]byte(f)) != existed {
					t.Fatalf("Delete(%q) != %v", f, existed)
				}
				delete(model, f)
				for i, o := range order {
					if o == f {
						order = append(order[:i], order[i+1:]...)
						break
					}
				}
			case 5:
				_, existed := model[f]
				if h.Exists([]byte(f)) != existed {
					t.Fatalf("Exists(%q) != %v", f, existed)
				}
				if len(model) > 0 {
					rf, rv := h.Random(rnd)
					if mv, ok := model[string(rf)]; !ok || mv != string(rv) {
						t.Fatalf("Random gave %q=%q not in model", rf, rv)
					}
				}
			}
			hashModelCheck(t, h, model, order)
		}
		c := h.Clone().(*Hash)
		hashModelCheck(t, c, model, order)
		if c.Encoding() != h.Encoding() {
			t.Fatalf("clone encoding %s, want %s", c.Encoding(), h.Encoding())
		}
		// The clone is independent.
		c.Set([]byte("clone-only"), []byte("1"), maxEntries, maxValue)
		if h.Exists([]byte("clone-only")) {
			t.Fatal("clone shares storage with the original")
		}
		// A full scan sees every field.
		seen := map[string]bool{}
		cur := uint64(0)
		for {
			cur = h.Scan(cur, func(f, v []byte) { seen[string(f)] = true })
			if cur == 0 {
				break
			}
		}
		if len(seen) != len(model) {
			t.Fatalf("scan saw %d fields, model has %d", len(seen), len(model))
		}
	}
}

func TestHashListpackInPlace(t *testing.T) {
	h := NewHash()
	h.Set([]byte("uuid:1"), []byte("1"), 128, 64)
	h.Set([]byte("other"), []byte("x"), 128, 64)
	for _, v := range []string{"2", "10", "9", "1000", "", "abc"} {
		h.Set([]byte("uuid:1"), []byte(v), 128, 64)
		if got, _ := h.Get([]byte("uuid:1")); string(got) != v {
			t.Fatalf("got %q want %q", got, v)
		}
		if got, _ := h.Get([]byte("other")); string(got) != "x" {
			t.Fatalf("other = %q", got)
		}
	}
	// Long strings need multi-byte length prefixes (hash-max-listpack-value
	// may be raised).
	long := bytes.Repeat([]byte("L"), 300)
	h.Set(long, long, 128, 1000)
	if got, ok := h.Get(long); !ok || !bytes.Equal(got, long) || h.Encoding() != "listpack" {
		t.Fatalf("long pair lost: %v %s", ok, h.Encoding())
	}
	h.Set(long, []byte("s"), 128, 1000)
	if got, _ := h.Get(long); string(got) != "s" {
		t.Fatalf("got %q", got)
	}
	var fields []string
	h.Range(func(f, v []byte) bool { fields = append(fields, string(f)); return true })
	sort.Strings(fields)
	if len(fields) != 3 {
		t.Fatalf("fields %v", fields)
	}
}

func TestHashSetAllocs(t *testing.T) {
	h := NewHash()
	f, one, two := []byte("8743c9c0-0795-4907-87fd-6c719a6b4586:1"), []byte("1"), []byte("2")
	h.Set(f, one, 128, 64)
	n := testing.AllocsPerRun(100, func() {
		h.Set(f, two, 128, 64)
		h.Set(f, one, 128, 64)
		h.Get(f)
	})
	if n != 0 {
		t.Fatalf("in-place updates allocate %v times", n)
	}
}

func TestMemoryUsageGrows(t *testing.T) {
	h, s := NewHash(), NewSet()
	prevH, prevS := h.MemoryUsage(), s.MemoryUsage()
	for i := 0; i < 1000; i++ {
		h.Set([]byte(fmt.Sprint("field", i)), []byte("value"), 128, 64)
		s.Add([]byte(fmt.Sprint(i)), 512)
		if i%100 == 99 {
			if h.MemoryUsage() <= prevH || s.MemoryUsage() < prevS {
				t.Fatalf("at %d: hash %d (was %d), set %d (was %d)", i, h.MemoryUsage(), prevH, s.MemoryUsage(), prevS)
			}
			prevH, prevS = h.MemoryUsage(), s.MemoryUsage()
		}
	}
	if s.MemoryUsage() <= NewSet().MemoryUsage() {
		t.Fatal("set MemoryUsage did not grow")
	}
}
