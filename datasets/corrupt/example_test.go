package corrupt_test

import (
	"fmt"
	"log"

	"github.com/ecl-go/ecl/datasets/corrupt"
	"github.com/ecl-go/ecl/datasets/digits"
)

// Rotate a 3×3 image with one white pixel in its top-left corner by
// 180°, and brighten it at severity 1 (+0.1 of the range, 26 grey levels).
func ExampleApply() {
	im := &digits.Images{N: 1, H: 3, W: 3, Pixels: []uint8{255, 0, 0, 0, 0, 0, 0, 0, 0}, Labels: []int{7}}
	rot, err := corrupt.Apply(im, corrupt.Rotate, 180, 1)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(rot.Pixels, rot.Labels)
	bright, _ := corrupt.Apply(im, "brightness", 1, 1)
	fmt.Println(bright.Pixels)
	_, err = corrupt.Apply(im, "brightness", 6, 1)
	fmt.Println(err)
	// Output:
	// [0 0 0 0 0 0 0 0 255] [7]
	// [255 26 26 26 26 26 26 26 26]
	// corrupt: brightness at level 6 (want one of [1 2 3 4 5])
}
