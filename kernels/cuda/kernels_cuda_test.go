//go:build cuda

package cuda_test

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/kernels/cuda"
	"github.com/ecl-go/ecl/optim"
	"github.com/ecl-go/ecl/tensor"
)

// The package's own kernels against their CPU references, and the ECL loss
// running unchanged on the device.

// probs is a [n, k] CPU tensor of random probability vectors.
func probs[T tensor.Float](r *rand.Rand, n, k int) *tensor.Tensor[T] {
	return tensor.Softmax(tensor.RandNormal[T](r, 0, 2, n, k), 1)
}

func TestSoftmax(t *testing.T) { both(t, softmax[float32], softmax[float64]) }

func softmax[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(11, 11))
	for _, s := range [][]int{{0, 4}, {3, 0}, {1}, {7, 13}, {2, 3, 1}, {rows(dev, 100_003), 10}, {5, 1000}} {
		for _, l := range []layout{dense, transposed, narrowed} {
			x, xg := pair[T](r, dev, l, s, -30, 30)
			got, err := cuda.Softmax(xg)
			if err != nil {
				t.Fatal(err)
			}
			sameDefault(t, fmt.Sprintf("Softmax %v %v", l, s), got, tensor.Softmax(x, -1))
			got, err = cuda.LogSoftmax(xg)
			if err != nil {
				t.Fatal(err)
			}
			atol, rtol := tol[T]()
			same(t, fmt.Sprintf("LogSoftmax %v %v", l, s), got, tensor.LogSoftmax(x, -1), atol*60, rtol)
			// The bodies of tensor's softmax and log_softmax kernels,
			// forward and backward, along the last and the first axis.
			for _, axis := range []int{-1, 0} {
				name := fmt.Sprintf("%v %v axis %d", l, s, axis)
				same(t, "tensor.LogSoftmax "+name, tensor.LogSoftmax(xg, axis), tensor.LogSoftmax(x, axis), atol*60, rtol)
				g, gg := pair[T](r, dev, l, s, -1, 1)
				same(t, "tensor.LogSoftmaxBackward "+name, tensor.LogSoftmaxBackward(gg, xg, axis), tensor.LogSoftmaxBackward(g, x, axis), atol*60, rtol)
				y := tensor.Softmax(x, axis)
				sameDefault(t, "tensor.Softmax "+name, tensor.Softmax(xg, axis), y)
				same(t, "tensor.SoftmaxBackward "+name, tensor.SoftmaxBackward(gg, tensor.To(y, dev), axis), tensor.SoftmaxBackward(g, y, axis), atol*60, rtol)
			}
		}
	}
	// Rows of −∞ and rows with +∞ and NaN follow tensor.ShiftMax.
	inf := T(math.Inf(1))
	x := tensor.FromSlice([]T{-inf, -inf, -inf, 1, inf, 2, 3, T(math.NaN()), 4}, 3, 3)
	got, _ := cuda.Softmax(tensor.To(x, dev))
	sameDefault(t, "Softmax of infinities", got, tensor.Softmax(x, -1))
	got, _ = cuda.LogSoftmax(tensor.To(x, dev))
	sameDefault(t, "LogSoftmax of infinities", got, tensor.LogSoftmax(x, -1))
	g := tensor.FromSlice([]T{1, -2, 0.5, 0.25, 1, -1, 2, 3, -3}, 3, 3)
	sameDefault(t, "LogSoftmaxBackward of infinities", tensor.LogSoftmaxBackward(tensor.To(g, dev), tensor.To(x, dev), 1), tensor.LogSoftmaxBackward(g, x, 1))
	sameDefault(t, "tensor.Softmax of infinities", tensor.Softmax(tensor.To(x, dev), 1), tensor.Softmax(x, 1))
	y := tensor.Softmax(x, 1)
	sameDefault(t, "SoftmaxBackward of infinities", tensor.SoftmaxBackward(tensor.To(g, dev), tensor.To(y, dev), 1), tensor.SoftmaxBackward(g, y, 1))
}

// TestBatchNorm: the device's batch-norm kernels against tensor's CPU
// loops, forward (y, μ, σ²) and backward (dx, dγ, dβ), on shapes with one
// value per channel, odd sizes, ResNet-20's largest layer, no channels, a
// 2-D input, channels cut into chunks of short rows, and chunks of which
// the last is empty (bnChunks); and the same with a ReLU, with and without
// a residual sum (tensor.BatchNormRelu), the backward pass taking the CPU's
// output as the ReLU's mask.
func TestBatchNorm(t *testing.T) { both(t, batchNorm[float32], batchNorm[float64]) }

