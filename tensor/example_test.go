package tensor_test

import (
	"fmt"

	"github.com/ecl-go/ecl/tensor"
)

// Broadcasting adds a row vector to every row of a matrix; Transpose is a
// view, and Contiguous copies it into row-major order.
func Example() {
	x := tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	b := tensor.FromSlice([]float64{10, 20, 30})
	fmt.Println(tensor.Add(x, b).Data())
	xt := tensor.Transpose(x, 0, 1)
	fmt.Println(xt.Shape(), xt.IsContiguous(), tensor.Contiguous(xt).Data())
	// Output:
	// [11 22 33 14 25 36]
	// [3 2] false [1 4 2 5 3 6]
}

// Softmax along the class axis, and the predicted class.
func ExampleSoftmax() {
	logits := tensor.FromSlice([]float32{0, 0, 2, 1, 1, 1}, 2, 3)
	p := tensor.Softmax(logits, 1)
	fmt.Printf("%.3f\n", p.Data())
	fmt.Println(tensor.Ints(tensor.ArgMax(logits, 1, false)))
	// Output:
	// [0.107 0.107 0.787 0.333 0.333 0.333]
	// [2 0]
}

// MatMul multiplies the last two dimensions, broadcasting the batch.
func ExampleMatMul() {
	a := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2)
	id := tensor.FromSlice([]float64{0, 1, 1, 0}, 2, 2)
	fmt.Println(tensor.MatMul(a, id).Data())
	// Output: [2 1 4 3]
}
