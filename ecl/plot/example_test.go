package plot_test

import (
	"fmt"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"gonum.org/v1/plot/vg"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/plot"
)

// Draw the top-label reliability diagram of four predictions over two
// classes and save it as a PNG. Their confidences are 0.95 and 0.55
// (right) and 0.75 and 0.65 (wrong); in five bins the ECE is
// ¼·0.45 + ½·0.7 + ¼·0.05 = 0.475.
func ExampleTopLabel() {
	probs := []float64{
		0.95, 0.05, // label 0: right
		0.25, 0.75, // label 0: wrong
		0.65, 0.35, // label 1: wrong
		0.55, 0.45, // label 0: right
	}
	labels := []int{0, 0, 1, 0}
	cal, err := metrics.ECE(probs, 2, labels, metrics.Options{Bins: 5})
	if err != nil {
		log.Fatal(err)
	}
	for _, b := range cal.Bins {
		if b.Count > 0 {
			fmt.Printf("bin (%.1f, %.1f]: %d samples, confidence %.2f, accuracy %.2f\n", b.Lo, b.Hi, b.Count, b.Conf, b.Acc)
		}
	}
	p, err := plot.TopLabel(cal, "toy model")
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(p.Title.Text)

	dir, err := os.MkdirTemp("", "plot")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "reliability.png")
	if err := plot.Save(p, path, 12*vg.Centimeter, 10*vg.Centimeter); err != nil {
		log.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	img, err := png.DecodeConfig(f)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d×%d pixels at %d dpi\n", img.Width, img.Height, plot.DefaultDPI)
	// Output:
	// bin (0.4, 0.6]: 1 samples, confidence 0.55, accuracy 1.00
	// bin (0.6, 0.8]: 2 samples, confidence 0.70, accuracy 0.00
	// bin (0.8, 1.0]: 1 samples, confidence 0.95, accuracy 1.00
	// toy model
	// ECE 47.50%
	// 709×591 pixels at 150 dpi
}
