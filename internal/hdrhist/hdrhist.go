// Package hdrhist is the part of HdrHistogram_c (Redis 7.0's
// deps/hdr_histogram) that Redis's per-command latency tracking uses:
// recording a value into its bucket, the logarithmic iterator LATENCY
// HISTOGRAM walks, and hdr_value_at_percentile as INFO latencystats
// calls it. The bucket arithmetic is the C code's, so a value lands in
// the same bucket and every reported boundary is the same number.
//
// Not ported: min/max tracking (nothing Redis reports reads it), the
// normalizing index offset (always 0 in Redis), atomics, the other
// iterators and printing.
package hdrhist

import (
	"errors"
	"math"
	"math/bits"
)

// Histogram counts values between 1 (or lowest) and highest at a fixed
// number of significant decimal digits. It is not safe for concurrent use.
type Histogram struct {
	unitMagnitude      uint // log2(lowest discernible value)
	subHalfMagnitude   uint // log2(subBucketHalfCount)
	subBucketHalfCount int32
	subBucketCount     int32
	subBucketMask      uint64
	bucketCount        int32
	counts             []int64
	total              int64
}

// ErrConfig is hdr_init's EINVAL.
var ErrConfig = errors.New("hdrhist: invalid histogram configuration")

// New is hdr_init(lowest, highest, sigfigs): values from lowest to
// highest with sigfigs (1 to 5) significant decimal digits.
func New(lowest, highest int64, sigfigs int) (*Histogram, error) {
	if lowest < 1 || sigfigs < 1 || sigfigs > 5 || lowest*2 > highest {
		return nil, ErrConfig
	}
	largest := 2 * int64(math.Pow10(sigfigs)) // largest_value_with_single_unit_resolution
	subCountMag := int32(math.Ceil(math.Log(float64(largest)) / math.Log(2)))
	subHalfMag := max(subCountMag, 1) - 1
	unitMag := int32(math.Log(float64(lowest)) / math.Log(2))
	if unitMag+subHalfMag > 61 {
		return nil, ErrConfig
	}
	h := &Histogram{
		unitMagnitude:    uint(unitMag),
		subHalfMagnitude: uint(subHalfMag),
		subBucketCount:   int32(1) << (subHalfMag + 1),
	}
	h.subBucketHalfCount = h.subBucketCount / 2
	h.subBucketMask = uint64(h.subBucketCount-1) << h.unitMagnitude
	// buckets_needed_to_cover_value
	smallestUntrackable := int64(h.subBucketCount) << h.unitMagnitude
	h.bucketCount = 1
	for smallestUntrackable <= highest {
		if smallestUntrackable > math.MaxInt64/2 {
			h.bucketCount++
			break
		}
		smallestUntrackable <<= 1
		h.bucketCount++
	}
	h.counts = make([]int64, (h.bucketCount+1)*h.subBucketHalfCount)
	return h, nil
}

// CountsLen is the length of the counts array (counts_len).
func (h *Histogram) CountsLen() int { return len(h.counts) }

// TotalCount is the number of values recorded.
func (h *Histogram) TotalCount() int64 { return h.total }

// Reset forgets every value (hdr_reset).
func (h *Histogram) Reset() {
	clear(h.counts)
	h.total = 0
}

func (h *Histogram) bucketIndex(v int64) int32 {
	pow2ceiling := 64 - bits.LeadingZeros64(uint64(v)|h.subBucketMask)
	return int32(pow2ceiling) - int32(h.unitMagnitude) - int32(h.subHalfMagnitude+1)
}

func (h *Histogram) subBucketIndex(v int64, bucket int32) int32 {
	return int32(v >> (uint(bucket) + h.unitMagnitude))
}

// CountsIndex is counts_index_for(v): where v is counted.
func (h *Histogram) CountsIndex(v int64) int {
	b := h.bucketIndex(v)
	sub := h.subBucketIndex(v, b)
	return int((b+1)<<h.subHalfMagnitude + sub - h.subBucketHalfCount)
}

// Record counts v (hdr_record_value); false if v is out of range.
func (h *Histogram) Record(v int64) bool {
	if v < 0 {
		return false
	}
	i := h.CountsIndex(v)
	if uint(i) >= uint(len(h.counts)) {
		return false
	}
	h.counts[i]++
	h.total++
	return true
}

