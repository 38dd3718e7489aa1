package metrics

import (
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/tensor"
)

// resampled holds what the bootstrap of one set of predictions needs, found
// once: each sample's top-label bin and scores, its class-wise entries
// outside the lowest bin, its canonical bin and, where cheaper than
// summing vectors, the Gram matrix of each canonical bin's gap vectors.
// A resample is then a vector of multiplicities m (how often each sample
// was drawn): its statistics are sums weighted by m, the lowest class-wise
// bin's from the column sums mᵀP, which a chunk of resamples takes as one
// GEMM. It serves fixed bin edges (equal width); equal-mass edges move
// with the resample and take Subset and NewReport instead.
type resampled struct {
	n, k      int
	o         Options
	labels    []int
	probs     *tensor.Tensor[float64] // [n, k]
	edges     []float64
	nb        int // bins per calibration
	topBin    []int
	conf      []float64
	correct   []float64
	nll       []float64
	brier     []float64
	rowStart  []int // the class-wise entries not in bin 0 of sample i: [rowStart[i], rowStart[i+1])
	entClass  []int32
	entBin    []int32 // −1: in no bin
	entP      []float64
	canonical bool
	can       Canonical // the full sample's bins: anchors and assignment
	members   [][]int   // samples of each canonical bin
	gram      [][]float64
}

// fastResample reports whether o's bin edges are fixed, so that newResampled
// serves it.
func fastResample(o Options) bool { return o.Scheme == EqualWidth }

func newResampled(probs []float64, k int, labels []int, o Options, canonical bool) (*resampled, error) {
	o, err := o.check("BootstrapReport")
	if err != nil {
		return nil, err
	}
	n := len(labels)
	conf, correct := TopLabel(probs, k, labels)
	edges, index := binning(conf, o)
	s := &resampled{n: n, k: k, o: o, labels: labels, probs: tensor.Wrap(probs, n, k), edges: edges, nb: binCount(edges, o),
		topBin: make([]int, n), conf: conf, correct: correct, nll: make([]float64, n), brier: make([]float64, n), rowStart: make([]int, n+1), canonical: canonical}
	for i, y := range labels {
		row := probs[i*k : (i+1)*k]
		s.topBin[i] = index(conf[i])
		s.nll[i] = -math.Log(max(row[y], nllFloor))
		for c, p := range row {
			d := p
			if c == y {
				d = p - 1
			}
			s.brier[i] += d * d
			if j := index(p); j != 0 {
				s.entClass, s.entBin, s.entP = append(s.entClass, int32(c)), append(s.entBin, int32(j)), append(s.entP, p)
			}
		}
		s.rowStart[i+1] = len(s.entP)
	}
	if !canonical {
		return s, nil
	}
	if s.can, err = CanonicalECE(probs, k, labels, o); err != nil {
		return nil, err
	}
	s.members = make([][]int, len(s.can.Bins))
	square := 0
	for i, j := range s.can.Assign {
		s.members[j] = append(s.members[j], i)
	}
	for _, m := range s.members {
		square += len(m) * len(m)
	}
	if square <= n*k/2 && square <= 1<<25 {
		s.gram = make([][]float64, len(s.members))
		tensor.ParallelFor(len(s.members), square/len(s.members)*k+1, func(lo, hi int) {
			for b := lo; b < hi; b++ {
				s.gram[b] = gapGram(probs, k, labels, s.members[b])
			}
		})
	}
	return s, nil
}

// gapGram is the Gram matrix of the gap vectors p_i − onehot(y_i) of the
// samples idx: p_i·p_j − p_i[y_j] − p_j[y_i] + [y_i = y_j].
func gapGram(probs []float64, k int, labels []int, idx []int) []float64 {
	g := make([]float64, len(idx)*len(idx))
	for a, i := range idx {
		pi := probs[i*k : (i+1)*k]
		for b, j := range idx[:a+1] {
			pj := probs[j*k : (j+1)*k]
			d := 0.0
			for c, v := range pi {
				d += v * pj[c]
			}
			d -= pi[labels[j]] + pj[labels[i]]
			if labels[i] == labels[j] {
				d++
			}
			g[a*len(idx)+b], g[b*len(idx)+a] = d, d
		}
	}
	return g
}

