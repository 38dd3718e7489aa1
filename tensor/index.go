package tensor

import (
	"slices"
)

// Concat joins tensors along axis; all other dimensions must agree.
func Concat[T Float](axis int, ts ...*Tensor[T]) *Tensor[T] {
	if len(ts) == 0 {
		panic(shapeError("Concat", nil, "no tensors"))
	}
	dev := sameDevice("Concat", ts...)
	axis = ts[0].axis("Concat", axis)
	shape := slices.Clone(ts[0].shape)
	shape[axis] = 0
	for _, t := range ts {
		if len(t.shape) != len(shape) {
			panic(shapeError("Concat", [][]int{ts[0].shape, t.shape}, "shapes %v and %v along axis %d", ts[0].shape, t.shape, axis))
		}
		for d := range shape {
			if d != axis && t.shape[d] != shape[d] {
				panic(shapeError("Concat", [][]int{ts[0].shape, t.shape}, "shapes %v and %v along axis %d", ts[0].shape, t.shape, axis))
			}
		}
		shape[axis] += t.shape[axis]
	}
	out := outputOn(dev, shape...) // every element is copied in
	at := 0
	for _, t := range ts {
		dev.Copy(Narrow(out, axis, at, t.shape[axis]), t)
		at += t.shape[axis]
	}
	return out
}

// Stack joins tensors of one shape along a new axis.
func Stack[T Float](axis int, ts ...*Tensor[T]) *Tensor[T] {
	us := make([]*Tensor[T], len(ts))
	for i, t := range ts {
		us[i] = Unsqueeze(t, axis)
	}
	return Concat(axis, us...)
}

// checkIndex panics unless idx fits shape (one index per element) and every
// index is in [0, size).
func checkIndex(op string, idx, shape []int, size int) {
	if len(idx) != numel(shape) {
		panic(shapeError(op, [][]int{shape}, "%d indices for shape %v", len(idx), shape))
	}
	for i, v := range idx {
		if v < 0 || v >= size {
			panic(shapeError(op, [][]int{shape}, "index %d at position %d out of range [0, %d)", v, i, size))
		}
	}
}

// gatherShape is x's shape with axis resized to n, checked against shape.
func gatherShape(op string, xShape []int, axis int, shape []int) {
	ok := len(shape) == len(xShape)
	for d := 0; ok && d < len(shape); d++ {
		ok = d == axis || shape[d] == xShape[d]
	}
	if !ok {
		panic(shapeError(op, [][]int{shape, xShape}, "index shape %v does not match %v outside axis %d", shape, xShape, axis))
	}
}

// Gather picks along axis: out[i…, j, k…] = x[i…, idx[i…,j,k…], k…], where
// idx has one index per element of the result, whose shape is shape (equal to
// x's outside axis).
func Gather[T Float](x *Tensor[T], axis int, idx []int, shape ...int) *Tensor[T] {
	axis = x.axis("Gather", axis)
	gatherShape("Gather", x.shape, axis, shape)
	checkIndex("Gather", idx, shape, x.shape[axis])
	out := ZerosOn(x.Device(), shape...)
	x.Device().Gather(out, x, axis, idx)
	return out
}

// ScatterAdd is the adjoint of Gather: a zero tensor of shape with src added
// at the gathered positions (repeated indices accumulate).
func ScatterAdd[T Float](src *Tensor[T], axis int, idx []int, shape ...int) *Tensor[T] {
	axis = src.axis("ScatterAdd", axis)
	gatherShape("ScatterAdd", shape, axis, src.shape)
	checkIndex("ScatterAdd", idx, src.shape, shape[axis])
	out := ZerosOn(src.Device(), shape...)
	src.Device().ScatterAdd(out, Contiguous(src), axis, idx)
	return out
}

// SelectIndex returns the per-element index slice that makes Gather select
// whole slices idx[0], idx[1], … of x along axis (torch.index_select), and
// the result's shape.
func SelectIndex(xShape []int, axis int, idx []int) ([]int, []int) {
	shape := slices.Clone(xShape)
	shape[axis] = len(idx)
	inner := numel(xShape[axis+1:])
	full := make([]int, numel(shape))
	for i := range full {
		full[i] = idx[(i/inner)%len(idx)]
	}
	return full, shape
}

// IndexSelect takes the slices idx of x along axis.
func IndexSelect[T Float](x *Tensor[T], axis int, idx []int) *Tensor[T] {
	axis = x.axis("IndexSelect", axis)
	if len(idx) == 0 {
		shape := slices.Clone(x.shape)
		shape[axis] = 0
		return ZerosOn(x.Device(), shape...)
	}
	full, shape := SelectIndex(x.shape, axis, idx)
	return Gather(x, axis, full, shape...)
}

// OneHotOn is the [len(labels), k] matrix with a 1 at (i, labels[i]).
func OneHotOn[T Float](dev Device[T], labels []int, k int) *Tensor[T] {
	data := make([]T, len(labels)*k)
	for i, l := range labels {
		if l < 0 || l >= k {
			panic(shapeError("OneHot", [][]int{{len(labels), k}}, "label %d at position %d out of range [0, %d)", l, i, k))
		}
		data[i*k+l] = 1
	}
	return FromSliceOn(dev, data, len(labels), k)
}

// OneHot is OneHotOn on the CPU.
func OneHot[T Float](labels []int, k int) *Tensor[T] { return OneHotOn[T](CPU[T]{}, labels, k) }
