package ecl

import (
	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl/bins"
	"github.com/ecl-go/ecl/nn"
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
	return WeightedSoftECE(conf, correct, nil, m)
}

// WeightedSoftECE is SoftECE with each sample's memberships u_ij weighted
// by w_i (importance weights, say; nil for 1), the weights first scaled to
// mean 1 so that the clamps act as on unweighted samples: a weight of 2 counts
// a sample twice.
func WeightedSoftECE[T tensor.Float](conf *autograd.Var[T], correct *tensor.Tensor[T], w []float64, m int) *autograd.Var[T] {
	n := conf.Value.Len()
	sum := nn.WeightSum(w)
	if correct.Len() != n || m < 1 || w != nil && (len(w) != n || !(sum > 0)) {
		op := "ecl.SoftECE"
		if w != nil {
			op = "ecl.WeightedSoftECE"
		}
		panic(shapeError(op, [][]int{conf.Shape(), correct.Shape()}, "confidences %v, labels %v, %d weights summing to %v, %d bins", conf.Shape(), correct.Shape(), len(w), sum, m))
	}
	dev := conf.Value.Device()
	c := autograd.Reshape(conf, n, 1)
	diff := autograd.Sub(c, constOn(dev, bins.Centers(m), 1, m))
	u := autograd.Softmax(autograd.Scale(autograd.Mul(diff, diff), T(-1/bins.Temperature(m))), 1) // [N, M]
	if w != nil {
		scaled := make([]float64, n)
		for i, v := range w {
			scaled[i] = v * float64(n) / sum
		}
		u = autograd.Mul(u, constOn(dev, scaled, n, 1))
	}
	floor := func(x *autograd.Var[T], v T) *autograd.Var[T] {
		return autograd.Maximum(x, autograd.Const(tensor.FullOn(dev, v)))
	}
	s := autograd.Sum(u, 0, false)
	den := floor(s, 1e-5)
	confJ := autograd.Div(autograd.Sum(autograd.Mul(u, c), 0, false), den)
	accJ := autograd.Div(autograd.Sum(autograd.Mul(u, autograd.Const(tensor.Reshape(correct, n, 1))), 0, false), den)
	share := autograd.Div(s, floor(autograd.SumAll(s), 1e-5))
	gap := autograd.Sub(confJ, accJ)
	return autograd.Sqrt(floor(autograd.SumAll(autograd.Mul(share, autograd.Mul(gap, gap))), 1e-12))
}

// TopConfidence is the largest probability of each row of probs [N, K].
func TopConfidence[T tensor.Float](probs *autograd.Var[T]) *autograd.Var[T] {
	return autograd.Max(probs, 1, false)
}
