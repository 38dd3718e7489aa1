package tensor

import (
	"fmt"
	"slices"
	"testing"
)

func TestReshapeOfContiguousIsView(t *testing.T) {
	x := seq(2, 3, 4)
	for _, shape := range [][]int{{4, 6}, {24}, {2, 12}, {1, 24, 1}, {2, 3, 2, 2}, {2, 3, 4}} {
		v := Reshape(x, shape...)
		if v.Buffer() != x.Buffer() {
			t.Errorf("Reshape %v copied", shape)
		}
		expectShape(t, fmt.Sprint("Reshape ", shape), v, shape...)
		if !v.IsContiguous() {
			t.Errorf("Reshape %v: strides %v not contiguous", shape, v.Strides())
		}
		expectData(t, fmt.Sprint("Reshape ", shape), v, x.Data()...)
	}
	if s := Reshape(x, 4, 6).Strides(); !slices.Equal(s, []int{6, 1}) {
		t.Errorf("strides %v, want [6 1]", s)
	}
	// A write through the view shows in the original.
	Reshape(x, 24).Set(-7, 13)
	if x.At(1, 0, 1) != -7 {
		t.Error("write through a reshaped view was lost")
	}
	// One element to a scalar and back.
	s := Reshape(FromSlice([]float64{4}, 1, 1), []int{}...)
	if s.Dims() != 0 || s.Item() != 4 {
		t.Errorf("Reshape to 0-d: %v", s)
	}
}

func TestReshapeInfersMinusOne(t *testing.T) {
	x := seq(2, 3, 4)
	for _, c := range []struct{ in, want []int }{
		{[]int{-1}, []int{24}},
		{[]int{-1, 4}, []int{6, 4}},
		{[]int{3, -1}, []int{3, 8}},
		{[]int{2, -1, 3}, []int{2, 4, 3}},
		{[]int{-1, 1, 1}, []int{24, 1, 1}},
	} {
		expectShape(t, fmt.Sprint("Reshape ", c.in), Reshape(x, c.in...), c.want...)
	}
	// Zero elements: -1 next to known sizes that are not zero.
	expectShape(t, "Reshape empty", Reshape(Zeros[float64](0, 3), -1, 3), 0, 3)
	mustPanic(t, func() { Reshape(x, -1, -1) }, "tensor.Reshape")
	mustPanic(t, func() { Reshape(x, -1, 5) }, "tensor.Reshape", "[2 3 4]")
	mustPanic(t, func() { Reshape(x, -2, 12) }, "tensor.Reshape")
}

// With zero elements -1 is ambiguous; it must not survive into the shape.
func TestReshapeMinusOneWithZeroElementsIsRejected(t *testing.T) {
	mustPanic(t, func() { Reshape(Zeros[float64](0, 3), -1, 0) }, "tensor.Reshape", "-1")
}

// Expand takes sizes, not -1 placeholders: a negative size must not make a
// tensor with a negative dimension.
func TestExpandRejectsNegativeSizes(t *testing.T) {
	mustPanic(t, func() { Expand(Zeros[float64](1), -1) }, "tensor.Expand", "[-1]")
}

// Reshape must keep the row-major order of any view, sharing the buffer
// only when the strides allow it.
func TestReshapeOfViews(t *testing.T) {
	x := seq(4, 3, 6)
	views := map[string]*Tensor[float64]{
		"transposed":  Transpose(x, 0, 2),  // [6 3 4]
		"permuted":    Permute(x, 1, 0, 2), // [3 4 6]
		"narrow0":     Narrow(x, 0, 1, 2),  // [2 3 6], contiguous
		"narrow2":     Narrow(x, 2, 2, 3),  // [4 3 3]
		"expanded":    Expand(Narrow(x, 0, 0, 1), 2, 3, 6),
		"unsqueezed":  Unsqueeze(Transpose(x, 1, 2), 1), // [4 1 6 3]
		"narrow-tran": Narrow(Transpose(x, 0, 1), 0, 1, 2),
	}
	for name, v := range views {
		n := v.Len()
		for _, shape := range [][]int{{n}, {-1, v.Dim(-1)}, {v.Dim(0), -1}, {1, n, 1}, slices.Concat(v.Shape(), []int{1})} {
			r := Reshape(v, shape...)
			if r.Len() != n {
				t.Fatalf("%s → %v: %d elements", name, shape, r.Len())
			}
			expectData(t, fmt.Sprintf("%s → %v", name, shape), r, v.Data()...)
			if r.Buffer() == x.Buffer() {
				// A view: every element must sit where the source view has it.
				for i, idx := range allIndices(r.Shape()) {
					src := allIndices(v.Shape())[i]
					if offsetOf(r, idx) != offsetOf(v, src) {
						t.Fatalf("%s → %v: element %d at offset %d, want %d", name, shape, i, offsetOf(r, idx), offsetOf(v, src))
					}
				}
			}
		}
	}
	// Cases with a known answer.
	tr := Transpose(seq(3, 4), 0, 1) // [4 3], strides [1 4]
	if Reshape(tr, 12).Buffer() == tr.Buffer() {
		t.Error("Reshape of a transposed matrix to 1-D must copy")
	}
	if r := Reshape(tr, 2, 2, 3); r.Buffer() != tr.Buffer() || !slices.Equal(r.Strides(), []int{2, 1, 4}) {
		t.Errorf("splitting a transposed axis should be a view, got strides %v shared=%v", r.Strides(), r.Buffer() == tr.Buffer())
	}
	if r := Reshape(tr, 4, 3, 1); r.Buffer() != tr.Buffer() {
		t.Error("adding a size-1 dimension should be a view")
	}
	if y := seq(2, 3, 4); Reshape(Narrow(y, 0, 1, 1), 12).Buffer() != y.Buffer() || Reshape(Narrow(y, 0, 1, 1), 12).Offset() != 12 {
		t.Error("Reshape of a leading narrow should be a view at offset 12")
	}
}

