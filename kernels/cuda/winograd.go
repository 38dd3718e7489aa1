//go:build cuda

package cuda

import "github.com/ecl-go/ecl/tensor"

// The Winograd path of 3×3, stride-1, undilated convolutions: the device's
// body of tensor/winograd.go's F(4×4, 3×3) and F(2×2, 3×3), taken where
// tensor's override (tensor.SetConvPath, ECL_CONV) says "winograd4" or
// "winograd2"; elsewhere the convolution bodies keep their implicit GEMMs
// and column matrices (no GPU timing has chosen Winograd for any layer).
// The transforms are src/winograd.cu's kernels, the products in the
// transformed domain the batched GEMM (matmul.go): for a chunk of nt tiles,
// M[ξ] [O, nt] = U[ξ] [O, C] · V[ξ] [C, nt] over the a² positions ξ. The
// input gradient is the forward pass of dy with the flipped,
// channel-transposed filters; the weight gradient dU[ξ] = Σ dM[ξ]·V[ξ]ᵀ,
// accumulated over the chunks in order, then dW = Gᵀ·dU·G.

// winogradBudget bounds the bytes of a chunk's transformed tiles and
// products (V and M, or V and dM).
var winogradBudget = 256 << 20

// winogradTile is the output tile m (4 or 2) of the Winograd path tensor's
// override selects for p, or 0.
func winogradTile(p tensor.Conv2DParams) int {
	switch tensor.ConvPathOverride(p) {
	case "winograd4":
		return 4
	case "winograd2":
		return 2
	}
	return 0
}

// winograd is F(m×m, 3×3) for one convolution: its side a = m+2, the a²
// positions, the tiles of an image (th rows by tw columns) and of the
// batch, and the tiles a chunk takes.
type winograd struct {
	p             tensor.Conv2DParams
	m, a, pos     int
	th, tw, tiles int
	chunk         int
}

func (d *device[T]) winograd(m int, p tensor.Conv2DParams) winograd {
	a := m + 2
	wg := winograd{p: p, m: m, a: a, pos: a * a, th: (p.OutH() + m - 1) / m, tw: (p.OutW() + m - 1) / m}
	wg.tiles = p.N * wg.th * wg.tw
	wg.chunk = max(1, min(wg.tiles, winogradBudget/(wg.pos*(p.C+p.O)*int(d.size))))
	return wg
}

// forTiles runs body for each chunk of tiles [t0, t0+nt) with a buffer
// of wg.pos·(C+O)·nt elements (on the context thread).
func (d *device[T]) forTiles(wg winograd, body func(t0, nt int, buf uint64) error) error {
	blk, err := d.e.malloc(int64(wg.pos*(wg.p.C+wg.p.O)*wg.chunk) * d.size)
	defer d.e.alloc.release(blk)
	if err != nil {
		return err
	}
	for t0 := 0; t0 < wg.tiles; t0 += wg.chunk {
		if err := body(t0, min(wg.chunk, wg.tiles-t0), blk.ptr); err != nil {
			return err
		}
	}
	return nil
}

// tiling is the kernels' first arguments, m th tw t0 nt.
func (wg winograd) tiling(t0, nt int) []uint64 {
	return []uint64{uint64(wg.m), uint64(wg.th), uint64(wg.tw), uint64(t0), uint64(nt)}
}

// inputs sets v [a², C, nt] to the transformed input tiles t0 to t0+nt of
// x [N, C, H, W].
func (d *device[T]) inputs(wg winograd, t0, nt int, x, v uint64) error {
	p := wg.p
	args := append(wg.tiling(t0, nt), uint64(p.C), uint64(p.H), uint64(p.W), uint64(p.PadH), uint64(p.PadW), x, v)
	return d.e.launch(kWinogradInputs, d.sfx, linear(p.C*nt), args...)
}

// at is the address of element i of the buffer at ptr.
func (d *device[T]) at(ptr uint64, i int) uint64 { return ptr + uint64(i)*uint64(d.size) }

