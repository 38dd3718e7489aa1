package tensor

import (
	"math"
	"slices"
)

// The soft-binning kernels of the Expectation Consistency Loss. Points x
// [N, G, E] (G groups of one E-dimensional point per sample) are softly
// assigned to B anchors, ω [N, G, B]; the bin statistics of values p
// [N, G, D] under ω are, per group g and bin j, packed in the last axis of
// [G, B, D+2]: the soft count n = Σ_i ω_igj, the weighted sums
// m = Σ_i ω_igj·p_ig (D values) and the weighted squared norm
// q = Σ_i ω_igj·‖p_ig‖². SoftBinStats fuses the two: it never holds ω, and
// its backward recomputes each sample's ω on the fly, so the extra memory is
// O(G·B·D) beyond the inputs and their gradients.
//
// On the CPU the kernels run as fused loops over the samples on all cores;
// the sums go through float64 partial sums over a partition of the samples
// that depends only on N, so results do not depend on the number of cores.
// With many anchors and wide values (canonical at K ≥ 128) SoftBinStats
// holds ω for chunks of 256 samples and takes the statistics and their
// gradient as matrix products (softWide, softbin_wide.go).
// The composed versions (tensor ops) run on devices without a body and are
// the loops' tested reference.

// SoftBins are the attributes of the soft-binning kernels: B anchors a_j of
// dimension Dim, row-major in Anchors (B·Dim values), and the temperature
// Tau > 0 of ω_igj = softmax_j(−‖x_ig − a_j‖²/Tau).
type SoftBins struct {
	Anchors []float64
	Dim     int
	Tau     float64
}

// The soft-binning kernels, for backends to register bodies on.
var (
	SoftAssignKernel           = NewKernel[SoftBins]("soft_assign")             // in x; out ω
	SoftAssignBackwardKernel   = NewKernel[SoftBins]("soft_assign_backward")    // in dω, ω, x; out dx
	BinStatsKernel             = NewKernel[struct{}]("bin_stats")               // in ω, p; out stats
	BinStatsBackwardKernel     = NewKernel[struct{}]("bin_stats_backward")      // in dstats, ω, p; out dω, dp
	SoftBinStatsKernel         = NewKernel[SoftBins]("soft_bin_stats")          // in x, p; out stats
	SoftBinStatsBackwardKernel = NewKernel[SoftBins]("soft_bin_stats_backward") // in dstats, x, p; out dx, dp
)

func init() {
	registerCPU(SoftAssignKernel, softAssignCPU[float32], softAssignCPU[float64])
	registerCPU(SoftAssignBackwardKernel, softAssignBackwardCPU[float32], softAssignBackwardCPU[float64])
	registerCPU(BinStatsKernel, binStatsCPU[float32], binStatsCPU[float64])
	registerCPU(BinStatsBackwardKernel, binStatsBackwardCPU[float32], binStatsBackwardCPU[float64])
	registerCPU(SoftBinStatsKernel, softBinStatsCPU[float32], softBinStatsCPU[float64])
	registerCPU(SoftBinStatsBackwardKernel, softBinStatsBackwardCPU[float32], softBinStatsBackwardCPU[float64])
}

// SoftAssign is the soft assignment ω [N, G, B] of the points x [N, G, E]:
// squared distances summed in order, scaled by −1/τ, softmax shifted by the
// row maximum.
func SoftAssign[T Float](x *Tensor[T], sb SoftBins) *Tensor[T] {
	n, g, _, b := softShape("SoftAssign", x, sb)
	if body, ok := Lookup(SoftAssignKernel, x.Device()); ok {
		w := ZerosOn(x.Device(), n, g, b)
		body([]*Tensor[T]{w}, []*Tensor[T]{Contiguous(x)}, sb)
		return w
	}
	return SoftAssignComposed(x, sb)
}

