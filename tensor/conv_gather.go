package tensor

import (
	"runtime"
	"slices"
	"sync"
)

// Stride-1 convolution without im2col. A few images at a time are copied
// side by side into a zero-padded buffer, a canvas: per channel Hp rows of
// Wp = PadW + imgs·(W + PadW) (the images' padding columns shared), the
// channels one after the other. The output is computed at the canvas
// width, OH rows of Wp positions, image k's at columns k·(W + PadW) to
// k·(W + PadW) + OW, the rest discarded. At that width the input that
// kernel tap (c, kh, kw) brings to output position j lies at j +
// c·Hp·Wp + kh·DilH·Wp + kw·DilW, so each row of the column matrix is a
// run of the canvas: the micro-kernel (gatherKernel) reads the rows in
// place through a table of their offsets. It sums in the order of the
// im2col GEMM (same k-blocks), so both paths agree to the bit. The weight
// gradient is dot products over the same layout (weightDots).
//
// A strided forward pass (stride s ≤ 2, not 1×1) takes the same kernel on a
// canvas of phases: the padded image split into s×s sub-images, phase
// (a, b) holding its rows a, a+s, … and columns b, b+s, …, each image in
// its own block of ⌈(W+2·PadW)/s⌉ columns. Output (i, j) reads padded
// input (s·i + kh·DilH, s·j + kw·DilW): phase ((kh·DilH) mod s, (kw·DilW)
// mod s), shifted by the quotients, so consecutive outputs again read
// consecutive canvas positions. A channel's taps then lie out of order on
// the canvas; they are summed in canvas order (the weights' columns
// permuted to match), so the result differs from im2col's by rounding.

// gatherKernel is a register tile of mr×nr and the function adding
// Σ_p a[p*mr+i]·b[offs[p]+j] over k ≥ 1 steps to c[i*ldc+j] (or setting c
// to the sums, without add): a is a panel packed by packA, and the offsets
// increase. dot3 is the weight gradient's kernel for the three taps of a
// kernel row (3 wide, undilated), adding c[s*lds+i*ldi+j] += Σ_{p<16·kv}
// a[i*lda+p+s]·b[j*ldb+p] for i < 2, s < 3, j < 4: each vector of a row
// of dy serves three taps. It may read 16 values past each row of a.
type gatherKernel[T Float] struct {
	mr, nr int
	fn     func(k int, a, b []T, offs []int, c []T, ldc int, add bool)
	dot3   func(kv int, a []T, lda int, b []T, ldb int, c []T, lds, ldi int)
}

// goGatherKernel is the portable gather kernel of an mr×nr tile: the
// reference the assembly kernels are tested against.
func goGatherKernel[T Float](mr, nr int) gatherKernel[T] {
	return gatherKernel[T]{mr, nr, func(k int, a, b []T, offs []int, c []T, ldc int, add bool) {
		gatherGo(mr, nr, k, a, b, offs, c, ldc, add)
	}, dot3Go[T]}
}

func dot3Go[T Float](kv int, a []T, lda int, b []T, ldb int, c []T, lds, ldi int) {
	for i := range 2 {
		for s := range 3 {
			for j := range 4 {
				var sum T
				for p, v := range b[j*ldb : j*ldb+16*kv] {
					sum += a[i*lda+p+s] * v
				}
				c[s*lds+i*ldi+j] += sum
			}
		}
	}
}

func gatherGo[T Float](mr, nr, k int, a, b []T, offs []int, c []T, ldc int, add bool) {
	acc := make([]T, mr*nr)
	for p, off := range offs[:k] {
		row := b[off : off+nr]
		for i, v := range a[p*mr : p*mr+mr] {
			t := acc[i*nr : i*nr+nr]
			for j, u := range row {
				t[j] += v * u
			}
		}
	}
	for i := range mr {
		row, t := c[i*ldc:i*ldc+nr], acc[i*nr:i*nr+nr]
		if !add {
			copy(row, t)
			continue
		}
		for j, v := range t {
			row[j] += v
		}
	}
}

