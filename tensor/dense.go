package tensor

import (
	"math"
	"runtime"
	"slices"
)

// A dense block of DenseNet (Huang et al. 2017) in memory linear in its
// depth (Pleiss et al. 2017): the features live in one buffer [N, C, H, W]
// to which each layer appends its channels, and each layer's batch
// normalisation and ReLU of all earlier channels is computed per image into
// a scratch buffer, never stored, and recomputed in the backward pass. The
// gradient with respect to the features is summed in place in one buffer
// too. The batch statistics of a channel are computed once, when it is
// written: every later layer normalises it with the same mean and variance.

// DenseUnit is one layer of a dense block: batch normalisation of its input
// channels with the batch's statistics, scale γ and shift β, ReLU, then a
// convolution by W [o, c, k, k] (k odd, stride 1, padding k/2) and, for a
// transition (k = 1), 2×2 average pooling with stride 2. Both are linear
// and a 1×1 convolution acts on each position alone, so a transition pools
// first and convolves a quarter of the positions.
type DenseUnit[T Float] struct {
	Gamma, Beta, W *Tensor[T]
	Pool           bool
}

// DenseBlockState is what DenseBlockBackward needs from DenseBlock.
type DenseBlockState[T Float] struct {
	units      []DenseUnit[T]
	buf        *Tensor[T]
	mean, vari []float64 // per channel of buf: batch mean and biased variance
	eps        T
}

// DenseBlock runs units on x [N, C0, H, W] (on the CPU): unit i normalises
// the channels [0, c_i) of the features, c_0 = C0, and appends its o_i
// output channels; only the last unit may pool, and its output, not the
// features, is then the result. The result is the features
// [N, C0 + Σ o_i, H, W] otherwise.
func DenseBlock[T Float](x *Tensor[T], units []DenseUnit[T], eps T) (*Tensor[T], *DenseBlockState[T]) {
	if _, ok := x.Device().(CPU[T]); !ok {
		panic(argumentError("DenseBlock", "runs on the CPU only, not on %s", x.Device()))
	}
	sh := x.Shape()
	if len(sh) != 4 || sh[0] < 1 {
		panic(shapeError("DenseBlock", [][]int{sh}, "input %v, want [N, C, H, W] with N ≥ 1", sh))
	}
	n, c, h, w := sh[0], sh[1], sh[2], sh[3]
	total := c
	for i, u := range units {
		ws := u.W.Shape()
		if len(ws) != 4 || ws[1] != total || ws[2] != ws[3] || ws[2]%2 == 0 ||
			!slices.Equal(u.Gamma.Shape(), []int{total}) || !slices.Equal(u.Beta.Shape(), []int{total}) ||
			u.Pool && (i != len(units)-1 || ws[2] != 1 || h < 2 || w < 2) {
			panic(shapeError("DenseBlock", [][]int{sh, ws, u.Gamma.Shape(), u.Beta.Shape()}, "unit %d (weight %v, γ %v, β %v, pool %v) on %d channels of %d×%d, %d units",
				i, ws, u.Gamma.Shape(), u.Beta.Shape(), u.Pool, total, h, w, len(units)))
		}
		if !u.Pool {
			total += ws[0]
		}
	}
	hw := h * w
	st := &DenseBlockState[T]{units: units, buf: Zeros[T](n, total, h, w), mean: make([]float64, total), vari: make([]float64, total), eps: eps}
	bs, xs := HostData(st.buf), HostData(Contiguous(x))
	for i := range n {
		copy(bs[i*total*hw:][:c*hw], xs[i*c*hw:])
	}
	st.stats(0, c)
	y := st.buf
	for _, u := range units {
		o := u.W.Dim(0)
		if u.Pool {
			y = Zeros[T](n, o, h/2, w/2)
			st.unitForward(u, c, HostData(y), o*(h/2)*(w/2))
			break
		}
		st.unitForward(u, c, bs[c*hw:], total*hw)
		st.stats(c, c+o)
		c += o
	}
	return y, st
}

// Stats is unit i's batch mean and biased variance ([c_i]), for running
// estimates.
func (s *DenseBlockState[T]) Stats(i int) (mean, variance *Tensor[T]) {
	c := s.units[i].W.Dim(1)
	mean, variance = Zeros[T](c), Zeros[T](c)
	for ch, m := range s.mean[:c] {
		HostData(mean)[ch], HostData(variance)[ch] = T(m), T(s.vari[ch])
	}
	return mean, variance
}

