package datasets_test

import (
	"errors"
	"fmt"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/tensor"
)

// Build two splits, merge them, pick rows, and check a split whose inputs
// and labels disagree.
func ExampleSplit() {
	a := datasets.Split[float64]{Name: "a", X: tensor.FromSlice([]float64{1, 2, 3, 4}, 2, 2), Y: []int{0, 1}}
	b := datasets.Split[float64]{Name: "b", X: tensor.FromSlice([]float64{5, 6}, 1, 2), Y: []int{2}}
	ab := datasets.Concat("a+b", a, b)
	fmt.Println(ab.Name, ab.Len(), ab.X.Shape(), ab.Y)
	last := ab.Rows([]int{2, 0})
	fmt.Println(last.X.Data(), last.Y)

	bad := datasets.Split[float64]{Name: "usps test", X: tensor.FromSlice([]float64{1, 2}, 1, 2), Y: []int{0, 1}}
	err := bad.Check()
	var se *datasets.SplitError
	fmt.Println(errors.As(err, &se), err)
	// Output:
	// a+b 3 [3 2] [0 1 2]
	// [5 6 1 2] [2 0]
	// true datasets: split "usps test": inputs [1 2] for 2 labels
}