// maxWaste is the largest ratio of the kernel's columns to the output
// positions they compute (the rest being padding and the last tile's
// rounding) at which convolution takes the gather path. im2col's GEMM
// wastes some too (64 columns for ResNet's 7×7 maps of 49 positions) and
// copies every column; LeNet-5's second layer (8×8 outputs at a canvas
// width of 12 an image, 1.5) and ResNet-50's 7×7 layers (1.31) are
// faster on the canvas (bench/README.md, "Wasted columns").
const maxWaste = 1.5

// dotChunk is the length of the rows the weight gradient's dot products
// take at a time, 2 KB a row, so that the rows one block of the other
// operand meets stay in L1 for the next block (ResNet's 16 channels).
const dotChunk = 512

// maxCanvas is the most images a canvas holds side by side.
const maxCanvas = 8

// maxCanvasValues bounds a canvas of several images and its sums: 1 MB of
// float32, half an L2 of 2 MB, so that both stay there while the weights
// pass (bench/README.md, "Canvases that fit in L2").
const maxCanvasValues = 1 << 18

// gathers reports whether convolution p takes the gather path where T has
// an assembly kernel of nr columns: stride 1, not pointwise (whose
// columns are the image already), at least 8 channels in or out, and a
// canvas wasting at most maxWaste. The first layer of ResNet-20 (3→16,
// 3×3) runs forward in 0.46–0.60 ms on it against 0.63–0.86 ms by im2col
// (batch 100); LeNet-5's (3→6, 5×5), whose 6 rows fill no tile of 8,
// keeps im2col (its training step took 6.8–7.0 ms on the gather path,
// 6.4–6.6 ms by im2col).
func gathers(p Conv2DParams, nr int) bool {
	return p.StrideH == 1 && p.StrideW == 1 && gathersForward(p, nr)
}

// gathersForward is gathers for the forward pass alone, which also takes
// strides of 2 on the canvas of phases; 1×1 kernels keep im2col, whose
// columns are a copy of the pixels they read.
func gathersForward(p Conv2DParams, nr int) bool {
	_, waste := canvas(p, nr)
	return p.StrideH <= 2 && p.StrideW <= 2 && !(p.KH == 1 && p.KW == 1) && max(p.C, p.O) >= 8 && waste <= maxWaste
}

// canvas returns the number of images side by side that wastes the
// fewest columns of nr-wide tiles, at most maxCanvas, maxCanvasValues
// with the sums, and the batch's share of a core (a canvas is one core's
// work: a batch of 8 on one canvas ran ResNet-50's 3×3 layers on one of
// two cores), and the ratio of the columns computed to the output
// positions. Images share padding columns only where the output is at
// most PadW wider than the input (the kernel reaches past the padding).
func canvas(p Conv2DParams, nr int) (imgs int, waste float64) {
	oh, ow := p.OutH(), p.OutW()
	procs := runtime.GOMAXPROCS(0)
	for k := 1; k <= min(maxCanvas, max((p.N+procs-1)/procs, 1)); k++ {
		if k > 1 && p.StrideW == 1 && ow > p.W+p.PadW {
			break
		}
		_, wp, rows := canvasShape(p, k)
		if k > 1 && p.C*p.StrideH*p.StrideW*rows*wp+p.O*roundUp(oh*wp, nr) > maxCanvasValues {
			break
		}
		w := float64(roundUp(oh*wp, nr)) / float64(k*oh*ow)
		if k == 1 || w < waste {
			imgs, waste = k, w
		}
	}
	return imgs, waste
}

// canvasShape is the layout of a canvas of imgs images for p: the columns
// from one image to the next (its padded column 0 at step·k), the canvas
// width and the rows of a channel (of a phase, for a stride above 1).
func canvasShape(p Conv2DParams, imgs int) (step, wp, rows int) {
	if p.StrideH == 1 && p.StrideW == 1 {
		step = p.W + p.PadW
		return step, p.PadW + imgs*step, p.H + 2*p.PadH
	}
	step = (p.W + 2*p.PadW + p.StrideW - 1) / p.StrideW
	return step, imgs * step, (p.H + 2*p.PadH + p.StrideH - 1) / p.StrideH
}

