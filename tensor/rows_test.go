package tensor

import "testing"

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
