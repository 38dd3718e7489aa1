package autograd

import "github.com/ecl-go/ecl/tensor"

// BatchNorm normalises each channel of x [N, C, …] with the batch's mean
// and biased variance and applies the per-channel scale gamma and shift
// beta [C] (tensor.BatchNorm). When mean and variance are not nil, the
// batch statistics are copied into them ([C]), for running estimates.
func BatchNorm[T tensor.Float](x, gamma, beta *Var[T], eps T, mean, variance *tensor.Tensor[T]) *Var[T] {
	y, mu, va := tensor.BatchNorm(x.Value, gamma.Value, beta.Value, eps)
	keepStats(mean, variance, mu, va)
	return record(opBatchNorm, y, gradBatchNorm(mu, va, eps), x, gamma, beta)
}

// BatchNormRelu is Relu(BatchNorm(x, gamma, beta) + r) as one primitive
// (tensor.BatchNormRelu): the batch norm, residual sum and ReLU that end a
// ResNet block, r of x's shape, or nil for none. Its backward pass keeps
// only x and the output. mean and variance, when not nil, receive the batch
// statistics as in BatchNorm.
func BatchNormRelu[T tensor.Float](x, gamma, beta, r *Var[T], eps T, mean, variance *tensor.Tensor[T]) *Var[T] {
	inputs := []*Var[T]{x, gamma, beta}
	var rv *tensor.Tensor[T]
	if r != nil {
		rv = r.Value
		inputs = append(inputs, r)
	}
	y, mu, va := tensor.BatchNormRelu(x.Value, gamma.Value, beta.Value, rv, eps)
	keepStats(mean, variance, mu, va)
	return record(opBatchNormRelu, y, gradBatchNormRelu(mu, va, eps), inputs...)
}

// ChannelAffine is Relu?(x·scale + shift + r) per channel of x [N, C, …]
// (tensor.ChannelAffine), scale and shift [C], r of x's shape or nil for
// none, the ReLU when relu: batch normalisation in evaluation mode, its
// running estimates folded into scale and shift.
func ChannelAffine[T tensor.Float](x, scale, shift, r *Var[T], relu bool) *Var[T] {
	inputs := []*Var[T]{x, scale, shift}
	var rv *tensor.Tensor[T]
	if r != nil {
		rv = r.Value
		inputs = append(inputs, r)
	}
	return record(opChannelAffine, tensor.ChannelAffine(x.Value, scale.Value, shift.Value, rv, relu), gradChannelAffine[T](relu), inputs...)
}

// keepStats copies the batch statistics mu and va into mean and variance
// where these are not nil.
func keepStats[T tensor.Float](mean, variance, mu, va *tensor.Tensor[T]) {
	for _, c := range [][2]*tensor.Tensor[T]{{mean, mu}, {variance, va}} {
		if c[0] != nil {
			tensor.CopyInto(c[0], c[1])
		}
	}
}
