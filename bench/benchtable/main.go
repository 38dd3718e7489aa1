// Command benchtable measures the bench workloads and prints a table of time
// per call and GFLOP/s.
//
//	go run ./bench/benchtable [-run REGEXP]
//
// The training steps of LeNet-5, ResNet-20 and DenseNet-40, those of ecl
// sim's small MLP (sim-mlp/…) and its ECE^KDE metric (ece-kde/n) are rows
// too; DenseNet-40's takes seconds and about 0.3 GB per step, so
// -run 'lenet5|resnet20|matmul|conv|sim-mlp|ece-kde' leaves it out. The ECL
// loss rows (ecl/paradigm/kK/nN/float32) at N = 10⁷ need several GB:
// -run 'ecl/.*/n(100|10000|1000000)/' leaves them out. Under each ECL row
// with N ≥ 10⁶ an "input pass" line gives the time of one plain pass over
// that row's inputs (ECLCase.InputPass) and the loss's multiple of it.
// The calibration rows (calib/WORK/kK/nN) time a calibrator's fit and ecl
// eval's metrics at 100 and 1,000 classes (bench.CalibCases); the 1,000-class
// matrix scaling and Dirichlet fits take minutes: -run 'calib/.*/k100/'
// leaves them out. bench/peer/calib.sh fits the same instances in PyTorch
// and scikit-learn.
// bench/peer/ holds the PyTorch and OpenBLAS peers that print the same rows.
//
// -arena runs each ECL loss pass inside a tensor.Arena, as train runs a
// training step: the pass's buffers are the previous pass's, instead of
// fresh memory that Go collects (and, with a small live heap and an idle
// core, returns to the kernel and faults in again).
//
// -live MB holds MB megabytes of live data (written once, then kept) while
// the rows run, as a program holding its model and data does: Go's
// collector paces itself on the live heap, so a loop allocating ~1 MB per
// pass next to a heap of 1 MB collects every few passes and returns pages
// to the kernel, next to 64 MB it does neither.
//
// The input-pipeline rows (images/decode-resize-crop/WxH) time one pass
// of datasets/images over -images JPEGs of PACS's size (227×227) and of
// ImageNet's typical one (500×375): decode, resize of the shorter side to
// 256, centre crop 224, normalisation, on GOMAXPROCS workers. The JPEGs
// are written into -image-dir first (kept, and reused when complete), so
// that bench/peer/images.py times torchvision's DataLoader on the same
// files; without -image-dir, into a temporary folder.
//
// -cpuprofile FILE profiles instead of timing: the one large-network row
// -run selects (e.g. -run '^resnet50-train-step'), -profile-calls calls in
// its steady state, after its warm-up calls (bench.ProfileLarge); read it
// with go tool pprof.
//
// -device cuda (a build with -tags cuda) runs the ECL loss rows and the
// training steps on GPU 0, waiting for the device after each call; the
// GEMM, convolution, sim-mlp and ece-kde rows are CPU workloads and are
// listed as not run. Without CUDA built in, -device cuda fails.
package main

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"runtime"
	"testing"
	"time"

	"github.com/ecl-go/ecl/bench"
	"github.com/ecl-go/ecl/kernels/cuda"
)

