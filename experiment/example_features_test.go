package experiment_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ecl-go/ecl/datasets/arrays"
	"github.com/ecl-go/ecl/experiment"
)

// Run a network over a folder of images, here the tiny ResNet of nn's
// torchvision fixtures (5 classes) over package images' fixtures, and read
// the file back. With real weights: Arch "resnet50", Weights
// "resnet50-0676ba61.pth".
func ExampleExtract() {
	experiment.FeatureArchs["resnet_tiny"] = experiment.TinyArchs["resnet_tiny"]
	defer delete(experiment.FeatureArchs, "resnet_tiny")
	dir, err := os.MkdirTemp("", "features")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	out := filepath.Join(dir, "f.npz")
	res, err := experiment.Extract(experiment.FeaturesConfig{
		Arch: "resnet_tiny", Weights: "../nn/testdata/resnet_tiny.pth",
		Data: "../datasets/images/testdata/img", Out: out, Batch: 4,
	})
	if err != nil {
		log.Fatal(err)
	}
	paths, err := arrays.ReadNPZStrings(out, "paths")
	if err != nil {
		log.Fatal(err)
	}
	_, shape, err := arrays.ReadNPZ(out, "logits")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Images, "images, resize", res.Resize, "crop", res.Crop, "features", res.D)
	fmt.Println("logits", shape, "first", paths[0])
	// Output:
	// 9 images, resize 20 crop 16 features 64
	// logits [9 5] first big420.jpg
}
