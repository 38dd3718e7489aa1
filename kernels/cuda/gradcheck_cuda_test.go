//go:build cuda

package cuda_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/autograd/gradcase"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/tensor"
)

// Float64 gradient checks of the engine with every tensor on the CUDA
// device: the analytic gradients of Backward (running the backward kernels)
// against central differences of the forward kernels, by autograd.Check.

// TestGradientsOnDevice runs every case of autograd/gradcase's table (the
// one autograd's TestGradients runs on the CPU) with its inputs and output
// on the device, then the ECL losses' cases.
func TestGradientsOnDevice(t *testing.T) {
	dev := gpu[float64](t)
	for i, c := range append(gradcase.Cases(), eclCases(t)...) {
		rep, err := c.Check(uint64(i), dev)
		if err != nil {
			t.Errorf("case %d: %v", i, err)
			continue
		}
		t.Logf("%-14s worst error %.2e", c.Name, rep.Err)
	}
}

// eclCases are the ECL soft-binned estimator on logits in each paradigm and
// norm, as ecl's own gradient test (differentiable through the soft
// assignment and the per-bin sums), and SoftECE. The mini-batch loss is
// not among them: it holds its auxiliary variables constant although they
// depend on the inputs, so central differences do not measure its
// gradient; TestMiniBatchOnDevice compares its gradients with the CPU's
// instead.
func eclCases(t *testing.T) []gradcase.Case {
	type V = *autograd.Var[float64]
	logits := func(r *rand.Rand, dev tensor.Device[float64], n, k int) *tensor.Tensor[float64] {
		return tensor.To(tensor.RandNormal[float64](r, 0, 2, n, k), dev)
	}
	var cases []gradcase.Case
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
			cases = append(cases, gradcase.Case{
				Name: "SoftBinned " + par.String(),
				Inputs: func(r *rand.Rand, dev tensor.Device[float64]) []*tensor.Tensor[float64] {
					return []*tensor.Tensor[float64]{logits(r, dev, 7, 3), logits(r, dev, 5, 3), logits(r, dev, 7, auxK), logits(r, dev, 5, auxK)}
				},
				F: func(x []V) V { return ecl.SoftBinnedLoss(sb, x[0], x[1], aux(x[2]), aux(x[3])) },
			})
		}
	}
	correct := tensor.Step(tensor.RandUniform[float64](rand.New(rand.NewPCG(21, 21)), -0.3, 1, 20))
	return append(cases, gradcase.Case{
		Name: "SoftECE",
		Inputs: func(r *rand.Rand, dev tensor.Device[float64]) []*tensor.Tensor[float64] {
			return []*tensor.Tensor[float64]{tensor.To(tensor.RandUniform[float64](r, 0.3, 1, 20), dev)}
		},
		F: func(x []V) V { return ecl.SoftECE(x[0], tensor.To(correct, x[0].Value.Device()), 15) },
	})
}

// TestGradcaseKeepsToTheDevice: Case.Check fails a case whose inputs or
// output are not on the device it was given.
func TestGradcaseKeepsToTheDevice(t *testing.T) {
	dev := gpu[float64](t)
	cpu := tensor.Device[float64](tensor.CPU[float64]{})
	onCPU := func(r *rand.Rand, _ tensor.Device[float64]) []*tensor.Tensor[float64] {
		return []*tensor.Tensor[float64]{tensor.RandUniform[float64](r, -1, 1, 3)}
	}
	onDev := func(r *rand.Rand, dev tensor.Device[float64]) []*tensor.Tensor[float64] {
		return []*tensor.Tensor[float64]{tensor.To(tensor.RandUniform[float64](r, -1, 1, 3), dev)}
	}
	toCPU := func(x []*autograd.Var[float64]) *autograd.Var[float64] {
		return autograd.Param(tensor.To(x[0].Value, cpu))
	}
	for _, c := range []struct {
		c    gradcase.Case
		want string
	}{
		{gradcase.Case{Name: "input", Inputs: onCPU, F: func(x []*autograd.Var[float64]) *autograd.Var[float64] { return x[0] }}, "input 0 on cpu"},
		{gradcase.Case{Name: "output", Inputs: onDev, F: toCPU}, "output on cpu"},
	} {
		if _, err := c.c.Check(1, dev); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one saying %q", c.c.Name, err, c.want)
		}
	}
}
