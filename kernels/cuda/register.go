//go:build cuda

package cuda

import "github.com/ecl-go/ecl/tensor"

// registerKernels plugs d's fused kernels into tensor's kernel mechanism.
// The body of tensor.XKernel is the function x of this package (x is the
// kernel's name in camel case, as layerNorm for tensor.LayerNormKernel and
// conv2dBias for tensor.Conv2DBiasKernel), taking d, the kernel's outputs
// and inputs and its attribute: Adam's update (which optim.Adam calls),
// batch normalisation and its gradient, alone and with a residual sum and
// ReLU (which nn.BatchNorm2d reaches), its evaluation mode
// (channelAffine), a convolution with a bias (conv2dBias) or with that
// evaluation mode (conv2dAffine), softmax and log-softmax and their
// gradients (one warp per row), layer norm, the exact GELU and flash-style attention with
// their gradients, the soft assignment and the bin statistics of the ECL
// loss and their gradients. SoftBinStats and its backward run as their
// composed versions on d, over these.
func registerKernels[T tensor.Float](d *device[T]) {
	dev := tensor.Device[T](d)
	tensor.Register(tensor.AdamKernel, dev, withDevice(d, adam[T]))
	tensor.Register(tensor.BatchNormKernel, dev, withDevice(d, batchNorm[T]))
	tensor.Register(tensor.BatchNormReluKernel, dev, withDevice(d, batchNormRelu[T]))
	tensor.Register(tensor.BatchNormBackwardKernel, dev, withDevice(d, batchNormBackward[T]))
	tensor.Register(tensor.BatchNormReluBackwardKernel, dev, withDevice(d, batchNormReluBackward[T]))
	tensor.Register(tensor.ChannelAffineKernel, dev, withDevice(d, channelAffine[T]))
	tensor.Register(tensor.Conv2DBiasKernel, dev, withDevice(d, conv2dBias[T]))
	tensor.Register(tensor.Conv2DAffineKernel, dev, withDevice(d, conv2dAffine[T]))
	tensor.Register(tensor.LayerNormKernel, dev, withDevice(d, layerNorm[T]))
	tensor.Register(tensor.LayerNormBackwardKernel, dev, withDevice(d, layerNormBackward[T]))
	tensor.Register(tensor.GELUKernel, dev, withDevice(d, gelu[T]))
	tensor.Register(tensor.GELUBackwardKernel, dev, withDevice(d, geluBackward[T]))
	tensor.Register(tensor.AttentionKernel, dev, withDevice(d, attention[T]))
	tensor.Register(tensor.AttentionBackwardKernel, dev, withDevice(d, attentionBackward[T]))
	tensor.Register(tensor.LogSoftmaxKernel, dev, withDevice(d, logSoftmax[T]))
	tensor.Register(tensor.LogSoftmaxBackwardKernel, dev, withDevice(d, logSoftmaxBackward[T]))
	tensor.Register(tensor.SoftmaxKernel, dev, withDevice(d, softmax[T]))
	tensor.Register(tensor.SoftmaxBackwardKernel, dev, withDevice(d, softmaxBackward[T]))
	tensor.Register(tensor.SoftAssignKernel, dev, withDevice(d, softAssign[T]))
	tensor.Register(tensor.SoftAssignBackwardKernel, dev, withDevice(d, softAssignBackward[T]))
	tensor.Register(tensor.BinStatsKernel, dev, withDevice(d, binStats[T]))
	tensor.Register(tensor.BinStatsBackwardKernel, dev, withDevice(d, binStatsBackward[T]))
}

// withDevice is the body of a kernel whose function takes d first.
func withDevice[T tensor.Float, A any](d *device[T], f func(d *device[T], out, in []*tensor.Tensor[T], attr A)) tensor.Body[T, A] {
	return func(out, in []*tensor.Tensor[T], attr A) { f(d, out, in, attr) }
}

// adam is the device's body of tensor.AdamKernel: AdamStep on in's p, g,
// m, v.
func adam[T tensor.Float](_ *device[T], _, in []*tensor.Tensor[T], h tensor.AdamUpdate) {
	must(adamStep(in[0], in[1], in[2], in[3], h))
}

// softmax is the device's body of tensor.SoftmaxKernel: in x, out y.
func softmax[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], axis int) {
	must(d.alongAxis(kSoftmax, out[0], in[0], nil, axis, false))
}

// softmaxBackward is the device's body of tensor.SoftmaxBackwardKernel: in
// g, y; out dx.
func softmaxBackward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], axis int) {
	must(d.alongAxis(kSoftmaxBackward, out[0], in[1], in[0], axis, false))
}

// logSoftmax is the device's body of tensor.LogSoftmaxKernel: in x, out y.
func logSoftmax[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], axis int) {
	must(d.alongAxis(kSoftmax, out[0], in[0], nil, axis, true))
}

// logSoftmaxBackward is the device's body of
// tensor.LogSoftmaxBackwardKernel: in g, x; out dx.
func logSoftmaxBackward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], axis int) {
	must(d.alongAxis(kLogSoftmaxBackward, out[0], in[1], in[0], axis, false))
}
