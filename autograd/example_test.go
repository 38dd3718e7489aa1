package autograd_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// Gradients of a small logistic-regression loss with respect to its weights.
// By hand: z = (−0.5, −0.25), loss = mean(−log σ(z)) = 0.9000 and
// dloss/dw = xᵀ(σ(z) − 1)/2 = (−0.0301, −0.7630).
func Example() {
	x := autograd.Const(tensor.FromSlice([]float64{1, 2, -1, 0.5}, 2, 2))
	w := autograd.Param(tensor.FromSlice([]float64{0.1, -0.3}, 2, 1))
	p := autograd.Sigmoid(autograd.MatMul(x, w))            // [2,1]
	loss := autograd.MeanAll(autograd.Neg(autograd.Log(p))) // both labels are 1
	loss.Backward()
	fmt.Printf("loss %.4f\n", loss.Value.Item())
	fmt.Printf("dloss/dw %.4f\n", w.Grad.Data())
	// Output:
	// loss 0.9000
	// dloss/dw [-0.0301 -0.7630]
}

// Check compares backward against central differences.
func ExampleCheck() {
	r := rand.New(rand.NewPCG(1, 2))
	x := tensor.RandUniform[float64](r, -1, 1, 3, 4)
	rep, err := autograd.Check("softmax", func(xs []*autograd.Var[float64]) *autograd.Var[float64] {
		return autograd.Softmax(xs[0], 1)
	}, []*tensor.Tensor[float64]{x}, autograd.CheckOptions{})
	fmt.Println(err == nil, rep.Err < 1e-6)
	// Output: true true
}
