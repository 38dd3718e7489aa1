package autograd

import "github.com/ecl-go/ecl/tensor"

// DenseUnit is one layer of a dense block (tensor.DenseUnit) with
// differentiable parameters.
type DenseUnit[T tensor.Float] struct {
	Gamma, Beta, W *Var[T]
	Pool           bool
}

// DenseBlock runs the layers units on x [N, C, H, W] in one feature buffer,
// recomputing each layer's batch normalisation and ReLU in the backward
// pass (tensor.DenseBlock, CPU only). stats, if not nil, receives each
// unit's batch mean and biased variance.
func DenseBlock[T tensor.Float](x *Var[T], units []DenseUnit[T], eps T, stats func(i int, mean, variance *tensor.Tensor[T])) *Var[T] {
	tu := make([]tensor.DenseUnit[T], len(units))
	inputs := []*Var[T]{x}
	for i, u := range units {
		tu[i] = tensor.DenseUnit[T]{Gamma: u.Gamma.Value, Beta: u.Beta.Value, W: u.W.Value, Pool: u.Pool}
		inputs = append(inputs, u.Gamma, u.Beta, u.W)
	}
	y, st := tensor.DenseBlock(x.Value, tu, eps)
	if stats != nil {
		for i := range units {
			m, v := st.Stats(i)
			stats(i, m, v)
		}
	}
	return record(opDenseBlock, y, gradDenseBlock(st), inputs...)
}
