package tensor

// The top-label kernels of the Expectation Consistency Loss: the soft
// binning (SoftBinStats) of each sample's top confidence x_i = max_k s_ik,
// with values p [N], fused with the maximum. The forward also returns the
// maxima x [N] and their indices, which the backward takes instead of
// reading s again: it writes the gradient of s, zero but at the maxima,
// without reading the N·K probabilities (at K = 1,000 the pass is memory
// traffic, and that read was a third of it).
var (
	TopLabelStatsKernel         = NewKernel[SoftBins]("top_label_stats")          // in s, p; out stats, x, idx
	TopLabelStatsBackwardKernel = NewKernel[SoftBins]("top_label_stats_backward") // in dstats, x, idx, p; out ds, dp
)

func init() {
	registerCPU(TopLabelStatsKernel, topLabelStatsCPU[float32], topLabelStatsCPU[float64])
	registerCPU(TopLabelStatsBackwardKernel, topLabelStatsBackwardCPU[float32], topLabelStatsBackwardCPU[float64])
}

// TopLabelStats is SoftBinStats of the top confidences max_k s_ik [N, 1, 1]
// of the probabilities s [N, K] with the values p [N]: the statistics
// [1, B, 3] (soft count, weighted sum, weighted squared value) on sb's 1-D
// anchors, and the maxima x [N] with the index of each one's first
// occurrence (Extremes), for TopLabelStatsBackward.
func TopLabelStats[T Float](s, p *Tensor[T], sb SoftBins) (stats, x, idx *Tensor[T]) {
	n, b := topLabelShape("TopLabelStats", s, p, sb)
	if body, ok := Lookup(TopLabelStatsKernel, s.Device()); ok {
		stats, x, idx = ZerosOn(s.Device(), 1, b, 3), emptyOn(s.Device(), n), emptyOn(s.Device(), n)
		body([]*Tensor[T]{stats, x, idx}, []*Tensor[T]{Contiguous(s), Contiguous(p)}, sb)
		return stats, x, idx
	}
	return topLabelStatsComposed(s, p, sb)
}

// TopLabelStatsBackward is the gradient of TopLabelStats with respect to s
// [N, k] (nonzero only at the first maximum of each row) and p, for the
// gradient ds [1, B, 3] of the statistics, from the maxima x and indices
// idx TopLabelStats returned. A body writes every element of the gradient
// of s (it is not zeroed before) and adds to that of p.
func TopLabelStatsBackward[T Float](ds, x, idx, p *Tensor[T], k int, sb SoftBins) (dsOut, dp *Tensor[T]) {
	const op = "TopLabelStatsBackward"
	ps := p.shape
	if len(ps) != 1 || k < 1 {
		panic(shapeError(op, [][]int{ps}, "values %v and %d classes, want [N] and at least 1", ps, k))
	}
	for _, t := range []*Tensor[T]{ds, x, idx} {
		if t.Device() != p.Device() {
			panic(argumentError(op, "inputs on %s and %s, want one device", t.Device(), p.Device()))
		}
	}
	n, b := ps[0], topLabelBins(op, p, sb)
	sameShape(op, []int{1, b, 3}, ds)
	sameShape(op, []int{n}, x, idx)
	if body, ok := Lookup(TopLabelStatsBackwardKernel, p.Device()); ok {
		dsOut, dp = emptyOn(p.Device(), n, k), ZerosOn(p.Device(), n)
		body([]*Tensor[T]{dsOut, dp}, []*Tensor[T]{Contiguous(ds), Contiguous(x), Contiguous(idx), Contiguous(p)}, sb)
		return dsOut, dp
	}
	return topLabelStatsBackwardComposed(ds, x, idx, p, k, sb)
}

// The composed versions: the maximum (Extremes), then SoftBinStats of the
// maxima; ExtremeGrad after SoftBinStatsBackward.

func topLabelStatsComposed[T Float](s, p *Tensor[T], sb SoftBins) (stats, x, idx *Tensor[T]) {
	n := s.Shape()[0]
	x, idx = Extremes(s, 1, false)
	return SoftBinStats(Reshape(x, n, 1, 1), Reshape(p, n, 1, 1), sb), Reshape(x, n), Reshape(idx, n)
}

func topLabelStatsBackwardComposed[T Float](ds, x, idx, p *Tensor[T], k int, sb SoftBins) (dsOut, dp *Tensor[T]) {
	n := p.Len()
	dx, dp3 := SoftBinStatsBackward(ds, Reshape(x, n, 1, 1), Reshape(p, n, 1, 1), sb)
	return ExtremeGrad(Reshape(dx, n, 1), Reshape(idx, n, 1), 1, n, k), Reshape(dp3, n)
}

// topLabelShape checks s [N, K] and p [N] against sb (1-D anchors) and
// returns N and B.
func topLabelShape[T Float](op string, s, p *Tensor[T], sb SoftBins) (n, b int) {
	ss, ps := s.shape, p.shape
	if len(ss) != 2 || ss[1] < 1 || len(ps) != 1 || ps[0] != ss[0] || s.Device() != p.Device() {
		panic(shapeError(op, [][]int{ss, ps}, "probabilities %v and values %v (on %s and %s), want [N, K] and [N] on one device", ss, ps, s.Device(), p.Device()))
	}
	return ss[0], topLabelBins(op, p, sb)
}

// topLabelBins checks sb (1-D anchors, τ) for the values p [N] and returns
// B.
func topLabelBins[T Float](op string, p *Tensor[T], sb SoftBins) int {
	if sb.Dim != 1 {
		panic(argumentError(op, "anchors of dimension %d, want 1", sb.Dim))
	}
	_, _, _, b := softShape(op, &Tensor[T]{shape: []int{p.shape[0], 1, 1}}, sb) // the anchors and τ
	return b
}

