package tensor

import (
	"fmt"
	"math"
	"runtime"
)

// A dense block of DenseNet (Huang et al. 2017) in memory linear in its
// depth (Pleiss et al. 2017): the features live in one buffer [N, C, H, W]
// to which each layer appends its channels, and each layer's batch
// normalisation and ReLU of all earlier channels is computed per image into
// a scratch buffer, never stored, and recomputed in the backward pass. The
// gradient with respect to the features is summed in place in one buffer
// too. The batch statistics of a channel are computed once, when it is
// written: every later layer normalises it with the same mean and variance.
//
// A layer is one or two stages of batch normalisation, ReLU and
// convolution: the first normalises the features, a bottleneck's second
// (DenseNet-BC) normalises the first's output. That output, bnSize·growth
// channels, is kept for the backward pass rather than recomputed: the
// bottleneck's batch normalisation needs it whole for its statistics, so
// the forward pass makes it anyway; recomputing it would cost a second 1×1
// convolution of all the features per layer (more multiply-adds than the
// 3×3 convolution once the features are wider than 9·growth channels,
// 288 in densenet121); and keeping it costs bnSize times what the layer
// appends to the features, so memory stays linear in depth. Its
// normalisation and ReLU are recomputed, as the first stage's are, but for
// the whole batch at once into a scratch buffer of its size, so that its
// 3×3 convolution runs on Conv2D's kernels, which lay several small
// images side by side. A k×k stage on the features (DenseNet-40's) does
// the same a few images at a time, its scratch those images' normalised
// features (see chunk).

// DenseUnit is one layer of a dense block: batch normalisation of its input
// channels with the batch's statistics, scale γ and shift β, ReLU, then a
// convolution by W [o, c, k, k] (k odd, stride 1, padding k/2) and, for a
// transition (k = 1), 2×2 average pooling with stride 2. Both are linear
// and a 1×1 convolution acts on each position alone, so a transition pools
// first and convolves a quarter of the positions. With a Bottleneck (not
// for a transition), the ReLU's output goes through the bottleneck before
// W, which then convolves the bottleneck's channels: torchvision's
// DenseNet-BC layer norm1–ReLU–conv1–norm2–ReLU–conv2 is γ, β (norm1),
// Bottleneck {W: conv1, Gamma, Beta: norm2}, W (conv2).
//
// Mean and Var, where set (on every unit and bottleneck of a block, or on
// none), put the block in evaluation mode: each batch normalisation uses
// its own running mean and variance, not the batch's statistics, and the
// backward pass treats them as constants.
type DenseUnit[T Float] struct {
	Gamma, Beta, W *Tensor[T]
	Pool           bool
	Bottleneck     *DenseBottleneck[T]
	Mean, Var      *Tensor[T]
}

// DenseBottleneck is the bottleneck of a dense unit: a convolution by W
// [b, c, k, k] (k odd, stride 1, padding k/2; 1×1 in DenseNet-BC) of the
// unit's normalised input, then batch normalisation of its b channels with
// the batch's statistics, scale γ and shift β, and ReLU.
type DenseBottleneck[T Float] struct {
	W, Gamma, Beta *Tensor[T]
	Mean, Var      *Tensor[T] // running statistics, as DenseUnit's
}

// Params lists u's tensors in the order autograd.DenseBlock takes a unit's
// parameters: γ, β, the bottleneck's W, γ and β if it has one, then W.
func (u DenseUnit[T]) Params() []*Tensor[T] {
	ps := append(make([]*Tensor[T], 0, 6), u.Gamma, u.Beta)
	if b := u.Bottleneck; b != nil {
		ps = append(ps, b.W, b.Gamma, b.Beta)
	}
	return append(ps, u.W)
}

// denseStage is one batch normalisation, ReLU and convolution of a unit:
// of the first c channels of src [N, ≥c, H, W] (the features, or a
// bottleneck's output), whose batch means and biased variances are mean and
// vari, with scale gamma and shift beta, then the convolution by w, pooled
// first for a transition.
type denseStage[T Float] struct {
	gamma, beta, w *Tensor[T]
	pool           bool
	src            *Tensor[T]
	c              int
	mean, vari     []float64
}

// DenseBlockState is what DenseBlockBackward needs from DenseBlock.
type DenseBlockState[T Float] struct {
	units      [][]denseStage[T] // each unit's stages: two for a bottleneck
	buf        *Tensor[T]
	mean, vari []float64 // per channel of buf: batch mean and biased variance
	eps        T
	fixed      bool // evaluation mode: running statistics, constants
	// forwardOnly marks a state whose bottleneck outputs shared a buffer
	// (DenseBlockForward): no backward pass.
	forwardOnly bool
	// widest is the most input channels of a stage, and scratch the length
	// of a worker's scratch buffer: sized for every stage that runs image
	// by image, so that buffers from the pool fit from one layer to the
	// next.
	widest, scratch int
	// x and layers are the block's input and units; composed marks a block
	// that ran as its composed reference (no DenseBlockKernel body on its
	// device), whose backward pass is composed too.
	x        *Tensor[T]
	layers   []DenseUnit[T]
	composed bool
	// neckStats are the composed block's statistics, for Stats.
	neckStats [][2]*Tensor[T]
}

