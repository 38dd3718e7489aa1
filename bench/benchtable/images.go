package main

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"github.com/ecl-go/ecl/bench"
)

// imageRows prints the input-pipeline rows that skip does not skip (it
// reports CPU rows it skips on a GPU): one pass over n JPEGs of each of
// bench.ImageSizes in dir (written there first unless present; a
// temporary folder, removed after, when dir is empty).
func imageRows(skip func(name string) bool, dir string, n int) error {
	var sizes [][2]int
	for _, s := range bench.ImageSizes {
		if !skip(bench.ImageRow(s[0], s[1])) {
			sizes = append(sizes, s)
		}
	}
	if len(sizes) == 0 {
		return nil
	}
	if dir == "" {
		tmp, err := os.MkdirTemp("", "benchtable-images-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	for _, s := range sizes {
		files, err := bench.WriteJPEGs(dir, s[0], s[1], n)
		if err != nil {
			return fmt.Errorf("-image-dir %s: %w", dir, err)
		}
		res, rate := bench.MeasureImages(files, 0)
		fmt.Printf("%-34s %10.3f %9s  (%.1f images/s: %d JPEGs decoded, resized to 256, centre-cropped to 224 and normalised per pass, %d workers)\n",
			bench.ImageRow(s[0], s[1]), float64(time.Duration(res.NsPerOp()).Nanoseconds())/1e6, "", rate, len(files), runtime.GOMAXPROCS(0))
	}
	return nil
}