// dims is N, the channels of the features and H·W.
func (s *DenseBlockState[T]) dims() (n, total, hw int) {
	sh := s.buf.Shape()
	return sh[0], sh[1], sh[2] * sh[3]
}

// stats computes the batch statistics of channels [lo, hi).
func (s *DenseBlockState[T]) stats(lo, hi int) {
	n, total, hw := s.dims()
	bs := HostData(s.buf)
	parallelFor(hi-lo, 2*n*hw, func(a, b int) {
		for ch := lo + a; ch < lo+b; ch++ {
			s.mean[ch], s.vari[ch] = channelStats(bs, n, total, hw, ch)
		}
	})
}

// params is the convolution of unit u on c channels (on the pooled size
// for a transition).
func (s *DenseBlockState[T]) params(u DenseUnit[T], c int) Conv2DParams {
	sh := s.buf.Shape()
	k, h, w := u.W.Dim(2), sh[2], sh[3]
	if u.Pool {
		h, w = h/2, w/2
	}
	return Conv2DParams{N: sh[0], C: c, H: h, W: w, O: u.W.Dim(0), KH: k, KW: k,
		StrideH: 1, StrideW: 1, PadH: k / 2, PadW: k / 2, DilH: 1, DilW: 1}
}

// affine is unit u's batch normalisation as a per-channel scale and shift,
// computed as BatchNorm does.
func (s *DenseBlockState[T]) affine(u DenseUnit[T], c int) (scale, shift []T) {
	scale, shift = make([]T, c), make([]T, c)
	gs, bs := HostData(Contiguous(u.Gamma)), HostData(Contiguous(u.Beta))
	for ch := range c {
		a := float64(gs[ch]) / math.Sqrt(s.vari[ch]+float64(s.eps))
		scale[ch], shift[ch] = T(a), T(float64(bs[ch])-s.mean[ch]*a)
	}
	return scale, shift
}

// normalize sets z [c, H·W] to ReLU(scale·x + shift) of image i's first c
// channels.
func (s *DenseBlockState[T]) normalize(z []T, i int, scale, shift []T) {
	_, total, hw := s.dims()
	xs := HostData(s.buf)[i*total*hw:]
	for ch, a := range scale {
		affineRelu(z[ch*hw:(ch+1)*hw], xs[ch*hw:(ch+1)*hw], a, shift[ch])
	}
}

// widest is the most input channels and kernel values k² of the units:
// scratch sized for them serves every unit, so that buffers from the pool
// fit from one layer to the next.
func (s *DenseBlockState[T]) widest() (c, kk int) {
	for _, u := range s.units {
		ws := u.W.Shape()
		c, kk = max(c, ws[1]), max(kk, ws[2]*ws[3])
	}
	return c, kk
}

// affineRelu sets dst[i] = max(src[i]·a + b, 0), in assembly where it can.
func affineRelu[T Float](dst, src []T, a, b T) {
	src = src[:len(dst)]
	for j := affineReluAsm(dst, src, a, b); j < len(dst); j++ {
		dst[j] = max(src[j]*a+b, 0)
	}
}

// keepPositive clears d[i] where z[i] ≤ 0 (ReLU's gradient for its output
// z), in assembly where it can.
func keepPositive[T Float](d, z []T) {
	z = z[:len(d)]
	for j := keepPositiveAsm(d, z); j < len(d); j++ {
		if z[j] <= 0 {
			d[j] = 0
		}
	}
}

// axpbyc adds a·g[i] + b·x[i] + c to d[i], in assembly where it can.
func axpbyc[T Float](d, g, x []T, a, b, c T) {
	g, x = g[:len(d)], x[:len(d)]
	for j := axpbycAsm(d, g, x, a, b, c); j < len(d); j++ {
		d[j] += a*g[j] + b*x[j] + c
	}
}

// unitScratch is one worker's buffers for unit u with convolution p: the
// normalised image z and its column matrix col (im2col's columns, the
// pooled z for a transition, nil for another 1×1 kernel, whose columns are
// z), carved from one buffer of the block's widest size, to give back with
// putScratch.
func (s *DenseBlockState[T]) unitScratch(u DenseUnit[T], p Conv2DParams) (z, col []T, buf *[]T) {
	rows, cols := colShape(p)
	c, kk := s.widest()
	hw := s.buf.Dim(2) * s.buf.Dim(3)
	buf = getScratch[T]((c + c*kk) * hw)
	z = (*buf)[:p.C*hw]
	if u.Pool || !pointwise(p) {
		col = (*buf)[c*hw:][:rows*cols]
	}
	return z, col, buf
}

