package tensor

import (
	"math"
	"testing"
)

// expShiftAsm agrees with math.Exp to a few float32 ulps (and the rounding
// of the difference x − shift to float32) on rows of every
// length around the vector width, with −∞ elements, values far below the
// shift (0 below e^−87, where float32 turns subnormal) and the shift
// itself (e^0 = 1 exactly), and returns the sum of what it wrote.
func TestExpShiftAsm(t *testing.T) {
	if _, ok := expShiftAsm([]float32{0}, 0); !ok {
		t.Skip("no AVX-512 kernel on this CPU or build")
	}
	r := newRNG(21)
	for n := 1; n <= 50; n++ {
		row := make([]float32, n)
		shift := 3 * r.NormFloat64()
		for i := range row {
			switch r.IntN(10) {
			case 0:
				row[i] = float32(math.Inf(-1))
			case 1:
				row[i] = float32(shift - 90 - 30*r.Float64())
			case 2:
				row[i] = float32(shift)
			default:
				row[i] = float32(shift - 20*r.Float64())
			}
		}
		shift = float64(float32(shift))
		want := make([]float64, n)
		var wantSum float64
		for i, v := range row {
			want[i] = math.Exp(float64(v) - shift)
			wantSum += want[i]
		}
		got := append([]float32(nil), row...)
		sum, _ := expShiftAsm(got, shift)
		var gotSum float64
		for i, v := range got {
			gotSum += float64(v)
			switch {
			case want[i] < 0x1p-126:
				if v != 0 && float64(v) > 0x1p-126 {
					t.Fatalf("n=%d: e^(%v − %v) = %v, want 0 (flushed) or %v", n, row[i], shift, v, want[i])
				}
			case math.Abs(float64(v)-want[i]) > (4e-7+6e-8*(shift-float64(row[i])))*want[i]: // the difference rounded to float32 too
				t.Fatalf("n=%d: e^(%v − %v) = %v, want %v", n, row[i], shift, v, want[i])
			}
			if float64(row[i]) == shift && v != 1 {
				t.Fatalf("n=%d: e^0 = %v, want 1", n, v)
			}
		}
		if math.Abs(sum-gotSum) > 1e-12*gotSum || math.Abs(sum-wantSum) > 1e-6*wantSum {
			t.Fatalf("n=%d: sum %v, want %v (elements' sum %v)", n, sum, wantSum, gotSum)
		}
	}
}

// rowMax is the builtin max over the row, NaN included, at every length
// around its four running maxima.
func TestRowMax(t *testing.T) {
	r := newRNG(22)
	for n := 0; n <= 13; n++ {
		for trial := range 20 {
			row := make([]float64, n)
			want := math.Inf(-1)
			for i := range row {
				row[i] = r.NormFloat64()
				if trial%5 == 0 && r.IntN(n) == 0 {
					row[i] = math.NaN()
				}
				want = max(want, row[i])
			}
			if got := rowMax(row); got != want && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("n=%d trial %d: rowMax(%v) = %v, want %v", n, trial, row, got, want)
			}
		}
	}
}
