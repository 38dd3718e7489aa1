package baselines

import (
	"fmt"
	"math"

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
// bracketed from T = 1.5 and found by regula falsi (internal/root), T
// within e^±20. logits is
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
	part := make([]float64, 3*blocks)
	eval := func(s float64) (f, df float64) {
		t := math.Exp(s)
		tensor.ParallelFor(blocks, rows*k*8, func(lo, hi int) {
			p := make([]float64, k)
			for blk := lo; blk < hi; blk++ {
				var f, df, wsum float64
				for i := blk * rows; i < min((blk+1)*rows, n); i++ {
					y := labels[i]
					w := 1.0
					if weights != nil {
						w = weights[i]
					}
					z := logits[i*k : (i+1)*k]
					softmaxScaled(p, z, t)
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
				part[3*blk], part[3*blk+1], part[3*blk+2] = f, df, wsum
			}
		})
		wsum := 0.0
		for blk := range blocks {
			f += part[3*blk]
			df += part[3*blk+1]
			wsum += part[3*blk+2]
		}
		if wsum == 0 {
			return 0, 0
		}
		return f / wsum, df / wsum
	}
	// The objective's derivative in s rises through 0 at the minimum (for
	// the NLL, convex in 1/T, at its only stationary point): bracket it
	// from T = 1.5 outwards, then find its root.
	slope := func(s float64) float64 { _, df := eval(s); return df }
	const limit = 20 // T within e^±20
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

// softmaxScaled sets p = softmax(z/t), computed stably.
func softmaxScaled(p, z []float64, t float64) {
	m := math.Inf(-1)
	for _, v := range z {
		m = max(m, v)
	}
	s := 0.0
	for j, v := range z {
		p[j] = math.Exp((v - m) / t)
		s += p[j]
	}
	for j := range p {
		p[j] /= s
	}
}

// Scale returns softmax(logits/T) row by row, over the cores.
func Scale(logits []float64, k int, t float64) []float64 {
	out := make([]float64, len(logits))
	tensor.ParallelFor(len(logits)/k, 8*k, func(lo, hi int) {
		for i := lo * k; i < hi*k; i += k {
			softmaxScaled(out[i:i+k], logits[i:i+k], t)
		}
	})
	return out
}
