package tensor

import (
	"fmt"
	"math"
	"testing"
)

// checkMatMul compares MatMul(a, b) with a naive triple loop over the
// broadcast batch, reading the operands through At. Each element may differ
// by tol·Σ|a_il·b_lj|.
func checkMatMul[T Float](t *testing.T, label string, a, b *Tensor[T], tol float64) {
	t.Helper()
	got := MatMul(a, b)
	m, k, n := a.Dim(-2), a.Dim(-1), b.Dim(-1)
	batch, err := BroadcastShapes(a.Shape()[:a.Dims()-2], b.Shape()[:b.Dims()-2])
	if err != nil {
		t.Fatal(err)
	}
	if !expectShape(t, label, got, append(batch, m, n)...) {
		return
	}
	ra, rb, rg := reader(a), reader(b), reader(got)
	// operand index of a batch position, with broadcasting
	pos := func(x *Tensor[T], bi []int, i, j int) []int {
		lead := len(bi) - (x.Dims() - 2)
		idx := make([]int, x.Dims())
		for d := 0; d < x.Dims()-2; d++ {
			if x.Dim(d) != 1 {
				idx[d] = bi[d+lead]
			}
		}
		idx[x.Dims()-2], idx[x.Dims()-1] = i, j
		return idx
	}
	for _, bi := range allIndices(batch) {
		// This batch's operands, read element by element.
		am, bm := make([]float64, m*k), make([]float64, k*n)
		for i := range m {
			for l := range k {
				am[i*k+l] = ra(pos(a, bi, i, l)...)
			}
		}
		for l := range k {
			for j := range n {
				bm[l*n+j] = rb(pos(b, bi, l, j)...)
			}
		}
		for i := range m {
			for j := range n {
				var s, mag float64
				for l := range k {
					p := am[i*k+l] * bm[l*n+j]
					s += p
					mag += math.Abs(p)
				}
				g := rg(append(append([]int(nil), bi...), i, j)...)
				if math.Abs(g-s) > tol*mag+1e-30 || math.IsNaN(g) {
					t.Errorf("%s batch %v (%d,%d): got %v, want %v", label, bi, i, j, g, s)
					return
				}
			}
		}
	}
}

func testMatMul[T Float](t *testing.T, tol float64) {
	r := newRNG(41)
	rn := func(shape ...int) *Tensor[T] { return RandNormal[T](r, 0, 1, shape...) }
	for _, s := range [][3]int{{1, 1, 1}, {7, 5, 3}, {1, 6, 4}, {5, 6, 1}, {3, 1, 4}, {200, 300, 150}, {64, 1, 64}} {
		m, k, n := s[0], s[1], s[2]
		label := fmt.Sprintf("%s %dx%d·%dx%d", DType[T](), m, k, k, n)
		a, b := rn(m, k), rn(k, n)
		checkMatMul(t, label, a, b, tol)
		if m*k*n > 1e6 {
			continue
		}
		// Transposed views of either operand (BLAS takes them as they are).
		at, bt := Transpose(rn(k, m), 0, 1), Transpose(rn(n, k), 0, 1)
		checkMatMul(t, label+" aᵀ", at, b, tol)
		checkMatMul(t, label+" bᵀ", a, bt, tol)
		checkMatMul(t, label+" aᵀbᵀ", at, bt, tol)
		// Narrowed views: a sub-block with a leading dimension > its width.
		an := Narrow(Narrow(rn(m+3, k+4), 0, 2, m), 1, 3, k)
		bn := Narrow(Narrow(rn(k+1, n+5), 0, 1, k), 1, 4, n)
		checkMatMul(t, label+" narrowed", an, bn, tol)
		checkMatMul(t, label+" narrowed aᵀ", Transpose(Narrow(rn(k, m+2), 1, 1, m), 0, 1), bn, tol)
		// A broadcast row (stride 0) must still be read correctly.
		checkMatMul(t, label+" expanded", Expand(rn(1, k), m, k), b, tol)
	}
	// The large case with transposed operands, once.
	checkMatMul(t, "200x300·300x150 aᵀbᵀ", Transpose(rn(300, 200), 0, 1), Transpose(rn(150, 300), 0, 1), tol)

	// Batched and broadcast batches.
	checkMatMul(t, "batched [4 3 5]·[4 5 2]", rn(4, 3, 5), rn(4, 5, 2), tol)
	checkMatMul(t, "broadcast [2 1 3 4]·[3 4 5]", rn(2, 1, 3, 4), rn(3, 4, 5), tol)
	checkMatMul(t, "broadcast [1 3 4]·[5 4 2]", rn(1, 3, 4), rn(5, 4, 2), tol)
	checkMatMul(t, "2-D·3-D [3 4]·[2 4 5]", rn(3, 4), rn(2, 4, 5), tol)
	checkMatMul(t, "3-D·2-D [2 3 4]·[4 5]", rn(2, 3, 4), rn(4, 5), tol)
	checkMatMul(t, "batched transposed", Transpose(rn(3, 5, 4), 1, 2), Permute(rn(2, 3, 5), 1, 2, 0), tol)
	checkMatMul(t, "batched narrowed", Narrow(rn(5, 3, 4), 0, 1, 3), Narrow(rn(3, 4, 7), 2, 2, 3), tol)
	checkMatMul(t, "batch-transposed", Transpose(rn(3, 2, 4), 0, 1), rn(2, 4, 3), tol)

	// Empty dimensions.
	for _, c := range []struct{ a, b, want []int }{
		{[]int{3, 0}, []int{0, 4}, []int{3, 4}},
		{[]int{2, 3, 0}, []int{2, 0, 4}, []int{2, 3, 4}},
		{[]int{0, 3}, []int{3, 4}, []int{0, 4}},
		{[]int{3, 4}, []int{4, 0}, []int{3, 0}},
		{[]int{0, 2, 3}, []int{3, 4}, []int{0, 2, 4}},
	} {
		got := MatMul(rn(c.a...), rn(c.b...))
		if expectShape(t, fmt.Sprint("MatMul ", c.a, c.b), got, c.want...) {
			for _, v := range got.Data() {
				if v != 0 {
					t.Errorf("MatMul %v·%v with K = 0: element %v, want 0", c.a, c.b, v)
					break
				}
			}
		}
	}
}

