package imagestest_test

import (
	"fmt"
	"log"
	"os"

	"github.com/ecl-go/ecl/datasets/images"
	"github.com/ecl-go/ecl/datasets/images/imagestest"
)

// Write a tree of two classes of three images and list it as torchvision's
// ImageFolder does.
func Example() {
	dir, err := os.MkdirTemp("", "imagestest")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if _, err := imagestest.Tree(dir, []string{"cat", "dog"}, 3, 1); err != nil {
		log.Fatal(err)
	}
	d, err := images.Folder(dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Classes, d.Paths, d.Labels)
	// Output:
	// [cat dog] [cat/img-00.jpg cat/img-01.png cat/img-02.jpg dog/img-00.jpg dog/img-01.png dog/img-02.jpg] [0 0 0 1 1 1]
}
