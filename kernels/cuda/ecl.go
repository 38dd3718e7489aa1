//go:build cuda

package cuda

import (
	"fmt"
	"slices"

	"github.com/ecl-go/ecl/tensor"
)

// sharedLimit is the shared memory a block may use without opting in.
const sharedLimit = 48 << 10

// softAssign is the device's body of tensor.SoftAssignKernel: in x
// [N, G, E]; out the soft assignment ω [N, G, B] of x's rows to sb's
// anchors (anchorsOn), every element.
func softAssign[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], sb tensor.SoftBins) {
	x, anchors, w := tensor.Contiguous(in[0]), anchorsOn(d, sb), out[0]
	dim, b := anchors.Dim(1), anchors.Dim(0)
	rows := x.Len() / max(dim, 1)
	xp, ap, wp, scale := d.ptr(x), d.ptr(anchors), d.ptr(w), f64(-1/sb.Tau)
	defer keepAlive(x, anchors, w)
	if lanes := anchorLanes(b, dim); lanes > 0 {
		k := kSoftAssignD16
		if dim <= 4 {
			k = kSoftAssignD4
		} else if dim <= 10 {
			k = kSoftAssignD10
		}
		g := grid{x: blocks((rows+32/lanes-1)/(32/lanes), blockSize/32), y: 1, z: 1, block: blockSize}
		must(d.e.do(func() error {
			return d.e.launch(k, d.sfx, g, uint64(rows), uint64(dim), uint64(b), uint64(lanes), xp, ap, wp, scale)
		}))
		return
	}
	g := linear(rows)
	var shared uint64
	if bytes := b * dim * int(d.size); bytes <= sharedLimit {
		g.shared, shared = bytes, 1
	}
	must(d.e.do(func() error {
		return d.e.launch(kSoftAssign, d.sfx, g, uint64(rows), uint64(dim), uint64(b), xp, ap, wp, scale, shared)
	}))
}

// binPass runs a per-chunk kernel (one block per chunk of rpc rows) into a
// buffer of chunks × slots partial sums, then sums the chunks in order into
// out (on the context thread).
func (d *device[T]) binPass(k kernel, n, rpc, slots, shared int, out uint64, args ...uint64) error {
	e := d.e
	chunks := (n + rpc - 1) / rpc
	part, err := e.malloc(int64(chunks*slots) * d.size)
	defer e.alloc.release(part)
	if err != nil {
		return err
	}
	g := grid{x: chunks, y: 1, z: 1, block: blockSize, shared: shared}
	if err := e.launch(k, d.sfx, g, append(args, part.ptr, uint64(rpc))...); err != nil {
		return err
	}
	return d.sumParts(part.ptr, chunks, slots, out)
}

// binStats is the device's body of tensor.BinStatsKernel: in w [N, G, B]
// and p [N, G, D]; out their bin statistics s [G, B, D+2] (contiguous,
// zero), one pass over the rows.
func binStats[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], _ struct{}) {
	s, w, p := out[0], tensor.Contiguous(in[0]), tensor.Contiguous(in[1])
	ws := w.Shape()
	rows, g, b, dim := ws[0], ws[1], ws[2], p.Dim(2)
	gb := g * b
	if rows == 0 || gb == 0 {
		return
	}
	wp, pp, sp := d.ptr(w), d.ptr(p), d.ptr(s)
	slots := gb * (dim + 2)
	k := kBinStatsPart
	if binRows(gb, dim) {
		k = kBinStatsRows
	}
	must(d.e.do(func() error {
		return d.binPass(k, rows, rowsPerChunk(rows), slots, 0, sp, uint64(rows), uint64(g), uint64(b), uint64(dim), wp, pp)
	}))
	keepAlive(w, p, s)
}

// hardBinSums accumulates in shared memory, one slot per count and sum and a
// last one counting bad indices, which it downloads (a synchronisation) to
// report them.
func hardBinSums[T tensor.Float](bin, v *tensor.Tensor[T], bins int) (count, sum *tensor.Tensor[T], err error) {
	d, err := on("HardBinSums", bin, v)
	if err != nil {
		return nil, nil, err
	}
	rows, g, dim := hardShapes(bin.Shape(), v.Shape(), bins)
	gb := g * bins
	slots := gb*(1+dim) + 1
	if slots*int(d.size) > sharedLimit {
		panic(&tensor.ArgumentError{Op: "cuda.HardBinSums", Detail: fmt.Sprintf("%d groups × %d bins × (1 + %d) sums do not fit in %d bytes of shared memory", g, bins, dim, sharedLimit)})
	}
	bin, v = tensor.Contiguous(bin), tensor.Contiguous(v)
	out := tensor.ZerosOn[T](d, slots)
	if rows > 0 && g > 0 {
		bp, vp, op := d.ptr(bin), d.ptr(v), d.ptr(out)
		err = d.e.do(func() error {
			return d.binPass(kHardBinPart, rows, rowsPerChunk(rows), slots, slots*int(d.size), op, uint64(rows), uint64(g), uint64(bins), uint64(dim), bp, vp)
		})
		keepAlive(bin, v)
		if err != nil {
			return nil, nil, err
		}
		if bad := tensor.Narrow(out, 0, slots-1, 1).Item(); bad != 0 {
			return nil, nil, fmt.Errorf("cuda.HardBinSums: %d of %d bin indices are not integers in [0, %d)", int(bad), rows*g, bins)
		}
	}
	return tensor.Reshape(tensor.Narrow(out, 0, 0, gb), g, bins), tensor.Reshape(tensor.Narrow(out, 0, gb, gb*dim), g, bins, dim), err
}

