//go:build cuda

package cuda

import (
	"runtime"

	"github.com/ecl-go/ecl/tensor"
)

// Convolution through a column matrix per chunk of images (convChunk keeps
// it within 256 MiB): col [C·KH·KW, nb·OH·OW], filled by im2col and folded
// back by col2im; the products are batched GEMMs over the chunk's images.

// convArgs are the kernels' shape arguments c … ow.
func convArgs(p tensor.Conv2DParams) []uint64 {
	v := []int{p.C, p.H, p.W, p.KH, p.KW, p.StrideH, p.StrideW, p.PadH, p.PadW, p.DilH, p.DilW, p.OutH(), p.OutW()}
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = uint64(x)
	}
	return out
}

// convPlan holds the sizes a convolution works with.
type convPlan struct {
	p             tensor.Conv2DParams
	rows, hw, img int // C·KH·KW, OH·OW, C·H·W
	chunk         int // images per column matrix
}

func (d *device[T]) convPlan(p tensor.Conv2DParams) convPlan {
	rows, hw := p.C*p.KH*p.KW, p.OutH()*p.OutW()
	return convPlan{p, rows, hw, p.C * p.H * p.W, convChunk(p.N, rows, hw, int(d.size))}
}

// forChunks runs body for each chunk of images [n0, n0+nb) with a column
// buffer (and, with extra > 0, a second buffer of extra elements per image),
// on the context thread.
func (d *device[T]) forChunks(c convPlan, extra int, body func(n0, nb int, col, tmp uint64) error) error {
	colBlk, err := d.e.malloc(int64(c.rows*c.chunk*c.hw) * d.size)
	defer d.e.alloc.release(colBlk)
	if err != nil {
		return err
	}
	tmpBlk, err := d.e.malloc(int64(extra*c.chunk) * d.size)
	defer d.e.alloc.release(tmpBlk)
	if err != nil {
		return err
	}
	for n0 := 0; n0 < c.p.N; n0 += c.chunk {
		if err := body(n0, min(c.chunk, c.p.N-n0), colBlk.ptr, tmpBlk.ptr); err != nil {
			return err
		}
	}
	return nil
}

// im2col fills col from the nb images at x.
func (d *device[T]) im2col(c convPlan, nb int, x, col uint64) error {
	args := append([]uint64{uint64(nb), x, col}, convArgs(c.p)...)
	return d.e.launch(kIm2col, d.sfx, linear(c.rows*nb*c.hw), args...)
}

// convGemm queues the implicit-GEMM convolution pass ks (src/conv.cu) with
// tile convTile(m): an m×n product of depth k reading a and b, writing c
// (on the context thread). When the tiles alone would leave the GPU idle
// the depth is cut into slices (convSplit) whose products go to a scratch
// block of partial outputs, then added in slice order into c.
func (d *device[T]) convGemm(ks [3]kernel, m, n, k int, a, b, c uint64, p tensor.Conv2DParams) error {
	tile := convTile(m)
	tm := 16 << tile
	tn := 4096 / tm
	tiles := ((m + tm - 1) / tm) * ((n + tn - 1) / tn)
	splits, kc := convSplit(tiles, k)
	launch := func(dst uint64) error {
		args := append([]uint64{uint64(n), uint64(k), a, b, dst}, convArgs(p)...)
		args = append(args, uint64(p.O), uint64(kc), uint64(splits))
		g := grid{x: min((n+tn-1)/tn, gridCap), y: min((m+tm-1)/tm, gridCap), z: min(splits, gridCap), block: 256}
		return d.e.launch(ks[tile], d.sfx, g, args...)
	}
	if splits == 1 {
		return launch(c)
	}
	part, err := d.e.malloc(int64(splits*m*n) * d.size)
	defer d.e.alloc.release(part)
	if err != nil {
		return err
	}
	if err := launch(part.ptr); err != nil {
		return err
	}
	return d.sumParts(part.ptr, splits, m*n, c)
}

// sumParts sets dst [size] to the sum of parts blocks of size elements at
// part, added in block order (on the context thread).
func (d *device[T]) sumParts(part uint64, parts, size int, dst uint64) error {
	return d.e.launch(kReduceStrip, d.sfx, linear(size), uint64(tensor.OpSum), 1, uint64(parts), uint64(size), uint64(parts), part, dst)
}

// pointwise reports a 1×1 convolution of unit stride without padding,
// whose column matrix is the input itself: image n's x_n [C, H·W].
func pointwise(p tensor.Conv2DParams) bool {
	return p.KH == 1 && p.KW == 1 && p.StrideH == 1 && p.StrideW == 1 && p.PadH == 0 && p.PadW == 0
}

