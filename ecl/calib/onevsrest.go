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
	out := Softmax(logits, k) // mapped in place, a row at a time
	tensor.ParallelFor(len(out)/k, 20*k, func(lo, hi int) {
		p := make([]float64, k) // the row's probabilities
		for i := lo * k; i < hi*k; i += k {
			copy(p, out[i:i+k])
			if k == 2 {
				q := min(max(maps[0](p[1]), 0), 1)
				out[i], out[i+1] = 1-q, q
				continue
			}
			s := 0.0
			for c := range k {
				out[i+c] = max(maps[c](p[c]), 0)
				s += out[i+c]
			}
			if s == 0 {
				copy(out[i:i+k], p)
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

// perClassBlock is the number of classes whose scores perClass holds at
// once: 128 columns of 5·10⁴ rows are 51 MB.
const perClassBlock = 128

// perClass calls fit(c, scores, own) for each fitted class c (class 1
// alone, as c = 0, for k = 2) with scores the probabilities P(class c) of
// every row of logits [n, k] and own those of the rows labelled with its
// class, the only ones whose outcome is 1, in row order; fit may reorder
// both. It holds the columns of perClassBlock classes at a time, not n×k:
// for each block of classes it computes the rows' softmax again, tiles of
// rows over the cores, writes the block's columns, and fits them over the
// cores, cost the work of one fit.
func perClass(logits []float64, k int, labels []int, cost int, fit func(c int, scores, own []float64)) {
	n, classes, first := len(logits)/k, fittedClasses(k), 0
	if k == 2 {
		first = 1
	}
	width := min(perClassBlock, classes)
	cols := make([]float64, width*n)
	tiles := (n + perClassTile - 1) / perClassTile
	for c0 := 0; c0 < classes; c0 += width {
		c1 := min(c0+width, classes)
		tensor.ParallelFor(tiles, perClassTile*k*24, func(lo, hi int) {
			buf := make([]float64, perClassTile*k)
			for t := lo; t < hi; t++ {
				i0, i1 := t*perClassTile, min((t+1)*perClassTile, n)
				for i := i0; i < i1; i++ {
					softmaxRow(buf[(i-i0)*k:(i-i0+1)*k], logits[i*k:(i+1)*k])
				}
				for c := c0; c < c1; c++ {
					col := cols[(c-c0)*n+i0 : (c-c0)*n+i1]
					for i := range col {
						col[i] = buf[i*k+first+c]
					}
				}
			}
		})
		own := make([][]float64, c1-c0)
		for i, y := range labels {
			if c := y - first; c >= c0 && c < c1 {
				own[c-c0] = append(own[c-c0], cols[(c-c0)*n+i])
			}
		}
		tensor.ParallelFor(c1-c0, cost, func(lo, hi int) {
			for j := lo; j < hi; j++ {
				fit(c0+j, cols[j*n:(j+1)*n:(j+1)*n], own[j])
			}
		})
	}
}
