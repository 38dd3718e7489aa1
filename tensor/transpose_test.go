package tensor

import (
	"math/rand/v2"
	"testing"
)

// Contiguous of a transposed view (transposeCopy's tiles) equals the
// element-by-element definition: x[..., j, i] at [..., i, j], for sizes
// around the tile's, batched, from an offset, and in both precisions; views
// it does not serve (a column slice) still copy right.
func TestTransposeCopyMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, sh := range [][]int{{2, 2}, {1, 33}, {33, 1}, {31, 65}, {64, 64}, {3, 40, 7}, {2, 3, 33, 34}} {
		x := RandUniform[float64](r, -1, 1, sh...)
		nd := len(sh)
		y := Contiguous(Transpose(x, nd-2, nd-1))
		want := make([]float64, x.Len())
		rows, cols := sh[nd-2], sh[nd-1]
		xd := x.Data()
		for b := range x.Len() / (rows * cols) {
			for i := range cols {
				for j := range rows {
					want[b*rows*cols+i*rows+j] = xd[b*rows*cols+j*cols+i]
				}
			}
		}
		for i, v := range y.Data() {
			if v != want[i] {
				t.Fatalf("%v: at %d %v, want %v", sh, i, v, want[i])
			}
		}
		y32 := Contiguous(Transpose(Convert[float32](x), nd-2, nd-1)).Data()
		for i, v := range y32 {
			if v != float32(want[i]) {
				t.Fatalf("%v float32: at %d %v, want %v", sh, i, v, want[i])
			}
		}
	}
	x := RandUniform[float64](r, -1, 1, 40, 50)
	v := Transpose(Narrow(x, 1, 3, 40), 0, 1) // strides [1, 50]: not a transposed block
	got, xd := Contiguous(v).Data(), x.Data()
	for i := range 40 {
		for j := range 40 {
			if got[i*40+j] != xd[j*50+3+i] {
				t.Fatalf("narrowed transpose at %d,%d", i, j)
			}
		}
	}
}
