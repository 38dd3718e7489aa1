//go:build cuda

package cuda_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/bench"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/kernels/cuda"
	"github.com/ecl-go/ecl/tensor"
)

// Benchmarks of the kernels; peer/peer.py times the same computations with
// PyTorch on the same GPU and prints rows of the same names, so that the two
// outputs can be joined into ratios. Every iteration waits for the GPU
// (cuda.Sync), as the peer does.

func wait(b *testing.B) {
	if err := cuda.Sync(); err != nil {
		b.Fatal(err)
	}
}

// timed runs step once (a warm-up: it loads the modules and fills the
// allocator's cache), then b.N times timed, waiting for the GPU after each.
func timed(b *testing.B, step func()) {
	step()
	wait(b)
	b.ResetTimer()
	for range b.N {
		step()
		wait(b)
	}
}

// gflops reports flop floating-point operations per iteration as GFLOP/s.
func gflops(b *testing.B, flop float64) {
	b.ReportMetric(flop*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

func BenchmarkGEMM(b *testing.B) {
	b.Run("f32", gemmBench[float32])
	b.Run("f64", gemmBench[float64])
}

func gemmBench[T tensor.Float](b *testing.B) {
	dev := gpu[T](b)
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range []int{256, 1024, 4096} {
		x := tensor.To(tensor.RandUniform[T](r, -1, 1, n, n), dev)
		y := tensor.To(tensor.RandUniform[T](r, -1, 1, n, n), dev)
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			timed(b, func() { tensor.MatMul(x, y) })
			gflops(b, 2*float64(n)*float64(n)*float64(n))
		})
	}
}

