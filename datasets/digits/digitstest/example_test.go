package digitstest_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ecl-go/ecl/datasets/digits"
	"github.com/ecl-go/ecl/datasets/digits/digitstest"
)

// Encode two 2×2 images and their labels in MNIST's IDX format and read
// them back with the digits package.
func ExampleIDX() {
	images := digitstest.IDX(0x803, []uint32{2, 2, 2}, []byte{0, 255, 255, 0, 9, 9, 9, 9})
	labels := digitstest.IDX(0x801, []uint32{2}, []byte{7, 1})
	dir, err := os.MkdirTemp("", "digitstest")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ip, lp := filepath.Join(dir, "images"), filepath.Join(dir, "labels")
	if err := os.WriteFile(ip, images, 0o644); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(lp, labels, 0o644); err != nil {
		log.Fatal(err)
	}
	im, err := digits.ReadMNIST(ip, lp)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(im.N, "images of", im.H, "×", im.W, "pixels", im.Pixels, "labels", im.Labels)
	// Output:
	// 2 images of 2 × 2 pixels [0 255 255 0 9 9 9 9] labels [7 1]
}
