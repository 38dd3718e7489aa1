package tensor

import (
	"math"
	"testing"
)

// moveRows copies and adds as the element loops do for row lengths around
// the vector widths, padded strides and both element types, leave the
// elements between rows alone, and refuse rows past the end of a slice.
func TestRowMoves(t *testing.T) {
	testRowMoves[float32](t)
	testRowMoves[float64](t)
}

func testRowMoves[T Float](t *testing.T) {
	r := newRNG(3)
	for _, rows := range []int{1, 2, 5} {
		for cols := 0; cols <= 19; cols++ {
			ldd, lds := cols+3, cols+5
			src := randSlice[T](r, rows*lds)
			dst0 := randSlice[T](r, rows*ldd)
			for _, add := range []bool{false, true} {
				want := append([]T(nil), dst0...)
				for i := range rows {
					for j := range cols {
						if add {
							want[i*ldd+j] += src[i*lds+j]
						} else {
							want[i*ldd+j] = src[i*lds+j]
						}
					}
				}
				got := append([]T(nil), dst0...)
				moveRows(got, src, rows, cols, ldd, lds, add)
				for i := range got {
					if got[i] != want[i] {
						t.Fatalf("%s add=%v %d rows of %d: element %d is %v, want %v", DType[T](), add, rows, cols, i, got[i], want[i])
					}
				}
			}
		}
	}
	short := make([]T, 10)
	for _, f := range []func(){
		func() { moveRows(short, make([]T, 20), 2, 4, 7, 4, false) },
		func() { moveRows(make([]T, 20), short, 3, 4, 4, 4, true) },
	} {
		mustPanic(t, f, "row move out of range")
	}
}

// The dense block's element-wise kernels (assembly where the CPU allows)
// agree with their Go expressions to the bit, up to the sign of a zero, at
// every length, NaNs, zeros and infinities among the inputs.
func TestElementwiseKernels(t *testing.T) {
	checkElementwise[float32](t)
	checkElementwise[float64](t)
}

func checkElementwise[T Float](t *testing.T) {
	r := newRNG(5)
	a, b := T(r.NormFloat64()), T(r.NormFloat64())
	for _, k := range []struct {
		name string
		run  func(d, x, y []T)
		want func(d, x, y T) T
	}{
		{"affineRelu", func(d, x, _ []T) { affineRelu(d, x, a, b) }, func(_, x, _ T) T { return max(x*a+b, 0) }},
		{"affine", func(d, x, _ []T) { affine(d, x, a, b) }, func(_, x, _ T) T { return x*a + b }},
	} {
		for n := range 37 {
			d, x, y := make([]T, n), make([]T, n), make([]T, n)
			for i := range d {
				d[i], x[i], y[i] = T(r.NormFloat64()), T(r.NormFloat64()), T(r.NormFloat64())
			}
			if n > 11 {
				x[9], x[10], x[11] = T(math.NaN()), 0, T(math.Copysign(0, -1))
			}
			if n > 13 {
				x[12], x[13] = T(math.Inf(1)), T(math.Inf(-1))
			}
			want := make([]T, n)
			for i := range want {
				want[i] = k.want(d[i], x[i], y[i])
			}
			k.run(d, x, y)
			for i := range d {
				if d[i] != want[i] && !(d[i] != d[i] && want[i] != want[i]) {
					t.Fatalf("%s %s n=%d: [%d] = %v, want %v", k.name, DType[T](), n, i, d[i], want[i])
				}
			}
		}
	}
}