// gatherConv is convolution p laid out for kernel gk.
type gatherConv[T Float] struct {
	gk        gatherKernel[T]
	p         Conv2DParams
	imgs      int    // images side by side on the canvas
	step      int    // columns from one image to the next
	wp, plane int    // canvas width, and channel (phase) plane
	perm      []int  // a channel's taps in canvas order; nil at stride 1
	n, nt     int    // output positions at the canvas width, OH·Wp; rounded up to nr
	size      int    // the canvas and the slack the last tiles read
	kc        int    // the im2col GEMM's k-block
	offs      *[]int // the column matrix's rows in the canvas
	xs, ys    int    // from one image to the next in x and in y: C·H·W and O·OH·OW unless set
	in        *inputAffine[T]
}

// inputAffine is a map ReLU(x·scale[c] + shift[c]) per input channel c
// that place applies to the input as it copies it onto the canvas, the
// padding staying zero: a DenseNet layer's batch norm and ReLU before its
// convolution (convAffineInput).
type inputAffine[T Float] struct{ scale, shift []T }

// gatherFor returns the gather layout of p where gathers allows it and T
// has an assembly kernel; release it after use.
func gatherFor[T Float](p Conv2DParams) (*gatherConv[T], bool) {
	gk, ok := asmGatherKernel[T](p.O)
	if !ok || !gathers(p, gk.nr) {
		return nil, false
	}
	return newGatherConv(gk, p), true
}

// gatherForwardFor is gatherFor for the forward pass (gathersForward).
func gatherForwardFor[T Float](p Conv2DParams) (*gatherConv[T], bool) {
	if !takesGather[T](p) {
		return nil, false
	}
	gk, _ := asmGatherKernel[T](p.O)
	return newGatherConv(gk, p), true
}

// takesGather reports whether T has an assembly gather kernel and p's
// forward pass takes it (gathersForward).
func takesGather[T Float](p Conv2DParams) bool {
	gk, ok := asmGatherKernel[T](p.O)
	return ok && gathersForward(p, gk.nr)
}

var offsetPool sync.Pool // of *[]int

func newGatherConv[T Float](gk gatherKernel[T], p Conv2DParams) *gatherConv[T] {
	imgs, _ := canvas(p, gk.nr)
	step, wp, rows := canvasShape(p, imgs)
	sh, sw := p.StrideH, p.StrideW
	g := &gatherConv[T]{gk: gk, p: p, imgs: imgs, step: step, wp: wp, plane: rows * wp, n: p.OutH() * wp, kc: kernelFor[T]().kc,
		xs: p.C * p.H * p.W, ys: p.O * p.OutH() * p.OutW()}
	g.nt = roundUp(g.n, gk.nr)
	g.size = p.C*sh*sw*g.plane + g.nt - g.n + (p.KW-1)*p.DilW/sw + 16 // dot3 reads 16 past its rows
	// A channel's taps: phase (a, b), then the shift within it.
	taps := make([]int, 0, p.KH*p.KW)
	for kh := range p.KH {
		for kw := range p.KW {
			dh, dw := kh*p.DilH, kw*p.DilW
			taps = append(taps, ((dh%sh)*sw+dw%sw)*g.plane+dh/sh*wp+dw/sw)
		}
	}
	if sh > 1 || sw > 1 {
		g.perm = make([]int, len(taps))
		for t := range g.perm {
			g.perm[t] = t
		}
		slices.SortStableFunc(g.perm, func(s, t int) int { return taps[s] - taps[t] })
	}
	g.offs, _ = offsetPool.Get().(*[]int)
	if g.offs == nil {
		g.offs = new([]int)
	}
	offs := (*g.offs)[:0]
	for c := range p.C {
		for t := range taps {
			if g.perm != nil {
				t = g.perm[t]
			}
			offs = append(offs, c*sh*sw*g.plane+taps[t])
		}
	}
	*g.offs = offs
	return g
}

func (g *gatherConv[T]) release() { offsetPool.Put(g.offs) }

