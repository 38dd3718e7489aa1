package vec_test

import (
	"fmt"

	"github.com/ecl-go/ecl/internal/vec"
)

func ExampleDot() {
	fmt.Println(vec.Dot([]float64{1, 2, 3, 4, 5}, []float64{5, 4, 3, 2, 1}))
	// Output: 35
}

func ExampleAxpy() {
	y := []float64{1, 1, 1}
	vec.Axpy(2, []float64{1, 2, 3}, y)
	fmt.Println(y)
	// Output: [3 5 7]
}

func ExampleMax() {
	fmt.Println(vec.Max([]float64{3, -1, 7, 2}), vec.Max(nil))
	// Output: 7 -Inf
}
