package images_test

import (
	"fmt"
	"log"
	"os"

	"github.com/ecl-go/ecl/datasets/images"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
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

// List a root of two domains of the same classes; the first call writes
// the manifest, later calls check the images against it.
func ExampleOpenDomains() {
	root, err := os.MkdirTemp("", "domains")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	if err := imagestest.Domains(root, []string{"photo", "sketch"}, []string{"dog", "horse"}, 2, 0); err != nil {
		log.Fatal(err)
	}
	ds, err := images.OpenDomains(root, images.DomainOptions{})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(ds.Names(), ds.Classes, ds.Domain("sketch").Data.Paths)
	if _, err := images.OpenDomains(root, images.DomainOptions{}); err != nil {
		log.Fatal(err)
	}
	fmt.Println("checked against", images.ManifestName)
	// Output:
	// [photo sketch] [dog horse] [dog/img-00.jpg dog/img-01.png horse/img-00.jpg horse/img-01.png]
	// checked against ecl-manifest.txt
}
