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

// near compares losses to 1e-9, absolute and relative.
func near(a, b float64) bool { return a-b <= 1e-9+1e-9*max(a, b) && b-a <= 1e-9+1e-9*max(a, b) }
