package gradcase

import (
	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// cases is the table, by op; Attention's second case spans three of the
// CUDA backend's 32-key tiles.
var cases = []Case{
	{"Add", in(uniform(3, 4), uniform(3, 4)), binary(autograd.Add[float64])},
	{"Add", in(uniform(2, 3, 4), uniform(4)), binary(autograd.Add[float64])},
	{"Add", in(uniform(2, 1, 4), narrowed(3, 1)), binary(autograd.Add[float64])},
	{"Add", in(transposed(3, 4), uniform(3, 1)), binary(autograd.Add[float64])},
	{"Sub", in(uniform(3, 4), uniform(1, 4)), binary(autograd.Sub[float64])},
	{"Sub", in(transposed(4, 3), narrowed(4, 3)), binary(autograd.Sub[float64])},
	{"Mul", in(uniform(3, 4), uniform(3, 4)), binary(autograd.Mul[float64])},
	{"Mul", in(transposed(2, 5), uniform(5)), binary(autograd.Mul[float64])},
	{"Div", in(uniform(3, 4), positive(3, 4)), binary(autograd.Div[float64])},
	{"Div", in(uniform(2, 3), positive(3)), binary(autograd.Div[float64])},
	{"Neg", in(transposed(3, 4)), unary(autograd.Neg[float64])},
	{"Affine", in(uniform(3, 4)), unary(func(x v64) v64 { return autograd.Affine(x, -1.5, 0.25) })},
	{"Scale", in(narrowed(2, 3)), unary(func(x v64) v64 { return autograd.Scale(x, 3) })},
	{"AddScalar", in(uniform(5)), unary(func(x v64) v64 { return autograd.AddScalar(x, 2) })},
	{"Pow", in(positive(3, 4), uniform(3, 4)), binary(autograd.Pow[float64])},
	{"Pow", in(positive(2, 3), uniform(3)), binary(autograd.Pow[float64])},
	{"PowScalar", in(positive(3, 4)), unary(func(x v64) v64 { return autograd.PowScalar(x, 2.5) })},
	{"PowScalar", in(transposed(3, 4)), unary(func(x v64) v64 { return autograd.PowScalar(x, 3) })},
	{"Exp", in(transposed(3, 4)), unary(autograd.Exp[float64])},
	{"Log", in(positive(3, 4)), unary(autograd.Log[float64])},
	{"Sqrt", in(positive(3, 4)), unary(autograd.Sqrt[float64])},
	{"Abs", in(narrowed(3, 4)), unary(autograd.Abs[float64])},
	{"Relu", in(uniform(4, 5)), unary(autograd.Relu[float64])},
	{"Sigmoid", in(transposed(3, 4)), unary(autograd.Sigmoid[float64])},
	{"Tanh", in(uniform(3, 4)), unary(autograd.Tanh[float64])},
	{"Lgamma", in(positive(3, 4)), unary(autograd.Lgamma[float64])},
	{"Lgamma", in(transposed(2, 3)), unary(func(x v64) v64 { return autograd.Lgamma(autograd.AddScalar(autograd.Abs(x), 0.1)) })},
	{"Clamp", in(uniform(4, 5)), unary(func(x v64) v64 { return autograd.Clamp(x, -0.5, 0.5) })},
	{"Sum", in(uniform(3, 4)), unary(func(x v64) v64 { return autograd.Sum(x, 1, false) })},
	{"Sum", in(transposed(2, 3, 4)), unary(func(x v64) v64 { return autograd.Sum(x, 0, true) })},
	{"SumAll", in(narrowed(3, 4)), unary(autograd.SumAll[float64])},
	{"Mean", in(uniform(3, 4)), unary(func(x v64) v64 { return autograd.Mean(x, -1, true) })},
	{"MeanAll", in(transposed(3, 4)), unary(autograd.MeanAll[float64])},
	{"Max", in(uniform(3, 5)), unary(func(x v64) v64 { return autograd.Max(x, 1, false) })},
	{"Max", in(transposed(2, 4, 3)), unary(func(x v64) v64 { return autograd.Max(x, 1, true) })},
	{"Min", in(uniform(4, 3)), unary(func(x v64) v64 { return autograd.Min(x, 0, false) })},
	{"LogSumExp", in(uniform(3, 5)), unary(func(x v64) v64 { return autograd.LogSumExp(x, 1, false) })},
	{"LogSumExp", in(transposed(3, 4)), unary(func(x v64) v64 { return autograd.LogSumExp(x, 0, true) })},
	{"LogSoftmax", in(uniform(3, 5)), unary(func(x v64) v64 { return autograd.LogSoftmax(x, 1) })},
	{"Softmax", in(narrowed(3, 5)), unary(func(x v64) v64 { return autograd.Softmax(x, -1) })},
	{"Softmax", in(uniform(4, 3)), unary(func(x v64) v64 { return autograd.Softmax(x, 0) })},
	{"Reshape", in(transposed(3, 4)), unary(func(x v64) v64 { return autograd.Reshape(x, 2, -1) })},
	{"Squeeze", in(uniform(3, 1, 2)), unary(func(x v64) v64 { return autograd.Squeeze(x, 1) })},
	{"Unsqueeze", in(uniform(3, 2)), unary(func(x v64) v64 { return autograd.Unsqueeze(x, 0) })},
	{"Permute", in(uniform(2, 3, 4)), unary(func(x v64) v64 { return autograd.Permute(x, 2, 0, 1) })},
	{"Transpose", in(narrowed(2, 3)), unary(func(x v64) v64 { return autograd.Transpose(x, 0, 1) })},
	{"Narrow", in(uniform(3, 6)), unary(func(x v64) v64 { return autograd.Narrow(x, 1, 2, 3) })},
	{"Expand", in(uniform(3, 1)), unary(func(x v64) v64 { return autograd.Expand(x, 2, 3, 4) })},
	{"Concat", in(uniform(2, 3), transposed(4, 3), uniform(1, 3)), func(x []v64) v64 { return autograd.Concat(0, x...) }},
	{"Stack", in(uniform(2, 3), narrowed(2, 3)), func(x []v64) v64 { return autograd.Stack(1, x...) }},
	{"Gather", in(uniform(3, 4)), unary(func(x v64) v64 { return autograd.Gather(x, 1, []int{0, 3, 3, 1, 2, 2}, 3, 2) })},
	{"Gather", in(transposed(3, 4)), unary(func(x v64) v64 { return autograd.Gather(x, 0, []int{2, 0, 1, 2, 2, 2, 0, 1}, 2, 4) })},
	{"IndexSelect", in(uniform(4, 3)), unary(func(x v64) v64 { return autograd.IndexSelect(x, 0, []int{3, 1, 3}) })},
	{"Where", in(uniform(3, 4), uniform(4)), binary(func(a, b v64) v64 { return autograd.Where(tensor.To(mask34, a.Value.Device()), a, b) })},
	{"Maximum", in(uniform(3, 4), transposed(3, 4)), binary(autograd.Maximum[float64])},
	{"Minimum", in(uniform(3, 4), uniform(4)), binary(autograd.Minimum[float64])},
	{"MatMul", in(uniform(3, 4), uniform(4, 5)), binary(autograd.MatMul[float64])},
	{"MatMul", in(transposed(3, 4), transposed(4, 2)), binary(autograd.MatMul[float64])},
	{"MatMul", in(uniform(2, 3, 4), uniform(4, 2)), binary(autograd.MatMul[float64])},
	{"MatMul", in(uniform(2, 1, 3, 4), narrowed(3, 4, 2)), binary(autograd.MatMul[float64])},
	{"MatMul", in(uniform(33, 6), transposed(6, 34)), binary(autograd.MatMul[float64])}, // the CUDA backend's tiled kernel
	{"Conv2D", in(uniform(2, 3, 6, 5), uniform(4, 3, 3, 2)), binary(func(x, w v64) v64 {
		return autograd.Conv2D(x, w, tensor.ConvOptions{StrideH: 2, PadH: 1, PadW: 1, DilW: 2})
	})},
	{"Conv2D", in(uniform(1, 2, 4, 4), uniform(3, 2, 1, 1)), binary(func(x, w v64) v64 { return autograd.Conv2D(x, w, tensor.ConvOptions{}) })},
	{"Conv2D", in(uniform(2, 3, 5, 4), uniform(2, 3, 3, 3)), binary(func(x, w v64) v64 { return autograd.Conv2D(x, w, tensor.ConvOptions{PadH: 1, PadW: 1}) })},
	{"Conv2DBias", in(uniform(2, 3, 5, 6), uniform(4, 3, 3, 3), uniform(4)), func(x []v64) v64 {
		return autograd.Conv2DBias(x[0], x[1], x[2], tensor.ConvOptions{PadH: 1, PadW: 2, StrideW: 2})
	}},
	{"Conv2DBias", in(uniform(3, 2, 4, 4), transposed(3, 2), uniform(3)), func(x []v64) v64 {
		return autograd.Conv2DBias(x[0], autograd.Reshape(x[1], 3, 2, 1, 1), x[2], tensor.ConvOptions{})
	}},
	{"MaxPool2D", in(uniform(2, 2, 5, 6)), unary(func(x v64) v64 { return autograd.MaxPool2D(x, 2, 2, tensor.ConvOptions{StrideH: 2, StrideW: 2}) })},
	{"MaxPool2D", in(uniform(1, 2, 5, 5)), unary(func(x v64) v64 {
		return autograd.MaxPool2D(x, 3, 3, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
	})},
	{"AvgPool2D", in(uniform(2, 2, 4, 6)), unary(func(x v64) v64 { return autograd.AvgPool2D(x, 2, 3, tensor.ConvOptions{StrideH: 2, StrideW: 1}) })},
	{"AvgPool2D", in(uniform(1, 1, 5, 5)), unary(func(x v64) v64 {
		return autograd.AvgPool2D(x, 3, 3, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
	})},
	{"BatchNorm", in(uniform(3, 2, 4, 3), positive(2), uniform(2)), func(x []v64) v64 { return autograd.BatchNorm(x[0], x[1], x[2], 1e-5, nil, nil) }},
	{"BatchNorm", in(transposed(6, 3), positive(3), uniform(3)), func(x []v64) v64 { return autograd.BatchNorm(x[0], x[1], x[2], 0.1, nil, nil) }},
	{"BatchNormRelu", in(uniform(3, 2, 4, 3), positive(2), uniform(2), uniform(3, 2, 4, 3)), func(x []v64) v64 {
		return autograd.BatchNormRelu(x[0], x[1], x[2], x[3], 1e-5, nil, nil)
	}},
	{"BatchNormRelu", in(transposed(6, 3), positive(3), uniform(3)), func(x []v64) v64 { return autograd.BatchNormRelu(x[0], x[1], x[2], nil, 0.1, nil, nil) }},
	{"SoftAssign", in(uniform(4, 2, 3)), unary(func(x v64) v64 { return autograd.SoftAssign(x, softBins(3, 5)) })},
	{"SoftAssign", in(transposed(3, 2, 1)), unary(func(x v64) v64 { return autograd.SoftAssign(x, softBins(1, 4)) })},
	{"BinStats", in(positive(4, 2, 5), uniform(4, 2, 3)), binary(autograd.BinStats[float64])},
	{"BinStats", in(transposed(3, 1, 4), narrowed(3, 1, 1)), binary(autograd.BinStats[float64])},
	{"SoftBinStats", in(uniform(5, 1, 3), uniform(5, 1, 3)), binary(func(x, p v64) v64 { return autograd.SoftBinStats(x, p, softBins(3, 6)) })},
	{"SoftBinStats", in(uniform(4, 3, 1), transposed(4, 3, 2)), binary(func(x, p v64) v64 { return autograd.SoftBinStats(x, p, softBins(1, 5)) })},
	{"TopLabelStats", in(uniform(6, 3), uniform(6)), binary(func(s, p v64) v64 { return autograd.TopLabelStats(s, p, softBins(1, 5)) })},
	{"TopLabelStats", in(transposed(5, 4), narrowed(5)), binary(func(s, p v64) v64 { return autograd.TopLabelStats(s, p, softBins(1, 4)) })},
	{"LayerNorm", in(uniform(2, 3, 5), positive(5), uniform(5)), func(x []v64) v64 { return autograd.LayerNorm(x[0], x[1], x[2], 1e-6) }},
	{"LayerNorm", in(transposed(4, 3), uniform(3), uniform(3)), func(x []v64) v64 { return autograd.LayerNorm(x[0], x[1], x[2], 1e-5) }},
	{"GELU", in(uniform(3, 4)), unary(autograd.GELU[float64])},
	{"GELU", in(transposed(2, 5)), unary(func(x v64) v64 { return autograd.GELU(autograd.Scale(x, 3)) })},
	{"Attention", in(uniform(2, 2, 3, 4), uniform(2, 2, 5, 4), uniform(2, 2, 5, 4)), func(x []v64) v64 { return autograd.Attention(x[0], x[1], x[2], 0.5) }},
	{"Attention", in(uniform(1, 3, 2), transposed(1, 70, 2), narrowed(1, 70, 2)), func(x []v64) v64 { return autograd.Attention(x[0], x[1], x[2], 1.5) }},
	{"DenseBlock", in(uniform(2, 1, 4, 3), positive(1), uniform(1), uniform(1, 1, 3, 3), positive(2), uniform(2), uniform(2, 2, 1, 1)), func(x []v64) v64 {
		return autograd.DenseBlock(x[0], units(x, true), 1e-5, nil)
	}},
	{"DenseBlock", in(uniform(2, 1, 3, 3), positive(1), uniform(1), uniform(1, 1, 1, 1), positive(2), uniform(2), uniform(1, 2, 3, 3)), func(x []v64) v64 {
		return autograd.DenseBlock(x[0], units(x, false), 1e-5, nil)
	}},
	// Appended, so that the cases above keep their seeds (the case index).
	{"ChannelAffine", in(uniform(3, 2, 4, 3), uniform(2), uniform(2), uniform(3, 2, 4, 3)), func(x []v64) v64 {
		return autograd.ChannelAffine(x[0], x[1], x[2], x[3], true)
	}},
	{"ChannelAffine", in(transposed(6, 3), uniform(3), uniform(3)), func(x []v64) v64 { return autograd.ChannelAffine(x[0], x[1], x[2], nil, false) }},
	// A DenseNet-BC layer (1×1 bottleneck) and a transition pooling 3×3 to
	// 1×1; two layers on one image, the first with a 3×3 bottleneck and a
	// 1×1 convolution.
	{"DenseBlock", in(uniform(2, 2, 3, 3), positive(2), uniform(2), uniform(3, 2, 1, 1), positive(3), uniform(3), uniform(2, 3, 3, 3),
		positive(4), uniform(4), uniform(2, 4, 1, 1)), func(x []v64) v64 {
		return autograd.DenseBlock(x[0], []autograd.DenseUnit[float64]{bottleneckUnit(x[1:7]), {Gamma: x[7], Beta: x[8], W: x[9], Pool: true}}, 1e-5, nil)
	}},
	{"DenseBlock", in(uniform(1, 1, 4, 5), positive(1), uniform(1), uniform(2, 1, 3, 3), positive(2), uniform(2), uniform(2, 2, 1, 1),
		positive(3), uniform(3), uniform(2, 3, 1, 1), positive(2), uniform(2), uniform(2, 2, 3, 3)), func(x []v64) v64 {
		return autograd.DenseBlock(x[0], []autograd.DenseUnit[float64]{bottleneckUnit(x[1:7]), bottleneckUnit(x[7:13])}, 1e-5, nil)
	}},
	// A residual block's last convolution with its batch norm, sum and
	// ReLU, then the same with a constant scale (the fused pass); a
	// strided 1×1 downsampling without the sum and ReLU.
	{"Conv2DAffine", in(uniform(2, 3, 5, 4), uniform(4, 3, 3, 3), uniform(4), uniform(4), uniform(2, 4, 5, 4)), func(x []v64) v64 {
		return autograd.Conv2DAffine(x[0], x[1], x[2], x[3], x[4], tensor.ConvOptions{PadH: 1, PadW: 1}, true)
	}},
	{"Conv2DAffine", in(uniform(2, 3, 5, 4), uniform(4, 3, 3, 3), uniform(4), uniform(2, 4, 5, 4)), func(x []v64) v64 {
		return autograd.Conv2DAffine(x[0], x[1], constScale(4, x[0]), x[2], x[3], tensor.ConvOptions{PadH: 1, PadW: 1}, true)
	}},
	{"Conv2DAffine", in(uniform(2, 2, 5, 5), uniform(3, 2, 1, 1), uniform(3)), func(x []v64) v64 {
		return autograd.Conv2DAffine(x[0], x[1], constScale(3, x[0]), x[2], nil, tensor.ConvOptions{StrideH: 2, StrideW: 2}, false)
	}},
	// Many bins (B·(D+2) ≥ 2¹⁴): the CPU's statistics and their gradient
	// as matrix products. (Few points and values: over more, the central
	// differences' rounding passes the tolerance.)
	{"SoftBinStats", in(uniform(2, 1, 1), uniform(2, 1, 14)), binary(func(x, p v64) v64 { return autograd.SoftBinStats(x, p, softBins(1, 1024)) })},
}

// constScale is a constant per-channel scale for c channels, 0.5, −1.25,
// 2, … (none of them zero), on the device of like.
func constScale(c int, like v64) v64 {
	v := make([]float64, c)
	for i := range v {
		v[i] = []float64{0.5, -1.25, 2}[i%3] * float64(1+i/3)
	}
	return autograd.Const(tensor.FromSliceOn(like.Value.Device(), v, c))
}

// units are the two dense-block units of a case's inputs x: (gamma, beta,
// weight) in x[1:4], unpooled, and in x[4:7], pooled or not.
func units(x []v64, pool bool) []autograd.DenseUnit[float64] {
	return []autograd.DenseUnit[float64]{
		{Gamma: x[1], Beta: x[2], W: x[3]},
		{Gamma: x[4], Beta: x[5], W: x[6], Pool: pool},
	}
}

// bottleneckUnit is the dense-block unit with a bottleneck of the inputs x:
// γ, β, the bottleneck's weight, γ and β, then the unit's weight, in
// tensor.DenseUnit.Params's order.
func bottleneckUnit(x []v64) autograd.DenseUnit[float64] {
	return autograd.DenseUnit[float64]{Gamma: x[0], Beta: x[1], W: x[5], Bottleneck: &autograd.DenseBottleneck[float64]{W: x[2], Gamma: x[3], Beta: x[4]}}
}
