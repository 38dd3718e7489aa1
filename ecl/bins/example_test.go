package bins_test

import (
	"fmt"

	"github.com/ecl-go/ecl/ecl/bins"
)

// The simplex anchors of canonical calibration for 3 classes and 15 bins:
// the smallest N with C(N+2, 2) ≥ 15 is 4, so the anchors are the 15
// vectors (g + 1/3)/5 for the integer vectors g of three entries summing
// to 4, the first coordinate varying slowest.
func ExampleSimplex() {
	anchors, n := bins.Simplex(15, 3)
	fmt.Printf("N = %d, %d anchors\n", n, len(anchors)/3)
	fmt.Printf("first %.4f, last %.4f\n", anchors[:3], anchors[len(anchors)-3:])
	// Output:
	// N = 4, 15 anchors
	// first [0.0667 0.0667 0.8667], last [0.8667 0.0667 0.0667]
}

// Equal-width bins (lo, hi] on [0, 1], the first closed at 0.
func ExampleEqualWidth() {
	for _, c := range []float64{0, 0.2, 0.21, 1} {
		fmt.Println(c, "in bin", bins.EqualWidth(c, 5))
	}
	// Output:
	// 0 in bin 0
	// 0.2 in bin 0
	// 0.21 in bin 1
	// 1 in bin 4
}
