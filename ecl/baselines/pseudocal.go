package baselines

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/tensor"
)

// PseudoMixup builds the pseudo-target set of PseudoCal (Hu et al., 2024):
// one pass over the target inputs x (row-major, d columns) in shuffled
// batches; in each batch a random permutation pairs every sample a with a
// sample b, and the input λ·x_a + (1−λ)·x_b is kept when a and b have
// different predicted classes, labelled metrics.Argmax(λ·p_a + (1−λ)·p_b), or ŷ_a
// with hard. probs [N, k] are the model's predictions on x. A temperature
// fitted on the model's outputs for the mixed inputs against these labels
// is PseudoCal's.
func PseudoMixup[T tensor.Float](x []T, d int, probs []float64, k, batch int, lambda float64, hard bool, rng *rand.Rand) (mixed []T, labels []int, err error) {
	n := len(probs) / max(k, 1)
	if d < 1 || k < 2 || len(x) != n*d || len(probs) != n*k || batch < 2 || !(lambda > 0 && lambda < 1) {
		return nil, nil, fmt.Errorf("baselines.PseudoMixup: %d inputs of %d features, %d probabilities of %d classes, batch %d, λ %v", len(x), d, len(probs), k, batch, lambda)
	}
	pairs, labels, err := PseudoPairs(probs, k, batch, lambda, hard, rng)
	if err != nil {
		return nil, nil, err
	}
	mixed = make([]T, len(pairs)*d)
	MixPairs(mixed, x, d, pairs, lambda)
	return mixed, labels, nil
}

// PseudoPairs is PseudoMixup's choice of pairs (a, b) and their labels,
// without the mixed inputs: MixPairs makes them, all at once or a block
// of pairs at a time.
func PseudoPairs(probs []float64, k, batch int, lambda float64, hard bool, rng *rand.Rand) (pairs [][2]int, labels []int, err error) {
	n := len(probs) / max(k, 1)
	if k < 2 || len(probs) != n*k || batch < 2 || !(lambda > 0 && lambda < 1) {
		return nil, nil, fmt.Errorf("baselines.PseudoPairs: %d probabilities of %d classes, batch %d, λ %v", len(probs), k, batch, lambda)
	}
	mix := make([]float64, k)
	perm := rng.Perm(n)
	for lo := 0; lo < n; lo += batch {
		idx := perm[lo:min(lo+batch, n)]
		partner := rng.Perm(len(idx))
		for i, a := range idx {
			b := idx[partner[i]]
			pa, pb := probs[a*k:(a+1)*k], probs[b*k:(b+1)*k]
			ya := metrics.Argmax(pa)
			if ya == metrics.Argmax(pb) {
				continue
			}
			pairs = append(pairs, [2]int{a, b})
			y := ya
			if !hard {
				for j := range mix {
					mix[j] = lambda*pa[j] + (1-lambda)*pb[j]
				}
				y = metrics.Argmax(mix)
			}
			labels = append(labels, y)
		}
	}
	return pairs, labels, nil
}

// MixPairs writes λ·x_a + (1−λ)·x_b for each pair (a, b) into the rows of
// dst (len(pairs) × d), x row-major with d columns.
func MixPairs[T tensor.Float](dst, x []T, d int, pairs [][2]int, lambda float64) {
	for p, ab := range pairs {
		xa, xb, out := x[ab[0]*d:(ab[0]+1)*d], x[ab[1]*d:(ab[1]+1)*d], dst[p*d:(p+1)*d]
		for j := range out {
			out[j] = T(lambda)*xa[j] + T(1-lambda)*xb[j]
		}
	}
}
