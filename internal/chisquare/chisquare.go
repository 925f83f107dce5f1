// Package chisquare is the goodness-of-fit check lockkv's tests use on
// random choices (RANDOMKEY, SPOP, SRANDMEMBER, HRANDFIELD, ZRANDMEMBER),
// as Redis's own suite does with chi_square_value (tests/util.tcl).
package chisquare

import "math"

// Uniform is Pearson's statistic of counts (how often each of len(counts)
// outcomes was drawn) against the uniform distribution.
func Uniform(counts []int) float64 {
	total := 0
	for _, n := range counts {
		total += n
	}
	exp := float64(total) / float64(len(counts))
	x2 := 0.0
	for _, n := range counts {
		d := float64(n) - exp
		x2 += d * d / exp
	}
	return x2
}

// Bound is the chi-square quantile for df degrees of freedom at p = 1e-9
// by the Wilson-Hilferty approximation, which errs a little high for few
// degrees of freedom: a fair sampler's statistic exceeds it at most once in
// a billion runs, so a test can hold a sampler to it
// without fixing a seed, and a sampler that favours some outcomes fails it
// by far with enough draws.
func Bound(df int) float64 {
	const z = 5.998 // the standard normal's quantile at 1 - 1e-9
	d := float64(df)
	a := 2 / (9 * d)
	return d * math.Pow(1-a+z*math.Sqrt(a), 3)
}
