package nn_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"

	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// A LeNet-5 state saved from PyTorch (bench/peer/train.py's LeNet5, here
// written by nn/testdata/gen_lenet5.py) loads into the Go model built with
// the same names; the random initialisation it replaces does not matter.
func ExampleLoadSafetensors() {
	vb := nn.NewVars[float64]()
	rng := rand.New(rand.NewPCG(1, 1))
	features, width := nn.LeNet5(vb, rng) // conv1, conv2, fc1, fc2
	model := nn.Sequential[float64]{features, nn.NewLinear(vb.Sub("main"), rng, width, 10)}
	if err := nn.LoadSafetensors("testdata/lenet5.safetensors", model); err != nil {
		fmt.Println(err)
		return
	}
	x := tensor.Full(0.5, 1, 3, 28, 28)
	logits := nn.Predict(model, x)
	fmt.Printf("logits %.4f\n", logits.Data())
	// Output:
	// logits [0.0240 -0.0144 0.0426 -0.0270 0.0163 -0.0518 -0.1602 -0.0642 0.1379 0.1859]
}

// A model saved as safetensors keeps the names its Vars gave it; a file
// that does not fit is refused with the names at fault.
func ExampleSaveSafetensors() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mlp.safetensors")

	vb := nn.NewVars[float32]()
	mlp := nn.MLP(vb.Sub("body"), rand.New(rand.NewPCG(1, 1)), 4, 8, 2)
	if err := nn.SaveSafetensors(path, mlp, map[string]string{"format": "pt"}); err != nil {
		fmt.Println(err)
		return
	}
	for _, n := range mlp.State() {
		fmt.Println(n.Name, n.Value().Shape())
	}
	other := nn.MLP(nn.NewVars[float32](), rand.New(rand.NewPCG(2, 2)), 4, 8, 2)
	err := nn.LoadSafetensors(path, other)
	fmt.Println(strings.TrimPrefix(err.Error(), "nn.LoadSafetensors "+path+": "))
	// Output:
	// body.0.weight [8 4]
	// body.0.bias [8]
	// body.2.weight [2 8]
	// body.2.bias [2]
	// a different model: missing from the file: 0.weight, 0.bias, 2.weight, 2.bias; not in the model: body.0.bias, body.0.weight, body.2.bias, body.2.weight
}
