package ecl

import (
	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl/bins"
	"github.com/ecl-go/ecl/tensor"
)

// SoftECE is the soft-binned calibration error of Karandikar et al. (2021),
// SB-ECE = √(Σ_j w_j (conf_j − acc_j)²), on confidences conf [N] against 0/1
// correctness labels: soft memberships u_ij = softmax_j(−(c_i − ζ_j)²/T) over
// M anchors ζ_j = (2j−1)/(2M) with T = −1/(ln 0.9·M²) (the corrected sign),
// conf_j and acc_j the u-weighted means (denominators clamped at 1e-5) and
// w_j = Σ_i u_ij / Σ S (clamped at 1e-5). The square root's gradient is
// guarded at 0 by flooring its argument at 1e-12.
func SoftECE[T tensor.Float](conf *autograd.Var[T], correct *tensor.Tensor[T], m int) *autograd.Var[T] {
	n := conf.Value.Len()
	if correct.Len() != n || m < 1 {
		panic(shapeError("ecl.SoftECE", [][]int{conf.Shape(), correct.Shape()}, "confidences %v, labels %v, %d bins", conf.Shape(), correct.Shape(), m))
	}
	dev := conf.Value.Device()
	c := autograd.Reshape(conf, n, 1)
	diff := autograd.Sub(c, constOn(dev, bins.Centers(m), 1, m))
	u := autograd.Softmax(autograd.Scale(autograd.Mul(diff, diff), T(-1/bins.Temperature(m))), 1) // [N, M]
	floor := func(x *autograd.Var[T], v T) *autograd.Var[T] {
		return autograd.Maximum(x, autograd.Const(tensor.FullOn(dev, v)))
	}
	s := autograd.Sum(u, 0, false)
	den := floor(s, 1e-5)
	confJ := autograd.Div(autograd.Sum(autograd.Mul(u, c), 0, false), den)
	accJ := autograd.Div(autograd.Sum(autograd.Mul(u, autograd.Const(tensor.Reshape(correct, n, 1))), 0, false), den)
	w := autograd.Div(s, floor(autograd.SumAll(s), 1e-5))
	gap := autograd.Sub(confJ, accJ)
	return autograd.Sqrt(floor(autograd.SumAll(autograd.Mul(w, autograd.Mul(gap, gap))), 1e-12))
}

// TopConfidence is the largest probability of each row of probs [N, K].
func TopConfidence[T tensor.Float](probs *autograd.Var[T]) *autograd.Var[T] {
	return autograd.Max(probs, 1, false)
}
