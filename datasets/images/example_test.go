package images_test

import (
	"fmt"
	"log"

	"github.com/ecl-go/ecl/datasets/images"
)

// Load the images of a folder with torchvision's evaluation transform, on
// two workers.
func Example() {
	d, err := images.Flat("testdata/img")
	if err != nil {
		log.Fatal(err)
	}
	files := make([]string, d.Len())
	for i := range files {
		files[i] = d.File(i)
	}
	b, err := images.Load(files, images.EvalTransform(20, 16), images.Options{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Len(), "images:", d.Paths[0], "…")
	fmt.Println(len(b.X)/(3*16*16), "tensors of [3, 16, 16]")
	// Output:
	// 9 images: big420.jpg …
	// 9 tensors of [3, 16, 16]
}