func batchNorm[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(12, 12))
	for _, s := range [][]int{{1, 1, 1, 1}, {3, 5, 7, 3}, {rows(dev, 128), 16, 32, 32}, {2, 0, 3, 3}, {9, 4}, {600, 3, 5}, {7, 2, 40, 30}} {
		c := s[1]
		x := tensor.RandNormal[T](r, 1, 2, s...)
		gamma, beta := tensor.RandNormal[T](r, 1, 0.5, c), tensor.RandNormal[T](r, 0, 0.5, c)
		g := tensor.RandNormal[T](r, 0, 1, s...)
		eps := T(1e-5)
		y, m, v := tensor.BatchNorm(tensor.To(x, dev), tensor.To(gamma, dev), tensor.To(beta, dev), eps)
		wy, wm, wv := tensor.BatchNorm(x, gamma, beta, eps)
		sameDefault(t, fmt.Sprintf("BatchNorm y %v", s), y, wy)
		sameDefault(t, fmt.Sprintf("BatchNorm mean %v", s), m, wm)
		sameDefault(t, fmt.Sprintf("BatchNorm variance %v", s), v, wv)
		dx, dg, db := tensor.BatchNormBackward(tensor.To(g, dev), tensor.To(x, dev), tensor.To(gamma, dev), m, v, eps)
		wdx, wdg, wdb := tensor.BatchNormBackward(g, x, gamma, wm, wv, eps)
		n := math.Sqrt(float64(max(len(x.Data())/max(c, 1), 1)))
		atol, rtol := tol[T]()
		same(t, fmt.Sprintf("BatchNormBackward dx %v", s), dx, wdx, atol*n, rtol*n)
		same(t, fmt.Sprintf("BatchNormBackward dgamma %v", s), dg, wdg, atol*n, rtol*n)
		same(t, fmt.Sprintf("BatchNormBackward dbeta %v", s), db, wdb, atol*n, rtol*n)
		// With the residual sum and ReLU, with and without a residual.
		for _, res := range []*tensor.Tensor[T]{nil, tensor.RandNormal[T](r, 0, 1, s...)} {
			var rg *tensor.Tensor[T]
			if res != nil {
				rg = tensor.To(res, dev)
			}
			what := fmt.Sprintf("%v residual %v", s, res != nil)
			y, m, v := tensor.BatchNormRelu(tensor.To(x, dev), tensor.To(gamma, dev), tensor.To(beta, dev), rg, eps)
			wy, wm, wv := tensor.BatchNormRelu(x, gamma, beta, res, eps)
			sameDefault(t, "BatchNormRelu y "+what, y, wy)
			sameDefault(t, "BatchNormRelu mean "+what, m, wm)
			sameDefault(t, "BatchNormRelu variance "+what, v, wv)
			dx, dg, db, dr := tensor.BatchNormReluBackward(tensor.To(g, dev), tensor.To(wy, dev), tensor.To(x, dev), tensor.To(gamma, dev), m, v, eps, res != nil)
			wdx, wdg, wdb, wdr := tensor.BatchNormReluBackward(g, wy, x, gamma, wm, wv, eps, res != nil)
			same(t, "BatchNormReluBackward dx "+what, dx, wdx, atol*n, rtol*n)
			same(t, "BatchNormReluBackward dgamma "+what, dg, wdg, atol*n, rtol*n)
			same(t, "BatchNormReluBackward dbeta "+what, db, wdb, atol*n, rtol*n)
			if res != nil {
				sameDefault(t, "BatchNormReluBackward dr "+what, dr, wdr)
			}
		}
	}
}

// TestChannelAffine: batch norm's evaluation pass (tensor.ChannelAffine)
// on the device equals the CPU body bit for bit (the same roundings), with
// and without the residual and the ReLU, on sizes 0, 1, odd and large and
// on transposed and narrowed views of x.
func TestChannelAffine(t *testing.T) { both(t, channelAffine[float32], channelAffine[float64]) }