// columnsOf normalises image i into z and returns unit u's column matrix
// of it: pooled into col for a transition, z itself for another 1×1
// kernel, else im2col's columns in col.
func (s *DenseBlockState[T]) columnsOf(z, col []T, i int, u DenseUnit[T], p Conv2DParams, scale, shift []T) []T {
	s.normalize(z, i, scale, shift)
	if u.Pool {
		pool2x2(col, z, p.C, s.buf.Dim(2), s.buf.Dim(3))
		return col
	}
	return columns(col, z, p)
}

// unitForward writes unit u's output for each image i, on the first c
// channels, to dst[i·stride:].
func (s *DenseBlockState[T]) unitForward(u DenseUnit[T], c int, dst []T, stride int) {
	p := s.params(u, c)
	rows, cols := colShape(p)
	scale, shift := s.affine(u, c)
	mk, W, wbuf := packedWeights(operand[T]{data: HostData(Contiguous(u.W)), ld: rows}, p.O, rows)
	defer putScratch(wbuf)
	parallelFor(p.N, p.O*rows*cols, func(lo, hi int) {
		z, col, buf := s.unitScratch(u, p)
		defer putScratch(buf)
		for i := lo; i < hi; i++ {
			cm := s.columnsOf(z, col, i, u, p, scale, shift)
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

// sum64 is the sum of s in float64, in four interleaved partial sums (one
// chain of dependent additions would wait on each).
func sum64[T Float](s []T) float64 {
	var a, b, c, d float64
	i := 0
	for ; i+4 <= len(s); i += 4 {
		a += float64(s[i])
		b += float64(s[i+1])
		c += float64(s[i+2])
		d += float64(s[i+3])
	}
	for ; i < len(s); i++ {
		a += float64(s[i])
	}
	return (a + b) + (c + d)
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

// DenseUnitGrad holds the gradients of one unit's parameters.
type DenseUnitGrad[T Float] struct{ Gamma, Beta, W *Tensor[T] }

// DenseBlockBackward is the gradient of Σ DenseBlock(x)·g with respect to x
// and to each unit's parameters.
func DenseBlockBackward[T Float](g *Tensor[T], s *DenseBlockState[T]) (dx *Tensor[T], grads []DenseUnitGrad[T]) {
	n, total, hw := s.dims()
	dbuf := getScratch[T](n * total * hw)
	defer putScratch(dbuf)
	widest, _ := s.widest()
	dz := getScratch[T](n * widest * hw)
	defer putScratch(dz)
	grads = make([]DenseUnitGrad[T], len(s.units))
	gs := HostData(Contiguous(g))
	last := len(s.units) - 1
	c := total
	if last >= 0 && s.units[last].Pool {
		clear(*dbuf)
		o, h, w := s.units[last].W.Dim(0), s.buf.Dim(2), s.buf.Dim(3)
		grads[last] = s.unitBackward(s.units[last], total, gs, o*(h/2)*(w/2), *dbuf, *dz)
		last--
	} else {
		copy(*dbuf, gs)
	}
	for i := last; i >= 0; i-- {
		c -= s.units[i].W.Dim(0)
		grads[i] = s.unitBackward(s.units[i], c, (*dbuf)[c*hw:], total*hw, *dbuf, *dz)
	}
	dx = Zeros[T](n, c, s.buf.Dim(2), s.buf.Dim(3))
	ds := HostData(dx)
	for i := range n {
		copy(ds[i*c*hw:(i+1)*c*hw], (*dbuf)[i*total*hw:])
	}
	return dx, grads
}

// unitBackward adds to dbuf (of the features' shape) the gradient, with
// respect to unit u's first c input channels, of Σ u(x)·dy with dy of image
// i at dy[i·stride:], and returns the gradients of u's parameters. The batch
// is cut into one slice per core: each recomputes its images' normalised
// inputs and columns, adds its weight gradient and per-channel sums into
// its own buffers, which are then added in slice order (the result does
// not depend on scheduling), and stores the gradient with respect to the
// normalised input in dz; a second pass over channels applies batch
// normalisation's backward rule.
func (s *DenseBlockState[T]) unitBackward(u DenseUnit[T], c int, dy []T, stride int, dbuf, dz []T) DenseUnitGrad[T] {
	p := s.params(u, c)
	n, total, hw := s.dims()
	rows, cols := colShape(p)
	scale, shift := s.affine(u, c)
	mk, Wt, wbuf := packedWeights(operand[T]{data: HostData(Contiguous(u.W)), ld: rows, trans: true}, rows, p.O)
	defer putScratch(wbuf)
	// The statistics as BatchNormBackward reads them, rounded to T.
	mu, inv := make([]float64, c), make([]float64, c)
	for ch := range c {
		mu[ch] = float64(T(s.mean[ch]))
		inv[ch] = 1 / math.Sqrt(float64(T(s.vari[ch]))+float64(s.eps))
	}
	parts := max(1, min(n, runtime.GOMAXPROCS(0)))
	accs := getScratch[T](parts * p.O * rows)
	defer putScratch(accs)
	sums := make([]float64, parts*2*c) // per part and channel: Σ g and Σ g·(x − μ)
	xs := HostData(s.buf)
	parallelFor(parts, p.O*rows*cols*n/parts, func(lo, hi int) {
		z, col, buf := s.unitScratch(u, p)
		defer putScratch(buf)
		for part := lo; part < hi; part++ {
			acc := (*accs)[part*p.O*rows : (part+1)*p.O*rows]
			clear(acc)
			sum := sums[part*2*c : (part+1)*2*c]
			for i := part * n / parts; i < (part+1)*n/parts; i++ {
				cm := s.columnsOf(z, col, i, u, p, scale, shift)
				gi := dy[i*stride:]
				gemmNT(p.O, rows, cols, gi, cols, cm, cols, acc, rows)
				// The gradient of the columns, then of z.
				dzi, dcol := dz[i*c*hw:(i+1)*c*hw], col
				if col == nil {
					dcol = dzi
				}
				gemmOperands(mk, 1, rows, cols, p.O, 1, Wt, operand[T]{data: gi, ld: cols}, 0, dcol, cols)
				switch {
				case u.Pool:
					unpool2x2(dzi, col, c, s.buf.Dim(2), s.buf.Dim(3))
				case col != nil:
					clear(dzi)
					col2im(dzi, col, p)
				}
				xi := xs[i*total*hw:]
				for ch := range c {
					zc, dc, m := z[ch*hw:(ch+1)*hw], dzi[ch*hw:(ch+1)*hw], mu[ch]
					keepPositive(dc, zc)
					sum[2*ch] += sum64(dc)
					sum[2*ch+1] += dot64(dc, xi[ch*hw:(ch+1)*hw], m)
				}
			}
		}
	})
	grad := DenseUnitGrad[T]{Gamma: Zeros[T](c), Beta: Zeros[T](c), W: Zeros[T](u.W.Shape()...)}
	dw := HostData(grad.W)
	for part := range parts {
		for i, v := range (*accs)[part*len(dw) : (part+1)*len(dw)] {
			dw[i] += v
		}
	}
	dgs, dbs, gam := HostData(grad.Gamma), HostData(grad.Beta), HostData(Contiguous(u.Gamma))
	m := float64(n * hw)
	parallelFor(c, 3*n*hw, func(lo, hi int) {
		for ch := lo; ch < hi; ch++ {
			sg, sgx := 0.0, 0.0
			for part := range parts {
				sg += sums[(part*c+ch)*2]
				sgx += sums[(part*c+ch)*2+1]
			}
			sgx *= inv[ch] // Σ g·x̂
			dgs[ch], dbs[ch] = T(sgx), T(sg)
			// dx = a·g + kx·x + k0 with a = γ/√(σ²+ε), as BatchNormBackward.
			a := float64(gam[ch]) * inv[ch]
			kx := -a * inv[ch] * sgx / m
			k0 := -a*sg/m - kx*mu[ch]
			ta, tkx, tk0 := T(a), T(kx), T(k0)
			for i := range n {
				off := (i*total + ch) * hw
				dc := dz[(i*c+ch)*hw : (i*c+ch+1)*hw]
				axpbyc(dbuf[off:off+hw], dc, xs[off:off+hw], ta, tkx, tk0)
			}
		}
	})
	return grad
}