func TestPermuteTranspose(t *testing.T) {
	x := seq(2, 3, 4) // strides [12 4 1]
	p := Permute(x, 2, 0, 1)
	expectShape(t, "Permute", p, 4, 2, 3)
	if !slices.Equal(p.Strides(), []int{1, 12, 4}) || p.Buffer() != x.Buffer() {
		t.Errorf("Permute strides %v", p.Strides())
	}
	expectEach(t, "Permute", p, 0, func(i []int) float64 { return x.At(i[1], i[2], i[0]) })
	if q := Permute(x, -1, 0, -2); !slices.Equal(q.Shape(), p.Shape()) || !slices.Equal(q.Strides(), p.Strides()) {
		t.Errorf("Permute with negative axes %v %v", q.Shape(), q.Strides())
	}
	expectEach(t, "Permute identity", Permute(x, 0, 1, 2), 0, func(i []int) float64 { return x.At(i...) })

	tr := Transpose(x, 0, 2)
	expectShape(t, "Transpose", tr, 4, 3, 2)
	if !slices.Equal(tr.Strides(), []int{1, 4, 12}) || tr.IsContiguous() {
		t.Errorf("Transpose strides %v", tr.Strides())
	}
	expectEach(t, "Transpose", tr, 0, func(i []int) float64 { return x.At(i[2], i[1], i[0]) })
	tn := Transpose(x, -1, -2)
	expectShape(t, "Transpose(-1,-2)", tn, 2, 4, 3)
	expectEach(t, "Transpose(-1,-2)", tn, 0, func(i []int) float64 { return x.At(i[0], i[2], i[1]) })
	// Transposing twice gives back the original layout.
	if tt := Transpose(tr, 0, 2); !slices.Equal(tt.Strides(), x.Strides()) || !tt.IsContiguous() {
		t.Errorf("double transpose strides %v", tt.Strides())
	}
	mustPanic(t, func() { Permute(x, 0, 0, 1) }, "tensor.Permute", "repeated")
	mustPanic(t, func() { Permute(x, 0, 1) }, "tensor.Permute", "[2 3 4]")
	mustPanic(t, func() { Transpose(x, 0, 3) }, "tensor.Transpose", "axis 3")
}

func TestNarrow(t *testing.T) {
	x := seq(2, 5, 4)
	n := Narrow(x, 1, 1, 3)
	expectShape(t, "Narrow", n, 2, 3, 4)
	if n.Offset() != 4 || !slices.Equal(n.Strides(), x.Strides()) || n.Buffer() != x.Buffer() {
		t.Errorf("Narrow offset %d strides %v", n.Offset(), n.Strides())
	}
	expectEach(t, "Narrow", n, 0, func(i []int) float64 { return x.At(i[0], i[1]+1, i[2]) })
	// Narrow of a narrow accumulates offsets, negative axis counts from the end.
	nn := Narrow(n, -1, 2, 2)
	expectShape(t, "Narrow∘Narrow", nn, 2, 3, 2)
	expectEach(t, "Narrow∘Narrow", nn, 0, func(i []int) float64 { return x.At(i[0], i[1]+1, i[2]+2) })
	if e := Narrow(x, 2, 4, 0); e.Len() != 0 || !slices.Equal(e.Shape(), []int{2, 5, 0}) {
		t.Errorf("empty Narrow %v", e.Shape())
	}
	if !Narrow(x, 0, 1, 1).IsContiguous() || Narrow(x, 2, 0, 2).IsContiguous() {
		t.Error("IsContiguous of narrowed views")
	}
	mustPanic(t, func() { Narrow(x, 1, 3, 3) }, "tensor.Narrow", "[2 5 4]")
	mustPanic(t, func() { Narrow(x, 1, -1, 1) }, "tensor.Narrow")
}