func channelAffine[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(13, 13))
	for _, s := range [][]int{{1, 1, 1, 1}, {3, 5, 7, 3}, {rows(dev, 64), 16, 32, 32}, {2, 0, 3, 3}, {2, 3, 0}, {9, 4}, {7, 2, 40, 30}} {
		for _, l := range []layout{dense, transposed, narrowed} {
			x, xg := pair(r, dev, l, s, -2, 2)
			scale, scaleG := pair(r, dev, dense, []int{s[1]}, -1, 1)
			shift, shiftG := pair(r, dev, dense, []int{s[1]}, -1, 1)
			res, resG := pair(r, dev, dense, s, -1, 1)
			for _, withR := range []bool{false, true} {
				for _, relu := range []bool{false, true} {
					var rc, rg *tensor.Tensor[T]
					if withR {
						rc, rg = res, resG
					}
					what := fmt.Sprintf("ChannelAffine %v %v residual %v relu %v", s, l, withR, relu)
					same(t, what, tensor.ChannelAffine(xg, scaleG, shiftG, rg, relu), tensor.ChannelAffine(x, scale, shift, rc, relu), 0, 0)
				}
			}
		}
	}
}

// anchorCases are (B, D) pairs of the three paradigms (top-label and
// class-wise D = 1, canonical D = K) and anchors too many for shared memory.
var anchorCases = []struct{ b, d int }{{5, 2}, {15, 1}, {15, 3}, {55, 10}, {64, 16}, {65, 2}, {8, 17}, {1000, 10}}

// softBinsOf is the soft bins of the anchors a [B, D] at temperature tau.
func softBinsOf[T tensor.Float](a *tensor.Tensor[T], tau float64) tensor.SoftBins {
	return tensor.SoftBins{Anchors: tensor.Convert[float64](a).Data(), Dim: a.Dim(1), Tau: tau}
}

// TestSoftAssign: the device's body of tensor.SoftAssignKernel against
// tensor's composed reference (tensor.SoftAssignComposed, on the CPU),
// which the kernel follows operation for operation (equal to rounding in
// both precisions, even at ecl's temperatures for many bins).
func TestSoftAssign(t *testing.T) { both(t, softAssignCase[float32], softAssignCase[float64]) }

func softAssignCase[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(13, 13))
	for _, c := range anchorCases {
		for _, n := range []int{0, 1, 7, rows(dev, 100_003)} {
			x := tensor.Reshape(probs[T](r, n, c.d), n, 1, c.d)
			if c.d == 1 { // a top confidence or one class probability
				x = tensor.RandUniform[T](r, 0, 1, n, 1, 1)
			}
			tau := -1 / (math.Log(0.9) * float64(c.b*c.b)) // ecl's default for B bins
			sb := softBinsOf(tensor.RandUniform[T](r, 0, 1, c.b, c.d), tau)
			sameDefault(t, fmt.Sprintf("SoftAssign N=%d B=%d D=%d", n, c.b, c.d), tensor.SoftAssign(tensor.To(x, dev), sb), tensor.SoftAssignComposed(x, sb))
		}
	}
	// A non-contiguous batch [2, 5, D] (transposed).
	x := tensor.Transpose(tensor.Reshape(probs[T](r, 10, 3), 5, 2, 3), 0, 1)
	sb := softBinsOf(tensor.RandUniform[T](r, 0, 1, 15, 3), 0.01)
	sameDefault(t, "SoftAssign of a transposed batch", tensor.SoftAssign(tensor.To(x, dev), sb), tensor.SoftAssignComposed(x, sb))
}

// TestBinStats: the device's body of tensor.BinStatsKernel against the
// CPU's, for the paradigms' layouts, many bins (bin_stats_part) and D = 16
// (the most bin_stats_rows holds), on 0, 1, 7, 1000 and many rows.
func TestBinStats(t *testing.T) { both(t, binStatsCase[float32], binStatsCase[float64]) }

func binStatsCase[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(14, 14))
	for _, c := range []struct{ g, b, d int }{{1, 15, 1}, {10, 15, 1}, {1, 55, 10}, {2, 8, 16}, {1, 4, 17}, {3, 100, 2}, {1, 300, 4}} {
		for _, n := range []int{0, 1, 7, 1000, rows(dev, 300_007)} {
			w := tensor.Reshape(probs[T](r, n*c.g, c.b), n, c.g, c.b)
			p := tensor.RandUniform[T](r, 0, 1, n, c.g, c.d)
			got := tensor.BinStats(tensor.To(w, dev), tensor.To(p, dev))
			atol, rtol := tol[T]()
			k := math.Sqrt(float64(max(n, 1) * (c.d + 1)))
			same(t, fmt.Sprintf("BinStats N=%d G=%d B=%d D=%d", n, c.g, c.b, c.d), got, tensor.BinStats(w, p), atol*k, rtol*k)
		}
	}
}

