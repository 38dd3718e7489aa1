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
			sameSteps(t, cpu, gpuNet, dev, x, labels, 1e-3, 2)
		})
	}
}

// TestTorchvisionStepOnDevice: two Adam steps of small torchvision
// networks (a bottleneck ResNet: 7×7/2 stem, padded 3×3/2 max pooling,
// stride-2 3×3 and 1×1 convolutions, adaptive average pooling; and a
// DenseNet-BC with its transitions' 2×2 average pooling) on 32×32 images
// match the CPU's losses and parameters (float64).
func TestTorchvisionStepOnDevice(t *testing.T) {
	dev := gpu[float64](t)
	nets := map[string]func(*rand.Rand) nn.Module[float64]{
		"resnet": func(r *rand.Rand) nn.Module[float64] {
			return nn.NewResNet(nn.NewVars[float64](), r, nn.ResNetConfig{Blocks: [4]int{2, 1, 1, 1}, Stem: 4, WidthPerGroup: 64, Classes: 5})
		},
		"densenet": func(r *rand.Rand) nn.Module[float64] {
			return nn.NewDenseNet(nn.NewVars[float64](), r, nn.DenseNetConfig{Growth: 4, Blocks: []int{2, 2}, Init: 8, BNSize: 2, Classes: 5})
		},
	}
	for name, mk := range nets {
		t.Run(name, func(t *testing.T) {
			cpu, onDev := mk(rand.New(rand.NewPCG(5, 5))), mk(rand.New(rand.NewPCG(5, 5)))
			nn.ToDevice[float64](onDev, dev)
			r := rand.New(rand.NewPCG(9, 9))
			sameSteps(t, cpu, onDev, dev, tensor.RandUniform[float64](r, -1, 1, 3, 3, 32, 32), []int{3, 1, 4}, 1e-2, 2)
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
	sameSteps(t, cpu, onDev, dev, tensor.RandUniform[float64](r, -1, 1, 3, 3, 8, 8), []int{3, 1, 4}, 1e-2, 3)
}

// sameSteps takes steps Adam steps (learning rate lr) of cpu on x and of
// onDev, its copy on dev, on x moved there, and checks that every loss and
// at the end every parameter and buffer agree and lie on dev: within 1e-8,
// since Adam divides a gradient near zero (a bias whose sum cancels) by its
// own magnitude, which turns summation-order rounding into steps of ~1e-9.
func sameSteps(t *testing.T, cpu, onDev nn.Module[float64], dev tensor.Device[float64], x *tensor.Tensor[float64], labels []int, lr float64, steps int) {
	t.Helper()
	step := func(m nn.Module[float64], x *tensor.Tensor[float64]) func() float64 {
		opt := optim.NewAdam(m.Params(), lr, 0)
		return func() float64 {
			nn.ZeroGrad(m)
			loss := nn.CrossEntropy(m.Forward(autograd.Const(x)), labels)
			loss.Backward()
			opt.Step()
			return loss.Value.Item()
		}
	}
	a, b := step(cpu, x), step(onDev, tensor.To(x, dev))
	for i := range steps {
		if l, g := a(), b(); !near(l, g) {
			t.Fatalf("step %d: loss %v on the CPU, %v on the device", i, l, g)
		}
	}
	want, got := cpu.State(), onDev.State()
	for i := range want {
		if got[i].Value().Device() != dev {
			t.Fatalf("%s on %s", got[i].Name, got[i].Value().Device())
		}
		same(t, want[i].Name, got[i].Value(), want[i].Value(), 1e-8, 1e-6)
	}
}

// near compares losses to 1e-9, absolute and relative.
func near(a, b float64) bool { return a-b <= 1e-9+1e-9*max(a, b) && b-a <= 1e-9+1e-9*max(a, b) }