// Conv2D: by F(m×m, 3×3) where winogradTile says; an implicit GEMM y
// [O, N·OH·OW] = W [O, rows] · columns where implicitConv says; else per
// image y_n [O, OH·OW] = W [O, rows] · col_n, where col_n is x_n for a
// pointwise convolution and otherwise the image's column block of col (row
// stride nb·OH·OW).
func (d *device[T]) Conv2D(y, x, w *tensor.Tensor[T], p tensor.Conv2DParams) {
	if m := winogradTile(p); m > 0 {
		d.winogradConv(y, x, w, nil, p, m)
		return
	}
	c := d.convPlan(p)
	xp, wp, yp := d.ptr(x), d.ptr(w), d.ptr(y)
	must(d.e.do(func() error {
		if implicitConv(convForward, p) {
			return d.convGemm(kConv2D, p.O, p.N*c.hw, c.rows, wp, xp, yp, p)
		}
		if pointwise(p) {
			return d.gemm(p.N, p.O, c.hw, p.C, mat{wp, 0, p.C, 1}, mat{xp, c.img, c.hw, 1}, mat{yp, p.O * c.hw, c.hw, 1}, false)
		}
		return d.forChunks(c, 0, func(n0, nb int, col, _ uint64) error {
			if err := d.im2col(c, nb, xp+uint64(n0*c.img)*uint64(d.size), col); err != nil {
				return err
			}
			wm := mat{wp, 0, c.rows, 1}
			cm := mat{col, c.hw, nb * c.hw, 1}
			ym := mat{yp + uint64(n0*p.O*c.hw)*uint64(d.size), p.O * c.hw, c.hw, 1}
			return d.gemm(nb, p.O, c.hw, c.rows, wm, cm, ym, false)
		})
	}))
	keepAlive(x, w, y)
}

// conv2dBias is the device's body of tensor.Conv2DBiasKernel: in x, w, b
// (contiguous); out y. The convolution, then the binary kernel adds b,
// broadcast along the channel axis, in place (each element read, then
// written, by one thread), rounded as Conv2D then Add; on the Winograd
// path the output transform adds b as it writes each tile.
func conv2dBias[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], p tensor.Conv2DParams) {
	y := out[0]
	if m := winogradTile(p); m > 0 {
		d.winogradConv(y, in[0], in[1], in[2], p, m)
		return
	}
	d.Conv2D(y, in[0], in[1], p)
	d.Binary(tensor.OpAdd, y, y, tensor.Expand(tensor.Reshape(in[2], 1, p.O, 1, 1), y.Shape()...))
}

// conv2dAffine is the device's body of tensor.Conv2DAffineKernel: in x, w,
// scale, shift and optionally r (contiguous); out y. The convolution, then
// channelAffine in place, rounded as Conv2D then ChannelAffine.
func conv2dAffine[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], a tensor.Conv2DAffineParams) {
	d.Conv2D(out[0], in[0], in[1], a.Conv)
	channelAffine(d, out, append([]*tensor.Tensor[T]{out[0]}, in[2:]...), a.Relu)
}

// Conv2DBackwardInput: by F(m×m, 3×3) where winogradTile says and the
// padding is at most 2 (winogradInput); where implicitConv says (unit strides, up to 64
// input channels) an implicit GEMM dx [C, N·H·W] = Wᵀ-flipped · shifted dy; else per image
// dx_n = Wᵀ · dy_n for a pointwise convolution, and otherwise col_n = Wᵀ ·
// dy_n, then col2im.
func (d *device[T]) Conv2DBackwardInput(dx, dy, w *tensor.Tensor[T], p tensor.Conv2DParams) {
	if m := winogradTile(p); m > 0 && d.winogradInput(dx, dy, w, p, m) {
		return
	}
	c := d.convPlan(p)
	dxp, dyp, wp := d.ptr(dx), d.ptr(dy), d.ptr(w)
	must(d.e.do(func() error {
		if implicitConv(convBackwardInput, p) {
			return d.convGemm(kConv2DBackwardInput, p.C, p.N*p.H*p.W, p.O*p.KH*p.KW, wp, dyp, dxp, p)
		}
		if pointwise(p) {
			return d.gemm(p.N, p.C, c.hw, p.O, mat{wp, 0, 1, p.C}, mat{dyp, p.O * c.hw, c.hw, 1}, mat{dxp, c.img, c.hw, 1}, false)
		}
		return d.forChunks(c, 0, func(n0, nb int, col, _ uint64) error {
			wt := mat{wp, 0, 1, c.rows}
			dym := mat{dyp + uint64(n0*p.O*c.hw)*uint64(d.size), p.O * c.hw, c.hw, 1}
			cm := mat{col, c.hw, nb * c.hw, 1}
			if err := d.gemm(nb, c.rows, c.hw, p.O, wt, dym, cm, false); err != nil {
				return err
			}
			args := append([]uint64{uint64(nb), col, dxp + uint64(n0*c.img)*uint64(d.size)}, convArgs(p)...)
			return d.e.launch(kCol2im, d.sfx, linear(nb*c.img), args...)
		})
	}))
	keepAlive(dx, dy, w)
}

