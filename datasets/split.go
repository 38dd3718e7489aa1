package datasets

import (
	"fmt"
	"slices"

	"github.com/ecl-go/ecl/tensor"
)

// Split is a labelled sample of one domain: inputs X [N, …], row i being
// sample i (two features in the simulation, a 3×28×28 image or a feature
// vector in the digits), and their classes Y, N of them. Name says where
// it comes from ("normal source", "usps test") for messages. A split whose
// labels training must not use (a target's unlabelled sample) still
// carries them, for scoring and the oracle baselines.
type Split[T tensor.Float] struct {
	Name string
	X    *tensor.Tensor[T]
	Y    []int
}

// Len is the number of samples.
func (s Split[T]) Len() int { return len(s.Y) }

// Rows is the split of the samples idx, in that order, under the same name.
func (s Split[T]) Rows(idx []int) Split[T] {
	y := make([]int, len(idx))
	for i, j := range idx {
		y[i] = s.Y[j]
	}
	return Split[T]{s.Name, tensor.IndexSelect(s.X, 0, idx), y}
}

// To is the split with its inputs on dev (s itself when they are there).
func (s Split[T]) To(dev tensor.Device[T]) Split[T] {
	s.X = tensor.To(s.X, dev)
	return s
}

// Concat is the samples of parts, one after another, named name.
func Concat[T tensor.Float](name string, parts ...Split[T]) Split[T] {
	xs := make([]*tensor.Tensor[T], len(parts))
	ys := make([][]int, len(parts))
	for i, p := range parts {
		xs[i], ys[i] = p.X, p.Y
	}
	return Split[T]{name, tensor.Concat(0, xs...), slices.Concat(ys...)}
}

// Check returns a *SplitError when s's inputs and labels disagree: no
// inputs, a number of rows other than the number of labels, or a negative
// label.
func (s Split[T]) Check() error {
	if s.X == nil || len(s.X.Shape()) == 0 {
		return &SplitError{s.Name, "no input rows"}
	}
	if n := s.X.Dim(0); n != len(s.Y) {
		return &SplitError{s.Name, fmt.Sprintf("inputs %v for %d labels", s.X.Shape(), len(s.Y))}
	}
	for i, y := range s.Y {
		if y < 0 {
			return &SplitError{s.Name, fmt.Sprintf("label %d of sample %d", y, i)}
		}
	}
	return nil
}

// SplitError is a split whose inputs and labels disagree (Check).
type SplitError struct {
	Split, Problem string
}

func (e *SplitError) Error() string {
	return fmt.Sprintf("datasets: split %q: %s", e.Split, e.Problem)
}
