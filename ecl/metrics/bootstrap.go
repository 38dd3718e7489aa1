package metrics

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Bootstrap returns the percentile bootstrap confidence interval at the given
// level (e.g. 0.95) of a statistic of n samples: reps times it draws n indices
// with replacement from rng, evaluates stat on them, and returns the
// (1−level)/2 and (1+level)/2 quantiles of the values (linear interpolation).
// Values that are NaN are left out; if all are, both bounds are NaN. It panics
// for n < 1, reps < 1, a level outside (0, 1) or a nil rng.
func Bootstrap(n int, stat func(idx []int) float64, reps int, level float64, rng *rand.Rand) (lo, hi float64) {
	if n < 1 || reps < 1 || !(level > 0 && level < 1) || rng == nil {
		panic(fmt.Sprintf("metrics.Bootstrap: n = %d, reps = %d, level = %v, rng nil: %v", n, reps, level, rng == nil))
	}
	idx := make([]int, n)
	vals := make([]float64, 0, reps)
	for range reps {
		for i := range idx {
			idx[i] = rng.IntN(n)
		}
		if v := stat(idx); !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return math.NaN(), math.NaN()
	}
	slices.Sort(vals)
	return quantile(vals, (1-level)/2), quantile(vals, (1+level)/2)
}

// quantile is the q-quantile of sorted values with linear interpolation
// (numpy's default).
func quantile(sorted []float64, q float64) float64 {
	pos := q * float64(len(sorted)-1)
	i := int(pos)
	if i >= len(sorted)-1 {
		return sorted[len(sorted)-1]
	}
	f := pos - float64(i)
	return sorted[i] + f*(sorted[i+1]-sorted[i])
}

// Subset returns the rows idx of probs (k columns) and their labels, for use
// inside a Bootstrap statistic.
func Subset(probs []float64, k int, labels []int, idx []int) ([]float64, []int) {
	p, y := make([]float64, 0, len(idx)*k), make([]int, len(idx))
	for j, i := range idx {
		p = append(p, probs[i*k:(i+1)*k]...)
		y[j] = labels[i]
	}
	return p, y
}
