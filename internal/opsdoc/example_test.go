package opsdoc_test

import (
	"fmt"

	"github.com/ecl-go/ecl/internal/opsdoc"
)

// Build reads the module's sources; each row follows one op across the
// layers.
func ExampleBuild() {
	t, err := opsdoc.Build("../..")
	if err != nil {
		panic(err)
	}
	for _, r := range t.Rows {
		if r.Op == "gelu" {
			fmt.Println(r.Autograd, r.Rule)
			fmt.Println(r.CPU)
			fmt.Println(r.CUDA)
		}
	}
	// Output:
	// [autograd.GELU] autograd/gradients.go:gradGELU
	// [tensor/transformer.go:geluCPU tensor/transformer.go:geluBackwardCPU]
	// [kernels/cuda/transformer.go:gelu → src/transformer.cu:gelu kernels/cuda/transformer.go:geluBackward → src/transformer.cu:gelu_backward]
}

func ExampleSnake() {
	fmt.Println(opsdoc.Snake("Conv2DAffine"), opsdoc.Snake("GELUBackward"))
	// Output: conv2d_affine gelu_backward
}
