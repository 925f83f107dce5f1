package store

import (
	"fmt"
	"math/rand"
	"sort"
	"testing"
)

// zmodel is the naive reference: a slice kept sorted by (score, member).
type zmodel []zlpEntry

func (m zmodel) find(member string) int {
	for i := range m {
		if m[i].member == member {
			return i
		}
	}
	return -1
}

func (m *zmodel) set(member string, score float64) {
	if i := m.find(member); i >= 0 {
		*m = append((*m)[:i], (*m)[i+1:]...)
	}
	*m = append(*m, zlpEntry{member, score})
	sort.Slice(*m, func(i, j int) bool {
		return zless((*m)[i].score, (*m)[i].member, (*m)[j].score, (*m)[j].member)
	})
}

func (m *zmodel) del(i, n int) { *m = append((*m)[:i], (*m)[i+n:]...) }

func collect(f func(fn func(string, float64))) zmodel {
	var out zmodel
	f(func(m string, s float64) { out = append(out, zlpEntry{m, s}) })
	return out
}

func sameEntries(a, b zmodel) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].member != b[i].member || a[i].score != b[i].score {
			return false
		}
	}
	return true
}

func randScoreRange(r *rand.Rand) ScoreRange {
	a, b := float64(r.Intn(30)), float64(r.Intn(30))
	if r.Intn(4) == 0 {
		a, b = b, a
	}
	return ScoreRange{Min: a, Max: b, MinEx: r.Intn(2) == 0, MaxEx: r.Intn(2) == 0}
}

func randLexBound(r *rand.Rand) LexBound {
	switch r.Intn(8) {
	case 0:
		return LexBound{Inf: -1, Ex: true}
	case 1:
		return LexBound{Inf: 1, Ex: true}
	}
	return LexBound{S: fmt.Sprintf("m%d", r.Intn(40)), Ex: r.Intn(2) == 0}
}

// modelLex filters the model (all equal scores for lex ranges to be
// meaningful; the test uses it only on such sets).
func modelFilter(m zmodel, keep func(e zlpEntry) bool) zmodel {
	var out zmodel
	for _, e := range m {
		if keep(e) {
			out = append(out, e)
		}
	}
	return out
}

func window(m zmodel, offset, limit int, reverse bool) zmodel {
	if reverse {
		r := make(zmodel, len(m))
		for i := range m {
			r[i] = m[len(m)-1-i]
		}
		m = r
	}
	if offset < 0 || offset >= len(m) {
		return nil
	}
	m = m[offset:]
	if limit >= 0 && limit < len(m) {
		m = m[:limit]
	}
	return m
}

func checkZSet(t *testing.T, step int, z *ZSet, m zmodel) {
	t.Helper()
	if z.Len() != len(m) {
		t.Fatalf("step %d: len %d, model %d", step, z.Len(), len(m))
	}
	got := collect(z.Range)
	if !sameEntries(got, m) {
		t.Fatalf("step %d: contents\n got %v\nwant %v", step, got, m)
	}
}

