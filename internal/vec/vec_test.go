package vec

import (
	"math"
	"testing"
)

// vecs returns x [n] and y [n+2] of mixed signs and magnitudes.
func vecs(n int) (x, y []float64) {
	x, y = make([]float64, n), make([]float64, n+2)
	for i := range x {
		x[i], y[i] = (float64(i)+0.5)*math.Pow(-1.5, float64(i%5)), 2-float64(i)/3
	}
	return x, y
}

// Dot against a plain loop for every length around the kernels' steps of
// 4 and 16, and the Go loop against it where the kernel runs.
func TestDot(t *testing.T) {
	for n := range 41 {
		x, y := vecs(n)
		want, mag := 0.0, 0.0
		for i := range x {
			want += x[i] * y[i]
			mag += math.Abs(x[i] * y[i])
		}
		if got := Dot(x, y); math.Abs(got-want) > 1e-14*mag {
			t.Errorf("n = %d: %v, want %v", n, got, want)
		}
		if got := dotGo(x, y); math.Abs(got-want) > 1e-14*mag {
			t.Errorf("n = %d: dotGo %v, want %v", n, got, want)
		}
	}
}

// Axpy against a plain loop for every length around the kernels' steps:
// each element within one rounding of a·x + y (the kernel fuses them),
// the elements of y past x untouched.
func TestAxpy(t *testing.T) {
	for n := range 41 {
		x, y := vecs(n)
		a := -0.7
		want := append([]float64(nil), y...)
		for i, v := range x {
			want[i] = math.FMA(a, v, want[i])
		}
		got := append([]float64(nil), y...)
		Axpy(a, x, got)
		for i := range got {
			if i >= n {
				if got[i] != y[i] {
					t.Fatalf("n = %d: y[%d] past x changed from %v to %v", n, i, y[i], got[i])
				}
				continue
			}
			if d := math.Abs(got[i] - want[i]); d > 0x1p-52*(math.Abs(want[i])+math.Abs(a*x[i])) {
				t.Errorf("n = %d: y[%d] = %v, want %v", n, i, got[i], want[i])
			}
		}
	}
}

// Max against a plain loop (NaN if any element is NaN, −∞ if empty) for
// every length around the kernel's steps, with NaN, ±∞ and ties placed
// in every lane.
func TestMax(t *testing.T) {
	for n := range 41 {
		for special := -1; special < n; special++ {
			for _, v := range []float64{math.NaN(), math.Inf(1), math.Inf(-1), 1e300} {
				x, _ := vecs(n)
				if special >= 0 {
					x[special] = v
				}
				want, nan := math.Inf(-1), false
				for _, e := range x {
					nan = nan || e != e
					if e > want {
						want = e
					}
				}
				got := Max(x)
				if nan != math.IsNaN(got) || !nan && got != want {
					t.Fatalf("n = %d, x[%d] = %v: Max %v, want %v (NaN %v)", n, special, v, got, want, nan)
				}
			}
		}
	}
}
