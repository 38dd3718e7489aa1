package tensor

import (
	"fmt"
	"slices"
	"testing"
)

// ChannelAffine's CPU body equals its composed reference exactly (the same
// roundings), with and without the residual and the ReLU, on odd plane
// sizes, one image, 2-D inputs, and transposed views; bad shapes panic
// naming the op.
func TestChannelAffineMatchesComposed(t *testing.T) {
	r := newRNG(61)
	for _, sh := range [][]int{{2, 3, 5, 7}, {1, 4, 33}, {5, 6}, {3, 2, 1, 1}, {0, 3, 2}} {
		for _, withR := range []bool{false, true} {
			for _, relu := range []bool{false, true} {
				x := RandNormal[float32](r, 0, 1, sh...)
				scale, shift := RandNormal[float32](r, 0, 1, sh[1]), RandNormal[float32](r, 0, 1, sh[1])
				var res *Tensor[float32]
				if withR {
					res = RandNormal[float32](r, 0, 1, sh...)
				}
				name := fmt.Sprintf("%v residual %v relu %v", sh, withR, relu)
				got, want := ChannelAffine(x, scale, shift, res, relu), channelAffineComposed(x, scale, shift, res, relu)
				if !equalData(got, want) {
					t.Errorf("%s: differs from the composed ops", name)
				}
			}
		}
	}
	x := Transpose(RandNormal[float64](r, 0, 1, 4, 3), 0, 1) // [3, 4], not contiguous
	scale, shift := RandNormal[float64](r, 0, 1, 4), RandNormal[float64](r, 0, 1, 4)
	if !equalData(ChannelAffine(x, scale, shift, nil, true), channelAffineComposed(x, scale, shift, nil, true)) {
		t.Error("a transposed input differs from the composed ops")
	}
	mustPanic(t, func() { ChannelAffine(x, RandNormal[float64](r, 0, 1, 3), shift, nil, false) }, "ChannelAffine", "per-channel")
	mustPanic(t, func() { ChannelAffine(x, scale, shift, Zeros[float64](4, 3), false) }, "ChannelAffine", "residual")
}

// equalData reports whether a and b have the same shape and values.
func equalData[T Float](a, b *Tensor[T]) bool {
	return slices.Equal(a.Shape(), b.Shape()) && slices.Equal(Contiguous(a).Data(), Contiguous(b).Data())
}
