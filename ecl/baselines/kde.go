package baselines

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// KDELoss is the canonical ECE^KDE of Popordanoska, Sayer & Blaschko (2022)
// with p = 1, differentiable in probs [N, K]: with the Dirichlet kernel
// log k(z; f_i) = Σ_k (α_ik − 1) log z_k − log B(α_i), α_i = f_i/h + 1, the
// leave-one-out estimate r_j = Σ_{i≠j} k(f_j; f_i) y_i / Σ_{i≠j} k(f_j; f_i)
// and the value (1/N) Σ_j ‖r_j − f_j‖₁. Probabilities are clamped at 1e-10
// and renormalised, and every sum runs in log space. h is the bandwidth
// (metrics.KDEBandwidth chooses one); N ≥ 2.
func KDELoss[T tensor.Float](probs *autograd.Var[T], labels []int, h float64) *autograd.Var[T] {
	shape := probs.Shape()
	if len(shape) != 2 || shape[0] != len(labels) || shape[0] < 2 || !(h > 0) {
		panic(&tensor.ShapeError{Op: "baselines.KDELoss", Shapes: [][]int{shape}, Detail: fmt.Sprintf("probabilities %v for %d labels, bandwidth %v; want [N ≥ 2, K], N labels and a bandwidth > 0", shape, len(labels), h)})
	}
	n, k := shape[0], shape[1]
	dev := probs.Value.Device()
	c := autograd.Clamp(probs, 1e-10, 1)
	f := autograd.Div(c, autograd.Sum(c, 1, true))
	alpha1 := autograd.Scale(f, T(1/h)) // α − 1
	alpha := autograd.AddScalar(alpha1, 1)
	// log B(α_i) = Σ_k ln Γ(α_ik) − ln Γ(Σ_k α_ik), as a row [1, N].
	logB := autograd.Sub(autograd.Sum(autograd.Lgamma(alpha), 1, false), autograd.Lgamma(autograd.Sum(alpha, 1, false)))
	// logk[j, i] = log f_j · (α_i − 1) − log B(α_i).
	logk := autograd.Sub(autograd.MatMul(autograd.Log(f), autograd.Transpose(alpha1, 0, 1)), autograd.Reshape(logB, 1, n))
	eye := make([]T, n*n)
	for i := range n {
		eye[i*n+i] = 1
	}
	leaveOut := autograd.Where(tensor.FromSliceOn(dev, eye, n, n), autograd.Const(tensor.FullOn(dev, T(math.Inf(-1)), n, n)), logk)
	r := autograd.MatMul(autograd.Softmax(leaveOut, 1), autograd.Const(tensor.OneHotOn[T](dev, labels, k)))
	return autograd.Scale(autograd.SumAll(autograd.Abs(autograd.Sub(r, f))), 1/T(n))
}
