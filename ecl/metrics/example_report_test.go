package metrics_test

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/ecl-go/ecl/ecl/metrics"
)

// Evaluate predictions: every metric of "ecl eval" in one Report, printed as
// its table. The predictions are the torchmetrics documentation example:
// with 3 bins its ECE is 20.00% and its MCE 23.33%. By hand: two of four
// top labels are right; the bin (⅓, ⅔] holds three samples with gap
// 0.2333, the bin (⅔, 1] one with gap −0.1, so ECE L2 = √(¾·0.2333² +
// ¼·0.1²) = 20.817%; NLL = −(ln 0.25 + ln 0.05 + ln 0.6 + ln 0.9)/4 =
// 1.2496; Brier = (0.905 + 1.365 + 0.26 + 0.015)/4 = 63.625%.
func ExampleNewReport() {
	probs, labels := torchmetricsExample()
	o := metrics.Options{Bins: 3}
	canonical := metrics.CanonicalAffordable(o.Bins, 3)
	r, _, err := metrics.NewReport(probs, 3, labels, o, false, canonical)
	if err != nil {
		panic(err)
	}
	r.Probs, r.Labels, r.Input, r.Scheme = "model.csv", "labels.csv", "probabilities", "width"
	r.WriteText(os.Stdout)
	// Output:
	// model.csv (labels labels.csv): 4 samples, 3 classes (probabilities); 3 width bins
	//   ACC                      50.000 %
	//   ECE (top-label, L1)      20.000 %
	//   MCE                      23.333 %
	//   ECE L2                   20.817 %
	//   debiased ECE L2           0.000 %
	//   CwECE                    19.167 %
	//   canonical ECE            48.398 %
	//   NLL                      1.2496
	//   Brier                    63.625 %
}

// Paired differences of a metric between two methods over the same seeds,
// with a 95% bootstrap interval of their mean.
func ExamplePairedDifference() {
	a := []float64{0.061, 0.058, 0.070, 0.052, 0.066} // method A's ECE per seed
	b := []float64{0.041, 0.044, 0.049, 0.040, 0.047} // method B's, same seeds
	mean, lo, hi := metrics.PairedDifference(a, b, 1000, 0.95, rand.New(rand.NewPCG(1, 2)))
	fmt.Printf("B − A: %+.4f, interval excludes 0: %v\n", mean, hi < 0 && lo < hi)
	// Output:
	// B − A: -0.0172, interval excludes 0: true
}
