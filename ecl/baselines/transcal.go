package baselines

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/ecl/predict"
	"github.com/ecl-go/ecl/tensor"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat"
)

// transCalBlock is the number of target rows whose confidences TransCal
// adds into one partial sum.
const transCalBlock = 256

// TransCal is the temperature of Wang et al. (NeurIPS 2020) for target
// logits [M, k]: it matches the target's mean confidence under T to an
// estimate of the target accuracy from the held-out source. On the source
// validation set, err are the 0/1 errors and srcConf the mean confidence
// after source temperature scaling, and w the importance weights. With
// w̃ = w^λ, the importance-weighted risk mean(w̃·err) is corrected by two
// control variates, η₁ = −Cov(w̃·err, w̃)/Var(w̃) on the weights (mean 1) and
// η₂ = −Cov(w̃·err + η₁(w̃ − 1), 1 − err)/Var(1 − err) on the correctness
// (mean srcConf); the estimated accuracy is one minus that risk. T ≥ 1 and
// λ ∈ [0, 1] minimise |mean confidence − estimated accuracy|, found by
// Nelder–Mead from (2, 0.5) on the clamped parameters.
func TransCal(tgtLogits []float64, k int, w, errs []float64, srcConf float64) (float64, error) {
	n := len(w)
	if k < 2 || len(tgtLogits)%k != 0 || len(tgtLogits) == 0 || n < 3 || len(errs) != n {
		return 0, fmt.Errorf("baselines.TransCal: %d target logits of %d classes, %d weights, %d errors", len(tgtLogits), k, n, len(errs))
	}
	return transCalSearch(meanTopConfidence(tgtLogits, k), w, errs, srcConf)
}

// meanTopConfidence returns the mean top-label confidence of the target
// logits [M, k] as a function of T: a row's top probability is
// 1/Σ_j e^((z_j − max z)/T), its maximum found once; the rows are summed
// in parallel blocks, added in block order.
func meanTopConfidence(tgtLogits []float64, k int) func(t float64) float64 {
	rows := len(tgtLogits) / k
	top := make([]float64, rows)
	tensor.ParallelFor(rows, k, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			top[i] = predict.RowMax(tgtLogits[i*k : (i+1)*k])
		}
	})
	blocks := (rows + transCalBlock - 1) / transCalBlock
	part := make([]float64, blocks)
	return func(t float64) float64 {
		tensor.ParallelFor(blocks, transCalBlock*k*4, func(lo, hi int) {
			p := make([]float64, k)
			for b := lo; b < hi; b++ {
				s := 0.0
				for i := b * transCalBlock; i < min((b+1)*transCalBlock, rows); i++ {
					s += 1 / tensor.ExpScaled64(p, tgtLogits[i*k:(i+1)*k], top[i], t)
				}
				part[b] = s
			}
		})
		s := 0.0
		for _, v := range part {
			s += v
		}
		return s / float64(rows)
	}
}

// transCalSearch is TransCal's Nelder–Mead search given the target's mean
// confidence as a function of T.
func transCalSearch(confidence func(t float64) float64, w, errs []float64, srcConf float64) (float64, error) {
	n := len(w)
	clampT := func(t float64) float64 { return max(t, 1) }
	clampL := func(l float64) float64 { return min(max(l, 0), 1) }
	correct := make([]float64, n)
	for i, e := range errs {
		correct[i] = 1 - e
	}
	wt, we, cv := make([]float64, n), make([]float64, n), make([]float64, n)
	accuracy := func(lambda float64) float64 {
		for i := range w {
			wt[i] = math.Pow(w[i], lambda)
			we[i] = wt[i] * errs[i]
		}
		eta1 := 0.0
		if v := stat.Variance(wt, nil); v > 0 {
			eta1 = -stat.Covariance(we, wt, nil) / v
		}
		for i := range cv {
			cv[i] = we[i] + eta1*(wt[i]-1)
		}
		eta2 := 0.0
		if v := stat.Variance(correct, nil); v > 0 {
			eta2 = -stat.Covariance(cv, correct, nil) / v
		}
		risk := stat.Mean(we, nil) + eta1*(stat.Mean(wt, nil)-1) + eta2*(stat.Mean(correct, nil)-srcConf)
		return 1 - risk
	}
	// Most of the search's points lie past a clamp (411 of 426 had T < 1
	// on bench/calibdata's 10⁴ × 100 logits): each value is computed once.
	conf, acc := memo(confidence), memo(accuracy)
	prob := optimize.Problem{Func: func(x []float64) float64 {
		return math.Abs(conf(clampT(x[0])) - acc(clampL(x[1])))
	}}
	res, err := optimize.Minimize(prob, []float64{2, 0.5}, nil, &optimize.NelderMead{})
	if err != nil && res == nil {
		return 0, fmt.Errorf("baselines.TransCal: %w", err)
	}
	return clampT(res.X[0]), nil
}

// memo is f computing each argument's value once.
func memo(f func(float64) float64) func(float64) float64 {
	seen := map[float64]float64{}
	return func(x float64) float64 {
		v, ok := seen[x]
		if !ok {
			v = f(x)
			seen[x] = v
		}
		return v
	}
}
