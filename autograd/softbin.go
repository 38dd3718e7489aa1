package autograd

import "github.com/ecl-go/ecl/tensor"

var (
	opSoftAssign   = def("soft_assign")
	opBinStats     = def("bin_stats")
	opSoftBinStats = def("soft_bin_stats")
)

// SoftAssign is the soft assignment ω [N, G, B] of the points x [N, G, E] to
// sb's anchors (tensor.SoftAssign).
func SoftAssign[T tensor.Float](x *Var[T], sb tensor.SoftBins) *Var[T] {
	w := tensor.SoftAssign(x.Value, sb)
	return record(opSoftAssign, w, func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		return []*tensor.Tensor[T]{tensor.SoftAssignBackward(g, w, x.Value, sb)}
	}, x)
}

// BinStats is the per-bin soft count, weighted sums and weighted squared
// norm [G, B, D+2] of p [N, G, D] under the assignment w [N, G, B]
// (tensor.BinStats).
func BinStats[T tensor.Float](w, p *Var[T]) *Var[T] {
	return record(opBinStats, tensor.BinStats(w.Value, p.Value), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		dw, dp := tensor.BinStatsBackward(g, w.Value, p.Value)
		return []*tensor.Tensor[T]{dw, dp}
	}, w, p)
}

// SoftBinStats is BinStats(SoftAssign(x, sb), p) as one primitive that never
// holds the assignment: its backward recomputes it sample by sample
// (tensor.SoftBinStats).
func SoftBinStats[T tensor.Float](x, p *Var[T], sb tensor.SoftBins) *Var[T] {
	return record(opSoftBinStats, tensor.SoftBinStats(x.Value, p.Value, sb), func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		dx, dp := tensor.SoftBinStatsBackward(g, x.Value, p.Value, sb)
		return []*tensor.Tensor[T]{dx, dp}
	}, x, p)
}
