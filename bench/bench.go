// Package bench holds the throughput workloads by which the engine's speed is
// judged: matrix products and convolution layers of the paper's networks.
// They run as Go benchmarks (go test -bench . ./bench) and as a table
// (go run ./bench/benchtable).
package bench

import (
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"
	"time"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/optim"
	"github.com/ecl-go/ecl/tensor"
)

// Case is one workload: Setup allocates its inputs and returns the operation
// to time; Flops counts the floating-point operations of one call.
type Case struct {
	Name  string
	Flops float64
	Setup func() func()
}

// Cases lists the workloads: this CPU's multiply-add peak (peakCases),
// matmul n×n·n×n for n = 128, 512, 1024 in float32 and float64, allocating
// its result and in an arena, and convolution forward+backward for a
// LeNet-5 and a ResNet-20 layer.
func Cases() []Case {
	cs := peakCases(runtime.GOMAXPROCS(0))
	for _, arena := range []bool{false, true} {
		for _, n := range []int{128, 512, 1024} {
			cs = append(cs, matmul[float32](n, arena), matmul[float64](n, arena))
		}
	}
	lenet := tensor.Conv2DParams{N: 100, C: 6, H: 12, W: 12, O: 16, KH: 5, KW: 5}
	resnet := tensor.Conv2DParams{N: 100, C: 16, H: 32, W: 32, O: 16, KH: 3, KW: 3, PadH: 1, PadW: 1}
	for _, c := range []struct {
		name string
		p    tensor.Conv2DParams
	}{{"lenet5", lenet}, {"resnet20", resnet}} {
		cs = append(cs, conv[float32](c.name, c.p), conv[float64](c.name, c.p))
	}
	// ViT-B/16's attention at a training batch of 16: 16·12 heads, 197
	// tokens, 64 dimensions a head.
	return append(cs, attention(192, 197, 64), attentionProducts(192, 197, 64))
}

// attentionFlops is the arithmetic of attention's forward and backward
// passes over bh heads of n tokens of d dimensions: seven products of
// n×n×d a head (q·kᵀ and p·v forward; the scores again, dv, dp, dq and dk
// backward).
func attentionFlops(bh, n, d int) float64 {
	return 7 * 2 * float64(bh) * float64(n) * float64(n) * float64(d)
}

// attention times tensor.Attention and tensor.AttentionBackward, float32.
func attention(bh, n, d int) Case {
	return Case{
		Name:  fmt.Sprintf("attention-fwd+bwd/float32/bh%d/n%d/d%d", bh, n, d),
		Flops: attentionFlops(bh, n, d),
		Setup: func() func() {
			r := rng()
			q, k, v, do := tensor.RandNormal[float32](r, 0, 1, bh, n, d), tensor.RandNormal[float32](r, 0, 1, bh, n, d),
				tensor.RandNormal[float32](r, 0, 1, bh, n, d), tensor.RandNormal[float32](r, 0, 1, bh, n, d)
			scale := float32(1 / math.Sqrt(float64(d)))
			return func() {
				o, lse := tensor.Attention(q, k, v, scale)
				tensor.AttentionBackward(do, q, k, v, o, lse, scale)
			}
		},
	}
}

// attentionProducts times the seven batched products of attention's
// arithmetic alone (tensor.MatMul, transposed operands as views), the
// GEMM rate the fused attention is measured against.
func attentionProducts(bh, n, d int) Case {
	return Case{
		Name:  fmt.Sprintf("attention-products/float32/bh%d/n%d/d%d", bh, n, d),
		Flops: attentionFlops(bh, n, d),
		Setup: func() func() {
			r := rng()
			q, k := tensor.RandNormal[float32](r, 0, 1, bh, n, d), tensor.RandNormal[float32](r, 0, 1, bh, n, d)
			p := tensor.RandNormal[float32](r, 0, 1, bh, n, n)
			t := func(x *tensor.Tensor[float32]) *tensor.Tensor[float32] { return tensor.Transpose(x, 1, 2) }
			return func() {
				tensor.MatMul(q, t(k)) // scores
				tensor.MatMul(p, k)    // output
				tensor.MatMul(q, t(k)) // scores again
				tensor.MatMul(t(p), q) // dv
				tensor.MatMul(q, t(k)) // dp
				tensor.MatMul(p, k)    // dq
				tensor.MatMul(t(p), q) // dk
			}
		},
	}
}

func rng() *rand.Rand { return rand.New(rand.NewPCG(1, 2)) }

