package baselines_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/ecl/baselines"
)

// Temperature scaling: logits that are 3 times too sharp (labels drawn
// from softmax(z/3)) get back a temperature near 3, and Scale divides
// them by it before the softmax.
func ExampleFitTemperature() {
	rng := rand.New(rand.NewPCG(5, 6))
	const n, k = 5000, 4
	z, y := make([]float64, n*k), make([]int, n)
	for i := range n {
		p, s := make([]float64, k), 0.0
		for j := range k {
			z[i*k+j] = 4 * rng.NormFloat64()
			p[j] = math.Exp(z[i*k+j] / 3)
			s += p[j]
		}
		u := rng.Float64() * s
		for y[i] = 0; y[i] < k-1 && u > p[y[i]]; y[i]++ {
			u -= p[y[i]]
		}
	}
	t, err := baselines.FitTemperature(z, k, y, nil, baselines.NLL)
	if err != nil {
		panic(err)
	}
	fmt.Printf("temperature within 0.2 of 3: %v\n", math.Abs(t-3) < 0.2)
	raw, calibrated := baselines.Scale(z[:k], k, 1), baselines.Scale(z[:k], k, t)
	fmt.Printf("first sample, class 0: %.2f raw, %.2f calibrated\n", raw[0], calibrated[0])
	// Output:
	// temperature within 0.2 of 3: true
	// first sample, class 0: 0.96 raw, 0.61 calibrated
}

// Average thresholded confidence estimates a target's accuracy without
// its labels: the threshold on the source's scores above which the share
// of samples equals the source's accuracy, then the share of target
// scores above it. ShiftForMean then moves a head's logits of being
// correct until their mean P(correct) is that estimate.
func ExampleATC() {
	src := []float64{0.9, 0.1, 0.5, 1.0, 0.3, 0.7, 0.2, 0.8, 0.6, 0.4} // scores, larger = surer
	correct := []bool{true, false, true, true, false, true, true, true, false, true}
	tgt := []float64{0.2, 0.35, 0.5, 0.9}
	acc, threshold, err := baselines.ATC(src, correct, tgt)
	if err != nil {
		panic(err)
	}
	fmt.Printf("source accuracy 0.7, threshold %.2f, target estimate %.2f\n", threshold, acc)
	b, err := baselines.ShiftForMean([]float64{3, 4, 5, 6}, acc)
	if err != nil {
		panic(err)
	}
	fmt.Printf("logit shift %.3f\n", b)
	// Output:
	// source accuracy 0.7, threshold 0.30, target estimate 0.75
	// logit shift -3.106
}