func TestHardBinSums(t *testing.T) { both(t, hardBinSums[float32], hardBinSums[float64]) }

func hardBinSums[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(15, 15))
	for _, c := range []struct{ g, b, d int }{{1, 15, 1}, {10, 15, 1}, {1, 55, 10}} {
		for _, n := range []int{0, 1, 7, rows(dev, 300_007)} {
			bins := make([]T, n*c.g)
			for i := range bins {
				bins[i] = T(r.IntN(c.b))
			}
			bin := tensor.FromSlice(bins, n, c.g)
			v := tensor.RandUniform[T](r, 0, 1, n, c.g, c.d)
			gc, gs, err := cuda.HardBinSums(tensor.To(bin, dev), tensor.To(v, dev), c.b)
			if err != nil {
				t.Fatal(err)
			}
			wc, ws, err := cuda.HardBinSumsCPU(bin, v, c.b)
			if err != nil {
				t.Fatal(err)
			}
			atol, rtol := tol[T]()
			k := math.Sqrt(float64(max(n, 1)))
			name := fmt.Sprintf("N=%d G=%d B=%d D=%d", n, c.g, c.b, c.d)
			same(t, "HardBinSums count "+name, gc, wc, 0, 0)
			same(t, "HardBinSums sum "+name, gs, ws, atol*k, rtol*k)
		}
	}
	bin := tensor.FromSlice([]T{0, 3, 1.5, -1}, 4, 1)
	_, _, err := cuda.HardBinSums(tensor.To(bin, dev), tensor.ZerosOn[T](dev, 4, 1, 1), 3)
	if err == nil {
		t.Error("bins 3, 1.5 and −1 of 3 accepted")
	}
}

// TestAdamStep: the fused update equals optim.AdamHost's (which equals the
// composed tensor ops bit for bit) exactly.
func TestAdamStep(t *testing.T) { both(t, adamStep[float32], adamStep[float64]) }

func adamStep[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(16, 16))
	for _, n := range []int{0, 1, 7, 1_000_003} {
		for _, decay := range []float64{0, 5e-4} {
			p := tensor.RandNormal[T](r, 0, 1, n)
			m, v := tensor.Zeros[T](n), tensor.Zeros[T](n)
			pg, mg, vg := tensor.To(tensor.Clone(p), dev), tensor.ZerosOn[T](dev, n), tensor.ZerosOn[T](dev, n)
			for step := 1; step <= 3; step++ {
				g := tensor.RandNormal[T](r, 0, 1, n)
				h := optim.AdamUpdate{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Decay: decay, Step: step}
				optim.AdamHost(p, g, m, v, h)
				if err := cuda.AdamStep(pg, tensor.To(g, dev), mg, vg, h); err != nil {
					t.Fatal(err)
				}
				name := fmt.Sprintf("Adam n=%d decay %g step %d", n, decay, step)
				same(t, name+" p", pg, p, 0, 0)
				same(t, name+" m", mg, m, 0, 0)
				same(t, name+" v", vg, v, 0, 0)
			}
		}
	}
}

// TestMiniBatchOnDevice: ecl.MiniBatch runs unchanged on CUDA tensors and
// gives the CPU's loss, gradients and caches (float64, every paradigm).
func TestMiniBatchOnDevice(t *testing.T) {
	dev := gpu[float64](t)
	for _, par := range []ecl.Paradigm{ecl.Canonical, ecl.ClassWise, ecl.TopLabel} {
		const k = 4
		in := eclInputs[float64](rand.New(rand.NewPCG(17, uint64(par))), par, 64, 64, k)
		run := func(dev tensor.Device[float64]) (float64, [][]float64, []float64) {
			mb, err := ecl.NewMiniBatch(ecl.Config{Paradigm: par, Classes: k})
			if err != nil {
				t.Fatal(err)
			}
			var loss float64
			var grads [][]float64
			for range 2 { // the second call uses the updated caches
				vs := make([]*autograd.Var[float64], len(in))
				for i, x := range in {
					vs[i] = autograd.Param(tensor.To(x, dev))
				}
				l := ecl.MiniBatchLoss(mb, vs[0], vs[1], vs[2], vs[3])
				l.Backward()
				loss, grads = l.Value.Item(), nil
				for _, v := range vs {
					grads = append(grads, v.Grad.Data())
				}
			}
			us, _ := mb.Cache()
			return loss, grads, us
		}
		wl, wg, wu := run(tensor.CPU[float64]{})
		gl, gg, gu := run(dev)
		if math.Abs(gl-wl) > 1e-10*(1+math.Abs(wl)) {
			t.Errorf("%v: loss %v on the GPU, %v on the CPU", par, gl, wl)
		}
		for i := range wg {
			same(t, fmt.Sprintf("%v gradient %d", par, i), tensor.FromSlice(gg[i]), tensor.FromSlice(wg[i]), 1e-10, 1e-8)
		}
		same(t, fmt.Sprintf("%v cache", par), tensor.FromSlice(gu), tensor.FromSlice(wu), 1e-10, 1e-8)
	}
}