// packed is g's weights w [O, C·KH·KW] packed for the kernel, in a scratch
// buffer to give back.
func (g *gatherConv[T]) packed(w []T) *[]T {
	k := len(*g.offs)
	a := getScratch[T](roundUp(g.p.O, g.gk.mr) * k)
	var wc *[]T // the taps in canvas order
	if g.perm != nil {
		wc = getScratch[T](len(w))
		defer putScratch(wc)
	}
	packPanels(g.p.O, g.gk.mr, k, func(i0, i1 int) {
		src := w
		if wc != nil {
			src = *wc
			kk := len(g.perm)
			for r := i0 * k; r < i1*k; r += kk {
				for i, t := range g.perm {
					src[r+i] = w[r+t]
				}
			}
		}
		packA((*a)[i0*k:], operand[T]{data: src, ld: k}, i0, i1-i0, 0, k, g.gk.mr, 1)
	})
	return a
}

// canvases is the number of canvases the batch fills, the last one maybe
// in part.
func (g *gatherConv[T]) canvases() int { return (g.p.N + g.imgs - 1) / g.imgs }

// images is the range of images on canvas i.
func (g *gatherConv[T]) images(i int) (lo, hi int) { return i * g.imgs, min((i+1)*g.imgs, g.p.N) }

// image copies k ≤ imgs images of x onto canvas xb (place), and sets yb
// [roundUp(O, mr), nt] to their convolution with the packed weights a at
// the canvas width.
func (g *gatherConv[T]) image(yb, xb, x, a []T, k int) {
	g.place(xb, x, k)
	offs := *g.offs
	kk, mr := len(offs), g.gk.mr
	// A k-block of a column strip, at most kc×nr, stays in L1 for all
	// the rows.
	for j := 0; j < g.nt; j += g.gk.nr {
		for pc := 0; pc < kk; pc += g.kc {
			kb := min(g.kc, kk-pc)
			for i := 0; i < len(yb)/g.nt; i += mr {
				g.gk.fn(kb, a[i*kk+pc*mr:], xb[j:], offs[pc:pc+kb], yb[i*g.nt+j:], g.nt, pc > 0)
			}
		}
	}
}

// rowTiles reports whether g computes its output row by row into the
// images' planes (imageRows): stride 1 and output rows of at least 3/4
// of the kernel's tile and at most the tile (24 to 32 wide at nr = 32:
// ResNet-20 and the DenseNets on 28×28 digits or 32×32 CIFAR images), so
// that a tile is one output row of one image, and the canvas's output,
// its padding columns and the copy out of it (unpad) are not needed. A
// tile then computes up to 1/4 more columns than the row holds; the
// canvas computes its padding columns and rounding.
func (g *gatherConv[T]) rowTiles() bool {
	p, nr := g.p, g.gk.nr
	return p.StrideH == 1 && p.StrideW == 1 && 4*p.OutW() >= 3*nr && p.OutW() <= nr
}

// imageRows is image then unpad without an epilogue: it copies k ≤ imgs
// images of x onto canvas xb and sets their outputs in y to
// their convolution with the packed weights a, one output row of one
// image a tile, with image's k-blocks (so the sums are image's, bit for
// bit). A tile's columns past the row land on the start of the next row,
// which its own tile writes afterwards; the last row's tiles, and a last
// block of fewer than mr output channels, go through a buffer instead.
func (g *gatherConv[T]) imageRows(y, xb, x, a []T, k int) {
	g.place(xb, x, k)
	p, offs := g.p, *g.offs
	kk, mr, nr := len(offs), g.gk.mr, g.gk.nr
	oh, ow, plane := p.OutH(), p.OutW(), p.OutH()*p.OutW()
	buf := getScratch[T](roundUp(p.O, mr) * nr)
	defer putScratch(buf)
	tiles, whole := *buf, p.O/mr*mr
	for im := range k {
		for r := range oh {
			b, out := xb[r*g.wp+im*g.step:], y[im*g.ys+r*ow:]
			direct := whole // output channels written in place
			if r == oh-1 && ow < nr {
				direct = 0
			}
			for pc := 0; pc < kk; pc += g.kc {
				kb := min(g.kc, kk-pc)
				for i := 0; i < p.O; i += mr {
					if i < direct {
						g.gk.fn(kb, a[i*kk+pc*mr:], b, offs[pc:pc+kb], out[i*plane:], plane, pc > 0)
						continue
					}
					g.gk.fn(kb, a[i*kk+pc*mr:], b, offs[pc:pc+kb], tiles[i*nr:], nr, pc > 0)
				}
			}
			for o := direct; o < p.O; o++ {
				copy(out[o*plane:][:ow], tiles[o*nr:])
			}
		}
	}
}