// SoftAssignBackward is the gradient of SoftAssign with respect to x, for
// the output gradient dw and the assignment w it returned.
func SoftAssignBackward[T Float](dw, w, x *Tensor[T], sb SoftBins) *Tensor[T] {
	n, g, _, b := softShape("SoftAssignBackward", x, sb)
	sameShape("SoftAssignBackward", []int{n, g, b}, dw, w)
	if body, ok := Lookup(SoftAssignBackwardKernel, x.Device()); ok {
		dx := ZerosOn(x.Device(), x.Shape()...)
		body([]*Tensor[T]{dx}, []*Tensor[T]{Contiguous(dw), Contiguous(w), Contiguous(x)}, sb)
		return dx
	}
	return softAssignBackwardComposed(dw, w, x, sb)
}

// BinStats is the statistics [G, B, D+2] (soft count, weighted sums,
// weighted squared norm) of p [N, G, D] under the assignment w [N, G, B].
func BinStats[T Float](w, p *Tensor[T]) *Tensor[T] {
	_, g, b, d := statsShape("BinStats", w.Shape()[2], w, p)
	if body, ok := Lookup(BinStatsKernel, w.Device()); ok {
		s := ZerosOn(w.Device(), g, b, d+2)
		body([]*Tensor[T]{s}, []*Tensor[T]{Contiguous(w), Contiguous(p)}, struct{}{})
		return s
	}
	return binStatsComposed(w, p)
}

// BinStatsBackward is the gradient of BinStats with respect to w and p, for
// the gradient ds [G, B, D+2] of the statistics.
func BinStatsBackward[T Float](ds, w, p *Tensor[T]) (dw, dp *Tensor[T]) {
	_, g, b, d := statsShape("BinStatsBackward", w.Shape()[2], w, p)
	sameShape("BinStatsBackward", []int{g, b, d + 2}, ds)
	if body, ok := Lookup(BinStatsBackwardKernel, w.Device()); ok {
		dw, dp = ZerosOn(w.Device(), w.Shape()...), ZerosOn(w.Device(), p.Shape()...)
		body([]*Tensor[T]{dw, dp}, []*Tensor[T]{Contiguous(ds), Contiguous(w), Contiguous(p)}, struct{}{})
		return dw, dp
	}
	return binStatsBackwardComposed(ds, w, p)
}

// SoftBinStats is BinStats(SoftAssign(x, sb), p) [G, B, D+2] without
// holding the assignment.
func SoftBinStats[T Float](x, p *Tensor[T], sb SoftBins) *Tensor[T] {
	_, g, _, b := softShape("SoftBinStats", x, sb)
	_, _, _, d := statsShape("SoftBinStats", b, x, p)
	if body, ok := Lookup(SoftBinStatsKernel, x.Device()); ok {
		s := ZerosOn(x.Device(), g, b, d+2)
		body([]*Tensor[T]{s}, []*Tensor[T]{Contiguous(x), Contiguous(p)}, sb)
		return s
	}
	return BinStats(SoftAssign(x, sb), p)
}

// SoftBinStatsBackward is the gradient of SoftBinStats with respect to x and
// p, for the gradient ds [G, B, D+2] of the statistics.
func SoftBinStatsBackward[T Float](ds, x, p *Tensor[T], sb SoftBins) (dx, dp *Tensor[T]) {
	_, g, _, b := softShape("SoftBinStatsBackward", x, sb)
	_, _, _, d := statsShape("SoftBinStatsBackward", b, x, p)
	sameShape("SoftBinStatsBackward", []int{g, b, d + 2}, ds)
	if body, ok := Lookup(SoftBinStatsBackwardKernel, x.Device()); ok {
		dx, dp = ZerosOn(x.Device(), x.Shape()...), ZerosOn(x.Device(), p.Shape()...)
		body([]*Tensor[T]{dx, dp}, []*Tensor[T]{Contiguous(ds), Contiguous(x), Contiguous(p)}, sb)
		return dx, dp
	}
	w := SoftAssign(x, sb)
	dw, dp := BinStatsBackward(ds, w, p)
	return SoftAssignBackward(dw, w, x, sb), dp
}