// TestTransferCount: an upload, a download and a strided launch each add
// one to their count, and work on the device adds none.
func TestTransferCount(t *testing.T) {
	dev := gpu[float32](t)
	before := cuda.TransferCount()
	x := tensor.FromSliceOn(dev, []float32{1, 2, 3, 4, 5, 6}, 2, 3)
	y := tensor.Add(x, x)                                                 // contiguous: no records
	z := tensor.Add(tensor.Transpose(y, 0, 1), tensor.Transpose(x, 0, 1)) // strided: one record
	got := z.Data()
	d := cuda.TransferCount()
	want := cuda.Transfers{Uploads: before.Uploads + 1, Downloads: before.Downloads + 1, Records: before.Records + 1}
	if d != want || got[1] != 12 {
		t.Errorf("counts %+v and data %v, want %+v and 12 at [0 1]", d, got, want)
	}
}

// TestMiniBatchStepTransfers: one step of the mini-batch ECL on the device
// (loss and backward pass, inputs already there) copies to the host once
// (both domains' bin statistics, for the proximal step) and uploads one
// tensor (the coefficients of the fixed-u loss); top-label uploads two more,
// the class positions of the top confidence's gradient (tensor.ExtremeGrad's
// composed version, which this device runs). The anchors are uploaded at
// the first step only. Records (strides of the elementwise kernels'
// operands) are logged, not bounded.
func TestMiniBatchStepTransfers(t *testing.T) {
	dev := gpu[float32](t)
	for _, par := range []ecl.Paradigm{ecl.Canonical, ecl.ClassWise, ecl.TopLabel} {
		const k = 3
		in := eclInputs[float32](rand.New(rand.NewPCG(5, uint64(par))), par, 50, 57, k)
		for i, x := range in {
			in[i] = tensor.To(x, dev)
		}
		wantUp := int64(1)
		if par == ecl.TopLabel {
			wantUp = 3
		}
		mb, err := ecl.NewMiniBatch(ecl.Config{Paradigm: par, Classes: k})
		if err != nil {
			t.Fatal(err)
		}
		for step := range 3 {
			vs := make([]*autograd.Var[float32], len(in))
			for i, x := range in {
				vs[i] = autograd.Param(x)
			}
			before := cuda.TransferCount()
			ecl.MiniBatchLoss(mb, vs[0], vs[1], vs[2], vs[3]).Backward()
			after := cuda.TransferCount()
			up, down := after.Uploads-before.Uploads, after.Downloads-before.Downloads
			t.Logf("%v step %d: %d uploads, %d downloads, %d records", par, step, up, down, after.Records-before.Records)
			if step > 0 && (up != wantUp || down != 1) {
				t.Errorf("%v step %d: %d uploads and %d downloads, want %d and 1", par, step, up, down, wantUp)
			}
		}
	}
}

// eclInputs are the ECL loss's CPU inputs in paradigm par: the main
// head's probabilities [ns, k] and [nt, k], then the auxiliary ones ([n, 1]
// for top-label, else [n, k]).
func eclInputs[T tensor.Float](r *rand.Rand, par ecl.Paradigm, ns, nt, k int) []*tensor.Tensor[T] {
	aux := k
	if par == ecl.TopLabel {
		aux = 1
	}
	return []*tensor.Tensor[T]{probs[T](r, ns, k), probs[T](r, nt, k),
		tensor.RandUniform[T](r, 0, 1, ns, aux), tensor.RandUniform[T](r, 0, 1, nt, aux)}
}

// TestBuiltWithCUDA: the tagged build does not report ErrNoCUDA.
func TestBuiltWithCUDA(t *testing.T) {
	_, err := cuda.New[float32]()
	if errors.Is(err, cuda.ErrNoCUDA) {
		t.Fatal("cuda-tagged build returned ErrNoCUDA")
	}
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	if err := cuda.Sync(); err != nil {
		t.Fatal(err)
	}
}
