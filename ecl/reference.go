package ecl

import (
	"math"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Input says what the main head hands the ECL estimators.
type Input int

const (
	// InputProbs are probabilities [N, K], used as they are.
	InputProbs Input = iota
	// InputLogits are logits [N, K], softmaxed along the classes.
	InputLogits
	// InputDetect is the reference code's input check: the batch is used as
	// it is when every row is a probability vector (entries in [0, 1] and
	// row sums at 1, both within 1e-6), and softmaxed otherwise. It reads
	// the whole batch on the host.
	InputDetect
)

// Probabilities turns the main head's outputs x [N, K] into probabilities
// as in says.
func Probabilities[T tensor.Float](in Input, x *autograd.Var[T]) *autograd.Var[T] {
	shape := x.Shape()
	if len(shape) != 2 {
		panic(shapeError("ecl.Probabilities", [][]int{shape}, "input of shape %v, want [N, K]", shape))
	}
	switch in {
	case InputProbs:
		return x
	case InputLogits:
		return autograd.Softmax(x, 1)
	}
	d, k := x.Value.Data(), shape[1]
	for i := 0; i < shape[0]; i++ {
		s := 0.0
		for _, v := range d[i*k : (i+1)*k] {
			if v < -1e-6 || v > 1+1e-6 {
				return autograd.Softmax(x, 1)
			}
			s += float64(v)
		}
		if math.Abs(s-1) > 1e-6 {
			return autograd.Softmax(x, 1)
		}
	}
	return x
}

// CorrectnessProb turns top-label auxiliary logits into P(correct) [N]: the
// softmax's column 1 for a 2-output head, the sigmoid for a 1-output head.
func CorrectnessProb[T tensor.Float](aux *autograd.Var[T]) *autograd.Var[T] {
	shape := aux.Shape()
	switch {
	case len(shape) == 2 && shape[1] == 2:
		return autograd.Reshape(autograd.Narrow(autograd.Softmax(aux, 1), 1, 1, 1), shape[0])
	case len(shape) == 2 && shape[1] == 1:
		return autograd.Reshape(autograd.Sigmoid(aux), shape[0])
	case len(shape) == 1:
		return autograd.Sigmoid(aux)
	}
	panic(shapeError("ecl.CorrectnessProb", [][]int{shape}, "auxiliary output of shape %v, want [N, 2] or [N, 1]", shape))
}
