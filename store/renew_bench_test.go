package store

import (
	"strconv"
	"testing"
	"time"
)

// BenchmarkLeaseRenewal renews 30 s leases on 100,000 lock keys in random
// order, each renewal a later deadline than the last (a lock client's
// watchdog, or re-entry: PEXPIRE 30000 a millisecond later). ns/op is per
// renewal; max-ns is the slowest single renewal.
func BenchmarkLeaseRenewal(b *testing.B) {
	const keys = 100_000
	db := NewDB()
	v := NewString([]byte("v"))
	names := make([]string, keys)
	for i := range names {
		names[i] = "lock:" + strconv.Itoa(i)
		db.Set(names[i], v, 30_000, 0)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var worst time.Duration
	now := int64(1)
	for i := 0; i < b.N; i++ {
		if i%keys == 0 {
			now++
		}
		t0 := time.Now()
		db.SetExpire(names[(i*7919)%keys], now+30_000)
		if d := time.Since(t0); d > worst {
			worst = d
		}
	}
	b.ReportMetric(float64(worst.Nanoseconds()), "max-ns")
	b.ReportMetric(float64(len(db.deadlines))/keys, "heap-items/key")
}
