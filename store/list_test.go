package store

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestListModel runs random operations against a List and a plain slice
// and requires the same contents after each one.
func TestListModel(t *testing.T) {
	for seed := uint64(1); seed <= 20; seed++ {
		rnd := rand.New(rand.NewPCG(seed, 42))
		l := NewList()
		var model [][]byte
		val := func() []byte { return []byte(strconv.Itoa(rnd.IntN(8))) }
		for step := 0; step < 3000; step++ {
			op := rnd.IntN(11)
			switch op {
			case 0, 1:
				v := val()
				l.PushFront(v)
				model = append([][]byte{v}, model...)
			case 2, 3:
				v := val()
				l.PushBack(v)
				model = append(model, v)
			case 4:
				got := l.PopFront()
				if len(model) == 0 {
					if got != nil {
						t.Fatalf("seed %d step %d: PopFront on empty = %q", seed, step, got)
					}
					break
				}
				if !bytes.Equal(got, model[0]) {
					t.Fatalf("seed %d step %d: PopFront = %q, want %q", seed, step, got, model[0])
				}
				model = model[1:]
			case 5:
				got := l.PopBack()
				if len(model) == 0 {
					if got != nil {
						t.Fatalf("seed %d step %d: PopBack on empty = %q", seed, step, got)
					}
					break
				}
				if !bytes.Equal(got, model[len(model)-1]) {
					t.Fatalf("seed %d step %d: PopBack = %q, want %q", seed, step, got, model[len(model)-1])
				}
				model = model[:len(model)-1]
			case 6:
				i := rnd.IntN(len(model) + 1)
				v := val()
				l.Insert(i, v)
				model = append(model[:i], append([][]byte{v}, model[i:]...)...)
			case 7:
				if len(model) == 0 {
					break
				}
				i := rnd.IntN(len(model))
				l.RemoveAt(i)
				model = append(model[:i], model[i+1:]...)
			case 8:
				if len(model) == 0 {
					break
				}
				i := rnd.IntN(len(model))
				v := val()
				l.Set(i, v)
				model[i] = v
			case 9:
				v := val()
				count := int64(rnd.IntN(5) - 2)
				if rnd.IntN(20) == 0 {
					count = math.MinInt64
				}
				want, nm := modelRemove(model, v, count)
				got := l.Remove(v, count)
				if got != want {
					t.Fatalf("seed %d step %d: Remove(%q, %d) = %d, want %d", seed, step, v, count, got, want)
				}
				model = nm
			case 10:
				if rnd.IntN(10) != 0 || len(model) == 0 {
					break
				}
				start := rnd.IntN(len(model))
				count := rnd.IntN(len(model) - start + 1)
				l.Trim(start, count)
				model = append([][]byte(nil), model[start:start+count]...)
			}
			checkList(t, l, model, seed, step)
		}
		c := l.Clone().(*List)
		checkList(t, c, model, seed, -1)
	}
}

func modelRemove(m [][]byte, v []byte, count int64) (int64, [][]byte) {
	var out [][]byte
	var removed int64
	limit := count
	if limit < 0 {
		limit = -limit
		if limit < 0 {
			limit = 0
		}
	}
	if count >= 0 {
		for _, e := range m {
			if (limit == 0 || removed < limit) && bytes.Equal(e, v) {
				removed++
				continue
			}
			out = append(out, e)
		}
		return removed, out
	}
	for i := len(m) - 1; i >= 0; i-- {
		if (limit == 0 || removed < limit) && bytes.Equal(m[i], v) {
			removed++
			continue
		}
		out = append([][]byte{m[i]}, out...)
	}
	return removed, out
}

func checkList(t *testing.T, l *List, model [][]byte, seed uint64, step int) {
	t.Helper()
	if l.Len() != len(model) {
		t.Fatalf("seed %d step %d: Len = %d, want %d", seed, step, l.Len(), len(model))
	}
	for i, want := range model {
		if got := l.Index(i); !bytes.Equal(got, want) {
			t.Fatalf("seed %d step %d: Index(%d) = %q, want %q", seed, step, i, got, want)
		}
	}
	if len(model) > 0 {
		i := 0
		l.Range(0, len(model)-1, false, func(b []byte) {
			if !bytes.Equal(b, model[i]) {
				t.Fatalf("seed %d step %d: Range[%d] = %q, want %q", seed, step, i, b, model[i])
			}
			i++
		})
		i = len(model) - 1
		l.Range(0, len(model)-1, true, func(b []byte) {
			if !bytes.Equal(b, model[i]) {
				t.Fatalf("seed %d step %d: reverse Range[%d] = %q, want %q", seed, step, i, b, model[i])
			}
			i--
		})
	}
}

func TestListCloneIsDeep(t *testing.T) {
	l := NewList()
	l.PushBack([]byte("a"))
	c := l.Clone().(*List)
	c.Index(0)[0] = 'z'
	if string(l.Index(0)) != "a" {
		t.Fatal("Clone shares element storage")
	}
	if l.Encoding() != "quicklist" || l.Type() != TypeList {
		t.Fatal("wrong encoding or type")
	}
}

func TestListShrinks(t *testing.T) {
	l := NewList()
	for i := 0; i < 10000; i++ {
		l.PushBack([]byte("x"))
	}
	for i := 0; i < 9990; i++ {
		l.PopFront()
	}
	if len(l.buf) > 128 {
		t.Fatalf("buffer of %d slots for %d elements", len(l.buf), l.Len())
	}
}

func TestListMemoryUsage(t *testing.T) {
	l := NewList()
	prev := l.MemoryUsage()
	for i := 0; i < 2000; i++ {
		l.PushBack([]byte(strconv.Itoa(i * 1000)))
		if m := l.MemoryUsage(); m <= prev {
			t.Fatalf("at %d: %d bytes, was %d", i, m, prev)
		} else {
			prev = m
		}
	}
	// Three entries "a","b","c": 48 quicklist + 32 node + 6+3*3+1 listpack.
	small := NewList()
	for _, s := range []string{"a", "b", "c"} {
		small.PushBack([]byte(s))
	}
	if got := small.MemoryUsage(); got != 96 {
		t.Fatalf("small list: %d bytes, want 96", got)
	}
}
