package metrics_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// torchmetricsExample returns the torchmetrics documentation example: four
// samples, three classes.
func torchmetricsExample() (probs []float64, labels []int) {
	probs = []float64{
		.25, .20, .55,
		.55, .05, .40,
		.10, .30, .60,
		.90, .05, .05,
	}
	return probs, []int{0, 1, 2, 0}
}

func Example() {
	probs, labels := torchmetricsExample()

	ece, err := metrics.ECE(probs, 3, labels, metrics.Options{Bins: 3})
	if err != nil {
		panic(err)
	}
	fmt.Printf("ECE %.2f%%\n", 100*ece.Error)
	for _, b := range ece.Bins {
		if b.Count > 0 {
			fmt.Printf("bin (%.2f, %.2f]: %d samples, confidence %.3f, accuracy %.3f, gap %+.3f\n",
				b.Lo, b.Hi, b.Count, b.Conf, b.Acc, b.Gap())
		}
	}

	// A 90% percentile bootstrap interval of the accuracy.
	stat := func(idx []int) float64 {
		p, y := metrics.Subset(probs, 3, labels, idx)
		acc, _ := metrics.Accuracy(p, 3, y)
		return acc
	}
	lo, hi := metrics.Bootstrap(len(labels), stat, 1000, 0.9, rand.New(rand.NewPCG(1, 2)))
	fmt.Printf("accuracy in [%.2f, %.2f]\n", lo, hi)
	// Output:
	// ECE 20.00%
	// bin (0.33, 0.67]: 3 samples, confidence 0.567, accuracy 0.333, gap +0.233
	// bin (0.67, 1.00]: 1 samples, confidence 0.900, accuracy 1.000, gap -0.100
	// accuracy in [0.00, 1.00]
}
