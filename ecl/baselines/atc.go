package baselines

import (
	"fmt"
	"math"
	"slices"

	"github.com/ecl-go/ecl/ecl/predict"
)

// ATC is average thresholded confidence (Garg et al., "Leveraging
// unlabeled data to predict out-of-distribution performance", ICLR 2022):
// a label-free estimate of a classifier's accuracy on a target. On
// labelled source samples it finds the threshold t above which the
// fraction of scores equals the accuracy there; the estimate is the
// fraction of target scores above t. Scores are any per-sample confidence,
// larger meaning surer (NegEntropy, the paper's better score, or the
// largest probability). srcScores and srcCorrect pair up; with every
// source sample correct t is −∞ and the estimate 1.
func ATC(srcScores []float64, srcCorrect []bool, tgtScores []float64) (acc, threshold float64, err error) {
	n := len(srcScores)
	if n == 0 || len(srcCorrect) != n || len(tgtScores) == 0 {
		return 0, 0, fmt.Errorf("baselines.ATC: %d source scores, %d correctness flags, %d target scores (want as many flags as scores, none empty)", n, len(srcCorrect), len(tgtScores))
	}
	for _, s := range [][]float64{srcScores, tgtScores} {
		if i := slices.IndexFunc(s, math.IsNaN); i >= 0 {
			return 0, 0, fmt.Errorf("baselines.ATC: score %d is NaN", i)
		}
	}
	right := 0
	for _, c := range srcCorrect {
		if c {
			right++
		}
	}
	sorted := slices.Sorted(slices.Values(srcScores))
	threshold = math.Inf(-1)
	if right < n {
		// right of the n scores lie above the (n−right)-th smallest,
		// ties apart.
		threshold = sorted[n-right-1]
	}
	above := 0
	for _, s := range tgtScores {
		if s > threshold {
			above++
		}
	}
	return float64(above) / float64(len(tgtScores)), threshold, nil
}

// NegEntropy is each row's negative entropy Σ p log p of row-major
// probabilities [N, k]: ATC's score.
func NegEntropy(probs []float64, k int) []float64 {
	out := make([]float64, len(probs)/k)
	for i := range out {
		for _, p := range probs[i*k : (i+1)*k] {
			if p > 0 {
				out[i] += p * math.Log(p)
			}
		}
	}
	return out
}

// TemperatureForMean returns the temperature T at which the rows of
// logits [N, k] have the mean largest probability want after
// softmax(logits/T). Each row's largest probability falls as T grows, so
// the answer is unique; it is found between T = 1e-3 and 1e3 (bisection on
// ln T), and it fails when want lies outside the means at those ends.
func TemperatureForMean(logits []float64, k int, want float64) (float64, error) {
	n := len(logits) / max(k, 1)
	if k < 2 || n == 0 || len(logits) != n*k {
		return 0, fmt.Errorf("baselines.TemperatureForMean: %d logits of %d classes", len(logits), k)
	}
	p := make([]float64, k)
	mean := func(s float64) float64 {
		t, sum := math.Exp(s), 0.0
		for i := range n {
			predict.SoftmaxScaled(p, logits[i*k:(i+1)*k], t)
			sum += slices.Max(p)
		}
		return sum / float64(n)
	}
	s, err := bisect(mean, math.Log(1e-3), math.Log(1e3), want)
	if err != nil {
		return 0, fmt.Errorf("baselines.TemperatureForMean: %w (T = 1e-3 to 1e3)", err)
	}
	return math.Exp(s), nil
}

// ShiftForMean returns the shift b at which the probabilities σ(g + b) of
// the logits g have the mean want, in (0, 1): the top-label counterpart of
// TemperatureForMean for a head's logit of being correct. The mean grows
// with b, so the answer is unique.
func ShiftForMean(g []float64, want float64) (float64, error) {
	if len(g) == 0 || !(want > 0 && want < 1) || slices.ContainsFunc(g, func(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }) {
		return 0, fmt.Errorf("baselines.ShiftForMean: mean %v wanted of %d logits (want a mean in (0, 1) of finite logits)", want, len(g))
	}
	mean := func(b float64) float64 {
		sum := 0.0
		for _, v := range g {
			sum += 1 / (1 + math.Exp(-(v + b)))
		}
		return sum / float64(len(g))
	}
	// At the ends every σ lies within σ(−40) ≈ 4e-18 of 0 or 1.
	b, err := bisect(mean, -slices.Max(g)-40, -slices.Min(g)+40, want)
	if err != nil {
		return 0, fmt.Errorf("baselines.ShiftForMean: %w", err)
	}
	return b, nil
}

// bisect returns the x in [lo, hi] at which the monotone f equals want.
func bisect(f func(float64) float64, lo, hi, want float64) (float64, error) {
	flo, fhi := f(lo)-want, f(hi)-want
	if flo*fhi > 0 {
		return 0, fmt.Errorf("mean %.4g wanted, reachable %.4g to %.4g", want, flo+want, fhi+want)
	}
	for range 200 {
		mid := (lo + hi) / 2
		fm := f(mid) - want
		if fm == 0 || hi-lo < 1e-13 {
			return mid, nil
		}
		if (fm > 0) == (flo > 0) {
			lo, flo = mid, fm
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2, nil
}
