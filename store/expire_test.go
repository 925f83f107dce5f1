package store

import (
	"math/rand/v2"
	"strconv"
	"testing"
	"time"
)

// fillExpired adds n keys sharing one value, all due by dueBy, plus live
// keys without a deadline.
func fillExpired(db *DB, n, live int, dueBy int64) {
	v := NewString([]byte("lease"))
	for i := 0; i < n; i++ {
		db.Set("lock:"+strconv.Itoa(i), v, 1+int64(i)%dueBy, 0)
	}
	for i := 0; i < live; i++ {
		db.Set("live:"+strconv.Itoa(i), v, 0, 0)
	}
}

// TestExpireDueBounded proves that reclaiming a million expired keys is done
// in bounded slices: every ExpireDue call removes at most its budget, the
// keys go in deadline order, and keys without a deadline are never touched.
func TestExpireDueBounded(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000,000 keys")
	}
	const n, live, budget = 1_000_000, 1000, 2000
	db := NewDB()
	fillExpired(db, n, live, 1000)
	if db.ExpiresLen() != n || db.Len() != n+live {
		t.Fatalf("setup: %d keys, %d with a deadline", db.Len(), db.ExpiresLen())
	}
	// Nothing is due before the first deadline: no work at all.
	if got := db.ExpireDue(0, budget, nil); got != 0 {
		t.Fatalf("ExpireDue before any deadline removed %d", got)
	}
	var last int64
	calls, total := 0, 0
	var slowest time.Duration
	for {
		seen := 0
		start := time.Now()
		got := db.ExpireDue(10_000, budget, func(key string) {
			e := db.Peek(key)
			if e == nil || e.Expire < last {
				t.Fatalf("%s: reclaimed out of deadline order", key)
			}
			last = e.Expire
			seen++
		})
		if d := time.Since(start); d > slowest {
			slowest = d
		}
		if got != seen || got > budget {
			t.Fatalf("slice %d removed %d keys (callback saw %d), budget %d", calls, got, seen, budget)
		}
		if got == 0 {
			break
		}
		calls++
		total += got
	}
	if total != n || calls != n/budget {
		t.Fatalf("removed %d keys in %d slices, want %d in %d", total, calls, n, n/budget)
	}
	if db.Len() != live || db.ExpiresLen() != 0 {
		t.Fatalf("after expiry: %d keys (%d with a deadline), want %d (0)", db.Len(), db.ExpiresLen(), live)
	}
	t.Logf("%d keys reclaimed in %d slices of %d; slowest slice %v", total, calls, budget, slowest)
}

// TestExpireDueSkipsStale checks that deadlines changed or removed after
// being scheduled are not acted on.
func TestExpireDueSkipsStale(t *testing.T) {
	db := NewDB()
	v := NewString([]byte("v"))
	db.Set("a", v, 10, 0)
	db.Set("b", v, 10, 0)
	db.Set("c", v, 10, 0)
	db.SetExpire("a", 100) // moved later
	db.SetExpire("b", 0)   // persisted
	db.Set("c", v, 0, 0)   // overwritten without deadline
	var got []string
	db.ExpireDue(50, 10, func(k string) { got = append(got, k) })
	if len(got) != 0 || db.Len() != 3 {
		t.Fatalf("stale deadlines acted on: %v", got)
	}
	db.ExpireDue(100, 10, func(k string) { got = append(got, k) })
	if len(got) != 1 || got[0] != "a" || db.Len() != 2 {
		t.Fatalf("got %v, %d keys", got, db.Len())
	}
}

// BenchmarkExpireDue measures reclaiming expired keys in slices of 2000
// (Engine.Cron's budget): ns/op is per key reclaimed.
func BenchmarkExpireDue(b *testing.B) {
	const batch = 1_000_000
	db := NewDB()
	b.ReportAllocs()
	for done := 0; done < b.N; {
		n := min(batch, b.N-done)
		b.StopTimer()
		fillExpired(db, n, 0, 1000)
		b.StartTimer()
		for db.ExpireDue(10_000, 2000, nil) > 0 {
		}
		done += n
	}
}

// TestSameDeadlineDoesNotGrowHeap: renewing a lease to the same deadline
// (PEXPIREAT in a loop, SET PX twice in one millisecond), or deleting and
// re-creating a key with the same deadline, keeps the heap small.
func TestSameDeadlineDoesNotGrowHeap(t *testing.T) {
	db := NewDB()
	v := NewString([]byte("v"))
	for i := 0; i < 10000; i++ {
		db.Set("lock", v, 5000, 0)
		db.SetExpire("lock", 5000)
		if i%2 == 0 {
			db.Delete("lock")
		}
	}
	if n := len(db.deadlines); n > 130 {
		t.Fatalf("heap holds %d items for one key", n)
	}
	var got []string
	if n := db.ExpireDue(5000, 100, func(k string) { got = append(got, k) }); n != 1 || got[0] != "lock" {
		t.Fatalf("ExpireDue removed %d (%v)", n, got)
	}
	if db.Len() != 0 || db.ExpiresLen() != 0 {
		t.Fatalf("%d keys, %d deadlines left", db.Len(), db.ExpiresLen())
	}
}

