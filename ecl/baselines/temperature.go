package baselines

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/ecl/predict"
	"github.com/ecl-go/ecl/internal/root"
	"github.com/ecl-go/ecl/tensor"
)

// Objective selects what a temperature minimises.
type Objective int

const (
	// NLL is the (weighted) mean negative log-likelihood: temperature
	// scaling.
	NLL Objective = iota
	// Brier is the (weighted) mean Brier score: the CPCS form of weighted
	// temperature scaling.
	Brier
)

// FitTemperature returns the T > 0 minimising the weighted mean objective of
// softmax(logits/T) against labels: the root of its derivative in s = ln T,
// T within e^±20. For the NLL, Newton's method on s from T = 1.5 (its
// second derivative comes from the same pass over the scores, as the
// variance of the logits under the scaled softmax), each step at most 1 in
// s; for the Brier score, bracketed from T = 1.5 and found by regula falsi
// (internal/root). logits is
// row-major [N, k]; weights (nil for all 1) are per sample and non-negative.
func FitTemperature(logits []float64, k int, labels []int, weights []float64, obj Objective) (float64, error) {
	n := len(labels)
	if k < 2 || len(logits) != n*k || n == 0 || (weights != nil && len(weights) != n) {
		return 0, fmt.Errorf("baselines.FitTemperature: %d logits, %d labels, %d weights for %d classes", len(logits), n, len(weights), k)
	}
	for i, y := range labels {
		if y < 0 || y >= k {
			return 0, fmt.Errorf("baselines.FitTemperature: label %d at %d out of [0, %d)", y, i, k)
		}
		if weights != nil && !(weights[i] >= 0) {
			return 0, fmt.Errorf("baselines.FitTemperature: weight %v at %d", weights[i], i)
		}
	}
	// Rows in fixed blocks over the cores (one block below 2¹⁶ scores), the
	// blocks' sums added in order: the value does not depend on the cores.
	blocks := 1
	if n*k >= 1<<16 {
		blocks = min(n, 64)
	}
	rows := (n + blocks - 1) / blocks
	blocks = (n + rows - 1) / rows
	part := make([]float64, 4*blocks)
	eval := func(s float64) (f, df, d2 float64) {
		t := math.Exp(s)
		tensor.ParallelFor(blocks, rows*k*8, func(lo, hi int) {
			p := make([]float64, k)
			for blk := lo; blk < hi; blk++ {
				var f, df, vz, wsum float64
				for i := blk * rows; i < min((blk+1)*rows, n); i++ {
					y := labels[i]
					w := 1.0
					if weights != nil {
						w = weights[i]
					}
					z := logits[i*k : (i+1)*k]
					predict.SoftmaxScaled(p, z, t)
					// d p_j / d s = p_j·(z̄ − z_j)/T with z̄ = Σ p z: the
					// derivative of softmax(z·e^{−s}).
					zbar := 0.0
					for j := range p {
						zbar += p[j] * z[j]
					}
					switch obj {
					case NLL:
						f += -w * math.Log(max(p[y], 1e-300))
						df += -w * (zbar - z[y]) / t
						v := 0.0
						for j := range p {
							v += p[j] * (z[j] - zbar) * (z[j] - zbar)
						}
						vz += w * v
					case Brier:
						for j := range p {
							d := p[j]
							if j == y {
								d--
							}
							f += w * d * d
							df += w * 2 * d * p[j] * (zbar - z[j]) / t
						}
					}
					wsum += w
				}
				part[4*blk], part[4*blk+1], part[4*blk+2], part[4*blk+3] = f, df, vz, wsum
			}
		})
		wsum := 0.0
		for blk := range blocks {
			f += part[4*blk]
			df += part[4*blk+1]
			d2 += part[4*blk+2]
			wsum += part[4*blk+3]
		}
		if wsum == 0 {
			return 0, 0, 0
		}
		// d²/ds² of the NLL: −df/ds + Var_p(z)/T² (0 for the Brier score).
		return f / wsum, df / wsum, -df/wsum + d2/(wsum*t*t)
	}
	if obj == NLL {
		return math.Exp(newton(func(s float64) (float64, float64) { _, df, d2 := eval(s); return df, d2 }, math.Log(1.5), limit)), nil
	}
	// The objective's derivative in s rises through 0 at the minimum (for
	// the NLL, convex in 1/T, at its only stationary point): bracket it
	// from T = 1.5 outwards, then find its root.
	slope := func(s float64) float64 { _, df, _ := eval(s); return df }
	lo, hi := math.Log(1.5), math.Log(1.5)
	if slope(lo) < 0 {
		for step := 0.5; slope(hi) < 0; step *= 2 {
			if lo = hi; hi >= limit {
				return math.Exp(limit), nil
			}
			hi = min(hi+step, limit)
		}
	} else {
		for step := 0.5; slope(lo) >= 0; step *= 2 {
			if hi = lo; lo <= -limit {
				return math.Exp(-limit), nil
			}
			lo = max(lo-step, -limit)
		}
	}
	return math.Exp(root.Increasing(slope, 0, lo, hi)), nil
}

// limit bounds |ln T|.
const limit = 20

// newton returns the root in [−lim, lim] of the increasing df (which
// returns its derivative beside it), from s: Newton's steps of at most 1,
// within the bracket the signs seen so far give (halved where a step
// leaves it; a step of 1 where the derivative is not positive), until a
// step is below 1e-10 in s; ±lim when df keeps its sign to there (a zero
// counts as positive: where the scores round to one-hot, df is 0 down to
// −lim).
func newton(df func(float64) (float64, float64), s, lim float64) float64 {
	lo, hi := -lim-1, lim+1 // open until evaluated
	for range 100 {
		g, d := df(s)
		if g < 0 {
			lo = s
		} else {
			hi = s
		}
		var next float64
		switch {
		case s >= lim && g < 0:
			return lim
		case s <= -lim && g >= 0:
			return -lim
		case d > 0:
			next = s - max(-1, min(1, g/d))
		case g < 0:
			next = s + 1
		default:
			next = s - 1
		}
		if next = max(-lim, min(lim, next)); next <= lo || next >= hi {
			next = (lo + hi) / 2
		}
		if math.Abs(next-s) <= 1e-10*max(1, math.Abs(s)) {
			return next
		}
		s = next
	}
	return s
}

// Scale returns softmax(logits/T) row by row, over the cores.
func Scale(logits []float64, k int, t float64) []float64 {
	out := make([]float64, len(logits))
	tensor.ParallelFor(len(logits)/k, 8*k, func(lo, hi int) {
		for i := lo * k; i < hi*k; i += k {
			predict.SoftmaxScaled(out[i:i+k], logits[i:i+k], t)
		}
	})
	return out
}
