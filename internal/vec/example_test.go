package vec_test

import (
	"fmt"

	"github.com/ecl-go/ecl/internal/vec"
)

func ExampleDot() {
	fmt.Println(vec.Dot([]float64{1, 2, 3, 4, 5}, []float64{5, 4, 3, 2, 1}))
	// Output: 35
}
