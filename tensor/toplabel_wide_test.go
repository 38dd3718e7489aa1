package tensor

import (
	"math"
	"testing"
)

// wideMax gives lastExtreme's maximum (to the sign of a zero, and NaN) and
// index, on rows of every length around its lanes, with ties, signed zeros,
// infinities and NaNs first, inside and last.
func TestWideMaxMatchesLastExtreme(t *testing.T) {
	r := newRNG(7)
	specials := []float64{0, math.Copysign(0, -1), math.Inf(1), math.Inf(-1), math.NaN(), 0.5}
	for n := 1; n <= 100; n++ {
		for trial := range 40 {
			row := make([]float32, n)
			for i := range row {
				row[i] = float32(r.IntN(5)) / 4 // ties
				if trial%2 == 1 && r.IntN(8) == 0 {
					row[i] = float32(specials[r.IntN(len(specials))])
				}
			}
			if trial == 2 {
				row[n-1] = float32(math.NaN())
			}
			gv, gi := wideMax(row)
			wv, wi := lastExtreme(row, false)
			if gi != wi || math.Float32bits(gv) != math.Float32bits(wv) && !(gv != gv && wv != wv) {
				t.Fatalf("row %v: wideMax (%v, %v), lastExtreme (%v, %v)", row, gv, gi, wv, wi)
			}
		}
	}
}
