package nn

import (
	"math/rand/v2"

	"github.com/ecl-go/ecl/tensor"
)

// LeNet5 creates in vb the feature extractor of LeNet-5 for 3×28×28 input
// and returns it with its width 84: conv(3→6, 5×5, pad 2)–ReLU–maxpool 2–
// conv(6→16, 5×5)–ReLU–maxpool 2–flatten–fc 400→120–ReLU–fc 120→84–ReLU,
// the layers named conv1, conv2, fc1 and fc2 as in bench/peer/train.py's
// PyTorch LeNet5; the network's last layer, fc 84→classes, is the head a
// caller puts on it (main in train.py). The layers run
// each max-pool before its ReLU, on a quarter of the values: the two
// commute (ReLU is monotone, and both send the gradient to the same
// element), so the network is the same.
func LeNet5[T tensor.Float](vb Vars[T], rng *rand.Rand) (Sequential[T], int) {
	return Sequential[T]{
		NewConv2d(vb.Sub("conv1"), rng, 3, 6, 5, tensor.ConvOptions{PadH: 2, PadW: 2}, true), MaxPool2d[T](2, 2), ReLU[T](),
		NewConv2d(vb.Sub("conv2"), rng, 6, 16, 5, tensor.ConvOptions{}, true), MaxPool2d[T](2, 2), ReLU[T](),
		Flatten[T](),
		NewLinear(vb.Sub("fc1"), rng, 400, 120), ReLU[T](),
		NewLinear(vb.Sub("fc2"), rng, 120, 84), ReLU[T](),
	}, 84
}
