package metrics

import (
	"fmt"
	"math"
)

// validate checks row-major probabilities with k columns and labels in
// [0, classes) and returns the number of samples n ≥ 1.
func validate(fn string, probs []float64, k int, labels []int, classes int) (int, error) {
	n, err := validateProbs(fn, probs, k)
	if err != nil {
		return 0, err
	}
	if len(labels) != n {
		return 0, fmt.Errorf("metrics.%s: %d labels for %d samples", fn, len(labels), n)
	}
	for i, y := range labels {
		if y < 0 || y >= classes {
			return 0, fmt.Errorf("metrics.%s: labels[%d] = %d is outside [0, %d)", fn, i, y, classes)
		}
	}
	return n, nil
}

// validateProbs checks row-major probabilities with k columns and returns the
// number of samples n ≥ 1.
func validateProbs(fn string, probs []float64, k int) (int, error) {
	if k < 1 {
		return 0, fmt.Errorf("metrics.%s: %d classes, need at least 1", fn, k)
	}
	if len(probs)%k != 0 {
		return 0, fmt.Errorf("metrics.%s: len(probs) = %d is not a multiple of k = %d", fn, len(probs), k)
	}
	n := len(probs) / k
	if n == 0 {
		return 0, fmt.Errorf("metrics.%s: no samples", fn)
	}
	for i, p := range probs {
		if !(p >= 0 && p <= 1) {
			return 0, fmt.Errorf("metrics.%s: probs[%d] (sample %d, class %d) = %v is not a probability in [0, 1]", fn, i, i/k, i%k, p)
		}
	}
	return n, nil
}

// Argmax returns the first index of the largest entry.
func Argmax(row []float64) int {
	best := 0
	for c, v := range row {
		if v > row[best] {
			best = c
		}
	}
	return best
}

// TopLabel returns the top confidence max_k S and the correctness 1[Ŷ = y]
// of every sample of probs [N, k].
func TopLabel(probs []float64, k int, labels []int) (conf, correct []float64) {
	n := len(labels)
	conf, correct = make([]float64, n), make([]float64, n)
	for i := range n {
		row := probs[i*k : (i+1)*k]
		pred := Argmax(row)
		conf[i] = row[pred]
		if pred == labels[i] {
			correct[i] = 1
		}
	}
	return conf, correct
}

// column is one class's probabilities and the indicators 1[y = c].
type column struct{ p, is []float64 }

// columns returns the columns c0 to c1−1 of probs, read in one pass.
func columns(probs []float64, k int, labels []int, c0, c1 int) []column {
	n := len(labels)
	cols := make([]column, c1-c0)
	for c := range cols {
		cols[c] = column{make([]float64, n), make([]float64, n)}
	}
	for i, y := range labels {
		for c, v := range probs[i*k+c0 : i*k+c1] {
			cols[c].p[i] = v
		}
		if y >= c0 && y < c1 {
			cols[y-c0].is[i] = 1
		}
	}
	return cols
}

// aggregator combines per-bin gaps into one error: Σ w|gap| (L1),
// sqrt(Σ w·gap²) (L2) or max |gap| (Max), with w = count/n.
type aggregator struct {
	norm     Norm
	n        float64
	sum, top float64
}

func (a *aggregator) add(count int, gap float64) {
	w := float64(count) / a.n
	switch a.norm {
	case L1:
		a.sum += w * math.Abs(gap)
	case L2:
		a.sum += w * gap * gap
	case Max:
		a.top = max(a.top, math.Abs(gap))
	}
}

func (a *aggregator) value() float64 {
	switch a.norm {
	case L2:
		return math.Sqrt(a.sum)
	case Max:
		return a.top
	}
	return a.sum
}
