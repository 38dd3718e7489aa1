package tensor

import (
	"fmt"
	"testing"
)

// Conv2DAffine's CPU body equals its composed reference, ChannelAffine of
// Conv2D, to the bit, with and without the residual and the ReLU, on the
// gather path (3×3 at stride 1 and 2, on the canvas and row by row, the
// 7×7 stem) and on im2col's (1×1 at stride 1 and 2, a kernel too narrow
// to gather), in float32 and float64, with x a view (a narrowed channel range), with batches that
// span several canvases (the residual's image index), one image and none,
// on one and two cores; bad shapes panic naming the op.
func TestConv2DAffineMatchesComposed(t *testing.T) {
	cases := []struct {
		name      string
		x, w      []int
		o         ConvOptions
		gathers32 bool // whether the float32 forward takes the gather path
	}{
		{"3x3", []int{5, 16, 9, 11}, []int{24, 16, 3, 3}, ConvOptions{PadH: 1, PadW: 1}, true},
		{"3x3-rows", []int{9, 8, 28, 28}, []int{12, 8, 3, 3}, ConvOptions{PadH: 1, PadW: 1}, true},
		{"3x3-stride2", []int{3, 16, 15, 15}, []int{16, 16, 3, 3}, ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}, true},
		{"stem", []int{2, 3, 32, 32}, []int{16, 3, 7, 7}, ConvOptions{StrideH: 2, StrideW: 2, PadH: 3, PadW: 3}, true},
		{"1x1", []int{3, 32, 7, 7}, []int{48, 32, 1, 1}, ConvOptions{}, false},
		{"1x1-stride2", []int{2, 32, 9, 9}, []int{40, 32, 1, 1}, ConvOptions{StrideH: 2, StrideW: 2}, false},
		{"one-image", []int{1, 16, 8, 8}, []int{16, 16, 3, 3}, ConvOptions{PadH: 1, PadW: 1}, true},
		{"no-image", []int{0, 16, 8, 8}, []int{16, 16, 3, 3}, ConvOptions{PadH: 1, PadW: 1}, true},
	}
	for _, procs := range []int{1, 2} {
		t.Run(fmt.Sprint(procs), func(t *testing.T) {
			withProcs(t, procs)
			for i, c := range cases {
				if p := must(NewConv2DParams(c.x, c.w, c.o)); p.N > 0 && cpuISA >= isaAVX512 && takesGather[float32](p) != c.gathers32 {
					t.Errorf("%s: gather path %v, want %v", c.name, !c.gathers32, c.gathers32)
				}
				for _, withR := range []bool{false, true} {
					for _, relu := range []bool{false, true} {
						name := fmt.Sprintf("%s residual %v relu %v", c.name, withR, relu)
						checkConvAffine[float32](t, name, uint64(i), c.x, c.w, c.o, withR, relu)
						checkConvAffine[float64](t, name, uint64(i), c.x, c.w, c.o, withR, relu)
					}
				}
			}
		})
	}
	r := newRNG(7)
	x, w := RandNormal[float32](r, 0, 1, 2, 4, 5, 5), RandNormal[float32](r, 0, 1, 6, 4, 3, 3)
	v := RandNormal[float32](r, 0, 1, 6)
	mustPanic(t, func() { Conv2DAffine(x, w, RandNormal[float32](r, 0, 1, 4), v, nil, ConvOptions{}, false) }, "Conv2DAffine", "per-channel", "6 output channels")
	mustPanic(t, func() { Conv2DAffine(x, w, v, v, Zeros[float32](2, 6, 5, 5), ConvOptions{}, false) }, "Conv2DAffine", "residual", "[2 6 3 3]")
	mustPanic(t, func() { Conv2DAffine(x, Zeros[float32](6, 3, 3, 3), v, v, nil, ConvOptions{}, false) }, "Conv2DAffine")
}

func checkConvAffine[T Float](t *testing.T, name string, seed uint64, xs, ws []int, o ConvOptions, withR, relu bool) {
	t.Helper()
	r := newRNG(seed)
	// x a view: a narrowed channel range of a wider tensor.
	wide := append([]int{xs[0], xs[1] + 2}, xs[2:]...)
	x := Narrow(RandNormal[T](r, 0, 1, wide...), 1, 1, xs[1])
	w := RandNormal[T](r, 0, 0.3, ws...)
	scale, shift := RandNormal[T](r, 0, 1, ws[0]), RandNormal[T](r, 0, 1, ws[0])
	var res *Tensor[T]
	if withR {
		res = RandNormal[T](r, 0, 1, Conv2D(x, w, o).Shape()...)
	}
	got, want := Conv2DAffine(x, w, scale, shift, res, o, relu), conv2dAffineComposed(x, w, scale, shift, res, o, relu)
	if !equalData(got, want) {
		t.Errorf("%s %v: differs from ChannelAffine(Conv2D)", name, DType[T]())
	}
}
