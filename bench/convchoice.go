package bench

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/ecl-go/ecl/tensor"
)

// ConvLayer is a 3×3 convolution padded by 1 of C → O channels on
// Size×Size maps at Stride (1, "same", or 2; 0 reads as 1), as a
// network's layer runs it at the batch N of its bench.
type ConvLayer struct {
	Net     string
	N, C, O int
	Size    int
	Stride  int
}

// stride is the layer's stride, 1 where Stride is 0.
func (l ConvLayer) stride() int { return max(1, l.Stride) }

// Params is the layer's convolution.
func (l ConvLayer) Params() tensor.Conv2DParams {
	s := l.stride()
	return tensor.Conv2DParams{N: l.N, C: l.C, H: l.Size, W: l.Size, O: l.O, KH: 3, KW: 3,
		StrideH: s, StrideW: s, PadH: 1, PadW: 1, DilH: 1, DilW: 1}
}

// ConvLayers lists the distinct 3×3 layers (by C, O, size and stride;
// the first network listed names a shared one) of ResNet-20 and
// DenseNet-40 (nn.ResNet20, nn.DenseNet40, batch 100) on 28×28 inputs, as
// the digits suite and the training-step benches run them, and on
// CIFAR's 32×32, ResNet-20's two strided ones among them; ResNet-50 and
// Wide ResNet-50-2 (nn.ResNet50, nn.WideResNet50x2: the bottlenecks'
// conv2, at stride 2 in each later stage's first block; batch 16, as the
// training step's bench) and DenseNet-121 (nn.DenseNet121: each
// bottleneck layer's conv2, 128 → 32; batch 8, as the inference bench),
// on 224×224 inputs. DenseNet-40's dense layers run at denseChunk images,
// as its dense block convolves its batch of 100.
func ConvLayers() []ConvLayer {
	var ls []ConvLayer
	add := func(l ConvLayer) {
		if !slices.ContainsFunc(ls, func(m ConvLayer) bool {
			return m.C == l.C && m.O == l.O && m.Size == l.Size && m.stride() == l.stride()
		}) {
			ls = append(ls, l)
		}
	}
	small := []int{28, 32} // the CIFAR-style networks' input sizes
	for _, in := range small {
		add(ConvLayer{"ResNet-20", 100, 3, 16, in, 1})
		for i, c := range []int{16, 32, 64} {
			add(ConvLayer{"ResNet-20", 100, c, c, in >> i, 1})
		}
		add(ConvLayer{"ResNet-20", 100, 16, 32, in, 2})
		add(ConvLayer{"ResNet-20", 100, 32, 64, in >> 1, 2})
	}
	for _, width := range []int{64, 128} { // ResNet-50's, Wide ResNet-50-2's
		net := map[int]string{64: "ResNet-50", 128: "Wide ResNet-50-2"}[width]
		for i, size := range []int{56, 28, 14, 7} {
			add(ConvLayer{net, 16, width << i, width << i, size, 1})
		}
		for i, size := range []int{56, 28, 14} {
			add(ConvLayer{net, 16, 2 * width << i, 2 * width << i, size, 2})
		}
	}
	for _, in := range small {
		add(ConvLayer{"DenseNet-40", 100, 3, 16, in, 1})
		for block := range 3 {
			for k := range 12 {
				add(ConvLayer{"DenseNet-40", denseChunk, 16 + 144*block + 12*k, 12, in >> block, 1})
			}
		}
	}
	for _, size := range []int{56, 28, 14, 7} {
		add(ConvLayer{"DenseNet-121", 8, 128, 32, size, 1})
	}
	return ls
}

// denseChunk is the number of images a dense block's 3×3 layers on its
// features convolve at a time on two cores: a canvas of up to 8 images
// per core (tensor/dense.go).
const denseChunk = 16

// ConvPaths are the CPU paths ConvTimes compares (tensor.SetConvPath).
var ConvPaths = []string{"direct", "im2col", "winograd4", "winograd2"}

// ConvPasses are the passes ConvTimes times, in the order of its results:
// the last is both gradients at once (tensor.Conv2DBackward), which a
// training step computes together where their paths agree.
var ConvPasses = []string{"forward", "input gradient", "weight gradient", "gradients"}

// ConvTimes times each pass of layer l in T on each of ConvPaths: after
// one warm-up call of each, rounds rounds, each running every path in
// turn (so that a change in the machine's speed meets all paths alike),
// and returns the medians, [pass][path] (ConvPasses), −1 for the passes
// and paths a stride-2 layer cannot take (ConvMeasures). It sets tensor.SetConvPath and
// leaves it following the table. The cache of transformed Winograd
// filters is off while it runs: each call transforms its filters, as a
// training step does.
func ConvTimes[T tensor.Float](l ConvLayer, rounds int) ([4][]time.Duration, error) {
	var med [4][]time.Duration
	if rounds < 1 {
		return med, fmt.Errorf("convchoice: rounds %d, want at least 1", rounds)
	}
	defer tensor.SetConvPath("")
	defer tensor.SetWinogradCache(tensor.SetWinogradCache(0))
	p := l.Params()
	r := rand.New(rand.NewPCG(1, 2))
	x := randTensor[T](r, p.N, p.C, p.H, p.W)
	w := randTensor[T](r, p.O, p.C, 3, 3)
	dy := randTensor[T](r, p.N, p.O, p.OutH(), p.OutW())
	o := tensor.ConvOptions{StrideH: p.StrideH, StrideW: p.StrideW, PadH: 1, PadW: 1}
	passes := [4]func(){
		func() { tensor.Conv2D(x, w, o) },
		func() { tensor.Conv2DBackwardInput(dy, w, p) },
		func() { tensor.Conv2DBackwardWeight(x, dy, p) },
		func() { tensor.Conv2DBackward(x, dy, w, p) },
	}
	times := [4][][]time.Duration{}
	for pass := range passes {
		times[pass] = make([][]time.Duration, len(ConvPaths))
	}
	for round := -1; round < rounds; round++ { // round -1 warms up
		for path, name := range ConvPaths {
			if err := tensor.SetConvPath(name); err != nil {
				return med, err
			}
			for pass, run := range passes {
				if !ConvMeasures(l, pass, path) {
					continue
				}
				start := time.Now()
				run()
				if round >= 0 {
					times[pass][path] = append(times[pass][path], time.Since(start))
				}
			}
		}
	}
	for pass := range passes {
		for _, ts := range times[pass] {
			m := time.Duration(-1)
			if len(ts) > 0 {
				slices.Sort(ts)
				m = ts[len(ts)/2]
			}
			med[pass] = append(med[pass], m)
		}
	}
	return med, nil
}