// convLayers are LeNet-5's first layer and ResNet-20's three 3×3 stages, at
// batch 128.
var convLayers = []struct {
	name string
	x, w []int
	o    tensor.ConvOptions
}{
	{"lenet1", []int{128, 1, 28, 28}, []int{6, 1, 5, 5}, tensor.ConvOptions{}},
	{"resnet16x32", []int{128, 16, 32, 32}, []int{16, 16, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{"resnet32x16", []int{128, 32, 16, 16}, []int{32, 32, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{"resnet64x8", []int{128, 64, 8, 8}, []int{64, 64, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
}

// resnet50Layers are the shapes of ResNet-50's convolutions at batch 16,
// 224×224, by stage: the stem, each stage's 1×1 reduction, 3×3 and 1×1
// expansion, its strided 3×3 and strided downsampling.
var resnet50Layers = []struct {
	name string
	x, w []int
	o    tensor.ConvOptions
}{
	{"stem", []int{16, 3, 224, 224}, []int{64, 3, 7, 7}, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 3, PadW: 3}},
	{"l1_reduce", []int{16, 256, 56, 56}, []int{64, 256, 1, 1}, tensor.ConvOptions{}},
	{"l1_3x3", []int{16, 64, 56, 56}, []int{64, 64, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{"l1_expand", []int{16, 64, 56, 56}, []int{256, 64, 1, 1}, tensor.ConvOptions{}},
	{"l2_reduce", []int{16, 512, 28, 28}, []int{128, 512, 1, 1}, tensor.ConvOptions{}},
	{"l2_3x3", []int{16, 128, 28, 28}, []int{128, 128, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{"l2_expand", []int{16, 128, 28, 28}, []int{512, 128, 1, 1}, tensor.ConvOptions{}},
	{"l2_3x3s2", []int{16, 128, 56, 56}, []int{128, 128, 3, 3}, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1}},
	{"l2_down", []int{16, 256, 56, 56}, []int{512, 256, 1, 1}, tensor.ConvOptions{StrideH: 2, StrideW: 2}},
	{"l3_reduce", []int{16, 1024, 14, 14}, []int{256, 1024, 1, 1}, tensor.ConvOptions{}},
	{"l3_3x3", []int{16, 256, 14, 14}, []int{256, 256, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{"l3_expand", []int{16, 256, 14, 14}, []int{1024, 256, 1, 1}, tensor.ConvOptions{}},
	{"l4_reduce", []int{16, 2048, 7, 7}, []int{512, 2048, 1, 1}, tensor.ConvOptions{}},
	{"l4_3x3", []int{16, 512, 7, 7}, []int{512, 512, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{"l4_expand", []int{16, 512, 7, 7}, []int{2048, 512, 1, 1}, tensor.ConvOptions{}},
}

// BenchmarkConvResNet50 times each of ResNet-50's convolution shapes by the
// path the device takes (rows named as the layer) and, where that is the
// column matrix (x itself for a pointwise one) and the GEMM kernels, by the
// implicit GEMM (…/implicit), which place implicitConv's choices.
func BenchmarkConvResNet50(b *testing.B) {
	for _, l := range resnet50Layers {
		convBench(b, l.name, l.x, l.w, l.o)
		cuda.SetImplicitConv(true)
		convBench(b, l.name+"/implicit", l.x, l.w, l.o)
		cuda.SetImplicitConv(false)
	}
}

func BenchmarkConv(b *testing.B) {
	for _, l := range convLayers {
		convBench(b, l.name, l.x, l.w, l.o)
	}
}

// convBench times a convolution's three passes on input x and weights w
// of the given shapes, as rows pass/name.
func convBench(b *testing.B, name string, xs, ws []int, o tensor.ConvOptions) {
	dev := gpu[float32](b)
	p, err := tensor.NewConv2DParams(xs, ws, o)
	if err != nil {
		b.Fatal(err)
	}
	r := rand.New(rand.NewPCG(2, 2))
	x := tensor.To(tensor.RandUniform[float32](r, -1, 1, xs...), dev)
	w := tensor.To(tensor.RandUniform[float32](r, -1, 1, ws...), dev)
	dy := tensor.To(tensor.RandUniform[float32](r, -1, 1, p.N, p.O, p.OutH(), p.OutW()), dev)
	flop := 2 * float64(p.N*p.O*p.C*p.KH*p.KW*p.OutH()*p.OutW())
	for _, pass := range []struct {
		name string
		f    func()
	}{
		{"forward", func() { tensor.Conv2D(x, w, o) }},
		{"backward_input", func() { tensor.Conv2DBackwardInput(dy, w, p) }},
		{"backward_weight", func() { tensor.Conv2DBackwardWeight(x, dy, p) }},
	} {
		b.Run(pass.name+"/"+name, func(b *testing.B) {
			timed(b, pass.f)
			gflops(b, flop)
		})
	}
}

// eclSizes are the sizes of the ECL benchmarks: N samples of K classes, B
// anchors (bins), float32.
var (
	eclN = []int{1_000, 10_000, 100_000, 1_000_000, 10_000_000}
	eclB = []int{15, 55}
	eclK = []int{3, 10}
)

// eclBench runs f for every size on probability rows x [N, K] and anchors
// [B, K], made on first use (so that -test.bench filters skip them) and
// outside the timed runs, reporting rows per second.
func eclBench(b *testing.B, f func(b *testing.B, x, a *tensor.Tensor[float32])) {
	dev := gpu[float32](b)
	r := rand.New(rand.NewPCG(3, 3))
	cache := map[[2]int]*tensor.Tensor[float32]{}
	for _, n := range eclN {
		for _, k := range eclK {
			for _, nb := range eclB {
				b.Run(fmt.Sprintf("N=%d/B=%d/K=%d", n, nb, k), func(b *testing.B) {
					x, ok := cache[[2]int{n, k}]
					if !ok {
						x = tensor.Softmax(tensor.To(tensor.RandNormal[float32](r, 0, 2, n, k), dev), 1)
						cache = map[[2]int]*tensor.Tensor[float32]{{n, k}: x} // frees the previous size
					}
					a := tensor.To(tensor.RandUniform[float32](r, 0, 1, nb, k), dev)
					f(b, x, a)
					b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		}
	}
}

func BenchmarkSoftAssign(b *testing.B) {
	eclBench(b, func(b *testing.B, x, a *tensor.Tensor[float32]) {
		n, k := x.Dim(0), x.Dim(1)
		rows, sb := tensor.Reshape(x, n, 1, k), softBinsOf(a, 0.01)
		b.ResetTimer()
		for range b.N {
			tensor.SoftAssign(rows, sb)
			wait(b)
		}
	})
}

// softAssigned is the soft assignment (τ = 0.01) of the rows x [N, K] to
// the anchors a [B, K], [N, B], with N, K and B.
func softAssigned(x, a *tensor.Tensor[float32]) (w *tensor.Tensor[float32], n, k, nb int) {
	n, k, nb = x.Dim(0), x.Dim(1), a.Dim(0)
	return tensor.Reshape(tensor.SoftAssign(tensor.Reshape(x, n, 1, k), softBinsOf(a, 0.01)), n, nb), n, k, nb
}

// BenchmarkBinStats: the bin statistics of one domain (soft counts,
// weighted sums and squared norms), canonical layout (G = 1, D = K) from an
// assignment [N, 1, B].
func BenchmarkBinStats(b *testing.B) {
	eclBench(b, func(b *testing.B, x, a *tensor.Tensor[float32]) {
		w, n, k, nb := softAssigned(x, a)
		w, p := tensor.Reshape(w, n, 1, nb), tensor.Reshape(x, n, 1, k)
		wait(b)
		b.ResetTimer()
		for range b.N {
			tensor.BinStats(w, p)
			wait(b)
		}
	})
}

// BenchmarkHardBinSums: counts and sums of the samples in each nearest-anchor
// bin (the binned metrics), G = 1, D = K.
func BenchmarkHardBinSums(b *testing.B) {
	eclBench(b, func(b *testing.B, x, a *tensor.Tensor[float32]) {
		w, n, k, nb := softAssigned(x, a)
		bin, v := tensor.ArgMax(w, 1, true), tensor.Reshape(x, n, 1, k)
		wait(b)
		b.ResetTimer()
		for range b.N { // HardBinSums waits for its result (it checks the bin indices)
			if _, _, err := cuda.HardBinSums(bin, v, nb); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkECLLoss times the mini-batch ECL loss forward and backward on
// two domains of N samples on the device (bench.ECLCase: Algorithm 1, 15
// bins, float32), reporting samples per second; peer.py's eclloss rows time
// the reference code's PyTorch version on the same GPU.
func BenchmarkECLLoss(b *testing.B) {
	dev := gpu[float32](b)
	for _, n := range []int{10_000, 1_000_000} {
		for _, k := range []int{3, 10} {
			for _, p := range []ecl.Paradigm{ecl.Canonical, ecl.ClassWise, ecl.TopLabel} {
				b.Run(fmt.Sprintf("%v/k%d/n%d", p, k, n), func(b *testing.B) {
					timed(b, bench.ECLCase{Paradigm: p, K: k, N: n}.SetupOn(dev))
					b.ReportMetric(2*float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
				})
			}
		}
	}
}

// BenchmarkTrainStep times a training step of LeNet-5 and ResNet-20 on the
// device (batch 100, Adam, float32); bench's BenchmarkTrainStep is the same
// step on the CPU.
func BenchmarkTrainStep(b *testing.B) {
	dev, err := cuda.New[float32]()
	if err != nil {
		b.Skip(err)
	}
	for _, net := range []string{"lenet5", "resnet20"} {
		b.Run(net, func(b *testing.B) {
			timed(b, bench.TrainStep(net, 100, dev))
			b.ReportMetric(100*float64(b.N)/b.Elapsed().Seconds(), "images/s")
		})
	}
}

// BenchmarkLargeStep times the paper's large networks on the device
// (bench.LargeStep: ResNet-50 and ViT-B/16 at 224×224, float32; inference
// at batch 8, a training step with Adam at batch 16).
func BenchmarkLargeStep(b *testing.B) {
	dev := gpu[float32](b)
	for _, net := range []string{"resnet50", "vit_b_16"} {
		for _, train := range []bool{false, true} {
			mode, n := "infer", bench.LargeInferBatch
			if train {
				mode, n = "train", bench.LargeTrainBatch
			}
			b.Run(net+"/"+mode, func(b *testing.B) {
				step, _ := bench.LargeStep(net, train, dev)
				timed(b, step)
				b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "images/s")
			})
		}
	}
}

// BenchmarkAttention times attention's forward and backward kernels
// (tensor.Attention, tensor.AttentionBackward) at ViT-B/16's shape for
// batch 16: 16·12 heads of N = 197 tokens of 64, float32. GFLOP/s counts
// the six matrix products, 12·BH·N²·Dh: Q·Kᵀ and P·V forward, dP = dO·Vᵀ,
// dV = Pᵀ·dO, dQ = dS·K and dK = dSᵀ·Q backward (not the scores the
// backward pass computes again).
func BenchmarkAttention(b *testing.B) {
	dev := gpu[float32](b)
	const bh, n, dh = 16 * 12, 197, 64
	r := rand.New(rand.NewPCG(1, 1))
	in := func() *tensor.Tensor[float32] {
		return tensor.To(tensor.RandUniform[float32](r, -1, 1, bh, n, dh), dev)
	}
	q, k, v, do := in(), in(), in(), in()
	scale := float32(1 / 8.0)
	step := func() {
		o, lse := tensor.Attention(q, k, v, scale)
		tensor.AttentionBackward(do, q, k, v, o, lse, scale)
	}
	b.Run(fmt.Sprintf("bh%d/n%d/d%d", bh, n, dh), func(b *testing.B) {
		timed(b, step)
		gflops(b, 12*bh*n*n*dh)
	})
}
