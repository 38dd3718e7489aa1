// Command calibdata writes a synthetic calibration instance at any scale:
// source-validation and target logits of K classes with their labels, the
// target under covariate shift, as source.npz and target.npz (arrays
// "logits" [N, K] float32 and "labels" [N] int64) for "ecl calibrate",
// "ecl eval" and the peer scripts of bench/peer.
//
//	go run ./bench/calibdata -k 1000 -n 50000 -out /tmp/k1000
//
// A sample of class y has logits s·(μ·e_y + ε) with ε standard normal and
// s an over-confident scale; the target has a weaker signal μ and wider
// noise, so it is both less accurate and more over-confident than the
// source. Everything follows from -seed.
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/ecl-go/ecl/datasets/arrays"
)

func main() {
	k := flag.Int("k", 100, "classes")
	n := flag.Int("n", 10000, "samples per domain")
	out := flag.String("out", "", "output directory (required)")
	seed := flag.Uint64("seed", 1, "seed of every random choice")
	flag.Parse()
	if err := run(*k, *n, *out, *seed); err != nil {
		fmt.Fprintln(os.Stderr, "calibdata:", err)
		os.Exit(1)
	}
}

func run(k, n int, out string, seed uint64) error {
	switch {
	case out == "":
		return fmt.Errorf("-out is required")
	case k < 2 || n < 1:
		return fmt.Errorf("-k %d (≥ 2), -n %d (≥ 1)", k, n)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(seed, 0xca11b))
	for _, d := range []struct {
		name           string
		signal, spread float64
	}{{"source", 3.2, 1}, {"target", 2.4, 1.3}} {
		logits, labels := domain(rng, k, n, d.signal, d.spread)
		if err := arrays.WriteNPZ(filepath.Join(out, d.name+".npz"),
			arrays.Float32s("logits", logits, n, k), arrays.Int64s("labels", labels)); err != nil {
			return err
		}
	}
	return nil
}

// domain draws n samples of k classes: logits 2·(signal·e_y + spread·ε).
func domain(rng *rand.Rand, k, n int, signal, spread float64) ([]float32, []int64) {
	const scale = 2
	logits, labels := make([]float32, n*k), make([]int64, n)
	for i := range n {
		y := rng.IntN(k)
		labels[i] = int64(y)
		row := logits[i*k : (i+1)*k]
		for j := range row {
			v := spread * rng.NormFloat64()
			if j == y {
				v += signal
			}
			row[j] = float32(scale * v)
		}
	}
	return logits, labels
}
