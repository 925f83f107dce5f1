package host

import "testing"

func TestHistogram(t *testing.T) {
	h := NewHistogram(ExponentialBounds(1, 2, 3)) // 1, 2, 4
	for _, v := range []float64{0.5, 1, 1.5, 3, 4, 100} {
		h.Observe(v)
	}
	count, sum, buckets := h.Read()
	if count != 6 || sum != 110 {
		t.Errorf("count %d, sum %v; want 6, 110", count, sum)
	}
	for b, want := range map[float64]uint64{1: 2, 2: 3, 4: 5} {
		if buckets[b] != want {
			t.Errorf("bucket %v: %d, want %d (%v)", b, buckets[b], want, buckets)
		}
	}
	if len(buckets) != 3 {
		t.Errorf("buckets %v", buckets)
	}
}
