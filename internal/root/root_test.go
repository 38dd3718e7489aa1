package root

import (
	"fmt"
	"math"
	"testing"
)

// TestIncreasing checks roots known in closed form: a line, a steep
// exponential, a cube through zero and an interval below zero.
func TestIncreasing(t *testing.T) {
	for _, c := range []struct {
		f            func(float64) float64
		a, lo, hi, x float64
	}{
		{func(x float64) float64 { return 3*x - 1 }, 2, 0, 5, 1},
		{math.Exp, math.Exp(3), 0, 10, 3},
		{func(x float64) float64 { return x * x * x }, 8, -1, 4, 2},
		{func(x float64) float64 { return x }, -2.5, -10, -1, -2.5},
	} {
		if got := Increasing(c.f, c.a, c.lo, c.hi); math.Abs(got-c.x) > 1e-12*math.Abs(c.x) {
			t.Errorf("f = %v on [%v, %v]: %v, want %v", c.a, c.lo, c.hi, got, c.x)
		}
	}
}

func ExampleIncreasing() {
	fmt.Printf("%.12f\n", Increasing(func(x float64) float64 { return x * x }, 2, 0, 2))
	// Output: 1.414213562373
}
