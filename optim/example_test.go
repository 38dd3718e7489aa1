package optim_test

import (
	"fmt"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/optim"
	"github.com/ecl-go/ecl/tensor"
)

// Minimise (w − 3)² with Adam: clear the gradients, build the loss,
// backpropagate, step.
func ExampleAdam() {
	w := autograd.Param(tensor.FromSlice([]float64{0}, 1))
	opt := optim.NewAdam([]*autograd.Var[float64]{w}, 0.1, 0)
	for range 500 {
		w.ZeroGrad()
		d := autograd.AddScalar(w, -3)
		autograd.SumAll(autograd.Mul(d, d)).Backward()
		opt.Step()
	}
	fmt.Printf("w = %.3f\n", w.Value.Data()[0])
	// Output: w = 3.000
}

// A step schedule: the rate ×0.1 at epochs 2 and 4, as PyTorch's
// MultiStepLR.
func ExampleMultiStep() {
	w := autograd.Param(tensor.FromSlice([]float64{0}, 1))
	opt := optim.NewSGD([]*autograd.Var[float64]{w}, 1, 0.9, 0, false)
	sched := optim.MultiStep{Base: 1, Milestones: []int{2, 4}, Gamma: 0.1}
	for epoch := range 5 {
		sched.Apply(opt, epoch)
		fmt.Printf("epoch %d: rate %.3g\n", epoch, opt.LR())
	}
	// Output:
	// epoch 0: rate 1
	// epoch 1: rate 1
	// epoch 2: rate 0.1
	// epoch 3: rate 0.1
	// epoch 4: rate 0.01
}
