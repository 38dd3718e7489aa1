package tensor_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

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

// Reshape is a view when the strides allow it (it shares the buffer) and a
// copy otherwise; -1 is inferred.
func ExampleReshape() {
	x := tensor.Arange[float64](0, 6, 1)
	m := tensor.Reshape(x, 2, -1)
	fmt.Println(m.Shape(), m.Buffer() == x.Buffer())
	t := tensor.Transpose(m, 0, 1)
	flat := tensor.Reshape(t, 6)
	fmt.Println(flat.Data(), flat.Buffer() == x.Buffer())
	// Output:
	// [2 3] true
	// [0 3 1 4 2 5] false
}

// Expand repeats size-1 dimensions with stride 0, without copying.
func ExampleExpand() {
	col := tensor.FromSlice([]float64{1, 2}, 2, 1)
	e := tensor.Expand(col, 2, 3)
	fmt.Println(e.Shape(), e.Strides(), e.Data())
	// Output: [2 3] [1 0] [1 1 1 2 2 2]
}

// Narrow selects a range along one axis as a view: writes go through.
func ExampleNarrow() {
	x := tensor.Zeros[float64](2, 4)
	tensor.Narrow(x, 1, 1, 2).Set(5, 1, 0)
	fmt.Println(x.Data())
	// Output: [0 0 0 0 0 5 0 0]
}

// Sum reduces one axis; keepDims keeps it with size 1.
func ExampleSum() {
	x := tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	fmt.Println(tensor.Sum(x, 0, false).Data())
	s := tensor.Sum(x, 1, true)
	fmt.Println(s.Shape(), s.Data())
	fmt.Println(tensor.MeanAll(x).Item())
	// Output:
	// [5 7 9]
	// [2 1] [6 15]
	// 3.5
}

// LogSumExp is computed around the maximum, so it neither overflows nor
// turns a row of −∞ into NaN.
func ExampleLogSumExp() {
	x := tensor.FromSlice([]float64{1000, 1000, math.Inf(-1), math.Inf(-1)}, 2, 2)
	fmt.Printf("%.4f\n", tensor.LogSumExp(x, 1, false).Data())
	// Output: [1000.6931 -Inf]
}

// Gather picks one element per position along an axis; ScatterAdd is its
// adjoint, accumulating repeated indices.
func ExampleGather() {
	x := tensor.FromSlice([]float64{10, 11, 12, 20, 21, 22}, 2, 3)
	fmt.Println(tensor.Gather(x, 1, []int{2, 0}, 2, 1).Data())
	g := tensor.FromSlice([]float64{1, 1, 1}, 1, 3)
	fmt.Println(tensor.ScatterAdd(g, 1, []int{0, 2, 0}, 1, 3).Data())
	// Output:
	// [12 20]
	// [2 0 1]
}

// Where picks x where the condition is non-zero, else y; all three broadcast.
func ExampleWhere() {
	x := tensor.FromSlice([]float64{-2, -1, 0, 1, 2})
	pos := tensor.Greater(x, tensor.Scalar(0.0))
	fmt.Println(tensor.Where(pos, x, tensor.Scalar(0.0)).Data())
	// Output: [0 0 0 1 2]
}

// Concat joins along an existing axis, Stack along a new one.
func ExampleConcat() {
	a := tensor.FromSlice([]float64{1, 2}, 1, 2)
	b := tensor.FromSlice([]float64{3, 4}, 1, 2)
	fmt.Println(tensor.Concat(0, a, b).Shape(), tensor.Concat(1, a, b).Data())
	fmt.Println(tensor.Stack(0, a, b).Shape())
	// Output:
	// [2 2] [1 2 3 4]
	// [2 1 2]
}

// OneHot encodes class labels; IndexSelect takes whole slices.
func ExampleOneHot() {
	fmt.Println(tensor.OneHot[float32]([]int{2, 0}, 3).Data())
	x := tensor.FromSlice([]float64{1, 2, 3, 4, 5, 6}, 3, 2)
	fmt.Println(tensor.IndexSelect(x, 0, []int{2, 2, 0}).Data())
	// Output:
	// [0 0 1 1 0 0]
	// [5 6 5 6 1 2]
}

// BroadcastShapes aligns shapes from the right, NumPy style.
func ExampleBroadcastShapes() {
	s, err := tensor.BroadcastShapes([]int{2, 1, 4}, []int{3, 1})
	fmt.Println(s, err)
	_, err = tensor.BroadcastShapes([]int{2, 3}, []int{4})
	fmt.Println(err)
	// Output:
	// [2 3 4] <nil>
	// tensor.BroadcastShapes: shapes [2 3] and [4] do not broadcast
}

// Random tensors are reproducible from the generator's seed.
func ExampleRandNormal() {
	a := tensor.RandNormal[float64](rand.New(rand.NewPCG(1, 2)), 0, 1, 3)
	b := tensor.RandNormal[float64](rand.New(rand.NewPCG(1, 2)), 0, 1, 3)
	fmt.Println(a.Shape(), slices.Equal(a.Data(), b.Data()))
	// Output: [3] true
}

// Shape errors panic with the op's name and the shapes.
func ExampleAdd_shapeMismatch() {
	defer func() { fmt.Println(recover()) }()
	tensor.Add(tensor.Zeros[float64](2, 3), tensor.Zeros[float64](4))
	// Output: tensor.Add: shapes [2 3] and [4] do not broadcast
}

// ParallelFor splits a loop over the cores from 2¹⁵ scalar operations;
// each chunk writes its own part of the result.
func ExampleParallelFor() {
	squares := make([]int, 100_000)
	tensor.ParallelFor(len(squares), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			squares[i] = i * i
		}
	})
	fmt.Println(squares[3], squares[99_999])
	// Output: 9 9999800001
}

// Conv2DAffine is a convolution followed by batch normalisation in
// evaluation mode (its running statistics folded into a scale and shift per
// output channel), a residual and the ReLU, in one pass on the CPU: the
// same values as the two ops.
func ExampleConv2DAffine() {
	x := tensor.FromSlice([]float32{1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 1, 3, 3)
	w := tensor.FromSlice([]float32{1, 0, 0, -1}, 2, 1, 1, 2) // two 1×2 kernels
	scale, shift := tensor.FromSlice([]float32{2, 0.5}), tensor.FromSlice([]float32{-3, 1})
	y := tensor.Conv2DAffine(x, w, scale, shift, nil, tensor.ConvOptions{}, true)
	fmt.Println(y.Shape(), y.Data())
	want := tensor.ChannelAffine(tensor.Conv2D(x, w, tensor.ConvOptions{}), scale, shift, nil, true)
	fmt.Println(slices.Equal(y.Data(), want.Data()))
	// Output:
	// [1 2 3 2] [0 1 5 7 11 13 0 0 0 0 0 0]
	// true
}

// A loop multiplies into one buffer instead of allocating a product per
// step.
func ExampleMatMulTo() {
	a := tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2)
	out := tensor.Zeros[float64](2, 2)
	for range 2 {
		tensor.MatMulTo(out, a, a)
	}
	fmt.Println(out.Data())
	// Output: [7 10 15 22]
}
