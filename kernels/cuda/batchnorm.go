//go:build cuda

package cuda

import "github.com/ecl-go/ecl/tensor"

// bnBlock is the block size of the batch-norm kernels: one block per chunk
// of a channel's rows (bnChunks).
const bnBlock = 256

// bnSizes is N, C and the values per sample and channel of x [N, C, …].
func bnSizes(s []int) (n, c, per int) {
	per = 1
	for _, v := range s[2:] {
		per *= v
	}
	return s[0], s[1], per
}

// bnPart runs stats, which writes each chunk's partial statistics (width
// doubles a chunk) into a scratch block, then apply, which reads them (on
// the context thread).
func (d *device[T]) bnPart(n, c, per, width int, stats, apply func(chunks int, part uint64) error) error {
	chunks := bnChunks(n, c, per)
	part, err := d.e.malloc(int64(c*chunks*width) * 8)
	defer d.e.alloc.release(part)
	if err != nil {
		return err
	}
	if err := stats(chunks, part.ptr); err != nil {
		return err
	}
	return apply(chunks, part.ptr)
}

// batchNorm is the device's body of tensor.BatchNormKernel: in x, γ, β
// (contiguous); out y, μ, σ².
func batchNorm[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], eps float64) {
	bnForward(d, out, in, eps, false)
}

// batchNormRelu is the device's body of tensor.BatchNormReluKernel: in x,
// γ, β and optionally the residual r (contiguous); out y, μ, σ².
func batchNormRelu[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], eps float64) {
	bnForward(d, out, in, eps, true)
}

// bnForward is batch normalisation's forward pass, with the residual sum
// (a fourth input) and the ReLU where relu.
func bnForward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], eps float64, relu bool) {
	n, c, per := bnSizes(in[0].Shape())
	var r uint64
	if len(in) == 4 {
		r = d.ptr(in[3])
	}
	must(d.e.do(func() error {
		return d.bnPart(n, c, per, 3, func(chunks int, part uint64) error {
			return d.e.launch(kBNStats, d.sfx, grid{x: min(c*chunks, gridCap), y: 1, z: 1, block: bnBlock},
				uint64(n), uint64(c), uint64(per), uint64(chunks), d.ptr(in[0]), part)
		}, func(chunks int, part uint64) error {
			return d.e.launch(kBNForward, d.sfx, grid{x: min(c*chunks, gridCap), y: 1, z: 1, block: bnBlock},
				uint64(n), uint64(c), uint64(per), uint64(chunks), part, d.ptr(in[0]), d.ptr(in[1]), d.ptr(in[2]),
				r, flag(relu), d.ptr(out[0]), d.ptr(out[1]), d.ptr(out[2]), f64(eps))
		})
	}))
	keepAlive(append(in, out...)...)
}

// channelAffine is the device's body of tensor.ChannelAffineKernel: in x,
// scale, shift and optionally r, all contiguous; out y; the ReLU when relu.
func channelAffine[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], relu bool) {
	n, c, per := bnSizes(in[0].Shape())
	var r uint64
	if len(in) == 4 {
		r = d.ptr(in[3])
	}
	total := n * c * per
	must(d.e.do(func() error {
		return d.e.launch(kChannelAffine, d.sfx, linear(total), uint64(total), uint64(c), uint64(per),
			d.ptr(in[0]), d.ptr(in[1]), d.ptr(in[2]), r, flag(relu), d.ptr(out[0]))
	}))
	keepAlive(append(in, out...)...)
}

// batchNormBackward is the device's body of tensor.BatchNormBackwardKernel
// (in g, x, γ, μ, σ²; out dx, dγ, dβ) and, with the ReLU's output y, of
// its fused variant (batchNormReluBackward), all contiguous.
func batchNormBackward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], eps float64) {
	gy, y, rest := in[0], uint64(0), in[1:]
	if len(in) == 6 {
		y, rest = d.ptr(in[1]), in[2:]
	}
	x, gamma, mean, variance := rest[0], rest[1], rest[2], rest[3]
	var dr uint64
	if len(out) == 4 {
		dr = d.ptr(out[3])
	}
	n, c, per := bnSizes(x.Shape())
	must(d.e.do(func() error {
		return d.bnPart(n, c, per, 2, func(chunks int, part uint64) error {
			return d.e.launch(kBNBackwardSums, d.sfx, grid{x: min(c*chunks, gridCap), y: 1, z: 1, block: bnBlock},
				uint64(n), uint64(c), uint64(per), uint64(chunks), d.ptr(gy), y, d.ptr(x), d.ptr(mean), dr, part)
		}, func(chunks int, part uint64) error {
			return d.e.launch(kBNBackward, d.sfx, grid{x: min(c*chunks, gridCap), y: 1, z: 1, block: bnBlock},
				uint64(n), uint64(c), uint64(per), uint64(chunks), part, d.ptr(gy), y, d.ptr(x), d.ptr(gamma),
				d.ptr(mean), d.ptr(variance), d.ptr(out[0]), d.ptr(out[1]), d.ptr(out[2]), f64(eps))
		})
	}))
	keepAlive(append(in, out...)...)
}

// batchNormReluBackward is the device's body of
// tensor.BatchNormReluBackwardKernel: in gy, y, x, γ, μ, σ²; out dx, dγ, dβ
// and optionally dr (batchNormBackward, which tells the two apart by y).
func batchNormReluBackward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], eps float64) {
	batchNormBackward(d, out, in, eps)
}

// flag is a kernel's 0/1 argument.
func flag(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}
