package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// Build a small network whose tensors carry PyTorch's state_dict names,
// and compute a cross-entropy loss and its gradients.
func ExampleMLP() {
	rng := rand.New(rand.NewPCG(1, 2))
	vb := nn.NewVars[float64]()
	net := nn.MLP(vb, rng, 4, 8, 3) // 4 inputs, 8 hidden (ReLU), 3 classes
	for _, s := range net.State() {
		fmt.Println(s.Name, s.Value().Shape())
	}
	x := autograd.Const(tensor.RandUniform[float64](rng, -1, 1, 5, 4))
	loss := nn.CrossEntropy(net.Forward(x), []int{0, 1, 2, 0, 1})
	loss.Backward()
	fmt.Println("every parameter has a gradient:", allGrads(net.Params()))
	// Output:
	// 0.weight [8 4]
	// 0.bias [8]
	// 2.weight [3 8]
	// 2.bias [3]
	// every parameter has a gradient: true
}

func allGrads(ps []*autograd.Var[float64]) bool {
	for _, p := range ps {
		if p.Grad == nil {
			return false
		}
	}
	return true
}

// Cross-entropy of logits, by hand: logits (0, ln 3) give P(class 1) = ¾,
// so the loss of label 1 is −ln ¾ = 0.2877.
func ExampleCrossEntropy() {
	logits := autograd.Const(tensor.FromSlice([]float64{0, 1.0986122886681098}, 1, 2))
	fmt.Printf("%.4f\n", nn.CrossEntropy(logits, []int{1}).Value.Item())
	// Output: 0.2877
}