// TestExpireDueModel checks the deadline heap against a map model under
// random sets (by key, or in place on the entry as SET on an existing key
// does), renewals, persists and deletes (fixed seed).
func TestExpireDueModel(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	db := NewDB()
	model := map[string]int64{} // key -> deadline (0: none)
	v := NewString([]byte("v"))
	now := int64(0)
	for step := 0; step < 200000; step++ {
		k := "k" + strconv.Itoa(rnd.IntN(500))
		switch op := rnd.IntN(10); {
		case op < 4:
			at := int64(0)
			if rnd.IntN(4) > 0 {
				at = now + 1 + rnd.Int64N(200)
			}
			e := db.Peek(k)
			switch {
			case e == nil || rnd.IntN(3) == 0:
				db.Set(k, v, at, now)
			case rnd.IntN(3) == 0:
				db.ReplaceEntry(e, v, now) // KEEPTTL
				at = model[k]
			default:
				db.Overwrite([]byte(k), e, v, at, now)
			}
			model[k] = at
		case op < 6:
			if _, ok := model[k]; ok {
				at := now + 1 + rnd.Int64N(200)
				db.SetExpire(k, at)
				model[k] = at
			}
		case op < 7:
			if _, ok := model[k]; ok {
				db.SetExpire(k, 0)
				model[k] = 0
			}
		case op < 8:
			db.Delete(k)
			delete(model, k)
		default:
			now += rnd.Int64N(20)
			var got []string
			db.ExpireDue(now, 1+rnd.IntN(50), func(key string) { got = append(got, key) })
			for _, key := range got {
				if at := model[key]; at == 0 || at > now {
					t.Fatalf("step %d: %s reclaimed at %d, deadline %d", step, key, now, at)
				}
				delete(model, key)
			}
		}
		if db.Len() != len(model) {
			t.Fatalf("step %d: %d keys, model %d", step, db.Len(), len(model))
		}
		if step%1000 == 0 {
			withDeadline := 0
			for k, at := range model {
				if at != 0 {
					withDeadline++
				}
				if e := db.Peek(k); e == nil || e.Expire != at {
					t.Fatalf("step %d: %s has %v, model deadline %d", step, k, e, at)
				}
			}
			if db.ExpiresLen() != withDeadline {
				t.Fatalf("step %d: %d deadlines, model %d", step, db.ExpiresLen(), withDeadline)
			}
		}
	}
	// Everything due eventually goes, in one pass with a big budget.
	now += 1000
	db.ExpireDue(now, 1<<30, nil)
	for k, at := range model {
		if at != 0 {
			delete(model, k)
		}
	}
	if db.Len() != len(model) || db.ExpiresLen() != 0 {
		t.Fatalf("final: %d keys (%d deadlines), model %d", db.Len(), db.ExpiresLen(), len(model))
	}
}

// TestRenewalsDoNotGrowHeap: leases renewed to later deadlines again and
// again keep one heap item per key; the keys expire at their last
// deadline, not at an earlier one.
func TestRenewalsDoNotGrowHeap(t *testing.T) {
	db := NewDB()
	v := NewString([]byte("v"))
	const keys = 1000
	for i := 0; i < keys; i++ {
		db.Set("lock:"+strconv.Itoa(i), v, 1000, 0)
	}
	for round := int64(1); round <= 50; round++ {
		for i := 0; i < keys; i++ {
			db.SetExpire("lock:"+strconv.Itoa(i), 1000+round*10)
		}
	}
	if n := len(db.deadlines); n > keys {
		t.Fatalf("heap holds %d items for %d keys", n, keys)
	}
	// Due at the first deadline: every key is filed again at its last one.
	if n := db.ExpireDue(1499, 2*keys, nil); n != 0 || db.Len() != keys {
		t.Fatalf("at 1499: ExpireDue removed %d, %d keys left", n, db.Len())
	}
	if n := len(db.deadlines); n != keys || db.NextDeadline() != 1500 {
		t.Fatalf("after refiling: %d items, next deadline %d", n, db.NextDeadline())
	}
	if n := db.ExpireDue(1500, 2*keys, nil); n != keys || db.Len() != 0 {
		t.Fatalf("at 1500: ExpireDue removed %d, %d keys left", n, db.Len())
	}
}

// TestShortenedDeadline: a deadline moved earlier is honoured at once.
func TestShortenedDeadline(t *testing.T) {
	db := NewDB()
	db.Set("k", NewString([]byte("v")), 5000, 0)
	db.SetExpire("k", 1000)
	if n := db.ExpireDue(1000, 10, nil); n != 1 || db.Len() != 0 {
		t.Fatalf("ExpireDue removed %d, %d keys left", n, db.Len())
	}
}

// TestTakeDueRefile: TakeDue returns a due key and keeps it; renewed after
// that (its expiry then removes nothing), Refile files it again and it is
// due at its new deadline. A key renewed before TakeDue is not returned.
func TestTakeDueRefile(t *testing.T) {
	db := NewDB()
	v := NewString([]byte("v"))
	db.Set("a", v, 1000, 0)
	db.Set("b", v, 1000, 0)
	db.SetExpire("b", 3000)
	if got := db.TakeDue(1000, 10); len(got) != 1 || got[0] != "a" || db.Len() != 2 {
		t.Fatalf("TakeDue(1000) = %v, %d keys", got, db.Len())
	}
	db.SetExpire("a", 2000)
	db.Refile("a")
	if got := db.TakeDue(1999, 10); len(got) != 0 {
		t.Fatalf("TakeDue(1999) = %v", got)
	}
	if got := db.TakeDue(2000, 10); len(got) != 1 || got[0] != "a" {
		t.Fatalf("TakeDue(2000) = %v", got)
	}
	if got := db.TakeDue(3000, 10); len(got) != 1 || got[0] != "b" {
		t.Fatalf("TakeDue(3000) = %v", got)
	}
}
