package host

import (
	"math"
	"sync/atomic"
)

// RaftMetrics are a cluster node's instruments that its own goroutines
// observe as things happen (a few atomic adds each); the metrics port
// reads them at scrape time.
type RaftMetrics struct {
	// LogStore times a write of a batch of entries to the Raft log, its
	// fsync included.
	LogStore *Histogram
	// Apply times a batch of committed entries applied to the keyspace,
	// the wait for the command goroutine included; ApplyEntries counts
	// the entries.
	Apply        *Histogram
	ApplyEntries atomic.Uint64
	// SnapshotPersist times a snapshot written to the snapshot store;
	// SnapshotBytes is the size of the last one.
	SnapshotPersist *Histogram
	SnapshotBytes   atomic.Int64
	// LeaderChanges counts the times the node saw the leader change (a
	// new leader known, or none).
	LeaderChanges atomic.Uint64
}

// Histogram counts observations into buckets with fixed upper bounds.
// Observe is safe for concurrent use and takes no lock.
type Histogram struct {
	bounds []float64
	counts []atomic.Uint64 // per bucket; the last one is +Inf
	sum    atomic.Uint64   // float64 bits
}

// NewHistogram returns a histogram whose buckets end at bounds
// (ascending), and one more for larger values.
func NewHistogram(bounds []float64) *Histogram {
	return &Histogram{bounds: bounds, counts: make([]atomic.Uint64, len(bounds)+1)}
}

// ExponentialBounds are n bounds from start, each factor times the last.
func ExponentialBounds(start, factor float64, n int) []float64 {
	b := make([]float64, n)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}

// Observe counts v.
func (h *Histogram) Observe(v float64) {
	i := 0
	for i < len(h.bounds) && v > h.bounds[i] {
		i++
	}
	h.counts[i].Add(1)
	for {
		old := h.sum.Load()
		if h.sum.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+v)) {
			return
		}
	}
}

// Read returns the observations so far: their count and sum, and for each
// bound the count of those at most it (cumulative, as Prometheus's
// histograms have them).
func (h *Histogram) Read() (count uint64, sum float64, buckets map[float64]uint64) {
	buckets = make(map[float64]uint64, len(h.bounds))
	for i, b := range h.bounds {
		count += h.counts[i].Load()
		buckets[b] = count
	}
	count += h.counts[len(h.bounds)].Load()
	return count, math.Float64frombits(h.sum.Load()), buckets
}
