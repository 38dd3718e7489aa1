//go:build cuda

package cuda

import (
	"fmt"
	"slices"

	"github.com/ecl-go/ecl/tensor"
)

// sharedLimit is the shared memory a block may use without opting in.
const sharedLimit = 48 << 10

// softAssign returns the soft assignment of x's rows to the anchors, in
// a new tensor.
func softAssign[T tensor.Float](x, anchors *tensor.Tensor[T], tau float64) (*tensor.Tensor[T], error) {
	d, err := on("SoftAssign", x, anchors)
	if err != nil {
		return nil, err
	}
	_, _, b := anchorShapes(x.Shape(), anchors.Shape(), tau)
	shape := x.Shape()
	out := tensor.ZerosOn[T](d, append(shape[:len(shape)-1], b)...)
	return out, softAssignInto(d, out, x, anchors, tau)
}

// softAssignInto writes the soft assignment of x's rows to the anchors
// into out (contiguous, x's shape with b for its last axis), every element.
func softAssignInto[T tensor.Float](d *device[T], out, x, anchors *tensor.Tensor[T], tau float64) error {
	rows, dim, b := anchorShapes(x.Shape(), anchors.Shape(), tau)
	x, anchors = tensor.Contiguous(x), tensor.Contiguous(anchors)
	xp, ap, op := d.ptr(x), d.ptr(anchors), d.ptr(out)
	var err error
	if lanes := anchorLanes(b, dim); lanes > 0 {
		k := kSoftAssignD16
		if dim <= 4 {
			k = kSoftAssignD4
		} else if dim <= 10 {
			k = kSoftAssignD10
		}
		g := grid{x: blocks((rows+32/lanes-1)/(32/lanes), blockSize/32), y: 1, z: 1, block: blockSize}
		err = d.e.do(func() error {
			return d.e.launch(k, d.sfx, g, uint64(rows), uint64(dim), uint64(b), uint64(lanes), xp, ap, op, f64(-1/tau))
		})
		keepAlive(x, anchors, out)
		return err
	}
	g := linear(rows)
	var shared uint64
	if bytes := b * dim * int(d.size); bytes <= sharedLimit {
		g.shared, shared = bytes, 1
	}
	err = d.e.do(func() error {
		return d.e.launch(kSoftAssign, d.sfx, g, uint64(rows), uint64(dim), uint64(b), xp, ap, op, f64(-1/tau), shared)
	})
	keepAlive(x, anchors, out)
	return err
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

// binStats returns one domain's bin statistics [G, B, D+2] in a new tensor.
func binStats[T tensor.Float](w, p *tensor.Tensor[T]) (*tensor.Tensor[T], error) {
	d, err := on("BinStats", w, p)
	if err != nil {
		return nil, err
	}
	_, g, b, dim := binShapes(w.Shape(), p.Shape())
	s := tensor.ZerosOn[T](d, g, b, dim+2)
	return s, binStatsInto(d, s, w, p)
}

// binStatsInto writes the bin statistics of w [N, G, B] and p [N, G, D]
// into s [G, B, D+2] (contiguous, zero), one pass over the rows.
func binStatsInto[T tensor.Float](d *device[T], s, w, p *tensor.Tensor[T]) error {
	rows, g, b, dim := binShapes(w.Shape(), p.Shape())
	w, p = tensor.Contiguous(w), tensor.Contiguous(p)
	gb := g * b
	if rows == 0 || gb == 0 {
		return nil
	}
	wp, pp, sp := d.ptr(w), d.ptr(p), d.ptr(s)
	slots := gb * (dim + 2)
	k := kBinStatsPart
	if binRows(gb, dim) {
		k = kBinStatsRows
	}
	err := d.e.do(func() error {
		return d.binPass(k, rows, rowsPerChunk(rows), slots, 0, sp, uint64(rows), uint64(g), uint64(b), uint64(dim), wp, pp)
	})
	keepAlive(w, p, s)
	return err
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
func softAssignBackward[T tensor.Float](d *device[T], dx, dw, w, x *tensor.Tensor[T], sb tensor.SoftBins) error {
	e, b := sb.Dim, len(sb.Anchors)/sb.Dim
	rows := x.Len() / max(e, 1)
	anchors := anchorsOn(d, sb)
	rpb, g := stagedGrid(rows, 2*b+2*e, int(d.size))
	args := []uint64{uint64(rows), uint64(e), uint64(b), d.ptr(dw), d.ptr(w), d.ptr(x), d.ptr(anchors), d.ptr(dx), f64(-1 / sb.Tau), uint64(rpb)}
	err := d.e.do(func() error { return d.e.launch(kAssignBack, d.sfx, g, args...) })
	keepAlive(dx, dw, w, x, anchors)
	return err
}

// binStatsBackward is the device's body of tensor.BinStatsBackwardKernel:
// in ds [G, B, D+2], w [N, G, B] and p [N, G, D] (contiguous), out dw, dp.
func binStatsBackward[T tensor.Float](d *device[T], dw, dp, ds, w, p *tensor.Tensor[T]) error {
	s := w.Shape()
	n, g, b, dim := s[0], s[1], s[2], p.Shape()[2]
	rpb, gr := stagedGrid(n*g, 2*b+2*dim, int(d.size))
	args := []uint64{uint64(n), uint64(g), uint64(b), uint64(dim), d.ptr(ds), d.ptr(w), d.ptr(p), d.ptr(dw), d.ptr(dp), uint64(rpb)}
	err := d.e.do(func() error { return d.e.launch(kStatsBack, d.sfx, gr, args...) })
	keepAlive(dw, dp, ds, w, p)
	return err
}

// stagedGrid is the launch of an ECL backward kernel over rows rows of
// width elements of size bytes (stagedRows), and its rows per block.
func stagedGrid(rows, width, size int) (rpb int, g grid) {
	rpb, threads, shared := stagedRows(width, size)
	return rpb, grid{x: blocks(rows, stagedPer(rpb, threads)), y: 1, z: 1, block: threads, shared: shared}
}
