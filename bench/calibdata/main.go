// Command calibdata writes a synthetic calibration instance at any scale:
// source-validation and target logits of K classes with their labels, the
// target under covariate shift, as source.npz and target.npz (arrays
// "logits" [N, K] float32 and "labels" [N] int64) for "ecl calibrate",
// "ecl eval" and the peer scripts of bench/peer.
//
//	go run ./bench/calibdata -k 1000 -n 50000 -out /tmp/k1000
//
// The instance is bench.CalibInstance's: a sample of class y has logits
// 2·(μ·e_y + σ·ε) with ε standard normal; the target has a weaker signal μ
// and wider noise σ, so it is both less accurate and more over-confident
// than the source. Everything follows from -seed.
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ecl-go/ecl/bench"
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
	src, tgt, ys, yt := bench.CalibInstance(k, n, seed)
	if err := arrays.WriteNPZ(filepath.Join(out, "source.npz"), arrays.Float32s("logits", src, n, k), arrays.Int64s("labels", ys)); err != nil {
		return err
	}
	return arrays.WriteNPZ(filepath.Join(out, "target.npz"), arrays.Float32s("logits", tgt, n, k), arrays.Int64s("labels", yt))
}
