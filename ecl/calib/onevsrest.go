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

// perClassTile is the number of rows whose softmax perClass computes in a
// buffer before writing it out by class.
const perClassTile = 32

// perClass returns, for each fitted class c (class 1 alone for k = 2), the
// probabilities P(class c) of every row: the softmax's columns, which it
// writes straight into one array of classes × rows that the caller owns,
// tiles of rows over the cores.
func perClass(logits []float64, k int) [][]float64 {
	n := len(logits) / k
	cols := make([]float64, n*k)
	tiles := (n + perClassTile - 1) / perClassTile
	tensor.ParallelFor(tiles, perClassTile*k*24, func(lo, hi int) {
		buf := make([]float64, perClassTile*k)
		for t := lo; t < hi; t++ {
			i0, i1 := t*perClassTile, min((t+1)*perClassTile, n)
			for i := i0; i < i1; i++ {
				softmaxRow(buf[(i-i0)*k:(i-i0+1)*k], logits[i*k:(i+1)*k])
			}
			for c := range k {
				col := cols[c*n+i0 : c*n+i1]
				for i := range col {
					col[i] = buf[i*k+c]
				}
			}
		}
	})
	scores := make([][]float64, fittedClasses(k))
	for c := range scores {
		class := c
		if k == 2 {
			class = 1
		}
		scores[c] = cols[class*n : (class+1)*n : (class+1)*n]
	}
	return scores
}

// ownScores returns, for each fitted class c, the scores[c] of the samples
// labelled with its class: the only ones whose outcome is 1.
func ownScores(scores [][]float64, k int, labels []int) [][]float64 {
	own := make([][]float64, len(scores))
	for i, y := range labels {
		c := y
		if k == 2 {
			if y != 1 {
				continue
			}
			c = 0
		}
		own[c] = append(own[c], scores[c][i])
	}
	return own
}
