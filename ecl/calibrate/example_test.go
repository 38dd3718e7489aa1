package calibrate_test

import (
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"

	"github.com/ecl-go/ecl/ecl/calibrate"
	"github.com/ecl-go/ecl/ecl/predict"
)

func ExampleParseMethods() {
	ms, _ := calibrate.ParseMethods("all", 3)
	fmt.Println(ms)
	_, err := calibrate.ParseMethods("ts,platt", 3)
	fmt.Println(err)
	// Output:
	// [ts vs ms dirichlet hist isotonic iwts cpcs transcal ecl]
	// -method platt: defined for two classes, the predictions have 3
}

// ExampleRun fits temperature scaling on over-confident logits of three
// classes and reads its temperature and the target's ECE before and after.
func ExampleRun() {
	scores := func(name string, n int, rng *rand.Rand) (predict.Scores, []int) {
		z, y := make([]float64, 3*n), make([]int, n)
		for i := range y {
			y[i] = rng.IntN(3)
			for c := range 3 {
				z[3*i+c] = 3 * rng.NormFloat64()
			}
			z[3*i+y[i]] += 4
		}
		return predict.Scores{Path: name, Rows: n, Cols: 3, Kind: "logits", Logits: z, K: 3}, y
	}
	rng := rand.New(rand.NewPCG(1, 2))
	src, ys := scores("source", 2000, rng)
	tgt, yt := scores("target", 2000, rng)
	dir, _ := os.MkdirTemp("", "calibrate")
	defer os.RemoveAll(dir)
	rep, err := calibrate.Run(io.Discard, calibrate.Config{Source: src, Target: tgt, SourceLabels: ys, TargetLabels: yt,
		Methods: []string{"ts"}, Bins: 15, Folds: 2, Clip: 20, Seed: 1, PseudoBatch: 64, Dir: dir, Jobs: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, m := range rep.Methods {
		fmt.Printf("%s: target ECE %.1f%%\n", m.Method, 100*m.TargetECE.Value)
	}
	var saved struct{ Params struct{ Temperature float64 } }
	if err := json.Unmarshal(rep.Methods[1].Params, &saved); err == nil {
		fmt.Printf("temperature %.2f\n", saved.Params.Temperature)
	}
	// Output:
	// uncal: target ECE 15.4%
	// ts: target ECE 2.6%
	// temperature 2.39
}

// The soft memory limit "ecl calibrate" sets by default for ImageNet's
// validation logits as source and target (2 × 50,000 × 1,000 float64), and
// a limit given as GOMEMLIMIT writes it.
func ExampleDefaultMemoryLimit() {
	fmt.Println(calibrate.DefaultMemoryLimit(2 * 50_000 * 1000 * 8))
	limit, err := calibrate.ParseSize("2289MiB")
	fmt.Println(limit, err)
	// Output:
	// 2080000000
	// 2400190464 <nil>
}
