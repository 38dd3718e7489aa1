package synth_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ecl-go/ecl/datasets/images"
	"github.com/ecl-go/ecl/datasets/images/synth"
)

// Generate a small set, two 32×32 images per class and domain, and read it
// as a root of image domains.
func Example() {
	tmp, err := os.MkdirTemp("", "synth")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	dir := filepath.Join(tmp, "shapes")
	n, err := synth.Write(dir, synth.Options{PerClass: 2, Size: 32, Seed: 1})
	if err != nil {
		log.Fatal(err)
	}
	ds, err := images.OpenDomains(dir, images.DomainOptions{NoManifest: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(n, "images")
	fmt.Println(ds.Names())
	fmt.Println(ds.Classes)
	fmt.Println(ds.Domain("sketch").Data.Paths[:3])
	// Output:
	// 56 images
	// [cartoon painting photo sketch]
	// [arrow circle cross ring square star triangle]
	// [arrow/arrow-0000.png arrow/arrow-0001.png circle/circle-0000.png]
}

// Render one image; the sketch style is grey.
func ExampleRender() {
	img, err := synth.Render(5, 3, 48, synth.Source(1, 3, 5, 0))
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("a %s in the %s style: %T, %v\n", synth.Classes[5], synth.Styles[3], img, img.Bounds().Size())
	// Output:
	// a star in the sketch style: *image.Gray, (48,48)
}
