package metrics

import (
	"fmt"
	"math"

	"github.com/ecl-go/ecl/ecl/bins"
)

// VecBin holds the statistics of one simplex anchor's bin.
type VecBin struct {
	Count int
	Conf  []float64 // mean probability vector (zeros when empty)
	Freq  []float64 // mean one-hot label vector (zeros when empty)
	Err   float64   // Euclidean norm of Conf − Freq
}

// Canonical is the canonical binned calibration error with its bins.
type Canonical struct {
	Error   float64
	N, K    int
	Anchors []float64 // row-major [len(Bins)][K]
	Bins    []VecBin
	Assign  []int // anchor index of every sample
}

// CanonicalECE returns the canonical binned calibration error of the
// reference metrics.py: every sample goes to its nearest simplex anchor
// (bins.Simplex(o.Bins, k), Euclidean distance, first anchor on ties), each
// non-empty bin contributes ‖mean S − mean onehot(y)‖₂ with weight count/n,
// combined by o.Norm (L1: the weighted sum). Scheme and MinCount are ignored;
// o.Reference computes the anchors in float32 as the reference does.
//
// For k ≥ o.Bins the anchors are the k vertices shrunk halfway to the
// centre, (e_c + 1/k)/2, and the nearest is the vertex of the predicted
// class: the bins group the samples by their predicted class, and the
// error is Σ_c (n_c/n)·‖mean p − mean onehot(y)‖₂ over the samples
// predicted c, computed in O(nk) (docs/conventions.md).
func CanonicalECE(probs []float64, k int, labels []int, o Options) (Canonical, error) {
	o, err := o.check("CanonicalECE")
	if err != nil {
		return Canonical{}, err
	}
	n, err := validate("CanonicalECE", probs, k, labels, k)
	if err != nil {
		return Canonical{}, err
	}
	if k < 2 {
		return Canonical{}, fmt.Errorf("metrics.CanonicalECE: %d class, the simplex needs at least 2", k)
	}
	simplex := bins.Simplex
	if o.Reference {
		simplex = bins.SimplexFloat32
	}
	anchors, _ := simplex(o.Bins, k)
	res := Canonical{N: n, K: k, Anchors: anchors, Bins: make([]VecBin, len(anchors)/k), Assign: make([]int, n)}
	for j := range res.Bins {
		res.Bins[j].Conf, res.Bins[j].Freq = make([]float64, k), make([]float64, k)
	}
	bins.NearestEach(probs, anchors, k, res.Assign)
	for i, j := range res.Assign {
		row := probs[i*k : (i+1)*k]
		b := &res.Bins[j]
		b.Count++
		for c, v := range row {
			b.Conf[c] += v
		}
		b.Freq[labels[i]]++
	}
	agg := aggregator{norm: o.Norm, n: float64(n)}
	for j := range res.Bins {
		b := &res.Bins[j]
		if b.Count == 0 {
			continue
		}
		sq := 0.0
		for c := range k {
			b.Conf[c] /= float64(b.Count)
			b.Freq[c] /= float64(b.Count)
			sq += (b.Conf[c] - b.Freq[c]) * (b.Conf[c] - b.Freq[c])
		}
		b.Err = math.Sqrt(sq)
		agg.add(b.Count, b.Err)
	}
	res.Error = agg.value()
	return res, nil
}

// DebiasedSquaredCanonical is DebiasedSquared for the canonical bins:
// Σ_m (|B_m|/n)·(‖conf_m − freq_m‖² − Σ_c freq_mc(1−freq_mc)/(|B_m|−1)).
func DebiasedSquaredCanonical(c Canonical) float64 {
	sq := 0.0
	for _, b := range c.Bins {
		if b.Count < 2 {
			continue
		}
		bias := 0.0
		for _, f := range b.Freq {
			bias += f * (1 - f)
		}
		sq += float64(b.Count) / float64(c.N) * (b.Err*b.Err - bias/float64(b.Count-1))
	}
	return sq
}