// applyEpilogue applies e to the k images of y, images n0 on, as unpad
// does after its copy.
func (g *gatherConv[T]) applyEpilogue(y []T, n0, k int, e *epilogue[T]) {
	if e == nil {
		return
	}
	plane := g.p.OutH() * g.p.OutW()
	for i := range k {
		for o := range g.p.O {
			dst := y[i*g.ys+o*plane:][:plane]
			if e.bias != nil {
				for j, v := range dst {
					dst[j] = v + e.bias[o]
				}
				continue
			}
			e.affine(dst, n0+i, o, g.p.O)
		}
	}
}

// place copies k ≤ imgs images [C, H, W] of x, g.xs apart, onto canvas
// xb, whose padding must be zero, clearing the slots of missing images;
// at stride 1 it maps each channel's plane by g.in, if set, on the way.
func (g *gatherConv[T]) place(xb, x []T, k int) {
	p := g.p
	if p.StrideH > 1 || p.StrideW > 1 {
		g.placePhases(xb, x, k)
		return
	}
	var z *[]T // a channel's plane mapped by g.in
	if g.in != nil {
		z = getScratch[T](p.H * p.W)
		defer putScratch(z)
	}
	for i := range g.imgs {
		for c := range p.C {
			dst := xb[c*g.plane+p.PadH*g.wp+p.PadW+i*g.step:]
			if i < k {
				src := x[i*g.xs+c*p.H*p.W:]
				if z != nil {
					affineRelu(*z, src[:p.H*p.W], g.in.scale[c], g.in.shift[c])
					src = *z
				}
				canvasCopy(dst, src, p.H, p.W, g.wp, p.W)
				continue
			}
			for r := range p.H {
				clear(dst[r*g.wp : r*g.wp+p.W])
			}
		}
	}
}

// placePhases is place for a stride above 1: image i's pixel (h, w),
// padded (h + PadH, w + PadW), goes to phase ((h + PadH) mod sh, (w +
// PadW) mod sw) of its channel, at row (h + PadH)/sh and column i·step +
// (w + PadW)/sw.
func (g *gatherConv[T]) placePhases(xb, x []T, k int) {
	p := g.p
	sh, sw := p.StrideH, p.StrideW
	// first is the first phase row (column) r of phase a whose input row
	// r·s + a − pad lies in the image, and that row.
	first := func(pad, a, s int) (r, h int) {
		r = max(0, (pad-a+s-1)/s)
		return r, r*s + a - pad
	}
	for i := range g.imgs {
		for c := range p.C {
			var src []T
			if i < k {
				src = x[i*g.xs+c*p.H*p.W:]
			}
			for a := range sh {
				r0, h0 := first(p.PadH, a, sh)
				for b := range sw {
					q0, w0 := first(p.PadW, b, sw)
					if w0 >= p.W {
						continue
					}
					n := (p.W - w0 + sw - 1) / sw
					base := ((c*sh+a)*sw+b)*g.plane + i*g.step + q0
					for r, h := r0, h0; h < p.H; r, h = r+1, h+sh {
						dst := xb[base+r*g.wp:][:n]
						if i >= k {
							clear(dst)
							continue
						}
						row := src[h*p.W+w0:]
						for j := range dst {
							dst[j] = row[j*sw]
						}
					}
				}
			}
		}
	}
}

