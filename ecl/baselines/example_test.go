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
