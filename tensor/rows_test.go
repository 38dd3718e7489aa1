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

// affineRelu (assembly where the CPU allows) agrees with the Go formula to
// the bit, up to the sign of a zero, NaN passing through, at every length.
func TestAffineRelu(t *testing.T) {
	checkAffineRelu[float32](t)
	checkAffineRelu[float64](t)
}

func checkAffineRelu[T Float](t *testing.T) {
	r := newRNG(5)
	for n := range 37 {
		src, dst := make([]T, n), make([]T, n)
		for i := range src {
			src[i] = T(r.NormFloat64())
		}
		if n > 9 {
			src[9] = T(math.NaN())
		}
		a, b := T(r.NormFloat64()), T(r.NormFloat64())
		affineRelu(dst, src, a, b)
		for i, v := range src {
			want := max(v*a+b, 0)
			if dst[i] != want && !(want != want && dst[i] != dst[i]) {
				t.Fatalf("%s n=%d: dst[%d] = %v, want %v", DType[T](), n, i, dst[i], want)
			}
		}
	}
}

// keepPositive (assembly where the CPU allows) clears exactly where z ≤ 0,
// keeping NaN's, at every length.
func TestKeepPositive(t *testing.T) {
	checkKeepPositive[float32](t)
	checkKeepPositive[float64](t)
}

func checkKeepPositive[T Float](t *testing.T) {
	r := newRNG(7)
	for n := range 37 {
		d, z := make([]T, n), make([]T, n)
		for i := range d {
			d[i], z[i] = T(r.NormFloat64()), T(r.NormFloat64())
		}
		if n > 11 {
			z[9], z[10], z[11] = T(math.NaN()), 0, T(math.Copysign(0, -1))
		}
		want := append([]T(nil), d...)
		for i, v := range z {
			if v <= 0 {
				want[i] = 0
			}
		}
		keepPositive(d, z)
		for i := range d {
			if d[i] != want[i] {
				t.Fatalf("%s n=%d: d[%d] = %v, want %v (z %v)", DType[T](), n, i, d[i], want[i], z[i])
			}
		}
	}
}

// axpbyc (assembly where the CPU allows) rounds as the Go expression, at
// every length.
func TestAxpbyc(t *testing.T) {
	checkAxpbyc[float32](t)
	checkAxpbyc[float64](t)
}

func checkAxpbyc[T Float](t *testing.T) {
	r := newRNG(8)
	for n := range 37 {
		d, g, x := make([]T, n), make([]T, n), make([]T, n)
		for i := range d {
			d[i], g[i], x[i] = T(r.NormFloat64()), T(r.NormFloat64()), T(r.NormFloat64())
		}
		a, b, c := T(r.NormFloat64()), T(r.NormFloat64()), T(r.NormFloat64())
		want := append([]T(nil), d...)
		for i := range want {
			want[i] += a*g[i] + b*x[i] + c
		}
		axpbyc(d, g, x, a, b, c)
		for i := range d {
			if d[i] != want[i] {
				t.Fatalf("%s n=%d: d[%d] = %v, want %v", DType[T](), n, i, d[i], want[i])
			}
		}
	}
}
