package calib

import "fmt"

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
	for i := 0; i < len(p); i += k {
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
// probabilities P(class c) of every row and the 0/1 indicators y = c.
func perClass(logits []float64, k int, labels []int) (scores, outcomes [][]float64) {
	p := Softmax(logits, k)
	n := len(labels)
	for c := range fittedClasses(k) {
		cls := c
		if k == 2 {
			cls = 1
		}
		s, o := make([]float64, n), make([]float64, n)
		for i, y := range labels {
			s[i] = p[i*k+cls]
			if y == cls {
				o[i] = 1
			}
		}
		scores, outcomes = append(scores, s), append(outcomes, o)
	}
	return scores, outcomes
}
