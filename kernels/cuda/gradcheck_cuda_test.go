//go:build cuda

package cuda_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
)

// Float64 gradient checks of the engine with every tensor on the CUDA
// device: the analytic gradients of Backward (running the backward kernels)
// against central differences of the forward kernels, by autograd.Check.

// checkOnDevice runs autograd.Check on inputs that live on dev and checks
// that the output does too.
func checkOnDevice(t *testing.T, name string, dev tensor.Device[float64], f func([]*autograd.Var[float64]) *autograd.Var[float64], inputs []*tensor.Tensor[float64]) {
	t.Helper()
	for i, in := range inputs {
		if in.Device() != dev {
			t.Fatalf("%s: input %d on %s", name, i, in.Device())
		}
	}
	onDevice := func(xs []*autograd.Var[float64]) *autograd.Var[float64] {
		y := f(xs)
		if y.Value.Device() != dev {
			t.Fatalf("%s: output on %s", name, y.Value.Device())
		}
		return y
	}
	r, err := autograd.Check(name, onDevice, inputs, autograd.CheckOptions{})
	if err != nil {
		t.Error(err)
		return
	}
	t.Logf("%-14s worst error %.2e", name, r.Err)
}

func TestGradientsOnDevice(t *testing.T) {
	dev := gpu[float64](t)
	r := rand.New(rand.NewPCG(21, 21))
	u := func(s ...int) *tensor.Tensor[float64] {
		return tensor.To(tensor.RandUniform[float64](r, -1, 1, s...), dev)
	}
	pos := func(s ...int) *tensor.Tensor[float64] {
		return tensor.To(tensor.RandUniform[float64](r, 0.5, 2, s...), dev)
	}
	tr := func(s ...int) *tensor.Tensor[float64] { return tensor.Transpose(u(s[1], s[0]), 0, 1) }
	type V = *autograd.Var[float64]
	un := func(f func(V) V) func([]V) V { return func(x []V) V { return f(x[0]) } }
	bin := func(f func(V, V) V) func([]V) V { return func(x []V) V { return f(x[0], x[1]) } }
	in := func(ts ...*tensor.Tensor[float64]) []*tensor.Tensor[float64] { return ts }
	mask := tensor.Step(u(3, 4))

	cases := []struct {
		name   string
		inputs []*tensor.Tensor[float64]
		f      func([]V) V
	}{
		{"Add", in(tr(3, 4), u(3, 1)), bin(autograd.Add[float64])},
		{"Mul", in(u(2, 5), u(5)), bin(autograd.Mul[float64])},
		{"Div", in(u(3, 4), pos(3, 4)), bin(autograd.Div[float64])},
		{"Pow", in(pos(3, 4), u(3, 4)), bin(autograd.Pow[float64])},
		{"Exp", in(tr(3, 4)), un(autograd.Exp[float64])},
		{"Log", in(pos(3, 4)), un(autograd.Log[float64])},
		{"Sigmoid", in(u(3, 4)), un(autograd.Sigmoid[float64])},
		{"Tanh", in(u(3, 4)), un(autograd.Tanh[float64])},
		{"Lgamma", in(pos(3, 4)), un(autograd.Lgamma[float64])},
		{"Sum", in(tr(3, 4)), un(func(x V) V { return autograd.Sum(x, 0, true) })},
		{"Max", in(u(3, 5)), un(func(x V) V { return autograd.Max(x, 1, false) })},
		{"LogSumExp", in(u(3, 5)), un(func(x V) V { return autograd.LogSumExp(x, 1, false) })},
		{"Softmax", in(u(4, 3)), un(func(x V) V { return autograd.Softmax(x, 0) })},
		{"LogSoftmax", in(tr(3, 5)), un(func(x V) V { return autograd.LogSoftmax(x, 1) })},
		{"MatMul", in(u(3, 4), u(4, 5)), bin(autograd.MatMul[float64])},
		{"MatMul", in(tr(3, 4), tr(4, 2)), bin(autograd.MatMul[float64])},
		{"MatMul", in(u(2, 3, 4), u(4, 2)), bin(autograd.MatMul[float64])},
		{"MatMul", in(u(33, 6), tr(6, 34)), bin(autograd.MatMul[float64])}, // tiled kernel
		{"Gather", in(u(3, 4)), un(func(x V) V { return autograd.Gather(x, 1, []int{0, 3, 3, 1, 2, 2}, 3, 2) })},
		{"Where", in(u(3, 4), u(4)), bin(func(a, b V) V { return autograd.Where(mask, a, b) })},
		{"Conv2D", in(u(2, 3, 6, 5), u(4, 3, 3, 2)), bin(func(x, w V) V {
			return autograd.Conv2D(x, w, tensor.ConvOptions{StrideH: 2, PadH: 1, PadW: 1, DilW: 2})
		})},
		{"Conv2D", in(u(1, 2, 4, 4), u(3, 2, 1, 1)), bin(func(x, w V) V { return autograd.Conv2D(x, w, tensor.ConvOptions{}) })},
		{"MaxPool2D", in(u(2, 2, 5, 6)), un(func(x V) V {
			return autograd.MaxPool2D(x, 2, 2, tensor.ConvOptions{StrideH: 2, StrideW: 2})
		})},
		{"MaxPool2D", in(u(1, 2, 5, 5)), un(func(x V) V {
			return autograd.MaxPool2D(x, 3, 3, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
		})},
		{"BatchNorm", in(u(3, 2, 2, 3), pos(2), u(2)), func(x []V) V {
			return autograd.BatchNorm(x[0], x[1], x[2], 1e-5, nil, nil)
		}},
		{"BatchNormRelu", in(u(3, 2, 2, 3), pos(2), u(2)), func(x []V) V {
			return autograd.BatchNormRelu(x[0], x[1], x[2], nil, 1e-5, nil, nil)
		}},
		{"BatchNormRelu+residual", in(u(3, 2, 2, 3), pos(2), u(2), u(3, 2, 2, 3)), func(x []V) V {
			return autograd.BatchNormRelu(x[0], x[1], x[2], x[3], 1e-5, nil, nil)
		}},
		{"LayerNorm", in(u(3, 5), pos(5), u(5)), func(x []V) V { return autograd.LayerNorm(x[0], x[1], x[2], 1e-5) }},
		{"LayerNorm", in(tr(4, 3), pos(3), u(3)), func(x []V) V { return autograd.LayerNorm(x[0], x[1], x[2], 1e-5) }},
		{"GELU", in(tr(3, 4)), un(autograd.GELU[float64])},
		{"Attention", in(u(2, 3, 4), u(2, 5, 4), u(2, 5, 4)), func(x []V) V { return autograd.Attention(x[0], x[1], x[2], 0.7) }},
		{"Attention", in(u(3, 2), tr(35, 2), u(35, 2)), func(x []V) V { return autograd.Attention(x[0], x[1], x[2], 1.3) }}, // two key tiles
		{"AvgPool2D", in(u(1, 1, 5, 5)), un(func(x V) V {
			return autograd.AvgPool2D(x, 3, 3, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
		})},
	}
	for _, c := range cases {
		checkOnDevice(t, c.name, dev, c.f, c.inputs)
	}

	// The ECL soft-binned estimator on logits, as ecl's own gradient test
	// (differentiable through the soft assignment and the per-bin sums), and
	// SoftECE. The mini-batch loss is not checked here: it holds its
	// auxiliary variables constant although they depend on the inputs, so
	// central differences do not measure its gradient; TestMiniBatchOnDevice
	// compares its gradients with the CPU's instead.
	logits := func(n, k int) *tensor.Tensor[float64] {
		return tensor.To(tensor.RandNormal[float64](r, 0, 2, n, k), dev)
	}
	for _, par := range []ecl.Paradigm{ecl.Canonical, ecl.ClassWise, ecl.TopLabel} {
		for _, norm := range []ecl.Norm{ecl.L1, ecl.L2} {
			sb, err := ecl.NewSoftBinned(ecl.Config{Paradigm: par, Classes: 3, Bins: 5, Input: ecl.InputLogits}, norm, 0)
			if err != nil {
				t.Fatal(err)
			}
			auxK := 3
			aux := func(v V) V { return autograd.Softmax(v, 1) }
			if par == ecl.TopLabel {
				auxK, aux = 2, ecl.CorrectnessProb[float64]
			}
			checkOnDevice(t, "SoftBinned "+par.String(), dev, func(x []V) V {
				return ecl.SoftBinnedLoss(sb, x[0], x[1], aux(x[2]), aux(x[3]))
			}, in(logits(7, 3), logits(5, 3), logits(7, auxK), logits(5, auxK)))
		}
	}
	correct := tensor.Step(tensor.To(tensor.RandUniform[float64](r, -0.3, 1, 20), dev))
	checkOnDevice(t, "SoftECE", dev, func(x []V) V { return ecl.SoftECE(x[0], correct, 15) },
		in(tensor.To(tensor.RandUniform[float64](r, 0.3, 1, 20), dev)))
}