// The dense-block kernels, the block's state as attribute (a
// *DenseBlockState[T], which DenseBlock makes): DenseBlockKernel reads x
// and the units' parameters (DenseUnit.Params, unit after unit) and writes
// the features [N, C, H, W] and, where the last unit pools, its output;
// DenseBlockBackwardKernel reads the output's gradient g and writes dx and
// the parameters' gradients, in the same order.
var (
	DenseBlockKernel         = NewKernel[DenseBlockRun]("dense_block")
	DenseBlockBackwardKernel = NewKernel[DenseBlockRun]("dense_block_backward")
)

// DenseBlockRun is the dense-block kernels' attribute: a
// *DenseBlockState[T].
type DenseBlockRun interface{ denseBlockRun() }

func (*DenseBlockState[T]) denseBlockRun() {}

func init() {
	registerCPU(DenseBlockKernel, denseBlockCPU[float32], denseBlockCPU[float64])
	registerCPU(DenseBlockBackwardKernel, denseBlockBackwardCPU[float32], denseBlockBackwardCPU[float64])
}

// DenseBlock runs units on x [N, C0, H, W]: unit i normalises the
// channels [0, c_i) of the features, c_0 = C0, and appends its o_i output
// channels; only the last unit may pool, and its output, not the
// features, is then the result. The result is the features
// [N, C0 + Σ o_i, H, W] otherwise. On devices without a DenseBlockKernel
// body the units run layer by layer (denseBlockComposed, also the CPU body's
// tested reference).
func DenseBlock[T Float](x *Tensor[T], units []DenseUnit[T], eps T) (*Tensor[T], *DenseBlockState[T]) {
	return denseBlock(x, units, eps, true)
}

// DenseBlockForward is DenseBlock for a forward pass alone (inference):
// the bottleneck outputs, which DenseBlock keeps one per unit for the
// backward pass, share one buffer. Its state gives Stats;
// DenseBlockBackward panics on it.
func DenseBlockForward[T Float](x *Tensor[T], units []DenseUnit[T], eps T) (*Tensor[T], *DenseBlockState[T]) {
	return denseBlock(x, units, eps, false)
}

// denseBlock is DenseBlock, keeping what the backward pass needs where
// keep is set.
func denseBlock[T Float](x *Tensor[T], units []DenseUnit[T], eps T, keep bool) (*Tensor[T], *DenseBlockState[T]) {
	sh := x.Shape()
	if len(sh) != 4 || sh[0] < 1 {
		panic(shapeError("DenseBlock", [][]int{sh}, "input %v, want [N, C, H, W] with N ≥ 1", sh))
	}
	if len(units) == 0 {
		panic(argumentError("DenseBlock", "no units"))
	}
	n, c, h, w := sh[0], sh[1], sh[2], sh[3]
	total := c
	in := []*Tensor[T]{Contiguous(x)}
	for i, u := range units {
		checkDenseUnit(u, i, len(units), sh, total, units[0].Mean != nil)
		if !u.Pool {
			total += u.W.Dim(0)
		}
		for _, p := range u.Params() {
			in = append(in, Contiguous(p))
		}
	}
	dev := sameDevice("DenseBlock", in...)
	st := &DenseBlockState[T]{eps: eps, fixed: units[0].Mean != nil, forwardOnly: !keep, x: x, layers: units}
	body, ok := Lookup(DenseBlockKernel, dev)
	if !ok {
		y, runs := denseBlockComposed(x, units, eps)
		st.composed = true
		for _, stages := range runs {
			for _, r := range stages {
				st.neckStats = append(st.neckStats, [2]*Tensor[T]{r.mean, r.vari})
			}
		}
		return y, st
	}
	st.buf, st.mean, st.vari = ZerosOn(dev, n, total, h, w), make([]float64, total), make([]float64, total)
	out := []*Tensor[T]{st.buf}
	if last := units[len(units)-1]; last.Pool {
		out = append(out, ZerosOn(dev, n, last.W.Dim(0), h/2, w/2))
	}
	body(out, in, st)
	return out[len(out)-1], st
}

// denseBlockCPU is DenseBlockKernel's CPU body: x copied into the
// features, then each unit's stages (forward) on them, each channel's
// batch statistics computed once, when it is written.
func denseBlockCPU[T Float](out, in []*Tensor[T], run DenseBlockRun) {
	st := run.(*DenseBlockState[T])
	n, c, total, hw := st.x.Dim(0), st.x.Dim(1), st.buf.Dim(1), st.buf.Dim(2)*st.buf.Dim(3)
	bs, xs := HostData(st.buf), HostData(in[0])
	for i := range n {
		copy(bs[i*total*hw:][:c*hw], xs[i*c*hw:])
	}
	stats := func(x *Tensor[T], lo, hi int, mean, vari []float64) {
		if !st.fixed {
			channelStatsOf(x, lo, hi, mean, vari)
		}
	}
	stats(st.buf, 0, c, st.mean, st.vari)
	st.plan(st.layers, c)
	for _, stages := range st.units {
		first := stages[0]
		if len(stages) == 2 {
			neck := stages[1].src
			st.forward(first, HostData(neck), neck.Dim(1)*hw)
			stats(neck, 0, neck.Dim(1), stages[1].mean, stages[1].vari)
		}
		last := stages[len(stages)-1]
		o := last.w.Dim(0)
		if last.pool {
			st.forward(last, HostData(out[1]), out[1].Dim(1)*out[1].Dim(2)*out[1].Dim(3))
			break
		}
		st.forward(last, bs[c*hw:], total*hw)
		stats(st.buf, c, c+o, st.mean, st.vari)
		c += o
	}
}

