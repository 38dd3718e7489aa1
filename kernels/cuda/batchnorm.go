//go:build cuda

package cuda

import "github.com/ecl-go/ecl/tensor"

// bnBlock is the block size of the batch-norm kernels: one block per
// channel, whose values (N·H·W of them) its threads stride through.
const bnBlock = 1024

// bnSizes is N, C and the values per sample and channel of x [N, C, …].
func bnSizes(s []int) (n, c, per int) {
	per = 1
	for _, v := range s[2:] {
		per *= v
	}
	return s[0], s[1], per
}

// batchNorm is the device's body of tensor.BatchNormKernel: in x, γ, β
// (contiguous), out y, μ, σ².
func batchNorm[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], eps float64) {
	n, c, per := bnSizes(in[0].Shape())
	args := []uint64{uint64(n), uint64(c), uint64(per), d.ptr(in[0]), d.ptr(in[1]), d.ptr(in[2]), d.ptr(out[0]), d.ptr(out[1]), d.ptr(out[2]), f64(eps)}
	must(d.e.do(func() error {
		return d.e.launch(kBNForward, d.sfx, grid{x: min(c, gridCap), y: 1, z: 1, block: bnBlock}, args...)
	}))
	keepAlive(append(in, out...)...)
}

// batchNormBackward is the device's body of tensor.BatchNormBackwardKernel:
// in g, x, γ, μ, σ² (contiguous), out dx, dγ, dβ.
func batchNormBackward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], eps float64) {
	n, c, per := bnSizes(in[1].Shape())
	args := []uint64{uint64(n), uint64(c), uint64(per), d.ptr(in[0]), d.ptr(in[1]), d.ptr(in[2]), d.ptr(in[3]), d.ptr(in[4]), d.ptr(out[0]), d.ptr(out[1]), d.ptr(out[2]), f64(eps)}
	must(d.e.do(func() error {
		return d.e.launch(kBNBackward, d.sfx, grid{x: min(c, gridCap), y: 1, z: 1, block: bnBlock}, args...)
	}))
	keepAlive(append(in, out...)...)
}
