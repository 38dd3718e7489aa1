package nn_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// A torchvision ResNet's state_dict, saved by torch.save (here a tiny
// one written by nn/testdata/make_fixtures.py: torchvision's ResNet and
// Bottleneck at 1/32 of resnet50's width, 5 classes), loads into the Go
// ResNet of the same configuration; nn.ResNet50(vb, rng, 1000) and
// resnet50-0676ba61.pth load the same way. A model with another head
// keeps its own, Skip leaving it out of the match.
func ExampleLoadPyTorch() {
	cfg := nn.ResNetConfig{Blocks: [4]int{2, 1, 1, 1}, Stem: 2, WidthPerGroup: 64, Classes: 5}
	rng := rand.New(rand.NewPCG(1, 1))
	model := nn.NewResNet(nn.NewVars[float64](), rng, cfg)
	if err := nn.LoadPyTorch("testdata/resnet_tiny.pth", model, nil); err != nil {
		fmt.Println(err)
		return
	}
	logits := nn.Predict(model, tensor.Full(0.5, 1, 3, 32, 32))
	fmt.Printf("logits %.4f\n", logits.Data())

	cfg.Classes = 7 // PACS
	pacs := nn.NewResNet(nn.NewVars[float64](), rng, cfg)
	fmt.Println(nn.LoadPyTorch("testdata/resnet_tiny.pth", pacs, nil))
	fmt.Println(nn.LoadPyTorch("testdata/resnet_tiny.pth", pacs, &nn.PyTorchOptions{Skip: []string{"fc"}}))
	// Output:
	// logits [-2.4174 -2.2691 1.1245 1.2212 2.2055]
	// nn.LoadPyTorch testdata/resnet_tiny.pth: tensor "fc.weight": file has shape [5 64], the model [7 64]
	// <nil>
}