func TestMatMulFloat64(t *testing.T) { testMatMul[float64](t, 1e-13) }
func TestMatMulFloat32(t *testing.T) { testMatMul[float32](t, 1e-5) }

func TestMatMulByHand(t *testing.T) {
	a := FromSlice([]float64{1, 2, 3, 4, 5, 6}, 2, 3)
	b := FromSlice([]float64{7, 8, 9, 10, 11, 12}, 3, 2)
	expectData(t, "2x3·3x2", MatMul(a, b), 58, 64, 139, 154)
	expectData(t, "(3x2)ᵀ·(2x3)ᵀ", MatMul(Transpose(b, 0, 1), Transpose(a, 0, 1)), 58, 139, 64, 154)
	expectData(t, "1x1", MatMul(FromSlice([]float64{3}, 1, 1), FromSlice([]float64{-2}, 1, 1)), -6)
	// The result does not alias either operand.
	c := MatMul(a, b)
	c.Set(0, 0, 0)
	expectData(t, "a after writing the product", a, 1, 2, 3, 4, 5, 6)
}

// gemmOperand accepts dense and transposed layouts (no copy) and rejects
// layouts BLAS cannot describe.
func TestGemmOperandLayouts(t *testing.T) {
	for _, c := range []struct {
		rows, cols, rs, cs int
		trans, ok          bool
		ld                 int
	}{
		{3, 4, 4, 1, false, true, 4},  // dense
		{3, 4, 7, 1, false, true, 7},  // narrowed columns
		{3, 4, 1, 3, true, true, 3},   // transposed
		{3, 4, 1, 5, true, true, 5},   // transposed and narrowed
		{3, 4, 0, 1, false, false, 0}, // broadcast rows
		{3, 4, 8, 2, false, false, 0}, // strided columns
		{1, 4, 99, 1, false, true, 4}, // one row: any row stride
		{4, 1, 1, 99, false, true, 1}, // one column
		{1, 4, 99, 3, true, true, 3},  // one row with column stride
		{3, 4, 2, 1, false, false, 0}, // overlapping rows
		{1, 1, 5, 7, false, true, 1},  // one element
	} {
		trans, ld, ok := gemmOperand(c.rows, c.cols, c.rs, c.cs)
		if ok != c.ok || (ok && (trans != c.trans || ld != c.ld)) {
			t.Errorf("gemmOperand(%d,%d, strides %d,%d) = %v,%d,%v; want %v,%d,%v", c.rows, c.cols, c.rs, c.cs, trans, ld, ok, c.trans, c.ld, c.ok)
		}
	}
}

// MatMulTo writes into a buffer of garbage exactly what MatMul returns
// (the same kernel): sizes 0, 1, odd and larger, K = 0, transposed views
// of either operand, both precisions; a wrong shape or a non-contiguous
// out panics naming the op.
func TestMatMulTo(t *testing.T) {
	testMatMulTo[float32](t)
	testMatMulTo[float64](t)
}

func testMatMulTo[T Float](t *testing.T) {
	r := newRNG(11)
	for _, c := range []struct{ m, k, n int }{{0, 3, 4}, {3, 0, 4}, {1, 1, 1}, {7, 5, 9}, {130, 70, 90}} {
		for _, trans := range []bool{false, true} {
			a, b := RandNormal[T](r, 0, 1, c.m, c.k), RandNormal[T](r, 0, 1, c.k, c.n)
			if trans {
				a = Transpose(RandNormal[T](r, 0, 1, c.k, c.m), 0, 1)
				b = Transpose(RandNormal[T](r, 0, 1, c.n, c.k), 0, 1)
			}
			out := Full[T](7, c.m, c.n)
			if got := MatMulTo(out, a, b); got != out {
				t.Fatalf("%+v: MatMulTo returned another tensor", c)
			}
			want := MatMul(a, b).Data()
			for i, v := range out.Data() {
				if v != want[i] {
					t.Fatalf("%v %+v transposed %v: element %d is %v, MatMul %v", DType[T](), c, trans, i, v, want[i])
				}
			}
		}
	}
	a, b := RandNormal[T](r, 0, 1, 3, 4), RandNormal[T](r, 0, 1, 4, 5)
	mustPanic(t, func() { MatMulTo(Zeros[T](3, 4), a, b) }, "MatMulTo", "[3 4]")
	mustPanic(t, func() { MatMulTo(Transpose(Zeros[T](5, 3), 0, 1), a, b) }, "MatMulTo", "non-contiguous")
}