// unpad sets k images of y [O, OH, OW], g.ys apart, images n0 to n0+k
// of the output, to the output positions of yb, then e on each plane.
func (g *gatherConv[T]) unpad(y, yb []T, n0, k int, e *epilogue[T]) {
	oh, ow := g.p.OutH(), g.p.OutW()
	for i := range k {
		for o := range g.p.O {
			dst, src := y[i*g.ys+o*oh*ow:][:oh*ow], yb[o*g.nt+i*g.step:]
			if e != nil && e.bias != nil {
				for r := range oh {
					for j, v := range src[r*g.wp : r*g.wp+ow] {
						dst[r*ow+j] = v + e.bias[o]
					}
				}
				continue
			}
			canvasCopy(dst, src, oh, ow, ow, g.wp)
			if e != nil {
				e.affine(dst, n0+i, o, g.p.O)
			}
		}
	}
}

// widen sets xw [O, nt] to y [k, O, OH, OW] at the canvas width, leaving
// the columns between images as they are (zero), and clears the slots of
// images past k.
func (g *gatherConv[T]) widen(xw, y []T) {
	oh, ow := g.p.OutH(), g.p.OutW()
	k := len(y) / (g.p.O * oh * ow)
	for i := range g.imgs {
		for o := range g.p.O {
			dst := xw[o*g.nt+i*g.step:]
			if i < k {
				canvasCopy(dst, y[(i*g.p.O+o)*oh*ow:], oh, ow, g.wp, ow)
				continue
			}
			for r := range oh {
				clear(dst[r*g.wp : r*g.wp+ow])
			}
		}
	}
}

// forward is conv2dForward on the gather path.
func (g *gatherConv[T]) forward(y, x, w []T, e *epilogue[T]) {
	p := g.p
	a := g.packed(w)
	defer putScratch(a)
	rows := g.rowTiles()
	parallelFor(g.canvases(), g.imgs*len(*g.offs)*g.ys, func(lo, hi int) {
		xb := getScratch[T](g.size)
		defer putScratch(xb)
		clear(*xb)
		var yb *[]T
		if !rows {
			yb = getScratch[T](roundUp(p.O, g.gk.mr) * g.nt)
			defer putScratch(yb)
		}
		for i := lo; i < hi; i++ {
			n0, n1 := g.images(i)
			if rows {
				g.imageRows(y[n0*g.ys:], *xb, x[n0*g.xs:], *a, n1-n0)
				g.applyEpilogue(y[n0*g.ys:], n0, n1-n0, e)
				continue
			}
			g.image(*yb, *xb, x[n0*g.xs:], *a, n1-n0)
			g.unpad(y[n0*g.ys:], *yb, n0, n1-n0, e)
		}
	})
}

// grads is conv2dGradsFlipped on the gather path, g being the flipped
// convolution q of convolution p, wf its weights: dx as forward computes
// it, and the gradient of wf, per tap t of q, dW̃[c, o, t] = Σ_j
// dyp_o[j+off_t]·xw_c[j] over the positions j at q's canvas width, where
// dyp is dy on the canvas (image's buffer) and xw is x at that width, its
// padding columns zero (weightDots), flipped back into dw.
func (g *gatherConv[T]) grads(dx, dw, x, dy, wf []T, p Conv2DParams) {
	q := g.p
	kk := q.KH * q.KW
	a := g.packed(wf)
	defer putScratch(a)
	img, out := p.C*p.H*p.W, p.O*p.OutH()*p.OutW()
	g.sliceSums(dw, img, func(t, o, c int) int { return (o*q.O+c)*kk + kk - 1 - t }, func(i int, xb, xw, acc []T) {
		n0, n1 := g.images(i)
		if g.rowTiles() {
			g.imageRows(dx[n0*img:n1*img], xb, dy[n0*out:n1*out], *a, n1-n0)
		} else {
			yb := getScratch[T](roundUp(q.O, g.gk.mr) * g.nt)
			defer putScratch(yb)
			g.image(*yb, xb, dy[n0*out:n1*out], *a, n1-n0)
			g.unpad(dx[n0*img:n1*img], *yb, n0, n1-n0, nil)
		}
		g.widen(xw, x[n0*img:n1*img])
		g.weightDots(acc, xb, xw)
	})
}

