package bench

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/ecl/calib"
	"github.com/ecl-go/ecl/ecl/metrics"
)

// CalibInstance draws a calibration instance of k classes: n source and n
// target samples whose logits are 2·(signal·e_y + spread·ε), ε standard
// normal, the target with a weaker signal and a wider spread (less
// accurate and more over-confident than the source), from seed;
// bench/calibdata writes the same instance for the peers.
func CalibInstance(k, n int, seed uint64) (src, tgt []float32, ys, yt []int64) {
	rng := rand.New(rand.NewPCG(seed, 0xca11b))
	src, ys = calibDomain(rng, k, n, 3.2, 1)
	tgt, yt = calibDomain(rng, k, n, 2.4, 1.3)
	return src, tgt, ys, yt
}

func calibDomain(rng *rand.Rand, k, n int, signal, spread float64) ([]float32, []int64) {
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

// CalibCase is a calibration workload on CalibInstance(K, N, 1): a
// calibrator's fit on the source (Work a calib method), or the metrics of
// "ecl eval" on the target's probabilities (Work "eval": metrics.NewReport
// with the canonical error; "eval-bootstrapR": with R resamples of
// BootstrapReport too). Iterations, when not 0, caps an affine fit's
// L-BFGS iterations (calib.FitOptions.AffineIterations).
type CalibCase struct {
	Work       string
	K, N       int
	Reps       int
	Iterations int
}

// Name is calib/WORK/kK/nN, then /itI for a capped fit.
func (c CalibCase) Name() string {
	name := fmt.Sprintf("calib/%s/k%d/n%d", c.Work, c.K, c.N)
	if c.Iterations != 0 {
		name += fmt.Sprintf("/it%d", c.Iterations)
	}
	return name
}

// CalibCases lists the fits of temperature, vector and matrix scaling,
// Dirichlet, histogram and isotonic calibration and the metrics with 0 and
// 100 resamples, at CIFAR-100's scale (100 classes, 10⁴ samples),
// ImageNet's (1,000 classes, 5·10⁴ samples) and at 10 classes and 10⁶
// samples, and at ImageNet's the affine fits capped at 20 iterations (a
// fit to convergence takes minutes to hours there).
func CalibCases() []CalibCase {
	var cs []CalibCase
	for _, size := range [][2]int{{100, 10_000}, {1000, 50_000}, {10, 1_000_000}} {
		for _, m := range []string{"ts", "vs", "ms", "dirichlet", "hist", "isotonic"} {
			cs = append(cs, CalibCase{Work: m, K: size[0], N: size[1]})
		}
		cs = append(cs, CalibCase{Work: "eval", K: size[0], N: size[1]}, CalibCase{Work: "eval-bootstrap100", K: size[0], N: size[1], Reps: 100})
	}
	for _, m := range []string{"vs", "ms", "dirichlet"} {
		cs = append(cs, CalibCase{Work: m, K: 1000, N: 50_000, Iterations: 20})
	}
	return cs
}

// Setup draws the instance and returns one call of the workload.
func (c CalibCase) Setup() func() {
	src, tgt, ys, yt := CalibInstance(c.K, c.N, 1)
	widen := func(x []float32) []float64 {
		out := make([]float64, len(x))
		for i, v := range x {
			out[i] = float64(v)
		}
		return out
	}
	ints := func(x []int64) []int {
		out := make([]int, len(x))
		for i, v := range x {
			out[i] = int(v)
		}
		return out
	}
	if c.Work == "eval" || c.Work == "eval-bootstrap100" {
		probs, labels := calib.Softmax(widen(tgt), c.K), ints(yt)
		o := metrics.Options{Bins: 15}
		return func() {
			r, _, err := metrics.NewReport(probs, c.K, labels, o, false, true)
			if err == nil && c.Reps > 0 {
				_, err = metrics.BootstrapReport(&r, probs, nil, c.K, labels, o, true, c.Reps, 1)
			}
			if err != nil {
				panic(err)
			}
		}
	}
	f := calib.FitData{Logits: widen(src), Labels: ints(ys), K: c.K}
	o := calib.FitOptions{ODIR: calib.ODIR{Lambda: 1e-3, Mu: 1e-3}, HistBins: 15, AffineIterations: c.Iterations}
	return func() {
		if _, err := calib.Fit(c.Work, f, o); err != nil {
			panic(err)
		}
	}
}

// MeasureCalib times c: one untimed call, then as many as a second
// allows (at least one), with the bytes and allocations of a call.
func MeasureCalib(c CalibCase) testing.BenchmarkResult {
	run := c.Setup()
	return testing.Benchmark(func(b *testing.B) { loop(b, run) })
}
