package arrays_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ecl-go/ecl/datasets/arrays"
)

// Write logits, labels and image paths to one .npz archive, as ecl
// features does, and read them back, as ecl eval and ecl calibrate do.
func ExampleWriteNPZ() {
	dir, err := os.MkdirTemp("", "arrays")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "preds.npz")
	err = arrays.WriteNPZ(path,
		arrays.Float32s("logits", []float32{2, -1, 0.5, 3, 0, -2}, 3, 2),
		arrays.Int64s("labels", []int64{0, 1, 0}),
		arrays.Strings("paths", []string{"a.jpg", "b.jpg", "c.png"}))
	if err != nil {
		log.Fatal(err)
	}
	names, err := arrays.NPZNames(path)
	if err != nil {
		log.Fatal(err)
	}
	logits, shape, err := arrays.ReadNPZ(path, "logits")
	if err != nil {
		log.Fatal(err)
	}
	labels, _, err := arrays.ReadNPZ(path, "labels")
	if err != nil {
		log.Fatal(err)
	}
	paths, err := arrays.ReadNPZStrings(path, "paths")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(names)
	fmt.Println(shape, logits)
	fmt.Println(labels, paths)
	_, _, err = arrays.ReadNPZ(path, "probs")
	fmt.Println("an array it lacks is an error:", err != nil)
	// Output:
	// [logits labels paths]
	// [3 2] [2 -1 0.5 3 0 -2]
	// [0 1 0] [a.jpg b.jpg c.png]
	// an array it lacks is an error: true
}
