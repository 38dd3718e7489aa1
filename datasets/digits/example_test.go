package digits_test

import (
	"fmt"
	"log"
	"slices"

	"github.com/ecl-go/ecl/datasets/digits"
)

// Load five test images of the rendered synth domain, which needs no
// files, as network input scaled to [−1, 1].
func ExampleLoad() {
	s, err := digits.Load("", "synth", "test", 5, 1)
	if err != nil {
		log.Fatal(err)
	}
	x := s.X.Data()
	fmt.Println(s.Name, s.X.Shape(), len(s.Y), "labels")
	fmt.Println("within [−1, 1]:", slices.Min(x) >= -1 && slices.Max(x) <= 1)
	fmt.Println("synth available without files:", digits.Available("", "synth"))
	_, err = digits.Load("", "svhn", "test", 5, 1) // SVHN needs its files
	fmt.Println(err)
	// Output:
	// synth test [5 3 28 28] 5 labels
	// within [−1, 1]: true
	// synth available without files: true
	// open svhn/test_32x32.mat: no such file or directory
}