// stats returns the statistics of the resample with multiplicities m and
// column sums colSum = mᵀP, by the names statistics gives them.
func (s *resampled) stats(m []int32, colSum []float64) map[string]float64 {
	n, k, o := s.n, s.k, s.o
	top := Calibration{N: n, Bins: make([]Bin, s.nb)}
	cw := Classwise{Classes: make([]Calibration, k)}
	for c := range cw.Classes {
		cw.Classes[c] = Calibration{N: n, Bins: make([]Bin, s.nb)}
	}
	labelCount := make([]float64, k)
	var acc, nll, brier float64
	for i, mi := range m {
		if mi == 0 {
			continue
		}
		w := float64(mi)
		acc += w * s.correct[i]
		nll += w * s.nll[i]
		brier += w * s.brier[i]
		y := s.labels[i]
		labelCount[y] += w
		if j := s.topBin[i]; j >= 0 {
			b := &top.Bins[j]
			b.Count += int(mi)
			b.Conf += w * s.conf[i]
			b.Acc += w * s.correct[i]
		} else {
			top.Unbinned += int(mi)
		}
		for e := s.rowStart[i]; e < s.rowStart[i+1]; e++ {
			c := s.entClass[e]
			cal := &cw.Classes[c]
			is := 0.0
			if int(c) == y {
				is = w
			}
			if j := s.entBin[e]; j >= 0 {
				b := &cal.Bins[j]
				b.Count += int(mi)
				b.Conf += w * s.entP[e]
				b.Acc += is
			} else {
				cal.Unbinned += int(mi)
			}
			// Taken out of the lowest bin, which starts as every entry.
			b0 := &cal.Bins[0]
			b0.Count -= int(mi)
			b0.Conf -= w * s.entP[e]
			b0.Acc -= is
		}
	}
	finish(&top, s.edges, o)
	for c := range cw.Classes {
		cal := &cw.Classes[c]
		b0 := &cal.Bins[0]
		b0.Count += n
		b0.Conf += colSum[c]
		b0.Acc += labelCount[c]
		finish(cal, s.edges, o)
		cw.Error += cal.Error
	}
	if !o.SumClasses {
		cw.Error /= float64(k)
	}
	inv := 1 / float64(n)
	st := map[string]float64{
		"acc": acc * inv, "nll": nll * inv, "brier": brier * inv, "ece": top.Error, "cwece": cw.Error,
		"_sq_ece": DebiasedSquared(top), "_sq_cwece": DebiasedSquaredClasswise(cw, o.SumClasses),
		"_deb_ece": DebiasedL1(top), "_deb_cwece": DebiasedL1Classwise(cw, o.SumClasses),
	}
	for _, norm := range []struct {
		name string
		norm Norm
	}{{"mce", Max}, {"ece_l2", L2}} {
		agg := aggregator{norm: norm.norm, n: float64(n)}
		for _, b := range top.Bins {
			if b.Used {
				agg.add(b.Count, b.Gap())
			}
		}
		st[norm.name] = agg.value()
	}
	st["debiased_ece_l2"] = math.Sqrt(max(st["_sq_ece"], 0))
	st["_deb_ece_l2"] = st["debiased_ece_l2"]
	if s.canonical {
		s.canonicalStats(m, st)
	}
	return st
}