// checkDenseUnit panics unless unit i of n fits c channels of the images
// of x's shape sh, with running statistics where fixed (the block's first
// unit has them) and without otherwise.
func checkDenseUnit[T Float](u DenseUnit[T], i, n int, sh []int, c int, fixed bool) {
	h, w := sh[2], sh[3]
	conv := func(w *Tensor[T], c int) bool {
		return w.Dims() == 4 && w.Dim(1) == c && w.Dim(2) == w.Dim(3) && w.Dim(2)%2 == 1
	}
	norm := func(g, b *Tensor[T], c int) bool {
		return g.Dims() == 1 && g.Dim(0) == c && b.Dims() == 1 && b.Dim(0) == c
	}
	// Running statistics of c channels, on every unit (fixed) or none.
	stats := func(m, v *Tensor[T], c int) bool {
		if m == nil || v == nil {
			return m == nil && v == nil && !fixed
		}
		return fixed && norm(m, v, c)
	}
	in, ok := c, norm(u.Gamma, u.Beta, c) && stats(u.Mean, u.Var, c)
	b := u.Bottleneck
	if b != nil {
		ok = ok && conv(b.W, c) && !u.Pool
		if ok {
			in = b.W.Dim(0)
			ok = norm(b.Gamma, b.Beta, in) && stats(b.Mean, b.Var, in)
		}
	}
	if conv(u.W, in) && (!u.Pool || i == n-1 && u.W.Dim(2) == 1 && h >= 2 && w >= 2) && ok {
		return
	}
	shapes := [][]int{sh, u.W.Shape(), u.Gamma.Shape(), u.Beta.Shape()}
	detail := fmt.Sprintf("unit %d (weight %v, γ %v, β %v, pool %v, running statistics %v of the block's %v", i, u.W.Shape(), u.Gamma.Shape(), u.Beta.Shape(), u.Pool, u.Mean != nil, fixed)
	if b != nil {
		shapes = append(shapes, b.W.Shape(), b.Gamma.Shape(), b.Beta.Shape())
		detail += fmt.Sprintf(", bottleneck weight %v, γ %v, β %v", b.W.Shape(), b.Gamma.Shape(), b.Beta.Shape())
	}
	panic(shapeError("DenseBlock", shapes, "%s) on %d channels of %d×%d, %d units", detail, c, h, w, n))
}

// plan sets the stages of units on the features' first c channels, with an
// output buffer (kept for the backward pass) and statistics for each
// bottleneck, and sizes the scratch.
func (s *DenseBlockState[T]) plan(units []DenseUnit[T], c int) {
	n, _, hw := s.dims()
	h, w := s.buf.Dim(2), s.buf.Dim(3)
	s.units = make([][]denseStage[T], len(units))
	all := make([]denseStage[T], 0, 2*len(units)) // the stages of all units, in one allocation
	// statsOf is a stage's statistics: the running ones m and v in
	// evaluation mode, else mean and vari (the batch's, filled in later).
	statsOf := func(m, v *Tensor[T], mean, vari []float64) ([]float64, []float64) {
		if !s.fixed {
			return mean, vari
		}
		return float64s(m), float64s(v)
	}
	var neck *Tensor[T] // the bottleneck outputs' buffer where they share one
	for i, u := range units {
		mean, vari := statsOf(u.Mean, u.Var, s.mean[:c], s.vari[:c])
		all = append(all, denseStage[T]{gamma: u.Gamma, beta: u.Beta, w: u.W, pool: u.Pool, src: s.buf, c: c, mean: mean, vari: vari})
		if b := u.Bottleneck; b != nil {
			first := &all[len(all)-1]
			first.w, first.pool = b.W, false
			o := b.W.Dim(0)
			mean, vari := statsOf(b.Mean, b.Var, make([]float64, o), make([]float64, o))
			if !s.forwardOnly || neck == nil || neck.Dim(1) != o {
				neck = emptyOn(s.buf.Device(), n, o, h, w)
			}
			all = append(all, denseStage[T]{gamma: b.Gamma, beta: b.Beta, w: u.W, pool: u.Pool, src: neck, c: o, mean: mean, vari: vari})
			s.units[i] = all[len(all)-2:]
		} else {
			s.units[i] = all[len(all)-1:]
		}
		c += u.W.Dim(0)
	}
	for _, stages := range s.units {
		for _, st := range stages {
			s.widest = max(s.widest, st.c)
			if s.chunk(st) > 0 {
				continue
			}
			p := s.params(st)
			rows, cols := colShape(p)
			col := 0
			if st.pool || !pointwise(p) {
				col = rows * cols
			}
			s.scratch = max(s.scratch, 2*st.c*hw+col)
		}
	}
}

// float64s is x's values in float64.
func float64s[T Float](x *Tensor[T]) []float64 {
	out := make([]float64, x.Len())
	for i, v := range HostData(Contiguous(x)) {
		out[i] = float64(v)
	}
	return out
}

