package hdrhist

import (
	"testing"
)

// The numbers below are worked by hand from HdrHistogram_c's arithmetic
// for Redis's configuration, hdr_init(1, 1000000000, 2):
// sub_bucket_count = 2^ceil(log2(2*10^2)) = 256, half count 128 (magnitude
// 7), unit magnitude 0, sub_bucket_mask 255; buckets_needed_to_cover_value
// doubles 256 until it passes 1e9: 22 doublings, 23 buckets; counts_len =
// (23+1)*128 = 3072.
func redisHist(t *testing.T) *Histogram {
	t.Helper()
	h, err := New(1, 1000000000, 2)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestConfig(t *testing.T) {
	h := redisHist(t)
	if h.CountsLen() != 3072 || h.bucketCount != 23 || h.subBucketCount != 256 || h.subBucketMask != 255 {
		t.Fatalf("counts_len %d, buckets %d, sub buckets %d, mask %d", h.CountsLen(), h.bucketCount, h.subBucketCount, h.subBucketMask)
	}
	for _, bad := range [][3]int64{{0, 100, 2}, {1, 1, 2}, {1, 100, 0}, {1, 100, 6}} {
		if _, err := New(bad[0], bad[1], int(bad[2])); err == nil {
			t.Errorf("New%v accepted", bad)
		}
	}
}

func TestBuckets(t *testing.T) {
	h := redisHist(t)
	for _, c := range []struct {
		v, index, lowest, highest int64
	}{
		// Under 256 every value is its own bucket.
		{0, 0, 0, 0},
		{1, 1, 1, 1},
		{255, 255, 255, 255},
		// 256: 64-clz(256|255) = 9, bucket 1, sub 128, index (2<<7)+0.
		{256, 256, 256, 257},
		// 1000: bucket 2 (ceil 10), sub 250, range 4.
		{1000, 3<<7 + 250 - 128, 1000, 1003},
		// 1024: bucket 3, sub 128, range 8: highest_equivalent_value(1024) = 1031.
		{1024, 512, 1024, 1031},
		// 3000: bucket 4, sub 187, range 16.
		{3000, 5<<7 + 187 - 128, 2992, 3007},
		// 25000: bucket 7, sub 195, range 128.
		{25000, 8<<7 + 195 - 128, 24960, 25087},
		// 1e9: bucket 22, sub 238, range 2^22.
		{1000000000, 23<<7 + 238 - 128, 998244352, 1002438655},
	} {
		if got := int64(h.CountsIndex(c.v)); got != c.index {
			t.Errorf("counts_index_for(%d) = %d, want %d", c.v, got, c.index)
		}
		if got := h.LowestEquivalentValue(c.v); got != c.lowest {
			t.Errorf("lowest_equivalent_value(%d) = %d, want %d", c.v, got, c.lowest)
		}
		if got := h.HighestEquivalentValue(c.v); got != c.highest {
			t.Errorf("highest_equivalent_value(%d) = %d, want %d", c.v, got, c.highest)
		}
		if got := h.ValueAtIndex(int(c.index)); got != c.lowest {
			t.Errorf("hdr_value_at_index(%d) = %d, want %d", c.index, got, c.lowest)
		}
	}
	// The last index: bucket 22, sub 255.
	if got := h.ValueAtIndex(3071); got != 255<<22 {
		t.Errorf("hdr_value_at_index(3071) = %d", got)
	}
	if h.Record(1<<30) || h.Record(-1) || h.TotalCount() != 0 {
		t.Error("out-of-range values recorded")
	}
}

func TestValueAtPercentile(t *testing.T) {
	h := redisHist(t)
	if got := h.ValueAtPercentile(50); got != 0 {
		t.Errorf("empty: %d", got)
	}
	h.Record(25000)
	for _, c := range []struct {
		p    float64
		want int64
	}{
		{0, 24960},   // percentile 0: lowest_equivalent_value
		{0.1, 25087}, // count (0.001+0.5) = 0, raised to 1
		{50, 25087},  // highest_equivalent_value
		{100, 25087},
	} {
		if got := h.ValueAtPercentile(c.p); got != c.want {
			t.Errorf("p%v = %d, want %d", c.p, got, c.want)
		}
	}
	// 100 values: 1000, 2000, ..., 100000 µs-like values.
	h.Reset()
	for i := int64(1); i <= 100; i++ {
		h.Record(i * 1000)
	}
	for _, c := range []struct {
		p    float64
		want int64
	}{
		// count (0.5*100+0.5) = 50: the 50th value, 50000, bucket 8
		// (ceil 16), range 256: [49920, 50175].
		{50, 50175},
		// count 99: 99000, bucket 9, range 512: [98816, 99327].
		{99, 99327},
		// count (0.999*100+0.5) = 100: 100000 in [99840, 100351].
		{99.9, 100351},
		// count 0 → 1: 1000 in [1000, 1003]; p0: lowest.
		{0.1, 1003},
		{0, 1000},
		{150, 100351},
	} {
		if got := h.ValueAtPercentile(c.p); got != c.want {
			t.Errorf("p%v = %d, want %d", c.p, got, c.want)
		}
	}
}

// TestLogSteps follows log_iter_next by hand for hdr_iter_log_init(1024,
// 2), as Redis's fillCommandCDF runs it.
func TestLogSteps(t *testing.T) {
	h := redisHist(t)
	h.Record(3000)
	var got []Step
	h.LogSteps(1024, 2, func(s Step) { got = append(got, s) })
	// Levels 1024 and 2048 are reached with nothing counted yet (their
	// buckets' highest values 1031 and 2063); 4096's bucket, [4096,
	// 4127], is the first past 3000.
	want := []Step{{1031, 0}, {2063, 0}, {4127, 1}}
	if len(got) < len(want) {
		t.Fatalf("steps %v", got)
	}
	for i, w := range want {
		if got[i] != w {
			t.Fatalf("step %d = %v, want %v (all %v)", i, got[i], w, got)
		}
	}
	for _, s := range got[len(want):] {
		if s.Cumulative != 1 {
			t.Fatalf("a step after the last value: %v", got)
		}
	}

	// A value past the last level below 1e9 (1024*2^19 = 536870912): the
	// iterator runs out of counts before value reaches 1073741824 and
	// reports the last index, highest value 255<<22 + 2^22 - 1.
	h.Reset()
	h.Record(1000000000)
	got = got[:0]
	h.LogSteps(1024, 2, func(s Step) { got = append(got, s) })
	last := got[len(got)-1]
	if last != (Step{1073741823, 1}) {
		t.Fatalf("last step %v (all %v)", last, got)
	}
	for _, s := range got[:len(got)-1] {
		if s.Cumulative != 0 {
			t.Fatalf("1e9 counted early: %v", got)
		}
	}
	// Levels: 1024*2^k for k = 0..19, 20 steps before running out.
	if len(got) != 21 {
		t.Fatalf("%d steps: %v", len(got), got)
	}
}

func BenchmarkRecord(b *testing.B) {
	h, _ := New(1, 1000000000, 2)
	for i := 0; i < b.N; i++ {
		h.Record(int64(i&1023) * 1000)
	}
}

func TestCumulativeCounts(t *testing.T) {
	h := redisHist(t)
	for _, v := range []int64{1, 1031, 1032, 3000, 25000, 1000000000} {
		h.Record(v)
	}
	// 1031 is the highest value of 1024's bucket: 1 and 1031 are at or
	// under it, 1032 (bucket [1032, 1039]) is not.
	bounds := []int64{0, 1031, 1039, 4127, 33023, 1073741823}
	got := h.CumulativeCounts(bounds, make([]uint64, len(bounds)))
	want := []uint64{0, 2, 3, 4, 5, 6}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("CumulativeCounts(%v) = %v, want %v", bounds, got, want)
		}
	}
}
