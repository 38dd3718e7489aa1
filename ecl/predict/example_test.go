package predict_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/predict"
)

// Read a model's saved predictions and labels and evaluate them: the
// probabilities were written rounded to three decimals, so their rows are
// renormalised, with a note.
func ExampleReadProbabilities() {
	dir, err := os.MkdirTemp("", "predict")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)
	probs, labels := filepath.Join(dir, "probs.csv"), filepath.Join(dir, "labels.txt")
	os.WriteFile(probs, []byte("p0,p1,p2\n0.333,0.333,0.333\n0.10,0.20,0.70\n0.80,0.15,0.05\n"), 0o644)
	os.WriteFile(labels, []byte("1\n2\n0\n"), 0o644)

	y, err := predict.ReadLabels(labels)
	if err != nil {
		panic(err)
	}
	p, err := predict.ReadProbabilities(probs, labels, y, predict.Auto)
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d rows of %d classes read as %s; first row %.4f\n", len(y), p.K, p.Input, p.Probs[:3])
	for _, n := range p.Notes {
		fmt.Println("note:", strings.TrimPrefix(n, dir+string(filepath.Separator)))
	}
	acc, _ := metrics.Accuracy(p.Probs, p.K, y)
	fmt.Printf("accuracy %.2f\n", acc)
	// Output:
	// 3 rows of 3 classes read as probabilities; first row [0.3333 0.3333 0.3333]
	// note: probs.csv: rows sum to 1 only within 0.001 (rounded values?): renormalised
	// accuracy 0.67
}

// Detect tells probabilities from logits: rows in [0, 1] that sum to 1
// within RoundTol are probabilities.
func ExampleDetect() {
	for _, rows := range [][]float64{
		{0.2, 0.8, 0.5, 0.5},   // probabilities
		{0.2, 0.805, 0.5, 0.5}, // rounded probabilities
		{0.2, 0.3, 0.5, 0.1},   // in [0, 1], but rows sum to 0.5 and 0.6
		{2.1, -0.4, 0.3, 1.7},  // logits
	} {
		d := predict.Detect(rows, 2)
		fmt.Printf("probabilities %v (largest |row sum − 1| %.3f)\n", d.Probabilities, d.Dev)
	}
	// Output:
	// probabilities true (largest |row sum − 1| 0.000)
	// probabilities true (largest |row sum − 1| 0.005)
	// probabilities false (largest |row sum − 1| 0.500)
	// probabilities false (largest |row sum − 1| 1.000)
}

// One row's softmax at temperature 2, and ln Σ e^(z/t), the normaliser a
// negative log-likelihood subtracts from.
func ExampleSoftmaxScaled() {
	z := []float64{2, 0, -2}
	p := make([]float64, len(z))
	lse := predict.SoftmaxScaled(p, z, 2)
	fmt.Printf("%.4f, ln-normaliser %.4f\n", p, lse)
	// Output: [0.6652 0.2447 0.0900], ln-normaliser 1.4076
}