// Stats is the batch mean and biased variance of each batch normalisation
// of the block, in order (a bottleneck unit's first, then its
// bottleneck's), for running estimates.
func (s *DenseBlockState[T]) Stats() (means, variances []*Tensor[T]) {
	if s.composed {
		for _, mv := range s.neckStats {
			means, variances = append(means, mv[0]), append(variances, mv[1])
		}
		return means, variances
	}
	means, variances = make([]*Tensor[T], 0, 2*len(s.units)), make([]*Tensor[T], 0, 2*len(s.units))
	for _, stages := range s.units {
		for _, st := range stages {
			m, v := Zeros[T](st.c), Zeros[T](st.c)
			for ch := range st.c {
				HostData(m)[ch], HostData(v)[ch] = T(st.mean[ch]), T(st.vari[ch])
			}
			means, variances = append(means, m), append(variances, v)
		}
	}
	return means, variances
}

// pools reports a last unit that pools: the block's output is then its
// output, not the features.
func (s *DenseBlockState[T]) pools() bool {
	if k := len(s.units); k > 0 {
		stages := s.units[k-1]
		return stages[len(stages)-1].pool
	}
	return false
}

// dims is N, the channels of the features and H·W.
func (s *DenseBlockState[T]) dims() (n, total, hw int) {
	sh := s.buf.Shape()
	return sh[0], sh[1], sh[2] * sh[3]
}

// channelStatsOf sets mean[ch] and vari[ch] to the batch statistics of
// channels [lo, hi) of x [N, C, H, W].
func channelStatsOf[T Float](x *Tensor[T], lo, hi int, mean, vari []float64) {
	sh := x.Shape()
	n, c, hw := sh[0], sh[1], sh[2]*sh[3]
	xs := HostData(x)
	parallelFor(hi-lo, 2*n*hw, func(a, b int) {
		for ch := lo + a; ch < lo+b; ch++ {
			mean[ch], vari[ch] = channelStats(xs, n, c, hw, ch)
		}
	})
}

// params is the convolution of stage st (on the pooled size for a
// transition).
func (s *DenseBlockState[T]) params(st denseStage[T]) Conv2DParams {
	sh := s.buf.Shape()
	k, h, w := st.w.Dim(2), sh[2], sh[3]
	if st.pool {
		h, w = h/2, w/2
	}
	return Conv2DParams{N: sh[0], C: st.c, H: h, W: w, O: st.w.Dim(0), KH: k, KW: k,
		StrideH: 1, StrideW: 1, PadH: k / 2, PadW: k / 2, DilH: 1, DilW: 1}
}

// affine is stage st's batch normalisation as a per-channel scale and
// shift, computed as BatchNorm does.
func (s *DenseBlockState[T]) affine(st denseStage[T]) (scale, shift []T) {
	scale, shift = make([]T, st.c), make([]T, st.c)
	gs, bs := HostData(Contiguous(st.gamma)), HostData(Contiguous(st.beta))
	for ch := range st.c {
		a := float64(gs[ch]) / math.Sqrt(st.vari[ch]+float64(s.eps))
		scale[ch], shift[ch] = T(a), T(float64(bs[ch])-st.mean[ch]*a)
	}
	return scale, shift
}

// normalize sets z [c, H·W] to ReLU(scale·x + shift) of image i's first c
// channels of stage st's input.
func (s *DenseBlockState[T]) normalize(z []T, i int, st denseStage[T], scale, shift []T) {
	hw := st.src.Dim(2) * st.src.Dim(3)
	xs := HostData(st.src)[i*st.src.Dim(1)*hw:]
	for ch, a := range scale {
		affineRelu(z[ch*hw:(ch+1)*hw], xs[ch*hw:(ch+1)*hw], a, shift[ch])
	}
}

// affineRelu sets dst[i] = max(src[i]·a + b, 0), in assembly where it can.
func affineRelu[T Float](dst, src []T, a, b T) {
	src = src[:len(dst)]
	for j := affineMaxAsm(dst, src, a, b, 0); j < len(dst); j++ {
		dst[j] = max(src[j]*a+b, 0)
	}
}

// affine sets dst[i] = src[i]·a + b, in assembly where it can (the ReLU's
// kernel with −∞ for its bound).
func affine[T Float](dst, src []T, a, b T) {
	src = src[:len(dst)]
	for j := affineMaxAsm(dst, src, a, b, T(math.Inf(-1))); j < len(dst); j++ {
		dst[j] = src[j]*a + b
	}
}

// stageScratch is one worker's buffers for stage st with convolution p:
// the normalised image z, the gradient with respect to it dz (for the
// backward pass), and its column matrix col (im2col's columns, the pooled
// z for a transition, nil for another 1×1 kernel, whose columns are z),
// carved from one buffer of the block's scratch size, to give back with
// putScratch.
func (s *DenseBlockState[T]) stageScratch(st denseStage[T], p Conv2DParams) (z, dz, col []T, buf *[]T) {
	rows, cols := colShape(p)
	hw := s.buf.Dim(2) * s.buf.Dim(3)
	buf = getScratch[T](s.scratch)
	z, dz = (*buf)[:p.C*hw], (*buf)[p.C*hw:][:p.C*hw]
	if st.pool || !pointwise(p) {
		col = (*buf)[2*p.C*hw:][:rows*cols]
	}
	return z, dz, col, buf
}