// anchorsOn is sb's anchors [B, Dim] in T on d, for the soft-binning
// kernels' bodies: uploaded on first use and kept, so that a step of the
// ECL loss, which calls these bodies several times with one layout's
// anchors, uploads none.
func anchorsOn[T tensor.Float](d *device[T], sb tensor.SoftBins) *tensor.Tensor[T] {
	d.anchorMu.Lock()
	defer d.anchorMu.Unlock()
	for _, c := range d.anchors {
		if c.dim == sb.Dim && slices.Equal(c.values, sb.Anchors) {
			return c.t
		}
	}
	a := make([]T, len(sb.Anchors))
	for i, v := range sb.Anchors {
		a[i] = T(v)
	}
	t := tensor.FromSliceOn(tensor.Device[T](d), a, len(a)/sb.Dim, sb.Dim)
	if len(d.anchors) == maxAnchorSets {
		d.anchors = d.anchors[1:]
	}
	d.anchors = append(d.anchors, anchorSet[T]{values: slices.Clone(sb.Anchors), dim: sb.Dim, t: t})
	return t
}

// maxAnchorSets bounds a device's cache of anchors (the oldest set leaves
// first); a study uses one set per paradigm.
const maxAnchorSets = 8

// anchorSet is one cached set of anchors: the values it was made from and
// the device tensor, which no kernel writes.
type anchorSet[T tensor.Float] struct {
	values []float64
	dim    int
	t      *tensor.Tensor[T]
}

// softAssignBackward is the device's body of tensor.SoftAssignBackwardKernel:
// in dw, w [N, G, B] and x [N, G, E] (contiguous), out dx.
func softAssignBackward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], sb tensor.SoftBins) {
	dx, dw, w, x := out[0], in[0], in[1], in[2]
	e, b := sb.Dim, len(sb.Anchors)/sb.Dim
	rows := x.Len() / max(e, 1)
	anchors := anchorsOn(d, sb)
	rpb, g := stagedGrid(rows, 2*b+2*e, int(d.size))
	args := []uint64{uint64(rows), uint64(e), uint64(b), d.ptr(dw), d.ptr(w), d.ptr(x), d.ptr(anchors), d.ptr(dx), f64(-1 / sb.Tau), uint64(rpb)}
	must(d.e.do(func() error { return d.e.launch(kSoftAssignBackward, d.sfx, g, args...) }))
	keepAlive(dx, dw, w, x, anchors)
}

// binStatsBackward is the device's body of tensor.BinStatsBackwardKernel:
// in ds [G, B, D+2], w [N, G, B] and p [N, G, D] (contiguous), out dw, dp.
func binStatsBackward[T tensor.Float](d *device[T], out, in []*tensor.Tensor[T], _ struct{}) {
	dw, dp, ds, w, p := out[0], out[1], in[0], in[1], in[2]
	s := w.Shape()
	n, g, b, dim := s[0], s[1], s[2], p.Shape()[2]
	rpb, gr := stagedGrid(n*g, 2*b+2*dim, int(d.size))
	args := []uint64{uint64(n), uint64(g), uint64(b), uint64(dim), d.ptr(ds), d.ptr(w), d.ptr(p), d.ptr(dw), d.ptr(dp), uint64(rpb)}
	must(d.e.do(func() error { return d.e.launch(kBinStatsBackward, d.sfx, gr, args...) }))
	keepAlive(dw, dp, ds, w, p)
}

// stagedGrid is the launch of an ECL backward kernel over rows rows of
// width elements of size bytes (stagedRows), and its rows per block.
func stagedGrid(rows, width, size int) (rpb int, g grid) {
	rpb, threads, shared := stagedRows(width, size)
	return rpb, grid{x: blocks(rows, stagedPer(rpb, threads)), y: 1, z: 1, block: threads, shared: shared}
}
