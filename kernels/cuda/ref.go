package cuda

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/tensor"
)

// Pure-Go references of the package's own kernels where tensor has no CPU
// body to check them against (the tensor.Device methods and the bodies of
// tensor's kernels, BinStats among them, are checked against tensor.CPU). They accept tensors on any device
// and return CPU tensors.

// SoftAssignCPU is SoftAssign in the kernel's order of operations (and
// that of tensor.SoftAssign's composed version): squared distances summed
// in order, scaled by −1/tau, then softmax shifted by the row maximum
// (tensor.ShiftMax). tensor.SoftAssign's CPU body takes shortcuts of its own
// (lattice anchors, ‖x‖² − 2x·a + ‖a‖²) that round differently in float32.
func SoftAssignCPU[T tensor.Float](x, anchors *tensor.Tensor[T], tau float64) *tensor.Tensor[T] {
	rows, d, b := anchorShapes(x.Shape(), anchors.Shape(), tau)
	xs, as := x.Data(), anchors.Data()
	k := T(-1 / tau)
	out := make([]T, rows*b)
	for r := range rows {
		z := out[r*b : (r+1)*b]
		m := T(math.Inf(-1))
		for j := range z {
			var s T
			for i := range d {
				v := xs[r*d+i] - as[j*d+i]
				s += v * v
			}
			z[j] = k * s
			if z[j] > m || z[j] != z[j] {
				m = z[j]
			}
		}
		if math.IsInf(float64(m), 0) || m != m {
			m = 0
		}
		var sum T
		for j, v := range z {
			z[j] = T(math.Exp(float64(v - m)))
			sum += z[j]
		}
		for j := range z {
			z[j] /= sum
		}
	}
	shape := x.Shape()
	return tensor.FromSlice(out, append(shape[:len(shape)-1], b)...)
}

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