// columnsOf normalises image i into z and returns stage st's column matrix
// of it: pooled into col for a transition, z itself for another 1×1
// kernel, else im2col's columns in col.
func (s *DenseBlockState[T]) columnsOf(z, col []T, i int, st denseStage[T], p Conv2DParams, scale, shift []T) []T {
	s.normalize(z, i, st, scale, shift)
	if st.pool {
		pool2x2(col, z, p.C, s.buf.Dim(2), s.buf.Dim(3))
		return col
	}
	return columns(col, z, p)
}

// chunk is the number of images stage st convolves at once with Conv2D's
// kernels (which lay several small images side by side on a canvas and
// take the gather path), or 0 for image by image: the whole batch for a
// stage that reads a bottleneck's output, whose normalised copy for the
// batch is a scratch buffer of the kept output's size; denseChunk images
// for a k×k kernel on the features, whose normalised copy for the batch
// would be as large as the features; image by image, on im2col's columns,
// for a 1×1 kernel or a transition on the features.
func (s *DenseBlockState[T]) chunk(st denseStage[T]) int {
	p := s.params(st)
	switch {
	case st.src != s.buf:
		return p.N
	case st.pool || pointwise(p):
		return 0
	}
	return min(p.N, denseChunk())
}

// denseChunk is the number of images a k×k stage on the features
// convolves at once: a canvas's worth per core.
var denseChunk = func() int { return runtime.GOMAXPROCS(0) * maxCanvas }

// normalizeAll sets z [i1−i0, c, H·W] to stage st's normalised input of
// images [i0, i1).
func (s *DenseBlockState[T]) normalizeAll(z []T, i0, i1 int, st denseStage[T], scale, shift []T) {
	_, _, hw := s.dims()
	parallelFor(i1-i0, 2*st.c*hw, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			s.normalize(z[i*st.c*hw:], i0+i, st, scale, shift)
		}
	})
}

// forward writes stage st's output for each image i to dst[i·stride:].
func (s *DenseBlockState[T]) forward(st denseStage[T], dst []T, stride int) {
	p := s.params(st)
	rows, cols := colShape(p)
	scale, shift := s.affine(st)
	if g := s.chunk(st); g > 0 {
		w := HostData(Contiguous(st.w))
		srcC := st.src.Dim(1)
		var z, y *[]T
		for i0 := 0; i0 < p.N; i0 += g {
			q := p
			q.N = min(g, p.N-i0)
			// Where the convolution takes a canvas, the batch norm and
			// ReLU map each channel of the source on its way there and
			// the output goes straight to dst.
			if convAffineInput(dst[i0*stride:], HostData(st.src)[i0*srcC*p.H*p.W:], w, scale, shift, q, srcC*p.H*p.W, stride) {
				continue
			}
			if z == nil {
				// Sized for the block's widest stage, so that the pool's
				// buffer fits every layer's.
				z, y = getScratch[T](g*s.widest*p.H*p.W), getScratch[T](g*p.O*cols)
				defer func() { putScratch(z); putScratch(y) }()
			}
			yq := (*y)[:q.N*p.O*cols]
			s.normalizeAll(*z, i0, i0+q.N, st, scale, shift)
			conv2dForward(yq, (*z)[:q.N*p.C*p.H*p.W], w, nil, q)
			for i := range q.N {
				copy(dst[(i0+i)*stride:][:p.O*cols], (*y)[i*p.O*cols:])
			}
		}
		return
	}
	mk, W, wbuf := packedWeights(operand[T]{data: HostData(Contiguous(st.w)), ld: rows}, p.O, rows)
	defer putScratch(wbuf)
	parallelFor(p.N, p.O*rows*cols, func(lo, hi int) {
		z, _, col, buf := s.stageScratch(st, p)
		defer putScratch(buf)
		for i := lo; i < hi; i++ {
			cm := s.columnsOf(z, col, i, st, p, scale, shift)
			gemmOperands(mk, 1, p.O, cols, rows, 1, W, operand[T]{data: cm, ld: cols}, 0, dst[i*stride:], cols)
		}
	})
}

// pool2x2 sets y [c, H/2, W/2] to the 2×2 averages of x [c, H, W], summed
// in AvgPool2D's order.
func pool2x2[T Float](y, x []T, c, h, w int) {
	oh, ow := h/2, w/2
	for ch := range c {
		plane, out := x[ch*h*w:], y[ch*oh*ow:]
		for oy := range oh {
			r0, r1 := plane[2*oy*w:], plane[(2*oy+1)*w:]
			for ox := range ow {
				var s T
				s += r0[2*ox]
				s += r0[2*ox+1]
				s += r1[2*ox]
				s += r1[2*ox+1]
				out[oy*ow+ox] = s * 0.25
			}
		}
	}
}

// unpool2x2 is pool2x2's adjoint: dx [c, H, W] gets dy/4 in each window
// (zero in a last odd row or column).
func unpool2x2[T Float](dx, dy []T, c, h, w int) {
	oh, ow := h/2, w/2
	if h%2 != 0 || w%2 != 0 { // a last row or column outside every window
		clear(dx[:c*h*w])
	}
	for ch := range c {
		plane, g := dx[ch*h*w:], dy[ch*oh*ow:]
		for oy := range oh {
			r0, r1 := plane[2*oy*w:], plane[(2*oy+1)*w:]
			for ox := range ow {
				v := g[oy*ow+ox] * 0.25
				r0[2*ox], r0[2*ox+1], r1[2*ox], r1[2*ox+1] = v, v, v, v
			}
		}
	}
}

