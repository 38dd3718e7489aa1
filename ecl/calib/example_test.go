package calib_test

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/metrics"
)

// overconfident draws n inputs x ~ N((shift, 0), I) and returns them, the
// logits z(x) of a model over-confident by a factor 2.5 (the labels are
// drawn from softmax(z/2.5)) and the labels.
func overconfident(rng *rand.Rand, n int, shift float64) (x, z []float64, y []int) {
	const k = 3
	for range n {
		x0, x1 := rng.NormFloat64()+shift, rng.NormFloat64()
		x = append(x, x0, x1)
		zi := make([]float64, k)
		for j := range zi {
			a := 2 * math.Pi * float64(j) / k
			zi[j] = 5 * (math.Cos(a)*x0 + math.Sin(a)*x1)
		}
		z = append(z, zi...)
		p := calib.Softmax([]float64{zi[0] / 2.5, zi[1] / 2.5, zi[2] / 2.5}, k)
		u, c := rng.Float64(), 0
		for c < k-1 && u > p[c] {
			u -= p[c]
			c++
		}
		y = append(y, c)
	}
	return x, z, y
}

// Calibrate a model's outputs under covariate shift: fit on labelled source
// predictions, weighted by how target-like each source sample is (a domain
// classifier on the inputs), apply to the unlabelled target, and save the
// calibrator to apply it again later.
func Example() {
	rng := rand.New(rand.NewPCG(3, 4))
	const k = 3
	xs, zs, ys := overconfident(rng, 2000, 0) // labelled source validation set
	xt, zt, yt := overconfident(rng, 2000, 1) // target; yt only to check

	w, shift, err := calib.DomainWeights(xs, xt, 2, calib.DomainOptions{Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("domain AUC %.2f\n", shift.AUC)
	data := calib.FitData{Logits: zs, Labels: ys, W: w, Target: zt, K: k}
	c, err := calib.Fit("iwts", data, calib.FitOptions{})
	if err != nil {
		panic(err)
	}
	fmt.Printf("temperature %.1f\n", c.(*calib.Temperature).T)

	before, _ := metrics.ECE(calib.Softmax(zt, k), k, yt, metrics.Options{})
	pt, err := c.Apply(zt, k)
	if err != nil {
		panic(err)
	}
	after, _ := metrics.ECE(pt, k, yt, metrics.Options{})
	fmt.Printf("target ECE %.0f%% before, under 3%% after: %v\n", 100*before.Error, after.Error < 0.03)

	// Save and load: the same map.
	saved, err := calib.Save("iwts", k, "logits", c)
	if err != nil {
		panic(err)
	}
	_, loaded, err := calib.Load(saved)
	if err != nil {
		panic(err)
	}
	again, _ := loaded.Apply(zt, k)
	fmt.Println("loaded calibrator agrees:", again[0] == pt[0] && again[len(again)-1] == pt[len(pt)-1])
	// Output:
	// domain AUC 0.75
	// temperature 2.5
	// target ECE 9% before, under 3% after: true
	// loaded calibrator agrees: true
}

// The label-free estimates read only each row's top-label confidence and
// correctness: ApplyTopLabel calibrates a block of rows at a time and keeps
// those two numbers, and TopLabelInterval is ECEInterval on them.
func ExampleApplyTopLabel() {
	rng := rand.New(rand.NewPCG(5, 6))
	const k = 3
	_, z, y := overconfident(rng, 6000, 0)
	c, err := calib.FitTemperature(z, k, y, nil)
	if err != nil {
		panic(err)
	}
	conf, correct, err := calib.ApplyTopLabel(c, z, k, y)
	if err != nil {
		panic(err)
	}
	fromRows, err := calib.TopLabelInterval(conf, correct, nil, 15, 200, 0.95, 1)
	if err != nil {
		panic(err)
	}
	p, _ := c.Apply(z, k)
	whole, err := calib.ECEInterval(p, k, y, nil, 15, 200, 0.95, 1)
	if err != nil {
		panic(err)
	}
	fmt.Println("same interval:", fromRows == whole)
	fmt.Printf("ECE under 2%%: %v\n", fromRows.Value < 0.02)
	// Output:
	// same interval: true
	// ECE under 2%: true
}