// Conv2DBackwardWeight: by F(m×m, 3×3) where winogradTile says; where
// implicitConv says an implicit GEMM dw [O, rows] = dy [O, N·OH·OW] · columnsᵀ; for a pointwise convolution
// whose per-image products dy_n · x_nᵀ [O, C] are smaller than its inputs,
// those products (a batched GEMM) summed in image order; else dw = Σ over
// chunks of dyᵀ-chunk · colᵀ, with the chunk's dy [nb, O, OH·OW] first
// permuted to [O, nb·OH·OW] so that one GEMM of depth nb·OH·OW covers the
// chunk.
func (d *device[T]) Conv2DBackwardWeight(dw, x, dy *tensor.Tensor[T], p tensor.Conv2DParams) {
	if m := winogradTile(p); m > 0 {
		d.winogradWeights(dw, x, dy, p, m)
		return
	}
	c := d.convPlan(p)
	dwp, xp, dyp := d.ptr(dw), d.ptr(x), d.ptr(dy)
	must(d.e.do(func() error {
		if implicitConv(convBackwardWeight, p) {
			return d.convGemm(kConv2DBackwardWeight, p.O, c.rows, p.N*c.hw, dyp, xp, dwp, p)
		}
		if p.N == 0 {
			return nil // dw is already zero
		}
		if pointwise(p) && p.O*p.C <= (p.O+p.C)*c.hw {
			return d.perImageSum(p.N, p.O, p.C, c.hw, mat{dyp, p.O * c.hw, c.hw, 1}, mat{xp, c.img, 1, c.hw}, dwp)
		}
		return d.forChunks(c, p.O*c.hw, func(n0, nb int, col, dyT uint64) error {
			if err := d.im2col(c, nb, xp+uint64(n0*c.img)*uint64(d.size), col); err != nil {
				return err
			}
			src := operand{dyp + uint64(n0*p.O*c.hw)*uint64(d.size), []int{c.hw, p.O * c.hw, 1}}
			dst := operand{dyT, []int{nb * c.hw, c.hw, 1}}
			if err := d.elementwise(kCopy, []int{p.O, nb, c.hw}, []operand{dst, src}); err != nil {
				return err
			}
			am := mat{dyT, 0, nb * c.hw, 1}
			bm := mat{col, 0, 1, nb * c.hw}
			return d.gemm(1, p.O, c.rows, nb*c.hw, am, bm, mat{dwp, 0, c.rows, 1}, n0 > 0)
		})
	}))
	keepAlive(dw, x, dy)
}

// perImageSum sets c [m, n] = Σ_z a[z]·b[z] over z < batch (a [m, k], b
// [k, n]): the batched products into a scratch block, then summed in batch
// order (on the context thread).
func (d *device[T]) perImageSum(batch, m, n, k int, a, b mat, c uint64) error {
	if batch == 1 {
		return d.gemm(1, m, n, k, a, b, mat{c, 0, n, 1}, false)
	}
	part, err := d.e.malloc(int64(batch*m*n) * d.size)
	defer d.e.alloc.release(part)
	if err != nil {
		return err
	}
	if err := d.gemm(batch, m, n, k, a, b, mat{part.ptr, m * n, n, 1}, false); err != nil {
		return err
	}
	return d.sumParts(part.ptr, batch, m*n, c)
}

// poolArgs are the kernels' shape arguments planes … ow.
func poolArgs(p tensor.Pool2DParams) []uint64 {
	v := []int{p.N * p.C, p.H, p.W, p.KH, p.KW, p.StrideH, p.StrideW, p.PadH, p.PadW, p.OutH(), p.OutW()}
	out := make([]uint64, len(v))
	for i, x := range v {
		out[i] = uint64(x)
	}
	return out
}

// pool launches a pooling kernel over n threads with the given tensors'
// addresses after the shape arguments.
func (d *device[T]) pool(k kernel, p tensor.Pool2DParams, n int, ts ...*tensor.Tensor[T]) {
	args := poolArgs(p)
	for _, t := range ts {
		args = append(args, d.ptr(t))
	}
	must(d.e.do(func() error { return d.e.launch(k, d.sfx, linear(n), args...) }))
	keepAlive(ts...)
}

func (d *device[T]) MaxPool2D(y, x *tensor.Tensor[T], p tensor.Pool2DParams) {
	d.pool(kMaxPoolFwd, p, y.Len(), x, y)
}

// MaxPool2DBackward zeroes dx, then adds each dy at its window's first
// maximum.
func (d *device[T]) MaxPool2DBackward(dx, x, dy *tensor.Tensor[T], p tensor.Pool2DParams) {
	d.Fill(dx, 0)
	d.pool(kMaxPoolBwd, p, dy.Len(), x, dy, dx)
}

func (d *device[T]) AvgPool2D(y, x *tensor.Tensor[T], p tensor.Pool2DParams) {
	d.pool(kAvgPoolFwd, p, y.Len(), x, y)
}

func (d *device[T]) AvgPool2DBackward(dx, dy *tensor.Tensor[T], p tensor.Pool2DParams) {
	d.pool(kAvgPoolBwd, p, dx.Len(), dy, dx)
}

// keepAlive keeps tensors (and so their buffers) reachable until the kernels
// that read their raw addresses are queued.
func keepAlive[T tensor.Float](ts ...*tensor.Tensor[T]) {
	for _, t := range ts {
		runtime.KeepAlive(t)
	}
}