// weights is conv2dBackwardWeight on the gather path: per canvas, x on it
// and dy at its width, dw[o, c, t] = Σ_j dy_o[j]·x_c[j+off_t]
// (weightDots).
func (g *gatherConv[T]) weights(dw, x, dy []T) {
	p := g.p
	kk := p.KH * p.KW
	img, out := p.C*p.H*p.W, p.O*p.OutH()*p.OutW()
	g.sliceSums(dw, img, func(t, c, o int) int { return (o*p.C+c)*kk + t }, func(i int, xb, xw, acc []T) {
		n0, n1 := g.images(i)
		g.place(xb, x[n0*img:n1*img], n1-n0)
		g.widen(xw, dy[n0*out:n1*out])
		g.weightDots(acc, xb, xw)
	})
}

// sliceSums cuts the canvases into one slice per core and runs body on
// each canvas i of a slice with a canvas xb (padding zero), a buffer xw
// [O, nt] (the columns between images zero) and the slice's sums acc
// [KH·KW, C, O], cleared first; then it sets dw to the slices' sums,
// added in slice order (as conv2dBackwardWeight, so that the result does
// not depend on scheduling), acc[t, c, o] at dw[at(t, c, o)]. img is an
// image's size, for the cost.
func (g *gatherConv[T]) sliceSums(dw []T, img int, at func(t, c, o int) int, body func(i int, xb, xw, acc []T)) {
	p := g.p
	canvases := g.canvases()
	parts := max(1, min(canvases, runtime.GOMAXPROCS(0)))
	partial := make([]*[]T, parts)
	parallelFor(parts, (p.N+parts-1)/parts*len(*g.offs)*img, func(lo, hi int) {
		xb, xw := getScratch[T](g.size), getScratch[T](p.O*g.nt)
		defer func() { putScratch(xb); putScratch(xw) }()
		clear(*xb)
		clear(*xw)
		for part := lo; part < hi; part++ {
			acc := getScratch[T](p.KH * p.KW * p.O * p.C)
			clear(*acc)
			for i := part * canvases / parts; i < (part+1)*canvases/parts; i++ {
				body(i, *xb, *xw, *acc)
			}
			partial[part] = acc
		}
	})
	clear(dw)
	for _, acc := range partial {
		for t := range p.KH * p.KW {
			for c := range p.C {
				for o, v := range (*acc)[(t*p.C+c)*p.O:][:p.O] {
					dw[at(t, c, o)] += v
				}
			}
		}
		putScratch(acc)
	}
}

// weightDots adds to acc [KH·KW, q.C, q.O] the dot products of grads, for
// one canvas: dy on it in xb, x at its width in xw, dotChunk of each row
// at a time; by dot3, a kernel row at a time, where the kernel rows are 3
// wide, undilated, and the channels come in pairs (dy) and fours (x), else
// per tap by gemmNT, the unaligned rows of dy as its three-row operand.
func (g *gatherConv[T]) weightDots(acc, xb, xw []T) {
	q, offs := g.p, *g.offs
	kk := q.KH * q.KW
	rows := q.KW == 3 && q.DilW == 1 && q.C%2 == 0 && q.O%4 == 0
	for k0 := 0; k0 < g.nt; k0 += dotChunk {
		k := min(dotChunk, g.nt-k0)
		if !rows {
			for t := range kk {
				gemmNT(q.C, q.O, k, xb[offs[t]+k0:], g.plane, xw[k0:], g.nt, acc[t*q.O*q.C:], q.O)
			}
			continue
		}
		for kh := range q.KH {
			for o := 0; o < q.C; o += 2 {
				for c := 0; c < q.O; c += 4 {
					g.gk.dot3(k/16, xb[o*g.plane+offs[3*kh]+k0:], g.plane, xw[c*g.nt+k0:], g.nt, acc[(3*kh*q.C+o)*q.O+c:], q.C*q.O, q.O)
				}
			}
		}
	}
}
