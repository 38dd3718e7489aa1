package nn

import (
	"fmt"

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

// Predict runs m in evaluation mode without recording a graph and returns its
// output; m is left in training mode.
func Predict[T tensor.Float](m Module[T], x *tensor.Tensor[T]) *tensor.Tensor[T] {
	m.SetTraining(false)
	defer m.SetTraining(true)
	var out *tensor.Tensor[T]
	autograd.NoGrad(func() { out = m.Forward(autograd.Const(x)).Value })
	return out
}
