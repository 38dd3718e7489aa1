package evaluate_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ecl-go/ecl/ecl/evaluate"
	"github.com/ecl-go/ecl/ecl/metrics"
	"github.com/ecl-go/ecl/ecl/predict"
)

// Four predictions of two classes, right with confidences 0.9, 0.8 and
// 0.7 and wrong with 0.6: each in its own bin, the top-label ECE is the
// mean gap, (0.1 + 0.2 + 0.3 + 0.6) / 4.
func Example() {
	dir, err := os.MkdirTemp("", "evaluate")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	probs, labels := filepath.Join(dir, "probs.csv"), filepath.Join(dir, "labels.csv")
	os.WriteFile(probs, []byte("0.9,0.1\n0.8,0.2\n0.3,0.7\n0.6,0.4\n"), 0o644)
	os.WriteFile(labels, []byte("0\n0\n1\n1\n"), 0o644)
	rep, _, err := evaluate.Run(evaluate.Config{Probs: probs, Labels: labels, Mode: predict.Auto, Options: metrics.Options{Bins: 15}, Convention: "ours", KDE: evaluate.KDEOff})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("N %d, K %d, read as %s: ACC %.2f, ECE %.2f\n", rep.N, rep.K, rep.Input, rep.ACC, rep.ECE)
	// Output:
	// N 4, K 2, read as probabilities: ACC 0.75, ECE 0.30
}
