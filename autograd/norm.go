package autograd

import "github.com/ecl-go/ecl/tensor"

var opBatchNorm = def("batchnorm")

// BatchNorm normalises each channel of x [N, C, …] with the batch's mean
// and biased variance and applies the per-channel scale gamma and shift
// beta [C] (tensor.BatchNorm). When mean and variance are not nil, the
// batch statistics are copied into them ([C]), for running estimates.
func BatchNorm[T tensor.Float](x, gamma, beta *Var[T], eps T, mean, variance *tensor.Tensor[T]) *Var[T] {
	y, mu, va := tensor.BatchNorm(x.Value, gamma.Value, beta.Value, eps)
	for _, c := range [][2]*tensor.Tensor[T]{{mean, mu}, {variance, va}} {
		if c[0] != nil {
			tensor.CopyInto(c[0], c[1])
		}
	}
	return record(opBatchNorm, y, func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		dx, dgamma, dbeta := tensor.BatchNormBackward(g, x.Value, gamma.Value, mu, va, eps)
		return []*tensor.Tensor[T]{dx, dgamma, dbeta}
	}, x, gamma, beta)
}
