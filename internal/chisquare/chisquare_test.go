package chisquare

import (
	"math/rand/v2"
	"testing"
)

// TestBound: a fair sampler stays under Bound, one that draws an outcome
// half as often as the others does not.
func TestBound(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	fair := make([]int, 15)
	biased := make([]int, 15)
	for i := 0; i < 20000; i++ {
		fair[r.IntN(15)]++
		// Outcome 0 shares its slot with outcome 1.
		if j := r.IntN(14); j == 0 {
			biased[r.IntN(2)]++
		} else {
			biased[j+1]++
		}
	}
	if x2 := Uniform(fair); x2 > Bound(14) {
		t.Errorf("fair sampler: %.1f > bound %.1f", x2, Bound(14))
	}
	if x2 := Uniform(biased); x2 < Bound(14) {
		t.Errorf("biased sampler: %.1f < bound %.1f", x2, Bound(14))
	}
	// The exact quantiles at p = 1e-9 (from the incomplete gamma
	// function): Bound is never below them, and not far above.
	for _, c := range []struct {
		df   int
		want float64
	}{{9, 60.66}, {14, 71.57}, {99, 207.90}} {
		if got := Bound(c.df); got < c.want || got > c.want*1.06 {
			t.Errorf("Bound(%d) = %.2f, want %.2f to 6%% above", c.df, got, c.want)
		}
	}
}
