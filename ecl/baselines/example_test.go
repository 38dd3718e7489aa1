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

// A domain classifier on rows read in place: standardised on the fly, one
// fold left out by counting its rows 0 times. Source N(0, 1) and target
// N(1, 1): the density ratio p_t/p_s is e^(x − 1/2).
func ExampleDomainRows() {
	rng := rand.New(rand.NewPCG(7, 8))
	src, tgt := make([]float64, 20000), make([]float64, 20000)
	for i := range src {
		src[i], tgt[i] = rng.NormFloat64(), 1+rng.NormFloat64()
	}
	count := make([]float64, len(src))
	for i := range count {
		count[i] = float64(i % 2) // the even rows are the held-out fold
	}
	rows := baselines.DomainRows{Source: src, Target: tgt, D: 1, Mean: []float64{0.5}, Scale: []float64{1.1}, SourceCount: count}
	m, err := rows.Fit(0)
	if err != nil {
		panic(err)
	}
	for _, x := range []float64{0, 0.5, 1} {
		fmt.Printf("ratio at %.1f: %.1f (exact %.1f)\n", x, m.Ratio([]float64{x}, 0, 0), math.Exp(x-0.5))
	}
	// Output:
	// ratio at 0.0: 0.6 (exact 0.6)
	// ratio at 0.5: 1.0 (exact 1.0)
	// ratio at 1.0: 1.6 (exact 1.6)
}