func TestExpandUnsqueezeSqueeze(t *testing.T) {
	col := FromSlice([]float64{1, 2, 3}, 3, 1)
	e := Expand(col, 2, 3, 4)
	expectShape(t, "Expand", e, 2, 3, 4)
	if !slices.Equal(e.Strides(), []int{0, 1, 0}) || e.Buffer() != col.Buffer() || e.IsContiguous() {
		t.Errorf("Expand strides %v", e.Strides())
	}
	expectEach(t, "Expand", e, 0, func(i []int) float64 { return float64(i[1] + 1) })
	if s := Expand(col, 3, 1); !slices.Equal(s.Strides(), col.Strides()) {
		t.Errorf("Expand to the same shape changed strides to %v", s.Strides())
	}
	expectShape(t, "Expand scalar", Expand(Scalar(2.0), 2, 2), 2, 2)
	expectData(t, "Expand scalar", Expand(Scalar(2.0), 2, 2), 2, 2, 2, 2)
	expectShape(t, "Expand to zero", Expand(col, 3, 0), 3, 0)
	mustPanic(t, func() { Expand(col, 3) }, "tensor.Expand", "[3 1]", "[3]")
	mustPanic(t, func() { Expand(col, 2, 4) }, "tensor.Expand", "[3 1]", "[2 4]")

	x := seq(2, 3)
	for _, c := range []struct {
		axis  int
		shape []int
	}{{0, []int{1, 2, 3}}, {1, []int{2, 1, 3}}, {2, []int{2, 3, 1}}, {-1, []int{2, 3, 1}}, {-3, []int{1, 2, 3}}} {
		u := Unsqueeze(x, c.axis)
		expectShape(t, fmt.Sprint("Unsqueeze ", c.axis), u, c.shape...)
		if !u.IsContiguous() || u.Buffer() != x.Buffer() {
			t.Errorf("Unsqueeze %d: strides %v", c.axis, u.Strides())
		}
		expectData(t, fmt.Sprint("Unsqueeze ", c.axis), u, x.Data()...)
		back := Squeeze(u, c.axis)
		if !slices.Equal(back.Shape(), x.Shape()) || !slices.Equal(back.Strides(), x.Strides()) {
			t.Errorf("Squeeze(Unsqueeze(x, %d)) is %v %v", c.axis, back.Shape(), back.Strides())
		}
	}
	expectShape(t, "Unsqueeze scalar", Unsqueeze(Scalar(1.0), 0), 1)
	expectShape(t, "Squeeze to scalar", Squeeze(FromSlice([]float64{5}), 0))
	mustPanic(t, func() { Squeeze(x, 1) }, "tensor.Squeeze", "[2 3]")
	mustPanic(t, func() { Unsqueeze(x, 3) }, "tensor.Unsqueeze", "[2 3]")
}

func TestContiguousAndClone(t *testing.T) {
	x := seq(3, 4)
	if Contiguous(x) != x {
		t.Error("Contiguous of a dense tensor should return it unchanged")
	}
	tr := Transpose(x, 0, 1)
	c := Contiguous(tr)
	if c.Buffer() == x.Buffer() || !c.IsContiguous() || !slices.Equal(c.Strides(), []int{3, 1}) {
		t.Errorf("Contiguous of a transpose: strides %v", c.Strides())
	}
	expectEach(t, "Contiguous", c, 0, func(i []int) float64 { return x.At(i[1], i[0]) })
	c.Set(100, 0, 1)
	if x.At(1, 0) == 100 {
		t.Error("writing Contiguous's copy changed the original")
	}
	// Clone always copies, even when the source is dense.
	for name, src := range map[string]*Tensor[float64]{"dense": x, "transposed": tr, "narrowed": Narrow(x, 1, 1, 2), "expanded": Expand(Narrow(x, 0, 0, 1), 3, 4)} {
		before := src.Data()
		cl := Clone(src)
		if cl.Buffer() == x.Buffer() || !cl.IsContiguous() || cl.Offset() != 0 {
			t.Errorf("Clone %s shares the buffer or is not dense", name)
		}
		expectData(t, "Clone "+name, cl, before...)
		cl.Set(-1, 0, 0)
		expectData(t, "original after writing the clone of "+name, src, before...)
	}
}