func TestZSetModel(t *testing.T) {
	for _, lex := range []bool{false, true} {
		for _, limits := range [][2]int{{128, 64}, {16, 64}, {0, 0}} {
			name := fmt.Sprintf("lex=%v/entries=%d", lex, limits[0])
			t.Run(name, func(t *testing.T) {
				r := rand.New(rand.NewSource(42))
				z := NewZSet(limits[0] == 0)
				var m zmodel
				for step := 0; step < 6000; step++ {
					member := fmt.Sprintf("m%d", r.Intn(40))
					score := float64(r.Intn(30))
					if lex {
						score = 1
					}
					switch op := r.Intn(12); op {
					case 0, 1, 2, 3:
						flags := 0
						switch r.Intn(6) {
						case 0:
							flags = ZAddNX
						case 1:
							flags = ZAddXX
						case 2:
							flags = ZAddGT
						case 3:
							flags = ZAddLT
						}
						i := m.find(member)
						res, _ := z.Add([]byte(member), score, flags, limits[0], limits[1])
						switch {
						case i < 0 && flags&ZAddXX == 0:
							if res != ZAddAdded {
								t.Fatalf("step %d: add new: %d", step, res)
							}
							m.set(member, score)
						case i < 0:
							if res != ZAddNop {
								t.Fatalf("step %d: xx: %d", step, res)
							}
						default:
							cur := m[i].score
							upd := flags&ZAddNX == 0 && !(flags&ZAddGT != 0 && score <= cur) && !(flags&ZAddLT != 0 && score >= cur)
							if upd && score != cur {
								m.set(member, score)
								if res != ZAddUpdated {
									t.Fatalf("step %d: update: %d", step, res)
								}
							}
						}
					case 4:
						i := m.find(member)
						inc := float64(r.Intn(5) - 2)
						if lex {
							inc = 0
							if i < 0 {
								inc = 1
							}
						}
						res, ns := z.Add([]byte(member), inc, ZAddIncr, limits[0], limits[1])
						want := inc
						if i >= 0 {
							want += m[i].score
						}
						if ns != want || res&(ZAddNop|ZAddNaN) != 0 {
							t.Fatalf("step %d: incr: %v %d want %v", step, ns, res, want)
						}
						m.set(member, want)
					case 5:
						i := m.find(member)
						if z.Remove([]byte(member)) != (i >= 0) {
							t.Fatalf("step %d: remove", step)
						}
						if i >= 0 {
							m.del(i, 1)
						}
					case 6:
						i := m.find(member)
						for _, rev := range []bool{false, true} {
							rank, ok := z.Rank([]byte(member), rev)
							want := i
							if rev {
								want = len(m) - 1 - i
							}
							if ok != (i >= 0) || (ok && rank != want) {
								t.Fatalf("step %d: rank %v %d %v want %d", step, rev, rank, ok, want)
							}
						}
						s, ok := z.Score([]byte(member))
						if ok != (i >= 0) || (ok && s != m[i].score) {
							t.Fatalf("step %d: score", step)
						}
					case 7:
						if len(m) == 0 {
							continue
						}
						a, b := r.Intn(len(m)), r.Intn(len(m))
						if a > b {
							a, b = b, a
						}
						rev := r.Intn(2) == 0
						got := collect(func(fn func(string, float64)) { z.RangeByRank(a, b, rev, fn) })
						want := window(m, a, b-a+1, rev)
						if !sameEntries(got, want) {
							t.Fatalf("step %d: rank range %d %d %v\n got %v\nwant %v", step, a, b, rev, got, want)
						}
					case 8:
						rg := randScoreRange(r)
						off, lim := r.Intn(5)-1, r.Intn(8)-1
						rev := r.Intn(2) == 0
						in := modelFilter(m, func(e zlpEntry) bool { return rg.gteMin(e.score) && rg.lteMax(e.score) })
						got := collect(func(fn func(string, float64)) { z.RangeByScore(&rg, off, lim, rev, fn) })
						if want := window(in, off, lim, rev); !sameEntries(got, want) {
							t.Fatalf("step %d: score range %+v %d %d %v\n got %v\nwant %v", step, rg, off, lim, rev, got, want)
						}
						if c := z.CountByScore(&rg); c != len(in) {
							t.Fatalf("step %d: count %+v: %d want %d", step, rg, c, len(in))
						}
						if r.Intn(4) == 0 {
							n := z.RemoveRangeByScore(&rg)
							if n != len(in) {
								t.Fatalf("step %d: remrangebyscore %d want %d", step, n, len(in))
							}
							m = modelFilter(m, func(e zlpEntry) bool { return !(rg.gteMin(e.score) && rg.lteMax(e.score)) })
						}
					case 9:
						if !lex {
							continue
						}
						rg := LexRange{Min: randLexBound(r), Max: randLexBound(r)}
						off, lim := r.Intn(5)-1, r.Intn(8)-1
						rev := r.Intn(2) == 0
						in := modelFilter(m, func(e zlpEntry) bool { return !rg.empty() && rg.gteMin(e.member) && rg.lteMax(e.member) })
						got := collect(func(fn func(string, float64)) { z.RangeByLex(&rg, off, lim, rev, fn) })
						if want := window(in, off, lim, rev); !sameEntries(got, want) {
							t.Fatalf("step %d: lex range %+v %d %d %v\n got %v\nwant %v", step, rg, off, lim, rev, got, want)
						}
						if c := z.CountByLex(&rg); c != len(in) {
							t.Fatalf("step %d: lexcount %+v: %d want %d", step, rg, c, len(in))
						}
						if r.Intn(4) == 0 {
							n := z.RemoveRangeByLex(&rg)
							if n != len(in) {
								t.Fatalf("step %d: remrangebylex %d want %d", step, n, len(in))
							}
							m = modelFilter(m, func(e zlpEntry) bool { return !(rg.gteMin(e.member) && rg.lteMax(e.member)) })
						}
					case 10:
						if len(m) == 0 {
							continue
						}
						if r.Intn(3) == 0 {
							a, b := r.Intn(len(m)), r.Intn(len(m))
							if a > b {
								a, b = b, a
							}
							if n := z.RemoveRangeByRank(a, b); n != b-a+1 {
								t.Fatalf("step %d: remrangebyrank", step)
							}
							m.del(a, b-a+1)
							break
						}
						max := r.Intn(2) == 0
						mem, s := z.Pop(max)
						i := 0
						if max {
							i = len(m) - 1
						}
						if mem != m[i].member || s != m[i].score {
							t.Fatalf("step %d: pop %v: %s %v want %v", step, max, mem, s, m[i])
						}
						m.del(i, 1)
					case 11:
						c := z.Clone().(*ZSet)
						checkZSet(t, step, c, m)
						if !z.IsListpack() {
							seen := map[string]int{}
							cur := uint64(0)
							for {
								cur = z.Scan(cur, func(k string, s float64) { seen[k]++ })
								if cur == 0 {
									break
								}
							}
							if len(seen) != len(m) {
								t.Fatalf("step %d: scan saw %d of %d", step, len(seen), len(m))
							}
						}
					}
					checkZSet(t, step, z, m)
					if limits[0] == 16 && z.IsListpack() && z.Len() > 16 {
						t.Fatalf("step %d: listpack over limit", step)
					}
				}
			})
		}
	}
}

