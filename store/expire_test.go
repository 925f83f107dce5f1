package store

import (
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
