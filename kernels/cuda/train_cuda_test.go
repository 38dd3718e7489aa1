//go:build cuda

package cuda_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/optim"
	"github.com/ecl-go/ecl/tensor"
)

// Training runs unchanged on the device: LeNet-5 and ResNet-20 (batch
// norm in training mode) moved there by nn.ToDevice take the same Adam
// steps as on the CPU, float64, within summation-order rounding.
func TestTrainStepOnDevice(t *testing.T) {
	dev := gpu[float64](t)
	nets := map[string]func(*rand.Rand) *ecl.Classifier[float64]{
		"lenet5":   func(r *rand.Rand) *ecl.Classifier[float64] { return ecl.NewClassifier(r, nn.LeNet5[float64], 10, 2) },
		"resnet20": func(r *rand.Rand) *ecl.Classifier[float64] { return ecl.NewClassifier(r, nn.ResNet20[float64], 10, 2) },
	}
	for name, mk := range nets {
		t.Run(name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(7, 7))
			x := tensor.RandUniform[float64](r, -1, 1, 3, 3, 28, 28)
			labels := []int{3, 1, 4}
			cpu, gpuNet := mk(rand.New(rand.NewPCG(1, 1))), mk(rand.New(rand.NewPCG(1, 1)))
			nn.ToDevice[float64](gpuNet, dev)
			for _, n := range gpuNet.State() {
				if n.Value().Device() != dev {
					t.Fatalf("%s stayed on %s", n.Name, n.Value().Device())
				}
			}
			step := func(m *ecl.Classifier[float64], x *tensor.Tensor[float64]) func() float64 {
				opt := optim.NewAdam(m.Params(), 1e-3, 0)
				return func() float64 {
					nn.ZeroGrad[float64](m)
					loss := nn.CrossEntropy(m.Forward(autograd.Const(x)), labels)
					loss.Backward()
					opt.Step()
					return loss.Value.Item()
				}
			}
			onCPU, onDev := step(cpu, x), step(gpuNet, tensor.To(x, dev))
			for i := range 2 {
				if a, b := onCPU(), onDev(); !near(a, b) {
					t.Fatalf("step %d: loss %v on the CPU, %v on the device", i, a, b)
				}
			}
			want, got := cpu.State(), gpuNet.State()
			for i := range want {
				same(t, want[i].Name, got[i].Value(), want[i].Value(), 1e-9, 1e-6)
			}
		})
	}
}

// TestViTStepOnDevice: three Adam steps of a small ViT (two encoder blocks
// of two heads: layer norm, attention and GELU through the device's
// transformer kernels) on the device match the CPU's losses and every
// parameter (float64). The head starts at zero, so the second step is the
// first whose gradients reach the encoder.
func TestViTStepOnDevice(t *testing.T) {
	dev := gpu[float64](t)
	cfg := nn.ViTConfig{Image: 8, Patch: 2, Layers: 2, Heads: 2, Hidden: 16, MLP: 32, Classes: 5}
	cpu := nn.NewViT(nn.NewVars[float64](), rand.New(rand.NewPCG(3, 3)), cfg)
	onDev := nn.NewViT(nn.NewVars[float64](), rand.New(rand.NewPCG(3, 3)), cfg)
	nn.ToDevice[float64](onDev, dev)
	r := rand.New(rand.NewPCG(8, 8))
	x := tensor.RandUniform[float64](r, -1, 1, 3, 3, 8, 8)
	labels := []int{3, 1, 4}
	step := func(m *nn.ViT[float64], x *tensor.Tensor[float64]) func() float64 {
		opt := optim.NewAdam(m.Params(), 1e-2, 0)
		return func() float64 {
			nn.ZeroGrad[float64](m)
			loss := nn.CrossEntropy(m.Forward(autograd.Const(x)), labels)
			loss.Backward()
			opt.Step()
			return loss.Value.Item()
		}
	}
	a, b := step(cpu, x), step(onDev, tensor.To(x, dev))
	for i := range 3 {
		if l, g := a(), b(); !near(l, g) {
			t.Fatalf("step %d: loss %v on the CPU, %v on the device", i, l, g)
		}
	}
	want, got := cpu.State(), onDev.State()
	for i := range want {
		if got[i].Value().Device() != dev {
			t.Fatalf("%s on %s", got[i].Name, got[i].Value().Device())
		}
		same(t, want[i].Name, got[i].Value(), want[i].Value(), 1e-9, 1e-6)
	}
}

// near compares losses to 1e-9, absolute and relative.
func near(a, b float64) bool { return a-b <= 1e-9+1e-9*max(a, b) && b-a <= 1e-9+1e-9*max(a, b) }