// dot64 is Σ g·(x − m) in float64, in four interleaved partial sums.
func dot64[T Float](g, x []T, m float64) float64 {
	var a, b, c, d float64
	x = x[:len(g)]
	i := 0
	for ; i+4 <= len(g); i += 4 {
		a += float64(g[i]) * (float64(x[i]) - m)
		b += float64(g[i+1]) * (float64(x[i+1]) - m)
		c += float64(g[i+2]) * (float64(x[i+2]) - m)
		d += float64(g[i+3]) * (float64(x[i+3]) - m)
	}
	for ; i < len(g); i++ {
		a += float64(g[i]) * (float64(x[i]) - m)
	}
	return (a + b) + (c + d)
}

// DenseBlockBackward is the gradient of Σ DenseBlock(x)·g with respect to x
// and to each unit's parameters: grads[i] holds those of unit i in its
// fields (and Pool as the unit's). A block that ran composed, or whose
// device has no DenseBlockBackwardKernel body, takes the composed
// gradient (denseBlockBackwardComposed, the layers run again).
func DenseBlockBackward[T Float](g *Tensor[T], s *DenseBlockState[T]) (dx *Tensor[T], grads []DenseUnit[T]) {
	if s.forwardOnly {
		panic(argumentError("DenseBlockBackward", "the state of DenseBlockForward, which keeps nothing for a backward pass"))
	}
	dev := sameDevice("DenseBlockBackward", g, s.x)
	body, ok := Lookup(DenseBlockBackwardKernel, dev)
	var ps [][]*Tensor[T] // each unit's gradients in Params order
	if !ok || s.composed {
		dx, ps = denseBlockBackwardComposed(g, s.x, s.layers, s.eps)
	} else {
		dx = ZerosOn(dev, s.x.Shape()...)
		out := []*Tensor[T]{dx}
		for _, u := range s.layers {
			for _, p := range u.Params() {
				out = append(out, ZerosOn(dev, p.Shape()...))
			}
		}
		body(out, []*Tensor[T]{Contiguous(g)}, s)
		for i, at := range s.paramsAt() {
			ps = append(ps, out[at:at+len(s.layers[i].Params())])
		}
	}
	grads = make([]DenseUnit[T], len(s.layers))
	for i, u := range s.layers {
		p := ps[i]
		grads[i] = DenseUnit[T]{Gamma: p[0], Beta: p[1], W: p[len(p)-1], Pool: u.Pool}
		if u.Bottleneck != nil {
			grads[i].Bottleneck = &DenseBottleneck[T]{W: p[2], Gamma: p[3], Beta: p[4]}
		}
	}
	return dx, grads
}

// denseBlockBackwardCPU is DenseBlockBackwardKernel's CPU body: the
// features' gradient summed in place in one buffer, the units taken in
// reverse order (unitBackward). Each batch normalisation's terms in the
// features' values, kx·x + k0 per channel (stageBackward), are summed over
// the units in lin and added to a channel's gradient once, before the
// unit that wrote the channel reads it (settle), and to dx.
func denseBlockBackwardCPU[T Float](out, in []*Tensor[T], run DenseBlockRun) {
	s := run.(*DenseBlockState[T])
	n, total, hw := s.dims()
	dbuf := getScratch[T](n * total * hw)
	defer putScratch(dbuf)
	lin := make([]float64, 2*total)
	gs, xs := HostData(in[0]), HostData(s.buf)
	if s.pools() { // zero, on every core
		parallelFor(n, total*hw, func(lo, hi int) { clear((*dbuf)[lo*total*hw : hi*total*hw]) })
	} else {
		copy(*dbuf, gs)
	}
	at := s.paramsAt()
	c := total
	for i := len(s.units) - 1; i >= 0; i-- {
		stages := s.units[i]
		last := stages[len(stages)-1]
		dy, stride := gs, last.w.Dim(0)*(s.buf.Dim(2)/2)*(s.buf.Dim(3)/2)
		if !last.pool {
			o := last.w.Dim(0)
			settle(*dbuf, total, *dbuf, xs, total, c-o, c, n, hw, lin)
			c -= o
			dy, stride = (*dbuf)[c*hw:], total*hw
		}
		s.unitBackward(stages, dy, stride, *dbuf, lin, out[at[i]:at[i]+len(s.layers[i].Params())])
	}
	settle(HostData(out[0]), c, *dbuf, xs, total, 0, c, n, hw, lin)
}

