//go:build cuda

package cuda

import (
	"slices"

	"github.com/ecl-go/ecl/tensor"
)

// The device's bodies of tensor's transformer kernels (src/transformer.cu):
// layer norm, the exact GELU and flash-style attention, forward and
// backward. tensor hands them contiguous inputs and fresh contiguous
// outputs, and never an empty one (it composes those).

// attnBlock is the attention kernels' block size (attnWarps warps).
const attnBlock = 32 * attnWarps

// layerNorm is the device's body of tensor.LayerNormKernel: in x [R, D]
// (any leading axes), γ, β [D]; out y, μ, 1/σ [R]. A warp a row.
func layerNorm[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], eps float64) {
	x := in[0]
	dim := x.Dim(-1)
	rows := x.Len() / dim
	must(d.e.do(func() error {
		return d.e.launch(kLayerNorm, d.sfx, linear(rows*32), uint64(rows), uint64(dim), d.ptr(x), d.ptr(in[1]),
			d.ptr(in[2]), d.ptr(out[0]), d.ptr(out[1]), d.ptr(out[2]), f64(eps))
	}))
	keepAlive(append(in, out...)...)
}

// layerNormBackward is the device's body of tensor.LayerNormBackwardKernel:
// in dy, x [R, D], γ [D], μ, 1/σ [R]; out dx, dγ, dβ. dx a warp a row, and
// the column sums over chunks of rows (lnChunks) then over the chunks.
func layerNormBackward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], _ float64) {
	x := in[1]
	dim := x.Dim(-1)
	rows := x.Len() / dim
	chunks := lnChunks(rows)
	must(d.e.do(func() error {
		part, err := d.e.malloc(int64(2*chunks*dim) * 8)
		defer d.e.alloc.release(part)
		if err != nil {
			return err
		}
		g := grid{x: min(chunks, gridCap), y: 1, z: 1, block: blockSize}
		if err := d.e.launch(kLayerNormBackward, d.sfx, g, uint64(rows), uint64(dim), uint64(chunks), d.ptr(in[0]),
			d.ptr(x), d.ptr(in[2]), d.ptr(in[3]), d.ptr(in[4]), d.ptr(out[0]), part.ptr); err != nil {
			return err
		}
		return d.e.launch(kLayerNormSums, d.sfx, grid{x: min((dim+31)/32, gridCap), y: 1, z: 1, block: 256}, uint64(dim), uint64(chunks), part.ptr, d.ptr(out[1]), d.ptr(out[2]))
	}))
	keepAlive(append(in, out...)...)
}

// gelu is the device's body of tensor.GELUKernel: in x, out y.
func gelu[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], _ struct{}) {
	elementwiseBody(d, kGELU, out, in)
}

// geluBackward is the device's body of tensor.GELUBackwardKernel: in dy,
// x; out dx.
func geluBackward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], _ struct{}) {
	elementwiseBody(d, kGELUBackward, out, in)
}

// elementwiseBody launches k over out[0]'s n elements with the arguments
// n, in's pointers, then out[0]'s.
func elementwiseBody[T tensor.Float](d *device[T], k kernel, out, in []*tensor.Tensor[T]) {
	n := out[0].Len()
	args := []uint64{uint64(n)}
	for _, t := range append(in, out[0]) {
		args = append(args, d.ptr(t))
	}
	must(d.e.do(func() error { return d.e.launch(k, d.sfx, linear(n), args...) }))
	keepAlive(append(in, out...)...)
}

// attnGrid is the grid of an attention kernel over bh·⌈rows/br⌉ tiles.
func attnGrid(bh, rows, br, shared int) grid {
	return grid{x: min(bh*((rows+br-1)/br), gridCap), y: 1, z: 1, block: attnBlock, shared: shared}
}

// attn64Grid is the grid of a head-size-64 attention kernel over
// bh·⌈rows/attn64Rows⌉ tiles.
func (d *device[T]) attn64Grid(kind attnKind, bh, rows int) grid {
	br := attn64Rows(kind, int(d.size))
	return grid{x: min(bh*((rows+br-1)/br), gridCap), y: 1, z: 1, block: 256}
}

