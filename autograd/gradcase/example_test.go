package gradcase_test

import (
	"fmt"

	"github.com/ecl-go/ecl/autograd/gradcase"
	"github.com/ecl-go/ecl/tensor"
)

// Run the table's cases of one op on the CPU; a backend runs them the same
// way with its own device.
func ExampleCase_Check() {
	for i, c := range gradcase.Cases() {
		if c.Name != "Softmax" {
			continue
		}
		rep, err := c.Check(uint64(i), tensor.CPU[float64]{})
		fmt.Println(c.Name, err == nil, rep.Err < 1e-6)
	}
	// Output:
	// Softmax true true
	// Softmax true true
}
