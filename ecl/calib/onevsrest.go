package calib

import (
	"fmt"

	"github.com/ecl-go/ecl/tensor"
)

// oneVsRest applies per-class maps to the probabilities of logits [n, k]:
// with two classes maps[0] maps P(class 1) and class 0 gets the rest; with
// more, maps[c] maps each P(class c) and the row is renormalised (a row
// every map sends to 0 keeps its uncalibrated probabilities).
func oneVsRest(fn string, logits []float64, k int, maps []func(float64) float64) ([]float64, error) {
	if _, err := checkScores(fn, logits, k, nil); err != nil {
		return nil, err
	}
	if want := fittedClasses(k); len(maps) != want {
		return nil, fmt.Errorf("calib.%s: %d fitted classes for %d classes, want %d", fn, len(maps), k, want)
	}
	p := Softmax(logits, k)
	out := make([]float64, len(p))
	tensor.ParallelFor(len(p)/k, 20*k, func(lo, hi int) {
		for i := lo * k; i < hi*k; i += k {
			if k == 2 {
				q := min(max(maps[0](p[i+1]), 0), 1)
				out[i], out[i+1] = 1-q, q
				continue
			}
			s := 0.0
			for c := range k {
				out[i+c] = max(maps[c](p[i+c]), 0)
				s += out[i+c]
			}
			if s == 0 {
				copy(out[i:i+k], p[i:i+k])
				continue
			}
			for c := range k {
				out[i+c] /= s
			}
		}
	})
	return out, nil
}

// fittedClasses is the number of one-vs-rest maps: one (class 1) for two
// classes, else k.
func fittedClasses(k int) int {
	if k == 2 {
		return 1
	}
	return k
}

// perClass returns, for each fitted class c (class 1 alone for k = 2), the
// probabilities P(class c) of every row (the softmax's columns, one
// transposed copy), and a function that makes the 0/1 indicators y = c
// of a fitted class, for the caller to make one class's at a time.
func perClass(logits []float64, k int, labels []int) (scores [][]float64, outcomes func(c int) []float64) {
	n := len(labels)
	cols := tensor.HostData(tensor.Contiguous(tensor.Transpose(tensor.Wrap(Softmax(logits, k), n, k), 0, 1)))
	class := func(c int) int {
		if k == 2 {
			return 1
		}
		return c
	}
	for c := range fittedClasses(k) {
		scores = append(scores, cols[class(c)*n:(class(c)+1)*n:(class(c)+1)*n])
	}
	return scores, func(c int) []float64 {
		o := make([]float64, n)
		for i, y := range labels {
			if y == class(c) {
				o[i] = 1
			}
		}
		return o
	}
}