func main() {
	pattern := flag.String("run", ".", "regular expression selecting workloads by name")
	arena := flag.Bool("arena", false, "run each ECL loss pass inside a tensor.Arena, as train runs a step (a loop's buffers reused instead of collected)")
	live := flag.Int("live", 0, "megabytes of live data held while the rows run, as a program holding its model and data (0: none)")
	device := flag.String("device", "cpu", "where the ECL and training-step rows run: cpu, or cuda (GPU 0; needs a build with -tags cuda)")
	imageDir := flag.String("image-dir", "", "folder of the input-pipeline rows' JPEGs, written there unless present (empty: a temporary folder)")
	imageCount := flag.Int("images", 200, "JPEGs per input-pipeline row")
	profile := flag.String("cpuprofile", "", "write the CPU profile of the one large-network row -run selects, in its steady state, to this file (no timing)")
	profileCalls := flag.Int("profile-calls", 10, "calls -cpuprofile profiles")
	flag.Parse()
	re, err := regexp.Compile(*pattern)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable: -run:", err)
		os.Exit(2)
	}
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "benchtable: unexpected argument %q\n", flag.Arg(0))
		os.Exit(2)
	}
	if *imageCount < 1 {
		fmt.Fprintf(os.Stderr, "benchtable: -images %d: want at least 1\n", *imageCount)
		os.Exit(2)
	}
	if *live < 0 {
		fmt.Fprintf(os.Stderr, "benchtable: -live %d: want megabytes ≥ 0\n", *live)
		os.Exit(2)
	}
	held := make([]byte, *live<<20)
	for i := range held {
		held[i] = 1
	}
	defer runtime.KeepAlive(held)
	on, err := target(*device)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(2)
	}
	if *profile != "" {
		if err := profileRow(re, on, *profile, *profileCalls); err != nil {
			fmt.Fprintln(os.Stderr, "benchtable:", err)
			os.Exit(2)
		}
		return
	}
	fmt.Printf("%s/%s, GOMAXPROCS=%d, device %s, ECL passes in an arena: %v, live data %d MB\n", runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0), *device, *arena, *live)
	fmt.Printf("%-34s %10s %9s\n", "workload", "ms/op", "GFLOP/s")
	cpuOnly := func(name string) bool {
		if !re.MatchString(name) {
			return true
		}
		if on.Wait != nil {
			fmt.Printf("%-34s %10s  (a CPU workload: not run with -device %s)\n", name, "-", *device)
			return true
		}
		return false
	}
	for _, c := range bench.Cases() {
		if cpuOnly(c.Name) {
			continue
		}
		r := bench.Measure(c)
		fmt.Printf("%-34s %10.3f %9.2f\n", r.Name, float64(r.PerOp.Nanoseconds())/1e6, r.GFLOPS)
	}
	eclRows(re, on, *arena)
	calibRows(cpuOnly)
	if err := imageRows(cpuOnly, *imageDir, *imageCount); err != nil {
		fmt.Fprintln(os.Stderr, "benchtable:", err)
		os.Exit(1)
	}
	for _, net := range []string{"lenet5", "resnet20", "densenet40"} {
		name := net + "-train-step/float32"
		if !re.MatchString(name) {
			continue
		}
		res := bench.MeasureStep(net, on)
		per := time.Duration(res.NsPerOp())
		fmt.Printf("%-34s %10.3f %9s  (%.0f images/s, batch 100, Adam; %.1f MB and %d allocations per step)\n", name, float64(per.Nanoseconds())/1e6, "", 100/per.Seconds(), float64(res.AllocedBytesPerOp())/1e6, res.AllocsPerOp())
	}
	for _, net := range bench.LargeOrder {
		for _, train := range []bool{false, true} {
			name := largeRow(net, train)
			batch, what := bench.LargeInferBatch, "inference, evaluation mode"
			if train {
				batch, what = bench.LargeTrainBatch, "Adam"
			}
			if !re.MatchString(name) {
				continue
			}
			res := bench.MeasureLarge(net, train, on)
			per := time.Duration(res.NsPerOp())
			fmt.Printf("%-34s %10.3f %9s  (%.1f images/s, batch %d at 224×224, %s; %.1f MB and %d allocations per call)\n", name, float64(per.Nanoseconds())/1e6, "", float64(batch)/per.Seconds(), batch, what, float64(res.AllocedBytesPerOp())/1e6, res.AllocsPerOp())
		}
	}
	for _, c := range bench.SmallCases() {
		if cpuOnly(c.Name) {
			continue
		}
		res := testing.Benchmark(func(b *testing.B) { c.Run(b.N) })
		fmt.Printf("%-34s %10.3f %9s  (ecl sim training step, float64, batch 100; %.1f kB and %d allocations per step)\n", c.Name, float64(res.NsPerOp())/1e6, "", float64(res.AllocedBytesPerOp())/1e3, res.AllocsPerOp())
	}
	for _, n := range []int{400, 800} {
		name := fmt.Sprintf("ece-kde/%d", n)
		if cpuOnly(name) {
			continue
		}
		probs, labels := bench.KDEInput(n)
		res := testing.Benchmark(func(b *testing.B) {
			for range b.N {
				bench.KDE(probs, labels)
			}
		})
		fmt.Printf("%-34s %10.3f %9s  (ECE^KDE as ecl sim computes it, k = 3, bandwidth search included)\n", name, float64(res.NsPerOp())/1e6, "")
	}
}

// target resolves -device (cuda.Select): the CPU, or GPU 0 with a wait for
// its queue after each timed call.
func target(name string) (bench.On, error) {
	dev, err := cuda.Select[float32](name)
	if err != nil {
		return bench.On{}, err
	}
	if dev == nil {
		return bench.OnCPU, nil
	}
	return bench.On{Dev: dev, Wait: func() {
		if err := cuda.Sync(); err != nil {
			panic(err)
		}
	}}, nil
}
