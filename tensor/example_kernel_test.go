package tensor_test

import (
	"fmt"

	"github.com/ecl-go/ecl/tensor"
)

// axpy is a fused op, a·x + y in one pass: a kernel declared once, whose
// attribute is the scale a.
var axpy = tensor.NewKernel[float64]("example.axpy")

// axpyComposed is the op as tensor ops: it runs on devices without a body
// and is the reference the bodies are tested against.
func axpyComposed(x, y *tensor.Tensor[float64], a float64) *tensor.Tensor[float64] {
	return tensor.Add(tensor.Scale(x, a), y)
}

// axpyCPU is the CPU body: one loop over the host slices.
func axpyCPU(out, in []*tensor.Tensor[float64], a float64) {
	o, x, y := tensor.HostData(out[0]), tensor.HostData(in[0]), tensor.HostData(in[1])
	for i := range o {
		o[i] = a*x[i] + y[i]
	}
}

// axpyOp runs the body registered for x's device, else the composed ops.
func axpyOp(x, y *tensor.Tensor[float64], a float64) *tensor.Tensor[float64] {
	body, ok := tensor.Lookup(axpy, x.Device())
	if !ok {
		return axpyComposed(x, y, a)
	}
	out := tensor.ZerosOn(x.Device(), x.Shape()...)
	body([]*tensor.Tensor[float64]{out}, []*tensor.Tensor[float64]{x, y}, a)
	return out
}

// The fused-op pattern: declare a kernel, keep its composed version,
// register a body per device (a backend registers its own without this
// package importing it), dispatch with Lookup.
func ExampleNewKernel() {
	x := tensor.FromSlice([]float64{1, 2, 3}, 3)
	y := tensor.FromSlice([]float64{10, 20, 30}, 3)
	fmt.Println("before registering:", axpyOp(x, y, 2).Data())
	tensor.Register(axpy, tensor.Device[float64](tensor.CPU[float64]{}), axpyCPU)
	fmt.Println("fused CPU body:    ", axpyOp(x, y, 2).Data())
	// Output:
	// before registering: [12 24 36]
	// fused CPU body:     [12 24 36]
}
