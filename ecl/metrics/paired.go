package metrics

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/tensor"
)

// PairedDifference returns the mean of the paired differences b[i] − a[i]
// (one pair per seed, say, of two methods' metric) and its percentile
// bootstrap interval at level from reps resamples of the pairs drawn from
// rng. It panics when a and b differ in length or are empty.
func PairedDifference(a, b []float64, reps int, level float64, rng *rand.Rand) (mean, lo, hi float64) {
	if len(a) != len(b) || len(a) == 0 {
		panic(&tensor.ArgumentError{Op: "metrics.PairedDifference", Detail: fmt.Sprintf("%d and %d values, want the same number, at least one", len(a), len(b))})
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	meanOf := func(idx []int) float64 {
		var sum float64
		for _, i := range idx {
			sum += d[i]
		}
		return sum / float64(len(idx))
	}
	all := make([]int, len(d))
	for i := range all {
		all[i] = i
	}
	lo, hi = Bootstrap(len(d), meanOf, reps, level, rng)
	return meanOf(all), lo, hi
}
