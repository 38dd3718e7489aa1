package cuda

import (
	"fmt"

	"github.com/ecl-go/ecl/tensor"
)

// Pure-Go references of the package's own kernels where tensor has none to
// check them against: the tensor.Device methods and the bodies of tensor's
// kernels are checked against tensor's CPU bodies (BinStats) or its
// composed reference (tensor.SoftAssignComposed, which the soft_assign
// kernel follows operation for operation). They accept tensors on any
// device and return CPU tensors.

// HardBinSumsCPU is HardBinSums.
func HardBinSumsCPU[T tensor.Float](bin, v *tensor.Tensor[T], bins int) (count, sum *tensor.Tensor[T], err error) {
	rows, g, d := hardShapes(bin.Shape(), v.Shape(), bins)
	bs, vs := bin.Data(), v.Data()
	cs, ss := make([]T, g*bins), make([]T, g*bins*d)
	for e, f := range bs[:rows*g] {
		j := int(f)
		if !(f >= 0 && f < T(bins)) || T(j) != f {
			return nil, nil, fmt.Errorf("cuda.HardBinSums: bin %v of sample %d (group %d) is not an integer in [0, %d)", f, e/g, e%g, bins)
		}
		slot := (e%g)*bins + j
		cs[slot]++
		for k := range d {
			ss[slot*d+k] += vs[e*d+k]
		}
	}
	return tensor.FromSlice(cs, g, bins), tensor.FromSlice(ss, g, bins, d), nil
}
