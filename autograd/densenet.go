package autograd

import (
	"slices"

	"github.com/ecl-go/ecl/tensor"
)

// DenseUnit is one layer of a dense block (tensor.DenseUnit) with
// differentiable parameters; Mean and Var, the running statistics of
// evaluation mode, are constants.
type DenseUnit[T tensor.Float] struct {
	Gamma, Beta, W *Var[T]
	Pool           bool
	Bottleneck     *DenseBottleneck[T]
	Mean, Var      *tensor.Tensor[T]
}

// DenseBottleneck is the bottleneck of a dense unit
// (tensor.DenseBottleneck) with differentiable parameters.
type DenseBottleneck[T tensor.Float] struct {
	W, Gamma, Beta *Var[T]
	Mean, Var      *tensor.Tensor[T]
}

// appendParams appends u's parameters to ps in tensor.DenseUnit.Params's
// order.
func (u DenseUnit[T]) appendParams(ps []*Var[T]) []*Var[T] {
	ps = append(ps, u.Gamma, u.Beta)
	if b := u.Bottleneck; b != nil {
		ps = append(ps, b.W, b.Gamma, b.Beta)
	}
	return append(ps, u.W)
}

// DenseBlock runs the layers units on x [N, C, H, W] in one feature buffer,
// recomputing each layer's batch normalisations and ReLUs in the backward
// pass (tensor.DenseBlock). stats, if not nil, receives the batch
// mean and biased variance of each batch normalisation, i counting them in
// order (a bottleneck unit's first, then its bottleneck's).
func DenseBlock[T tensor.Float](x *Var[T], units []DenseUnit[T], eps T, stats func(i int, mean, variance *tensor.Tensor[T])) *Var[T] {
	tu := make([]tensor.DenseUnit[T], len(units))
	inputs := append(make([]*Var[T], 0, 1+6*len(units)), x)
	for i, u := range units {
		tu[i] = tensor.DenseUnit[T]{Gamma: u.Gamma.Value, Beta: u.Beta.Value, W: u.W.Value, Pool: u.Pool, Mean: u.Mean, Var: u.Var}
		if b := u.Bottleneck; b != nil {
			tu[i].Bottleneck = &tensor.DenseBottleneck[T]{W: b.W.Value, Gamma: b.Gamma.Value, Beta: b.Beta.Value, Mean: b.Mean, Var: b.Var}
		}
		inputs = u.appendParams(inputs)
	}
	block := tensor.DenseBlockForward[T] // nothing kept where no gradient will be asked
	if noGrad.Load() == 0 && slices.ContainsFunc(inputs, func(v *Var[T]) bool { return v.requiresGrad }) {
		block = tensor.DenseBlock[T]
	}
	y, st := block(x.Value, tu, eps)
	if stats != nil {
		means, variances := st.Stats()
		for i, m := range means {
			stats(i, m, variances[i])
		}
	}
	return record(opDenseBlock, y, gradDenseBlock(st), inputs...)
}
