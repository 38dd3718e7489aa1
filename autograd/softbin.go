package autograd

import "github.com/ecl-go/ecl/tensor"

// SoftAssign is the soft assignment ω [N, G, B] of the points x [N, G, E] to
// sb's anchors (tensor.SoftAssign).
func SoftAssign[T tensor.Float](x *Var[T], sb tensor.SoftBins) *Var[T] {
	return record(opSoftAssign, tensor.SoftAssign(x.Value, sb), gradSoftAssign[T](sb), x)
}

// BinStats is the per-bin soft count, weighted sums and weighted squared
// norm [G, B, D+2] of p [N, G, D] under the assignment w [N, G, B]
// (tensor.BinStats).
func BinStats[T tensor.Float](w, p *Var[T]) *Var[T] {
	return record(opBinStats, tensor.BinStats(w.Value, p.Value), gradBinStats, w, p)
}

// SoftBinStats is BinStats(SoftAssign(x, sb), p) as one primitive that never
// holds the assignment: its backward recomputes it sample by sample
// (tensor.SoftBinStats).
func SoftBinStats[T tensor.Float](x, p *Var[T], sb tensor.SoftBins) *Var[T] {
	return record(opSoftBinStats, tensor.SoftBinStats(x.Value, p.Value, sb), gradSoftBinStats[T](sb), x, p)
}

// TopLabelStats is SoftBinStats of the top confidences max_k s_ik of the
// probabilities s [N, K] with the values p [N], as one primitive: the
// statistics [1, B, 3] on sb's 1-D anchors (tensor.TopLabelStats). Its
// gradient reaches s only at each row's first maximum.
func TopLabelStats[T tensor.Float](s, p *Var[T], sb tensor.SoftBins) *Var[T] {
	stats, x, idx := tensor.TopLabelStats(s.Value, p.Value, sb)
	return record(opTopLabelStats, stats, gradTopLabelStats(sb, x, idx, s.Value.Shape()[1]), s, p)
}
