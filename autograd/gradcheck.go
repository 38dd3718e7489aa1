package autograd

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/tensor"
)

// CheckOptions configure Check. Zero fields take the defaults.
type CheckOptions struct {
	Step  float64 // central-difference step h (default 1e-6)
	Tol   float64 // largest accepted error (default 1e-6)
	Floor float64 // smallest denominator of the relative error (default 1e-3)
	Seed  uint64  // seed of the random projection of a non-scalar output
}

// CheckReport is the worst element found by Check.
type CheckReport struct {
	Name     string
	Input    int   // which input
	Index    []int // multi-index in that input
	Analytic float64
	Numeric  float64
	// Err is |analytic − numeric| / max(|analytic|, |numeric|, Floor): a
	// relative error, absolute for gradients below Floor.
	Err float64
}

func (r CheckReport) String() string {
	return fmt.Sprintf("%s: worst error %.3g at input %d index %v (analytic %.10g, numeric %.10g)",
		r.Name, r.Err, r.Input, r.Index, r.Analytic, r.Numeric)
}

// Check compares the gradients that Backward computes for f at inputs against
// float64 central differences. A non-scalar output y is reduced to Σ y·R with
// a fixed random R, so every entry of the Jacobian takes part. Inputs may be
// non-contiguous views (they are perturbed in place and restored) but must
// not have broadcast (stride-0) dimensions. It returns the worst element and
// an error when its error exceeds the tolerance.
func Check(name string, f func(xs []*Var[float64]) *Var[float64], inputs []*tensor.Tensor[float64], o CheckOptions) (CheckReport, error) {
	if o.Step == 0 {
		o.Step = 1e-6
	}
	if o.Tol == 0 {
		o.Tol = 1e-6
	}
	if o.Floor == 0 {
		o.Floor = 1e-3
	}
	for i, in := range inputs {
		for d, s := range in.Strides() {
			if s == 0 && in.Dim(d) > 1 {
				return CheckReport{Name: name}, fmt.Errorf("gradcheck %s: input %d has a broadcast dimension %d", name, i, d)
			}
		}
	}
	xs := make([]*Var[float64], len(inputs))
	for i, in := range inputs {
		xs[i] = Param(in)
	}
	y := f(xs)
	rng := rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))
	proj := tensor.To(tensor.RandNormal[float64](rng, 0, 1, y.Value.Shape()...), y.Value.Device())
	loss := func(y *Var[float64]) *Var[float64] { return SumAll(Mul(y, Const(proj))) }
	loss(y).Backward()

	worst := CheckReport{Name: name, Err: -1}
	for i, in := range inputs {
		analytic := tensor.Zeros[float64](in.Shape()...)
		if xs[i].Grad != nil {
			analytic = xs[i].Grad
		}
		for flat, idx := range indices(in.Shape()) {
			orig := in.At(idx...)
			eval := func(v float64) float64 {
				in.Set(v, idx...)
				var out float64
				NoGrad(func() { out = loss(f(constants(inputs))).Value.Item() })
				return out
			}
			num := (eval(orig+o.Step) - eval(orig-o.Step)) / (2 * o.Step)
			in.Set(orig, idx...)
			an := analytic.Data()[flat]
			err := math.Abs(an-num) / max(math.Abs(an), math.Abs(num), o.Floor)
			if math.IsNaN(err) {
				err = math.Inf(1)
			}
			if err > worst.Err {
				worst = CheckReport{Name: name, Input: i, Index: idx, Analytic: an, Numeric: num, Err: err}
			}
		}
	}
	if worst.Err > o.Tol {
		return worst, fmt.Errorf("gradcheck %s", worst)
	}
	return worst, nil
}

func constants(ts []*tensor.Tensor[float64]) []*Var[float64] {
	vs := make([]*Var[float64], len(ts))
	for i, t := range ts {
		vs[i] = Const(t)
	}
	return vs
}

// indices lists the multi-indices of shape in row-major order.
func indices(shape []int) [][]int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	out := make([][]int, 0, n)
	idx := make([]int, len(shape))
	for range n {
		out = append(out, append([]int(nil), idx...))
		for d := len(shape) - 1; d >= 0; d-- {
			idx[d]++
			if idx[d] < shape[d] {
				break
			}
			idx[d] = 0
		}
	}
	return out
}
