package nn

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// NLL is the mean over the batch of −logp[i, labels[i]] for log-probabilities
// logp [N, K].
func NLL[T tensor.Float](logp *autograd.Var[T], labels []int) *autograd.Var[T] {
	shape := logp.Shape()
	if len(shape) != 2 || shape[0] != len(labels) {
		panic(&tensor.ShapeError{Op: "nn.NLL", Shapes: [][]int{shape}, Detail: fmt.Sprintf("log-probabilities %v for %d labels; want [N, K] and N labels", shape, len(labels))})
	}
	picked := autograd.Gather(logp, 1, labels, len(labels), 1)
	return autograd.Neg(autograd.MeanAll(picked))
}

// CrossEntropy is the mean cross-entropy of logits [N, K] against labels,
// computed stably as NLL(LogSoftmax(logits)).
func CrossEntropy[T tensor.Float](logits *autograd.Var[T], labels []int) *autograd.Var[T] {
	return NLL(autograd.LogSoftmax(logits, 1), labels)
}

// WeightedCrossEntropy is Σ_i w_i·CE_i / Σ_i w_i, the cross-entropy of
// logits [N, K] against labels with each row weighted by w (importance
// weights, say); weights must be non-negative with a positive sum.
func WeightedCrossEntropy[T tensor.Float](logits *autograd.Var[T], labels []int, w []float64) *autograd.Var[T] {
	shape := logits.Shape()
	sum := WeightSum(w)
	if len(shape) != 2 || shape[0] != len(labels) || len(w) != len(labels) || !(sum > 0) {
		panic(&tensor.ShapeError{Op: "nn.WeightedCrossEntropy", Shapes: [][]int{shape}, Detail: fmt.Sprintf("logits %v for %d labels and %d weights summing to %v; want [N, K], N labels and N non-negative weights with a positive sum", shape, len(labels), len(w), sum)})
	}
	scaled := make([]T, len(w))
	for i, v := range w {
		scaled[i] = T(-v / sum)
	}
	picked := autograd.Gather(autograd.LogSoftmax(logits, 1), 1, labels, len(labels), 1)
	return autograd.SumAll(autograd.Mul(picked, autograd.Const(tensor.FromSliceOn(logits.Value.Device(), scaled, len(w), 1))))
}

// WeightSum is the sum of the sample weights w, NaN when one of them is
// negative or NaN: a check that it is positive rejects such weights.
func WeightSum(w []float64) float64 {
	sum := 0.0
	for _, v := range w {
		if !(v >= 0) {
			return math.NaN()
		}
		sum += v
	}
	return sum
}

// Predict runs m in evaluation mode without recording a graph and returns its
// output; m is left in training mode.
func Predict[T tensor.Float](m Module[T], x *tensor.Tensor[T]) *tensor.Tensor[T] {
	m.SetTraining(false)
	defer m.SetTraining(true)
	var out *tensor.Tensor[T]
	autograd.NoGrad(func() { out = m.Forward(autograd.Const(x)).Value })
	return out
}