func TestZSetListpackNegativeZero(t *testing.T) {
	negz := 0.0
	negz = -negz
	z := NewZSet(false)
	z.Add([]byte("a"), negz, 0, 128, 64)
	if s, _ := z.Score([]byte("a")); 1/s < 0 {
		t.Fatal("listpack kept -0")
	}
	z = NewZSet(true)
	z.Add([]byte("a"), negz, 0, 128, 64)
	if s, _ := z.Score([]byte("a")); 1/s > 0 {
		t.Fatal("skiplist lost -0")
	}
}

func TestZSetConversion(t *testing.T) {
	z := NewZSet(false)
	for i := 0; i < 128; i++ {
		z.Add([]byte(fmt.Sprint(i)), float64(i), 0, 128, 64)
	}
	if z.Encoding() != "listpack" {
		t.Fatal("converted too early")
	}
	z.Add([]byte("x"), 1, 0, 128, 64)
	if z.Encoding() != "skiplist" {
		t.Fatal("not converted at 129")
	}
	z = NewZSet(false)
	z.Add(make([]byte, 64), 1, 0, 128, 64)
	if z.Encoding() != "listpack" {
		t.Fatal("64-byte member converted")
	}
	z.Add(make([]byte, 65), 1, 0, 128, 64)
	if z.Encoding() != "skiplist" {
		t.Fatal("65-byte member not converted")
	}
}

func BenchmarkZSetInsert(b *testing.B) {
	members := make([][]byte, 4096)
	for i := range members {
		members[i] = []byte(fmt.Sprintf("member:%d", i))
	}
	b.ReportAllocs()
	z := NewZSet(true)
	for i := 0; i < b.N; i++ {
		if i%len(members) == 0 {
			z = NewZSet(true)
		}
		z.Add(members[i%len(members)], float64(i*7919%10007), 0, 128, 64)
	}
}