// settle sets channels [lo, hi) of dst [N, dstC, H·W] to those of
// d [N, srcC, H·W] plus kx·x + k0, with x of d's shape and kx, k0 the
// channel's lin[2ch], lin[2ch+1] (a copy where both are 0); dst may be d.
func settle[T Float](dst []T, dstC int, d, x []T, srcC, lo, hi, n, hw int, lin []float64) {
	c := hi - lo
	parallelFor(n*c, 3*hw, func(a, b int) {
		for r := a; r < b; r++ {
			i, ch := r/c, lo+r%c
			src, out := d[(i*srcC+ch)*hw:][:hw], dst[(i*dstC+ch)*hw:][:hw]
			kx, k0 := lin[2*ch], lin[2*ch+1]
			if kx == 0 && k0 == 0 {
				copy(out, src)
				continue
			}
			bnInputGrad(out, src, nil, x[(i*srcC+ch)*hw:], 1, T(kx), T(k0))
		}
	})
}

// paramsAt is where each unit's gradients start in
// DenseBlockBackwardKernel's outputs: after dx, unit after unit in
// DenseUnit.Params order.
func (s *DenseBlockState[T]) paramsAt() []int {
	at, k := make([]int, len(s.layers)), 1
	for i, u := range s.layers {
		at[i], k = k, k+len(u.Params())
	}
	return at
}

// unitBackward adds to dbuf (of the features' shape) the gradient, with
// respect to the unit's input channels, of Σ u(x)·dy for the unit u of
// stages, with dy of image i at dy[i·stride:], but for its batch
// normalisation's terms kx·x + k0, which it adds to lin (stageBackward),
// and sets grads (zeroed, in DenseUnit.Params order) to the gradients of
// u's parameters. A bottleneck's stage passes its gradient, settled, to
// the first through a scratch buffer of its output's shape.
func (s *DenseBlockState[T]) unitBackward(stages []denseStage[T], dy []T, stride int, dbuf []T, lin []float64, grads []*Tensor[T]) {
	first, last := stages[0], stages[len(stages)-1]
	if len(stages) == 2 {
		n, _, hw := s.dims()
		dneck := getScratch[T](n * last.c * hw)
		defer putScratch(dneck)
		clear(*dneck)
		nlin := make([]float64, 2*last.c)
		s.stageBackward(last, dy, stride, *dneck, nlin, grads[3], grads[4], grads[5])
		settle(*dneck, last.c, *dneck, HostData(last.src), last.c, 0, last.c, n, hw, nlin)
		dy, stride = *dneck, last.c*hw
	}
	s.stageBackward(first, dy, stride, dbuf, lin, grads[0], grads[1], grads[2])
}

// stageBackward adds to dsrc (of the shape of stage st's input) the
// gradient, with respect to st's first c input channels, of Σ st(x)·dy
// with dy of image i at dy[i·stride:], and sets dgamma, dbeta and dw
// (zeroed) to the gradients of st's γ, β and weight. Batch
// normalisation's backward rule makes that gradient a·g + kx·x + k0 per
// channel, g the gradient at the normalised input: the convolution's and
// ReLU's backward pass (imagesBackward or batchBackward) adds a·g to dsrc
// as it makes g, with g's per-channel sums, from which kx and k0 follow;
// those are added to lin[2ch] and lin[2ch+1] for the caller to settle.
func (s *DenseBlockState[T]) stageBackward(st denseStage[T], dy []T, stride int, dsrc []T, lin []float64, dgamma, dbeta, dw *Tensor[T]) {
	p := s.params(st)
	c, n, hw := st.c, p.N, s.buf.Dim(2)*s.buf.Dim(3)
	// The statistics as BatchNormBackward reads them, rounded to T.
	mu, inv, a := make([]float64, c), make([]float64, c), make([]T, c)
	gam := HostData(Contiguous(st.gamma))
	for ch := range c {
		mu[ch] = float64(T(st.mean[ch]))
		inv[ch] = 1 / math.Sqrt(float64(T(st.vari[ch]))+float64(s.eps))
		a[ch] = T(float64(gam[ch]) * inv[ch]) // γ/√(σ²+ε)
	}
	var sums []float64 // per slice of the batch and channel: Σ g and Σ g·(x − μ)
	if g := s.chunk(st); g > 0 {
		sums = s.batchBackward(st, p, g, dy, stride, dsrc, HostData(dw), mu, a)
	} else {
		sums = s.imagesBackward(st, p, dy, stride, dsrc, HostData(dw), mu, a)
	}
	parts := len(sums) / (2 * c)
	dgs, dbs := HostData(dgamma), HostData(dbeta)
	m := float64(n * hw)
	for ch := range c {
		sg, sgx := 0.0, 0.0
		for part := range parts {
			sg += sums[(part*c+ch)*2]
			sgx += sums[(part*c+ch)*2+1]
		}
		sgx *= inv[ch] // Σ g·x̂
		dgs[ch], dbs[ch] = T(sgx), T(sg)
		if s.fixed { // running statistics, constants: dx = a·g
			continue
		}
		ah := float64(gam[ch]) * inv[ch]
		kx := -ah * inv[ch] * sgx / m
		lin[2*ch] += kx
		lin[2*ch+1] += -ah*sg/m - kx*mu[ch]
	}
}