// softShape checks x [N, G, E] against sb and returns N, G, E and B.
func softShape[T Float](op string, x *Tensor[T], sb SoftBins) (n, g, e, b int) {
	sh := x.Shape()
	if sb.Dim < 1 || len(sb.Anchors) == 0 || len(sb.Anchors)%sb.Dim != 0 {
		panic(shapeError(op, [][]int{{len(sb.Anchors)}}, "%d anchor values of dimension %d", len(sb.Anchors), sb.Dim))
	}
	if len(sh) != 3 || sh[2] != sb.Dim {
		panic(shapeError(op, [][]int{sh}, "points %v, want [N, G, %d]", sh, sb.Dim))
	}
	if !(sb.Tau > 0) || math.IsInf(sb.Tau, 0) {
		panic(argumentError(op, "temperature %v must be positive and finite", sb.Tau))
	}
	return sh[0], sh[1], sh[2], len(sb.Anchors) / sb.Dim
}

// statsShape checks a [N, G, ·] tensor (the assignment or the points)
// against p [N, G, D], with b bins, and returns N, G, B and D.
func statsShape[T Float](op string, b int, w, p *Tensor[T]) (n, g, bins, d int) {
	ws, ps := w.Shape(), p.Shape()
	if len(ws) != 3 || len(ps) != 3 || ws[0] != ps[0] || ws[1] != ps[1] {
		panic(shapeError(op, [][]int{ws, ps}, "%v and values %v, want [N, G, ·] and [N, G, D]", ws, ps))
	}
	sameDevice(op, w, p)
	return ps[0], ps[1], b, ps[2]
}

func sameShape[T Float](op string, want []int, ts ...*Tensor[T]) {
	for _, t := range ts {
		if !slices.Equal(t.Shape(), want) {
			panic(shapeError(op, [][]int{t.Shape(), want}, "gradient or assignment of shape %v, want %v", t.Shape(), want))
		}
	}
}

// The CPU bodies.

func softAssignCPU[T Float](out, in []*Tensor[T], sb SoftBins) {
	xs, ws := HostData(in[0]), HostData(out[0])
	as := newAnchorSet[T](sb)
	e, b := sb.Dim, len(as.norm)
	parallelFor(len(xs)/e, b*(2*e+8), func(lo, hi int) {
		tmp := as.scratch()
		for r := lo; r < hi; r++ {
			as.row(ws[r*b:(r+1)*b], xs[r*e:(r+1)*e], tmp)
		}
	})
}

func softAssignBackwardCPU[T Float](out, in []*Tensor[T], sb SoftBins) {
	dxs, dws, ws, xs := HostData(out[0]), HostData(in[0]), HostData(in[1]), HostData(in[2])
	as := newAnchorSet[T](sb)
	e, b := sb.Dim, len(as.norm)
	parallelFor(len(xs)/e, b*(2*e+4), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			as.rowBackward(dxs[r*e:(r+1)*e], dws[r*b:(r+1)*b], ws[r*b:(r+1)*b], xs[r*e:(r+1)*e])
		}
	})
}

func binStatsCPU[T Float](out, in []*Tensor[T], _ struct{}) {
	w, p := in[0], in[1]
	n, g, b, d := w.Shape()[0], w.Shape()[1], w.Shape()[2], p.Shape()[2]
	ws, ps := HostData(w), HostData(p)
	blockSums(n, g*b*(d+3), 1, HostData(out[0]), func(acc []float64, lo, hi int) {
		for r := lo * g; r < hi*g; r++ {
			gg := r % g
			addStats(acc[gg*b*(d+2):(gg+1)*b*(d+2)], ws[r*b:(r+1)*b], ps[r*d:(r+1)*d])
		}
	})
}