// ValueAtIndex is hdr_value_at_index: the lowest value counted at i.
func (h *Histogram) ValueAtIndex(i int) int64 {
	b := int32(i>>h.subHalfMagnitude) - 1
	sub := int32(i)&(h.subBucketHalfCount-1) + h.subBucketHalfCount
	if b < 0 {
		sub -= h.subBucketHalfCount
		b = 0
	}
	return int64(sub) << (uint(b) + h.unitMagnitude)
}

// LowestEquivalentValue is lowest_equivalent_value: the smallest value
// counted with v.
func (h *Histogram) LowestEquivalentValue(v int64) int64 {
	b := h.bucketIndex(v)
	return int64(h.subBucketIndex(v, b)) << (uint(b) + h.unitMagnitude)
}

// sizeOfEquivalentRange is hdr_size_of_equivalent_value_range.
func (h *Histogram) sizeOfEquivalentRange(v int64) int64 {
	b := h.bucketIndex(v)
	if h.subBucketIndex(v, b) >= h.subBucketCount {
		b++
	}
	return int64(1) << (h.unitMagnitude + uint(b))
}

// HighestEquivalentValue is highest_equivalent_value: the largest value
// counted with v.
func (h *Histogram) HighestEquivalentValue(v int64) int64 {
	return h.LowestEquivalentValue(v) + h.sizeOfEquivalentRange(v) - 1
}

// ValueAtPercentile is hdr_value_at_percentile as Redis 7.0 bundles it:
// the count to reach is at least 1, and percentile 0 reports the lowest
// value of its bucket, any other the highest.
func (h *Histogram) ValueAtPercentile(p float64) int64 {
	requested := p
	if requested >= 100 {
		requested = 100
	}
	countAt := int64((requested/100)*float64(h.total) + 0.5)
	countAt = max(countAt, 1)
	var total int64
	for i, n := range h.counts {
		total += n
		if total >= countAt {
			v := h.ValueAtIndex(i)
			if p == 0 {
				return h.LowestEquivalentValue(v)
			}
			return h.HighestEquivalentValue(v)
		}
	}
	return 0
}

// Step is one step of the logarithmic iterator: the highest value
// equivalent to the counts index the iterator stands on, and the count
// of values up to and including that index.
type Step struct {
	HighestEquivalent int64
	Cumulative        int64
}

// LogSteps runs hdr_iter_log_init(first, base) and hdr_iter_next to the
// end, calling fn for each step the C iterator reports, with its
// highest_equivalent_value and cumulative_count. Repeated steps (no new
// values since the previous one) are reported too, as the C iterator
// does; LATENCY HISTOGRAM leaves them out.
func (h *Histogram) LogSteps(first int64, base float64, fn func(Step)) {
	it := struct {
		index                    int // counts_index
		count, cumulative, value int64
		highest                  int64
		level, levelLowest       int64
	}{index: -1, level: first, levelLowest: h.LowestEquivalentValue(first)}
	moveNext := func() bool {
		it.index++
		if it.index >= len(h.counts) {
			return false
		}
		it.count = h.counts[it.index]
		it.cumulative += it.count
		it.value = h.ValueAtIndex(it.index)
		it.highest = h.HighestEquivalentValue(it.value)
		return true
	}
	for {
		// log_iter_next: has_next || next_value_greater_than_reporting_level_upper_bound
		if !(it.cumulative < h.total || (it.index < len(h.counts) && h.ValueAtIndex(it.index+1) > it.levelLowest)) {
			return
		}
		for {
			if it.value >= it.levelLowest {
				it.level *= int64(base)
				it.levelLowest = h.LowestEquivalentValue(it.level)
				break
			}
			if !moveNext() {
				break
			}
		}
		fn(Step{it.highest, it.cumulative})
	}
}

// CumulativeCounts sets out[i] to the number of values counted in the
// buckets up to the one of bounds[i] (ascending), which are all the
// values <= bounds[i] when bounds[i] is a highest equivalent value.
func (h *Histogram) CumulativeCounts(bounds []int64, out []uint64) []uint64 {
	var cum int64
	i := 0
	for j, b := range bounds {
		last := min(h.CountsIndex(b), len(h.counts)-1)
		for ; i <= last; i++ {
			cum += h.counts[i]
		}
		out[j] = uint64(cum)
	}
	return out
}