// winogradForward queues y = conv(x, w) (+ bias[o] on each output channel
// where bias is not 0) by F(m×m, 3×3) (on the context thread); with flip,
// w is the weights [C, O, 3, 3] of the convolution whose input gradient
// this is, each filter turned by 180°.
func (d *device[T]) winogradForward(y, x, w, bias uint64, p tensor.Conv2DParams, m int, flip bool) error {
	wg := d.winograd(m, p)
	if wg.tiles == 0 {
		return nil
	}
	u, err := d.e.malloc(int64(wg.pos*p.O*p.C) * d.size)
	defer d.e.alloc.release(u)
	if err != nil {
		return err
	}
	var fl uint64
	if flip {
		fl = 1
	}
	if err := d.e.launch(kWinogradFilters, d.sfx, linear(p.O*p.C), uint64(m), uint64(p.O), uint64(p.C), fl, w, u.ptr); err != nil {
		return err
	}
	return d.forTiles(wg, func(t0, nt int, buf uint64) error {
		v, mm := buf, d.at(buf, wg.pos*p.C*nt)
		if err := d.inputs(wg, t0, nt, x, v); err != nil {
			return err
		}
		um, vm, mmm := mat{u.ptr, p.O * p.C, p.C, 1}, mat{v, p.C * nt, nt, 1}, mat{mm, p.O * nt, nt, 1}
		if err := d.gemm(wg.pos, p.O, nt, p.C, um, vm, mmm, false); err != nil {
			return err
		}
		args := append(wg.tiling(t0, nt), uint64(p.O), uint64(p.OutH()), uint64(p.OutW()), mm, bias, y)
		return d.e.launch(kWinogradOutputs, d.sfx, linear(p.O*nt), args...)
	})
}

// winogradConv is Conv2D (b nil) or conv2dBias by F(m×m, 3×3).
func (d *device[T]) winogradConv(y, x, w, b *tensor.Tensor[T], p tensor.Conv2DParams, m int) {
	var bias uint64
	if b != nil {
		bias = d.ptr(b)
	}
	yp, xp, wp := d.ptr(y), d.ptr(x), d.ptr(w)
	must(d.e.do(func() error { return d.winogradForward(yp, xp, wp, bias, p, m, false) }))
	keepAlive(y, x, w, b)
}

// winogradFlipped is the convolution whose forward pass is p's input
// gradient (tensor's flippedConv for a 3×3 kernel): dy padded by 2 − pad,
// C and O swapped; false where p is padded by more than 2.
func winogradFlipped(p tensor.Conv2DParams) (tensor.Conv2DParams, bool) {
	if p.PadH > 2 || p.PadW > 2 {
		return p, false
	}
	return tensor.Conv2DParams{N: p.N, C: p.O, H: p.OutH(), W: p.OutW(), O: p.C, KH: 3, KW: 3,
		StrideH: 1, StrideW: 1, PadH: 2 - p.PadH, PadW: 2 - p.PadW, DilH: 1, DilW: 1}, true
}

// winogradInput is Conv2DBackwardInput by F(m×m, 3×3), false where
// winogradFlipped has no convolution for p.
func (d *device[T]) winogradInput(dx, dy, w *tensor.Tensor[T], p tensor.Conv2DParams, m int) bool {
	q, ok := winogradFlipped(p)
	if !ok {
		return false
	}
	dxp, dyp, wp := d.ptr(dx), d.ptr(dy), d.ptr(w)
	must(d.e.do(func() error { return d.winogradForward(dxp, dyp, wp, 0, q, m, true) }))
	keepAlive(dx, dy, w)
	return true
}

// winogradWeights is Conv2DBackwardWeight by F(m×m, 3×3): per chunk of
// tiles the transformed inputs V and output gradients dM = A·dY·Aᵀ, then
// dU[ξ] (+)= dM[ξ]·V[ξ]ᵀ, chunks added in order; then dW = Gᵀ·dU·G.
func (d *device[T]) winogradWeights(dw, x, dy *tensor.Tensor[T], p tensor.Conv2DParams, m int) {
	dwp, xp, dyp := d.ptr(dw), d.ptr(x), d.ptr(dy)
	must(d.e.do(func() error {
		wg := d.winograd(m, p)
		if wg.tiles == 0 {
			return nil // dw is already zero
		}
		du, err := d.e.malloc(int64(wg.pos*p.O*p.C) * d.size)
		defer d.e.alloc.release(du)
		if err != nil {
			return err
		}
		err = d.forTiles(wg, func(t0, nt int, buf uint64) error {
			v, dm := buf, d.at(buf, wg.pos*p.C*nt)
			if err := d.inputs(wg, t0, nt, xp, v); err != nil {
				return err
			}
			args := append(wg.tiling(t0, nt), uint64(p.O), uint64(p.OutH()), uint64(p.OutW()), dyp, dm)
			if err := d.e.launch(kWinogradOutputGrads, d.sfx, linear(p.O*nt), args...); err != nil {
				return err
			}
			dmm, vt, dum := mat{dm, p.O * nt, nt, 1}, mat{v, p.C * nt, 1, nt}, mat{du.ptr, p.O * p.C, p.C, 1}
			return d.gemm(wg.pos, p.O, p.C, nt, dmm, vt, dum, t0 > 0)
		})
		if err != nil {
			return err
		}
		return d.e.launch(kWinogradFilterGrads, d.sfx, linear(p.O*p.C), uint64(m), uint64(p.O), uint64(p.C), du.ptr, dwp)
	}))
	keepAlive(dw, x, dy)
}
