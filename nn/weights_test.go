package nn

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// WeightShapes lists a file's tensors with the shapes of the model they
// were saved from (resnet_tiny.pth by torchvision, lenet5.safetensors by
// PyTorch), and LoadWeights reads either kind of file.
func TestWeightShapes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	resnet := NewResNet(NewVars[float32](), rng, ResNetConfig{Blocks: [4]int{2, 1, 1, 1}, Stem: 2, WidthPerGroup: 64, Classes: 5})
	lenet, _ := lenet5[float32](rng, 0)
	for _, c := range []struct {
		file string
		m    Module[float32]
	}{{"testdata/resnet_tiny.pth", resnet}, {"testdata/lenet5.safetensors", lenet}} {
		names, shapes, err := WeightShapes(c.file, nil)
		if err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for i, n := range names {
			got[n] = fmt.Sprint(shapes[i])
		}
		for _, n := range c.m.State() {
			if got[n.Name] != fmt.Sprint(n.Value().Shape()) {
				t.Errorf("%s: %s has shape %s, the model's is %v", c.file, n.Name, got[n.Name], n.Value().Shape())
			}
		}
		if err := LoadWeights(c.file, c.m, nil); err != nil {
			t.Errorf("LoadWeights %s: %v", c.file, err)
		}
	}
	if _, _, err := WeightShapes("testdata/legacy.pth", nil); err == nil {
		t.Error("legacy.pth: no error")
	}
}