// imagesBackward is stageBackward's convolution and ReLU image by image:
// the batch is cut into one slice per core; each recomputes its images'
// normalised inputs and columns, adds its weight gradient and per-channel
// sums into its own buffers, which are then added in slice order (the
// result does not depend on scheduling), and adds a·g to dsrc, g the
// gradient with respect to the normalised input. It sets dw and returns
// the sums of each slice.
func (s *DenseBlockState[T]) imagesBackward(st denseStage[T], p Conv2DParams, dy []T, stride int, dsrc, dw []T, mu []float64, a []T) []float64 {
	c, n, hw := st.c, p.N, s.buf.Dim(2)*s.buf.Dim(3)
	srcC := st.src.Dim(1)
	rows, cols := colShape(p)
	scale, shift := s.affine(st)
	mk, Wt, wbuf := packedWeights(operand[T]{data: HostData(Contiguous(st.w)), ld: rows, trans: true}, rows, p.O)
	defer putScratch(wbuf)
	parts := max(1, min(n, runtime.GOMAXPROCS(0)))
	accs := getScratch[T](parts * p.O * rows)
	defer putScratch(accs)
	sums := make([]float64, parts*2*c)
	xs := HostData(st.src)
	parallelFor(parts, p.O*rows*cols*n/parts, func(lo, hi int) {
		z, dz, col, buf := s.stageScratch(st, p)
		defer putScratch(buf)
		for part := lo; part < hi; part++ {
			acc := (*accs)[part*p.O*rows : (part+1)*p.O*rows]
			clear(acc)
			sum := sums[part*2*c : (part+1)*2*c]
			for i := part * n / parts; i < (part+1)*n/parts; i++ {
				cm := s.columnsOf(z, col, i, st, p, scale, shift)
				gi := dy[i*stride:]
				gemmNT(p.O, rows, cols, gi, cols, cm, cols, acc, rows)
				// The gradient of the columns, then of z.
				dcol := col
				if col == nil {
					dcol = dz
				}
				gemmOperands(mk, 1, rows, cols, p.O, 1, Wt, operand[T]{data: gi, ld: cols}, 0, dcol, cols)
				switch {
				case st.pool:
					unpool2x2(dz, col, c, s.buf.Dim(2), s.buf.Dim(3))
				case col != nil:
					clear(dz)
					col2im(dz, col, p)
				}
				addReluGrad(sum, dsrc[i*srcC*hw:], dz, z, xs[i*srcC*hw:], mu, a, hw)
			}
		}
	})
	for part := range parts {
		for i, v := range (*accs)[part*len(dw) : (part+1)*len(dw)] {
			dw[i] += v
		}
	}
	return sums
}

// batchBackward is stageBackward's convolution and ReLU on g images at a
// time (see chunk), with Conv2D's backward kernels: it recomputes their
// normalised input, adds their weight gradient to dw (set first; the
// chunks' added in order) and a·g to dsrc, g the gradient with respect to
// the normalised input; it returns the per-channel sums (one slice).
func (s *DenseBlockState[T]) batchBackward(st denseStage[T], p Conv2DParams, g int, dy []T, stride int, dsrc, dw []T, mu []float64, a []T) []float64 {
	c, n, hw := st.c, p.N, p.H*p.W
	srcC := st.src.Dim(1)
	out := p.O * p.OutH() * p.OutW()
	scale, shift := s.affine(st)
	z, dz, gy, dwc := getScratch[T](g*s.widest*hw), getScratch[T](g*s.widest*hw), getScratch[T](g*out), getScratch[T](len(dw))
	defer func() { putScratch(z); putScratch(dz); putScratch(gy); putScratch(dwc) }()
	w := HostData(Contiguous(st.w))
	sums := make([]float64, 2*c)
	xs := HostData(st.src)
	for i0 := 0; i0 < n; i0 += g {
		q := p
		q.N = min(g, n-i0)
		s.normalizeAll(*z, i0, i0+q.N, st, scale, shift)
		for i := range q.N {
			copy((*gy)[i*out:(i+1)*out], dy[(i0+i)*stride:])
		}
		dzc := (*dz)[:q.N*c*hw]
		if i0 == 0 {
			conv2dGrads(dzc, dw, (*z)[:q.N*c*hw], (*gy)[:q.N*out], w, q)
		} else {
			conv2dGrads(dzc, *dwc, (*z)[:q.N*c*hw], (*gy)[:q.N*out], w, q)
			for k, v := range *dwc {
				dw[k] += v
			}
		}
		parallelFor(c, 3*q.N*hw, func(lo, hi int) {
			for i := range q.N {
				at, off := (i*c+lo)*hw, ((i0+i)*srcC+lo)*hw
				addReluGrad(sums[2*lo:2*hi], dsrc[off:], dzc[at:], (*z)[at:], xs[off:], mu[lo:hi], a[lo:hi], hw)
			}
		})
	}
	return sums
}

// addReluGrad applies ReLU's backward rule to dz [c, H·W], the gradient
// with respect to z = ReLU(·) [c, H·W] of channels whose input is x with
// means mu (dz taken where z > 0, else 0, as ReluGrad), adds a[ch] times
// it to channel ch of d, and adds its Σ and Σ ·(x − μ) to sum[2ch] and
// sum[2ch+1], in one pass (bnDotsReluAdd).
func addReluGrad[T Float](sum []float64, d, dz, z, x []T, mu []float64, a []T, hw int) {
	for ch, m := range mu {
		at := ch * hw
		s, sx := bnDotsReluAdd(d[at:at+hw], dz[at:at+hw], z[at:at+hw], x[at:at+hw], m, a[ch])
		sum[2*ch] += s
		sum[2*ch+1] += sx
	}
}