func binStatsBackwardCPU[T Float](out, in []*Tensor[T], _ struct{}) {
	dws, dps := HostData(out[0]), HostData(out[1])
	ds, w, p := HostData(in[0]), in[1], in[2]
	g, b, d := w.Shape()[1], w.Shape()[2], p.Shape()[2]
	ws, ps := HostData(w), HostData(p)
	parallelFor(w.Shape()[0]*g, b*(2*d+4), func(lo, hi int) {
		for r := lo; r < hi; r++ {
			gg := r % g
			statsRowBackward(dws[r*b:(r+1)*b], dps[r*d:(r+1)*d], ws[r*b:(r+1)*b], ps[r*d:(r+1)*d], ds[gg*b*(d+2):(gg+1)*b*(d+2)], true)
		}
	})
}

func softBinStatsCPU[T Float](out, in []*Tensor[T], sb SoftBins) {
	x, p := in[0], in[1]
	n, g, d := x.Shape()[0], x.Shape()[1], p.Shape()[2]
	as := newAnchorSet[T](sb)
	e, b := sb.Dim, len(as.norm)
	xs, ps := HostData(x), HostData(p)
	if wide := newSoftWide(as, g, d); wide != nil {
		wide.stats(HostData(out[0]), xs, ps)
		return
	}
	vec, align := newSoftVec(as, g, d), 1
	if vec != nil {
		align = 16 // the kernels' rounds
	}
	blockSums(n, g*b*(2*e+d+10), align, HostData(out[0]), func(acc []float64, lo, hi int) {
		w, tmp := make([]T, b), as.scratch()
		rows := func(lo, hi int) {
			for r := lo * g; r < hi*g; r++ {
				gg := r % g
				as.row(w, xs[r*e:(r+1)*e], tmp)
				addStats(acc[gg*b*(d+2):(gg+1)*b*(d+2)], w, ps[r*d:(r+1)*d])
			}
		}
		if vec != nil {
			lo = vec.stats(acc, reinterpret[float32](xs), reinterpret[float32](ps), lo, hi, rows)
		}
		rows(lo, hi)
	})
}

func softBinStatsBackwardCPU[T Float](out, in []*Tensor[T], sb SoftBins) {
	dxs, dps := HostData(out[0]), HostData(out[1])
	ds, x, p := HostData(in[0]), in[1], in[2]
	g, d := x.Shape()[1], p.Shape()[2]
	as := newAnchorSet[T](sb)
	e, b := sb.Dim, len(as.norm)
	xs, ps := HostData(x), HostData(p)
	if wide := newSoftWide(as, g, d); wide != nil {
		wide.grad(dxs, dps, ds, xs, ps)
		return
	}
	var grad func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int
	if vec := newSoftVec(as, g, d); vec != nil {
		grad = vec.grad(reinterpret[float32](ds))
	}
	n, align := x.Shape()[0], 1
	if grad != nil {
		align = 16 // the kernel's rounds
	}
	parallelFor((n+align-1)/align, align*g*b*(4*e+2*d+12), func(lo, hi int) {
		lo, hi = lo*align, min(hi*align, n)
		w, dw, tmp := make([]T, b), make([]T, b), as.scratch()
		rows := func(lo, hi int) {
			for r := lo * g; r < hi*g; r++ {
				gg := r % g
				xr := xs[r*e : (r+1)*e]
				as.row(w, xr, tmp)
				statsRowBackward(dw, dps[r*d:(r+1)*d], w, ps[r*d:(r+1)*d], ds[gg*b*(d+2):(gg+1)*b*(d+2)], false)
				as.rowBackward(dxs[r*e:(r+1)*e], dw, w, xr)
			}
		}
		if grad != nil {
			lo = grad(reinterpret[float32](dxs), reinterpret[float32](dps), reinterpret[float32](xs), reinterpret[float32](ps), lo, hi, rows)
		}
		rows(lo, hi)
	})
}