// attention is the device's body of tensor.AttentionKernel: in q [BH, N,
// Dh], k, v [BH, M, Dh]; out o [BH, N, Dh], lse [BH, N]. A block a tile of
// queries, the keys streamed: on register tiles for Dh = 64, else by
// attnPlan's tiles; composed of tensor ops on the device where the head is
// too large for those.
func attention[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], scale float64) {
	q, k, v := in[0], in[1], in[2]
	bh, n, dh, m := q.Dim(0), q.Dim(1), q.Dim(2), k.Dim(1)
	if dh == 64 {
		must(d.e.do(func() error {
			return d.e.launch(kAttention64, d.sfx, d.attn64Grid(attnForward, bh, n), uint64(bh), uint64(n), uint64(m), d.ptr(q), d.ptr(k), d.ptr(v), d.ptr(out[0]), d.ptr(out[1]), f64(scale))
		}))
		keepAlive(append(in, out...)...)
		return
	}
	br, bc, shared, ok := attnPlan(attnForward, dh, n, m, int(d.size))
	if !ok {
		s := tensor.Scale(tensor.MatMul(q, tensor.Transpose(k, -1, -2)), T(scale))
		tensor.CopyInto(out[0], tensor.MatMul(tensor.Softmax(s, -1), v))
		tensor.CopyInto(out[1], tensor.LogSumExp(s, -1, false))
		return
	}
	must(d.e.do(func() error {
		return d.e.launch(kAttention, d.sfx, attnGrid(bh, n, br, shared), uint64(bh), uint64(n), uint64(m), uint64(dh),
			uint64(br), uint64(bc), d.ptr(q), d.ptr(k), d.ptr(v), d.ptr(out[0]), d.ptr(out[1]), f64(scale))
	}))
	keepAlive(append(in, out...)...)
}

// attentionBackward is the device's body of
// tensor.AttentionBackwardKernel: in do, q [BH, N, Dh], k, v [BH, M, Dh],
// o [BH, N, Dh], lse [BH, N]; out dq, dk, dv. Three launches: rowsum(do·o)
// into a scratch, dq by tiles of queries, dk and dv by tiles of keys (each
// recomputing the probabilities from lse), on register tiles for Dh = 64;
// composed where the head is too large for the tiles.
func attentionBackward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], scale float64) {
	dout, q, k, v, o, lse := in[0], in[1], in[2], in[3], in[4], in[5]
	bh, n, dh, m := q.Dim(0), q.Dim(1), q.Dim(2), k.Dim(1)
	qr, qc, qShared, okQ := attnPlan(attnDQ, dh, n, m, int(d.size))
	kr, kc, kShared, okK := attnPlan(attnDKDV, dh, m, n, int(d.size))
	if !okQ || !okK {
		p := tensor.Exp(tensor.Sub(tensor.Scale(tensor.MatMul(q, tensor.Transpose(k, -1, -2)), T(scale)), tensor.Unsqueeze(lse, -1)))
		tensor.CopyInto(out[2], tensor.MatMul(tensor.Transpose(p, -1, -2), dout))
		dd := tensor.Sum(tensor.Mul(dout, o), -1, true)
		ds := tensor.Mul(p, tensor.Sub(tensor.MatMul(dout, tensor.Transpose(v, -1, -2)), dd))
		tensor.CopyInto(out[0], tensor.Scale(tensor.MatMul(ds, k), T(scale)))
		tensor.CopyInto(out[1], tensor.Scale(tensor.MatMul(tensor.Transpose(ds, -1, -2), q), T(scale)))
		return
	}
	must(d.e.do(func() error {
		dd, err := d.e.malloc(int64(bh*n) * d.size)
		defer d.e.alloc.release(dd)
		if err != nil {
			return err
		}
		if err := d.e.launch(kAttentionDot, d.sfx, linear(bh*n*32), uint64(bh*n), uint64(dh), d.ptr(dout), d.ptr(o), dd.ptr); err != nil {
			return err
		}
		ins := []uint64{d.ptr(dout), d.ptr(q), d.ptr(k), d.ptr(v), d.ptr(lse), dd.ptr}
		if dh == 64 {
			sizes := []uint64{uint64(bh), uint64(n), uint64(m)}
			if err := d.e.launch(kAttention64DQ, d.sfx, d.attn64Grid(attnDQ, bh, n), slices.Concat(sizes, ins, []uint64{d.ptr(out[0]), f64(scale)})...); err != nil {
				return err
			}
			return d.e.launch(kAttention64BackwardKV, d.sfx, d.attn64Grid(attnDKDV, bh, m), slices.Concat(sizes, ins, []uint64{d.ptr(out[1]), d.ptr(out[2]), f64(scale)})...)
		}
		sizes := []uint64{uint64(bh), uint64(n), uint64(m), uint64(dh)}
		args := append(append(append(append([]uint64{}, sizes...), uint64(qr), uint64(qc)), ins...), d.ptr(out[0]), f64(scale))
		if err := d.e.launch(kAttentionDQ, d.sfx, attnGrid(bh, n, qr, qShared), args...); err != nil {
			return err
		}
		args = append(append(append(append([]uint64{}, sizes...), uint64(kr), uint64(kc)), ins...), d.ptr(out[1]), d.ptr(out[2]), f64(scale))
		return d.e.launch(kAttentionBackwardKV, d.sfx, attnGrid(bh, m, kr, kShared), args...)
	}))
	keepAlive(append(in, out...)...)
}