// matmul is tensor.MatMul of two n×n matrices, which allocates its result
// (matmul/…), or, with arena, the same inside a tensor.Arena, which hands
// the result's buffer to the next call (matmul-arena/…): as a BLAS caller
// passes the output buffer it allocated once.
func matmul[T tensor.Float](n int, arena bool) Case {
	name := "matmul"
	if arena {
		name = "matmul-arena"
	}
	return Case{
		Name:  fmt.Sprintf("%s/%s/%d", name, tensor.DType[T](), n),
		Flops: 2 * float64(n) * float64(n) * float64(n),
		Setup: func() func() {
			r := rng()
			a := tensor.RandNormal[T](r, 0, 1, n, n)
			b := tensor.RandNormal[T](r, 0, 1, n, n)
			if !arena {
				return func() { tensor.MatMul(a, b) }
			}
			var ar tensor.Arena[T]
			return func() { ar.Do(func() { tensor.MatMul(a, b) }) }
		},
	}
}

// conv times the forward pass and both backward passes of one layer.
func conv[T tensor.Float](name string, p tensor.Conv2DParams) Case {
	o := tensor.ConvOptions{PadH: p.PadH, PadW: p.PadW}
	p.StrideH, p.StrideW, p.DilH, p.DilW = 1, 1, 1, 1
	macs := float64(p.N * p.O * p.OutH() * p.OutW() * p.C * p.KH * p.KW)
	return Case{
		Name:  fmt.Sprintf("conv2d-fwd+bwd/%s/%s", tensor.DType[T](), name),
		Flops: 3 * 2 * macs,
		Setup: func() func() {
			r := rng()
			x := tensor.RandNormal[T](r, 0, 1, p.N, p.C, p.H, p.W)
			w := tensor.RandNormal[T](r, 0, 0.1, p.O, p.C, p.KH, p.KW)
			dy := tensor.RandNormal[T](r, 0, 1, p.N, p.O, p.OutH(), p.OutW())
			return func() {
				tensor.Conv2D(x, w, o)
				tensor.Conv2DBackwardInput(dy, w, p)
				tensor.Conv2DBackwardWeight(x, dy, p)
			}
		},
	}
}

// Bench times c in a Go benchmark and reports GFLOP/s.
func Bench(b *testing.B, c Case) {
	loop(b, c.Setup())
	b.ReportMetric(c.Flops*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
}

// loop times b.N calls of run, with allocations, after one untimed warm-up
// call (the first step of a network packs weights and faults in its
// buffers; bench/peer's scripts warm up the same way).
func loop(b *testing.B, run func()) {
	run()
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		run()
	}
}

// Row is one line of the table: time per call and throughput.
type Row struct {
	Name   string
	PerOp  time.Duration
	GFLOPS float64
}

// Measure runs c as a benchmark (about a second) and returns its row.
func Measure(c Case) Row {
	res := testing.Benchmark(func(b *testing.B) { Bench(b, c) })
	per := time.Duration(res.NsPerOp())
	return Row{c.Name, per, c.Flops / per.Seconds() / 1e9}
}

// On is where a workload runs: a device, and for an asynchronous one the
// wait for its queued work, called after each timed call.
type On struct {
	Dev  tensor.Device[float32]
	Wait func()
}

// OnCPU runs workloads on the CPU.
var OnCPU = On{Dev: tensor.CPU[float32]{}}

// timed is run followed by the wait for its work.
func (o On) timed(run func()) func() {
	if o.Wait == nil {
		return run
	}
	return func() { run(); o.Wait() }
}

// MeasureStep runs a training step of the network called net (batch 100,
// float32) on o as a benchmark, warm-up untimed.
func MeasureStep(net string, o On) testing.BenchmarkResult {
	step := o.timed(TrainStep(net, 100, o.Dev))
	return testing.Benchmark(func(b *testing.B) { loop(b, step) })
}

// Nets are the networks whose training step is measured, by name.
var Nets = map[string]func(r *rand.Rand) *ecl.Classifier[float32]{
	"lenet5":   func(r *rand.Rand) *ecl.Classifier[float32] { return ecl.NewClassifier(r, nn.LeNet5[float32], 10, 10) },
	"resnet20": func(r *rand.Rand) *ecl.Classifier[float32] { return ecl.NewClassifier(r, nn.ResNet20[float32], 10, 10) },
	"densenet40": func(r *rand.Rand) *ecl.Classifier[float32] {
		return ecl.NewClassifier(r, nn.DenseNet40[float32], 10, 10)
	},
}

// TrainStep returns one training step of the network called net on a batch
// of n random 3×28×28 images (forward, cross-entropy, backward, Adam), in
// float32, with the model and the batch on dev.
func TrainStep(net string, n int, dev tensor.Device[float32]) func() {
	r := rng()
	m := Nets[net](r)
	nn.ToDevice[float32](m, dev)
	x := autograd.Const(tensor.To(tensor.RandUniform[float32](r, 0, 1, n, 3, 28, 28), dev))
	labels := make([]int, n)
	for i := range labels {
		labels[i] = r.IntN(10)
	}
	opt := optim.NewAdam(m.Params(), 1e-3, 0)
	var arena tensor.Arena[float32] // as train.fit: a step's tensors are recycled by the next
	return func() {
		nn.ZeroGrad[float32](m)
		arena.Do(func() { nn.CrossEntropy(m.Forward(x), labels).Backward() })
		opt.Step()
	}
}
