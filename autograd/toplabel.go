package autograd

import "github.com/ecl-go/ecl/tensor"

var opTopLabelStats = def("top_label_stats")

// TopLabelStats is SoftBinStats of the top confidences max_k s_ik of the
// probabilities s [N, K] with the values p [N], as one primitive: the
// statistics [1, B, 3] on sb's 1-D anchors (tensor.TopLabelStats). Its
// gradient reaches s only at each row's first maximum.
func TopLabelStats[T tensor.Float](s, p *Var[T], sb tensor.SoftBins) *Var[T] {
	return record(opTopLabelStats, tensor.TopLabelStats(s.Value, p.Value, sb), topLabelStatsBackward(s.Value, p.Value, sb), s, p)
}

// topLabelStatsBackward is TopLabelStats' backward rule for the inputs s, p.
func topLabelStatsBackward[T tensor.Float](s, p *tensor.Tensor[T], sb tensor.SoftBins) func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
	return func(g *tensor.Tensor[T]) []*tensor.Tensor[T] {
		ds, dp := tensor.TopLabelStatsBackward(g, s, p, sb)
		return []*tensor.Tensor[T]{ds, dp}
	}
}
