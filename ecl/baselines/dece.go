package baselines

import (
	"fmt"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// DECE is the differentiable expected calibration error of Bohdal, Yang &
// Hospedales (2023) for probabilities probs [N, K] and labels, with M bins:
// soft bin memberships o = softmax_j(h_j) with h_j = (j·c − Σ_{i≤j}(i−1)/M)/τ_b
// on the top confidence c, smoothed as (o + 1e-6)/(1 + (M+1)·1e-6); the soft
// rank of the label rank_y = 0.5 + Σ_k σ(τ_a(p_k − p_y)) and soft accuracy
// relu(2 − rank_y); DECE = Σ_j (Σ_n o_nj/N)·|acc_j − conf_j| with acc_j and
// conf_j the o-weighted means. τ_a = 100, τ_b = 0.01 as in the paper.
func DECE[T tensor.Float](probs *autograd.Var[T], labels []int, m int) *autograd.Var[T] {
	const tauA, tauB, smooth = 100, 0.01, 1e-6
	shape := probs.Shape()
	if len(shape) != 2 || shape[0] != len(labels) || m < 1 {
		panic(&tensor.ShapeError{Op: "baselines.DECE", Shapes: [][]int{shape}, Detail: fmt.Sprintf("probabilities %v for %d labels, %d bins; want [N, K], N labels and at least 1 bin", shape, len(labels), m)})
	}
	n := shape[0]
	dev := probs.Value.Device()
	c := autograd.Max(probs, 1, true) // [N, 1]
	slope, offset := make([]T, m), make([]T, m)
	cum := 0.0
	for j := 1; j <= m; j++ {
		cum += float64(j-1) / float64(m)
		slope[j-1], offset[j-1] = T(j), T(-cum)
	}
	h := autograd.Add(autograd.Mul(c, autograd.Const(tensor.FromSliceOn(dev, slope, 1, m))), autograd.Const(tensor.FromSliceOn(dev, offset, 1, m)))
	o := autograd.Affine(autograd.Softmax(autograd.Scale(h, 1/T(tauB)), 1), T(1/(1+float64(m+1)*smooth)), T(smooth/(1+float64(m+1)*smooth)))
	py := autograd.Gather(probs, 1, labels, n, 1)
	rank := autograd.AddScalar(autograd.Sum(autograd.Sigmoid(autograd.Scale(autograd.Sub(probs, py), tauA)), 1, true), 0.5)
	acc := autograd.Relu(autograd.Affine(rank, -1, 2)) // [N, 1]
	count := autograd.Sum(o, 0, false)                 // [M]
	accJ := autograd.Div(autograd.Sum(autograd.Mul(o, acc), 0, false), count)
	confJ := autograd.Div(autograd.Sum(autograd.Mul(o, c), 0, false), count)
	return autograd.SumAll(autograd.Mul(autograd.Scale(count, 1/T(n)), autograd.Abs(autograd.Sub(accJ, confJ))))
}