func TestIsContiguous(t *testing.T) {
	x := seq(2, 3, 4)
	for name, c := range map[string]struct {
		v    *Tensor[float64]
		want bool
	}{
		"fresh":            {x, true},
		"scalar":           {Scalar(1.0), true},
		"transposed":       {Transpose(x, 1, 2), false},
		"narrow first":     {Narrow(x, 0, 1, 1), true},
		"narrow middle":    {Narrow(x, 1, 0, 2), false},
		"narrow last":      {Narrow(x, 2, 1, 2), false},
		"unsqueezed":       {Unsqueeze(x, 1), true},
		"expanded":         {Expand(Narrow(x, 0, 0, 1), 2, 3, 4), false},
		"size-1 transpose": {Transpose(seq(1, 5), 0, 1), true},
		"empty":            {Zeros[float64](0, 4), true},
	} {
		if got := c.v.IsContiguous(); got != c.want {
			t.Errorf("%s (shape %v strides %v): IsContiguous %v, want %v", name, c.v.Shape(), c.v.Strides(), got, c.want)
		}
	}
}

func TestSetAtOnViews(t *testing.T) {
	x := seq(3, 4)
	tr := Transpose(x, 0, 1)
	tr.Set(-1, 3, 1)
	if x.At(1, 3) != -1 {
		t.Errorf("Set on a transposed view: x[1,3] = %v", x.At(1, 3))
	}
	n := Narrow(Narrow(x, 0, 1, 2), 1, 2, 2)
	n.Set(-2, 1, 1)
	if x.At(2, 3) != -2 {
		t.Errorf("Set on a narrowed view: x[2,3] = %v", x.At(2, 3))
	}
	// An expanded view has one element behind every broadcast position.
	base := FromSlice([]float64{1, 2}, 2, 1)
	e := Expand(base, 2, 5)
	e.Set(9, 1, 3)
	expectData(t, "expanded after Set", e, 1, 1, 1, 1, 1, 9, 9, 9, 9, 9)
	expectData(t, "base after Set", base, 1, 9)
	// At, Dim, Len, Dims and Item.
	if x.Dim(-1) != 4 || x.Dim(0) != 3 || x.Len() != 12 || x.Dims() != 2 {
		t.Error("Dim/Len/Dims")
	}
	mustPanic(t, func() { x.At(3, 0) }, "out of range", "[3 4]")
	mustPanic(t, func() { x.At(1) }, "[3 4]")
	mustPanic(t, func() { x.Item() }, "Item", "[3 4]")
	mustPanic(t, func() { x.Dim(2) }, "axis 2")
}

func TestCopyIntoView(t *testing.T) {
	dst := Zeros[float64](3, 4)
	src := Transpose(FromSlice([]float64{1, 2, 3, 4}, 2, 2), 0, 1)
	CopyInto(Narrow(Narrow(dst, 0, 1, 2), 1, 1, 2), src)
	expectData(t, "CopyInto", dst, 0, 0, 0, 0, 0, 1, 3, 0, 0, 2, 4, 0)
	mustPanic(t, func() { CopyInto(dst, src) }, "tensor.CopyInto", "[3 4]", "[2 2]")
}

func TestHostDataAndData(t *testing.T) {
	x := seq(2, 3)
	h := HostData(Narrow(x, 0, 1, 1))
	if len(h) != 3 || h[0] != 3 {
		t.Fatalf("HostData of a narrowed row: %v", h)
	}
	h[0] = 42
	if x.At(1, 0) != 42 {
		t.Error("HostData does not alias the tensor")
	}
	d := x.Data()
	d[0] = -5
	if x.At(0, 0) == -5 {
		t.Error("Data aliases the tensor")
	}
	mustPanic(t, func() { HostData(Transpose(x, 0, 1)) }, "tensor.HostData", "non-contiguous")
	if s := x.String(); s != "Tensor[float64][2 3] on cpu [0 1 2 42 4 5]" {
		t.Errorf("String %q", s)
	}
}

// Shape of a 0-d tensor must round-trip through FromSlice, which treats a nil
// shape as "1-D".
func TestScalarShapeRoundTrip(t *testing.T) {
	s := Scalar(3.0)
	if r := FromSlice(s.Data(), s.Shape()...); r.Dims() != 0 {
		t.Errorf("FromSlice(s.Data(), s.Shape()...) of a scalar has shape %v, want []", r.Shape())
	}
	if r := Convert[float32](Reshape(FromSlice([]float64{5}, 1))); r.Dims() != 0 {
		t.Errorf("Convert of a 0-d Reshape has shape %v, want []", r.Shape())
	}
}