// ConvMeasures reports whether ConvTimes times pass (of ConvPasses) of
// layer l on path (of ConvPaths): every one at stride 1; at stride 2 the
// forward pass by direct and im2col, the paths the table may give it
// (tensor.ConvChoice).
func ConvMeasures(l ConvLayer, pass, path int) bool {
	return l.stride() == 1 || pass == 0 && (ConvPaths[path] == "direct" || ConvPaths[path] == "im2col")
}

// ConvChoiceOf is the table line of layer l in T for the medians of
// ConvTimes: the fastest path of the forward pass among those measured,
// and the pair of gradient paths of least time, a pair of one path
// taking the time of both gradients at once ("rule" at stride 2).
func ConvChoiceOf[T tensor.Float](l ConvLayer, med [4][]time.Duration) tensor.ConvChoice {
	fwd := -1
	for i, t := range med[0] {
		if ConvMeasures(l, 0, i) && (fwd < 0 || t < med[0][fwd]) {
			fwd = i
		}
	}
	c := tensor.ConvChoice{DType: tensor.DType[T](), C: l.C, O: l.O, H: l.Size, W: l.Size, Stride: l.stride(), PadH: 1, PadW: 1,
		Forward: ConvPaths[fwd], Input: "rule", Weight: "rule"}
	if l.stride() != 1 {
		return c
	}
	in, wt := 0, 0
	for i := range ConvPaths {
		for j := range ConvPaths {
			if gradsTime(med, i, j) < gradsTime(med, in, wt) {
				in, wt = i, j
			}
		}
	}
	c.Input, c.Weight = ConvPaths[in], ConvPaths[wt]
	return c
}

// gradsTime is the time of the input gradient by path i and the weight
// gradient by path j among med's: their sum, or both at once for i = j.
func gradsTime(med [4][]time.Duration, i, j int) time.Duration {
	if i == j {
		return med[3][i]
	}
	return med[1][i] + med[2][j]
}

// ConvChoices measures the layers of ConvLayers that keep selects, in
// each of dtypes ("float32", "float64"), by ConvTimes, printing the
// medians in ms to w as it goes, and returns the table's lines.
func ConvChoices(w io.Writer, dtypes []string, rounds int, keep func(ConvLayer) bool) ([]tensor.ConvChoice, error) {
	var lines []tensor.ConvChoice
	fmt.Fprintf(w, "%-34s %-8s %-16s %10s %10s %10s %10s  (ms, medians)\n", "layer", "dtype", "pass", "direct", "im2col", "winograd4", "winograd2")
	for _, dt := range dtypes {
		for _, l := range ConvLayers() {
			if !keep(l) {
				continue
			}
			var line tensor.ConvChoice
			var med [4][]time.Duration
			var err error
			switch dt {
			case "float32":
				med, err = ConvTimes[float32](l, rounds)
				line = ConvChoiceOf[float32](l, med)
			case "float64":
				med, err = ConvTimes[float64](l, rounds)
				line = ConvChoiceOf[float64](l, med)
			default:
				err = fmt.Errorf("convchoice: dtype %q: want float32 or float64", dt)
			}
			if err != nil {
				return nil, err
			}
			for pass, ts := range med {
				fmt.Fprintf(w, "%-34s %-8s %-16s", fmt.Sprintf("%s (N=%d)", l, l.N), dt, ConvPasses[pass])
				for _, t := range ts {
					if t < 0 {
						fmt.Fprintf(w, " %10s", "-")
						continue
					}
					fmt.Fprintf(w, " %10.3f", t.Seconds()*1e3)
				}
				fmt.Fprintln(w)
			}
			lines = append(lines, line)
		}
	}
	return lines, nil
}

// String names the layer "Net C→O Size", with "/2" after a stride of 2,
// as convchoice's -run matches it.
func (l ConvLayer) String() string {
	s := fmt.Sprintf("%s %d→%d %d", l.Net, l.C, l.O, l.Size)
	if l.stride() != 1 {
		s += fmt.Sprintf("/%d", l.stride())
	}
	return s
}

func randTensor[T tensor.Float](r *rand.Rand, shape ...int) *tensor.Tensor[T] {
	n := 1
	for _, d := range shape {
		n *= d
	}
	s := make([]T, n)
	for i := range s {
		s[i] = T(r.NormFloat64())
	}
	return tensor.FromSlice(s, shape...)
}