// topChunk is the number of rows whose top confidences the CPU bodies hold
// at a time: a multiple of the vector kernels' fold (soft1DRounds rounds of
// 16 rows), so that the sums are those of SoftBinStats on the maxima.
const topChunk = soft1DRounds * 16

// topSerialRows is the number of rows below which the CPU bodies stay on
// the calling goroutine: waking a second core costs more than it saves
// there. From it on both cores take part, which pays from an ECL batch of
// 10⁴ rows since the engine's workers poll for their next job
// (bench/README.md, "The top-label loss on both cores").
const topSerialRows = 1 << 11

// topStreamElems is the size of the gradient of s from which the backward
// writes it with streaming stores: below, it stays in cache for the op
// that reads it next.
const topStreamElems = 1 << 20

// topCost is the work per row that the CPU bodies give parallelFor for n
// rows: perRow, or none below topSerialRows, which keeps the loops inline.
func topCost(n, perRow int) int {
	if n < topSerialRows {
		return 0
	}
	return perRow
}

// topRows sets x and idx to the maximum of each of len(x) rows of k
// elements of s and the index of its first occurrence (Extremes).
func topRows[T Float](x, idx, s []T, k int) {
	for r := extremesAsm(s, x, idx, k, false); r < len(x); r++ {
		x[r], idx[r] = wideMax(s[r*k : (r+1)*k])
	}
}

func topLabelStatsCPU[T Float](out, in []*Tensor[T], sb SoftBins) {
	ss, ps := HostData(in[0]), HostData(in[1])
	xs, is := HostData(out[1]), HostData(out[2])
	n, k := in[0].Shape()[0], in[0].Shape()[1]
	as := newAnchorSet[T](sb)
	b := len(as.norm)
	vec, align := newSoft1D(as, 1, 1), 1
	if vec != nil {
		align = 16 // the kernels' rounds
	}
	blockSums(n, topCost(n, b*13+2*k), align, HostData(out[0]), func(acc []float64, lo, hi int) {
		buf := getScratch[T](b)
		defer putScratch(buf)
		w, tmp := *buf, []float64(nil)
		for ; lo < hi; lo += topChunk {
			m := min(hi-lo, topChunk)
			x, idx, pc := xs[lo:lo+m], is[lo:lo+m], ps[lo:lo+m]
			topRows(x, idx, ss[lo*k:(lo+m)*k], k)
			rows := func(lo, hi int) { // the rows the vector kernels leave
				if tmp == nil {
					tmp = as.scratch()
				}
				for r := lo; r < hi; r++ {
					as.row(w, x[r:r+1], tmp)
					addStats(acc, w, pc[r:r+1])
				}
			}
			r := 0
			if vec != nil {
				r = vec.stats(acc, reinterpret[float32](x), reinterpret[float32](pc), 0, m, rows)
			}
			rows(r, m)
		}
	})
}

func topLabelStatsBackwardCPU[T Float](out, in []*Tensor[T], sb SoftBins) {
	dss, zeros := hostFilled(out[0])
	dps := HostData(out[1])
	ds, xs, is, ps := HostData(in[0]), HostData(in[1]), HostData(in[2]), HostData(in[3])
	n, k := out[0].Shape()[0], out[0].Shape()[1]
	as := newAnchorSet[T](sb)
	b := len(as.norm)
	var grad func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int
	if vec := newSoft1D(as, 1, 1); vec != nil {
		grad = vec.grad(reinterpret[float32](ds))
	}
	align := 1
	if grad != nil {
		align = 16 // the kernel's rounds
	}
	parallelFor((n+align-1)/align, align*topCost(n, b*18+k), func(lo, hi int) {
		lo, hi = lo*align, min(hi*align, n)
		buf := getScratch[T](topChunk + 2*b)
		defer putScratch(buf)
		w, dw, tmp := (*buf)[topChunk:topChunk+b], (*buf)[topChunk+b:], []float64(nil)
		for ; lo < hi; lo += topChunk {
			m := min(hi-lo, topChunk)
			x, idx, dx := xs[lo:lo+m], is[lo:lo+m], (*buf)[:m]
			pc, dpc := ps[lo:lo+m], dps[lo:lo+m]
			clear(dx)
			rows := func(lo, hi int) { // the rows the vector kernel leaves
				if tmp == nil {
					tmp = as.scratch()
				}
				for r := lo; r < hi; r++ {
					as.row(w, x[r:r+1], tmp)
					statsRowBackward(dw, dpc[r:r+1], w, pc[r:r+1], ds, false)
					as.rowBackward(dx[r:r+1], dw, w, x[r:r+1])
				}
			}
			r := 0
			if grad != nil {
				r = grad(reinterpret[float32](dx), reinterpret[float32](dpc), reinterpret[float32](x), reinterpret[float32](pc), 0, m, rows)
			}
			rows(r, m)
			// The chunk's rows of ds, zeros but the gradient at the maxima,
			// in one pass where the kernel takes them (streaming stores if
			// ds is large), the rest (wide rows) cleared unless still the
			// zeros of its allocation, with streaming stores too if ds is
			// large, and scattered.
			out, stream := dss[lo*k:(lo+m)*k], len(dss) >= topStreamElems
			done := extremeGradAsm(out, dx, idx, k, stream)
			if !zeros {
				clearStream(out[done*k:], stream)
			}
			for r := done; r < m; r++ {
				out[r*k+int(idx[r])] = dx[r]
			}
		}
	})
}
