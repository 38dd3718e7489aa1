package vec

import (
	"math"
	"testing"
)

// Dot against a plain loop for every length around the four lanes.
func TestDot(t *testing.T) {
	for n := range 11 {
		x, y := make([]float64, n), make([]float64, n+2)
		want := 0.0
		for i := range x {
			x[i], y[i] = float64(i)+0.5, 2-float64(i)/3
			want += x[i] * y[i]
		}
		if got := Dot(x, y); math.Abs(got-want) > 1e-12*(1+math.Abs(want)) {
			t.Errorf("n = %d: %v, want %v", n, got, want)
		}
	}
}