// canonicalStats adds the canonical error, its debiased square and its
// bias-corrected estimate of the resample m to st: per bin the count, the
// norm of the summed gap vectors (from the Gram matrix, or summed) and the
// label frequencies' spread.
func (s *resampled) canonicalStats(m []int32, st map[string]float64) {
	k, n := s.k, s.n
	agg := aggregator{norm: s.o.Norm, n: float64(n)}
	var sq, deb float64
	labelCount := make([]float64, k)
	var drawn []int // positions in the bin of its drawn samples
	var sum, wv []float64
	for b, idx := range s.members {
		count := 0
		drawn = drawn[:0]
		for a, i := range idx {
			if m[i] > 0 {
				count += int(m[i])
				labelCount[s.labels[i]] += float64(m[i])
				drawn = append(drawn, a)
			}
		}
		if count == 0 {
			continue
		}
		cnt := float64(count)
		spread := 1.0
		for _, a := range drawn {
			if l := labelCount[s.labels[idx[a]]]; l > 0 {
				spread -= (l / cnt) * (l / cnt)
				labelCount[s.labels[idx[a]]] = 0
			}
		}
		norm2 := 0.0
		if s.gram != nil {
			// wᵀGw over the lower triangle, w the bin's multiplicities.
			g, w := s.gram[b], len(idx)
			if cap(wv) < w {
				wv = make([]float64, w)
			}
			wv = wv[:w]
			for a, i := range idx {
				wv[a] = float64(m[i])
			}
			for _, a := range drawn {
				row := 0.0
				for c, v := range g[a*w : a*w+a] {
					row += wv[c] * v
				}
				norm2 += wv[a] * (2*row + wv[a]*g[a*w+a])
			}
		} else {
			if sum == nil {
				sum = make([]float64, k)
			}
			clear(sum)
			p := tensor.HostData(s.probs)
			for _, a := range drawn {
				i := idx[a]
				w := float64(m[i])
				for c, v := range p[i*k : (i+1)*k] {
					sum[c] += w * v
				}
				sum[s.labels[i]] -= w
			}
			for _, v := range sum {
				norm2 += v * v
			}
		}
		err := math.Sqrt(max(norm2, 0)) / cnt
		agg.add(count, err)
		deb += debiasedVecBin(count, n, err, spread, max(k-1, 1))
		if count >= 2 {
			sq += cnt / float64(n) * (err*err - spread/(cnt-1))
		}
	}
	st["canonical_ece"], st["_sq_canonical_ece"], st["_deb_canonical_ece"] = agg.value(), sq, deb
}

// resampleChunk is how many resamples share one GEMM of column sums.
const resampleChunk = 32

// resampleAll draws reps resamples of n samples from rng as Resample does
// and passes the statistics of every set on each resample to keep, in
// the order of the resamples (all sets see the same ones): a chunk of
// resamples at a time, its column sums one GEMM a set, its resamples over
// the cores.
func resampleAll(sets []*resampled, n, reps int, rng *rand.Rand, keep func(set int, st map[string]float64)) {
	// Two buffers of multiplicities: the next chunk is drawn while the
	// last one is summed.
	var mult [2][]int32
	for b := range mult {
		mult[b] = make([]int32, resampleChunk*n)
	}
	mf := make([]float64, resampleChunk*n)
	flush := func(mult []int32, count int) {
		for i := range mf[:count*n] {
			mf[i] = float64(mult[i])
		}
		m := tensor.Wrap(mf[:count*n], count, n)
		for set, s := range sets {
			cols := tensor.HostData(tensor.MatMul(m, s.probs))
			out := make([]map[string]float64, count)
			tensor.ParallelFor(count, n*4, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					out[r] = s.stats(mult[r*n:(r+1)*n], cols[r*s.k:(r+1)*s.k])
				}
			})
			for _, st := range out {
				keep(set, st)
			}
		}
	}
	var inFlight chan struct{}
	wait := func() {
		if inFlight != nil {
			<-inFlight
		}
	}
	start, cur := 0, 0
	Resample(n, reps, rng, func(r int, idx []int) {
		row := mult[cur][(r-start)*n : (r-start+1)*n]
		clear(row)
		for _, i := range idx {
			row[i]++
		}
		if count := r - start + 1; count == resampleChunk || r == reps-1 {
			wait()
			done, buf := make(chan struct{}), mult[cur]
			go func() {
				flush(buf, count)
				close(done)
			}()
			inFlight, start, cur = done, r+1, 1-cur
		}
	})
	wait()
}
