//go:build cuda

package cuda

import "github.com/ecl-go/ecl/tensor"

// registerKernels plugs d's fused kernels into tensor's kernel mechanism:
// Adam's update (tensor.AdamKernel, which optim.Adam calls), batch
// normalisation and its gradient, alone and with a residual sum and ReLU
// (tensor.BatchNorm(Relu)(Backward)Kernel, which nn.BatchNorm2d reaches),
// its evaluation mode (tensor.ChannelAffineKernel), log-softmax
// and its gradient (one warp per row), layer norm, the exact GELU and
// flash-style attention with their gradients (tensor.LayerNorm(Backward)Kernel,
// tensor.GELU(Backward)Kernel, tensor.Attention(Backward)Kernel), the soft
// assignment (SoftAssign) and the bin statistics (BinStats) of the ECL loss, and the backward passes of both.
// SoftBinStats and its backward run as their composed versions on d, over
// these.
func registerKernels[T tensor.Float](d *device[T]) {
	dev := tensor.Device[T](d)
	tensor.Register(tensor.AdamKernel, dev, func(_, in []*tensor.Tensor[T], h tensor.AdamUpdate) {
		must(adamStep(in[0], in[1], in[2], in[3], h))
	})
	tensor.Register(tensor.BatchNormKernel, dev, func(out, in []*tensor.Tensor[T], eps float64) {
		batchNorm(d, out, in, eps, false)
	})
	tensor.Register(tensor.BatchNormReluKernel, dev, func(out, in []*tensor.Tensor[T], eps float64) {
		batchNorm(d, out, in, eps, true)
	})
	tensor.Register(tensor.BatchNormBackwardKernel, dev, withDevice(d, batchNormBackward[T]))
	tensor.Register(tensor.BatchNormReluBackwardKernel, dev, withDevice(d, batchNormBackward[T]))
	tensor.Register(tensor.ChannelAffineKernel, dev, withDevice(d, channelAffine[T]))
	tensor.Register(tensor.LayerNormKernel, dev, withDevice(d, layerNorm[T]))
	tensor.Register(tensor.LayerNormBackwardKernel, dev, func(out, in []*tensor.Tensor[T], _ float64) {
		layerNormBackward(d, out, in)
	})
	tensor.Register(tensor.GELUKernel, dev, func(out, in []*tensor.Tensor[T], _ struct{}) {
		gelu(d, out, in, false)
	})
	tensor.Register(tensor.GELUBackwardKernel, dev, func(out, in []*tensor.Tensor[T], _ struct{}) {
		gelu(d, out, in, true)
	})
	tensor.Register(tensor.AttentionKernel, dev, withDevice(d, attention[T]))
	tensor.Register(tensor.AttentionBackwardKernel, dev, withDevice(d, attentionBackward[T]))
	tensor.Register(tensor.LogSoftmaxKernel, dev, func(out, in []*tensor.Tensor[T], axis int) {
		must(d.alongAxis(kSoftmax, out[0], in[0], nil, axis, true))
	})
	tensor.Register(tensor.LogSoftmaxBackwardKernel, dev, func(out, in []*tensor.Tensor[T], axis int) {
		must(d.alongAxis(kLogSoftBack, out[0], in[1], in[0], axis, false))
	})
	tensor.Register(tensor.SoftAssignKernel, dev, func(out, in []*tensor.Tensor[T], sb tensor.SoftBins) {
		must(softAssignInto(d, out[0], in[0], anchorsOn(d, sb), sb.Tau))
	})
	tensor.Register(tensor.SoftAssignBackwardKernel, dev, func(out, in []*tensor.Tensor[T], sb tensor.SoftBins) {
		must(softAssignBackward(d, out[0], in[0], in[1], in[2], sb))
	})
	tensor.Register(tensor.BinStatsBackwardKernel, dev, func(out, in []*tensor.Tensor[T], _ struct{}) {
		must(binStatsBackward(d, out[0], out[1], in[0], in[1], in[2]))
	})
	tensor.Register(tensor.BinStatsKernel, dev, func(out, in []*tensor.Tensor[T], _ struct{}) {
		must(binStatsInto(d, out[0], in[0], in[1]))
	})
}

// withDevice is the body of a kernel whose function takes d first.
func withDevice[T tensor.Float, A any](d *device[T], f func(d *device[T], out, in []*tensor.Tensor[T], attr A)) tensor.Body[T, A] {
	return func(out, in []*tensor.Tensor[T], attr A) { f(d, out, in, attr) }
}
