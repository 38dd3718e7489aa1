package metrics

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ecl-go/ecl/internal/vec"
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
	n, k    int
	o       Options
	labels  []int
	probs   *tensor.Tensor[float64] // [n, k]
	edges   []float64
	nb      int // bins per calibration
	topBin  []int
	conf    []float64
	correct []float64
	nll     []float64
	brier   []float64
	// The class-wise entries outside the lowest bin, grouped by class and
	// bin (in sample order within a group, so that a bin's sums add as
	// a pass over the samples would): group g is class groups[g].class,
	// bin groups[g].bin (−1: in no bin), its entries [start, end) of
	// entSample (the sample), entP (its score) and entIs (1 where the
	// class is the sample's label).
	groups    []entryGroup
	entSample []int32
	entP      []float64
	entIs     []float64
	canonical bool
	can       Canonical // the full sample's bins: anchors and assignment
	members   [][]int   // samples of each canonical bin
	gram      [][]float64
}

// fastResample reports whether o's bin edges are fixed, so that newResampled
// serves it.
func fastResample(o Options) bool { return o.Scheme == EqualWidth }

// entryGroup is the class-wise entries of one class and bin.
type entryGroup struct{ class, bin, start, end int }

// group sorts the entries by key (class·(bins+1) + bin+1), stably, into
// s's groups.
func (s *resampled) group(key, sample []int32, p []float64) {
	start := make([]int, s.k*(s.nb+1)+1)
	for _, g := range key {
		start[g+1]++
	}
	for g := range len(start) - 1 {
		start[g+1] += start[g]
	}
	s.entSample, s.entP, s.entIs = make([]int32, len(key)), make([]float64, len(key)), make([]float64, len(key))
	next := slices.Clone(start)
	for e, g := range key {
		at := next[g]
		next[g]++
		s.entSample[at], s.entP[at] = sample[e], p[e]
		if c := int(g) / (s.nb + 1); s.labels[sample[e]] == c {
			s.entIs[at] = 1
		}
	}
	for g := range len(start) - 1 {
		if start[g] < start[g+1] {
			s.groups = append(s.groups, entryGroup{class: g / (s.nb + 1), bin: g%(s.nb+1) - 1, start: start[g], end: start[g+1]})
		}
	}
}

func newResampled(probs []float64, k int, labels []int, o Options, canonical bool) (*resampled, error) {
	o, err := o.check("BootstrapReport")
	if err != nil {
		return nil, err
	}
	n := len(labels)
	conf, correct := TopLabel(probs, k, labels)
	edges, index := binning(conf, o)
	s := &resampled{n: n, k: k, o: o, labels: labels, probs: tensor.Wrap(probs, n, k), edges: edges, nb: binCount(edges, o),
		topBin: make([]int, n), conf: conf, correct: correct, nll: make([]float64, n), brier: make([]float64, n), canonical: canonical}
	var entKey []int32 // class·(bins+1) + bin+1 of each entry, in sample order
	var entSample []int32
	var entP []float64
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
				entKey, entSample, entP = append(entKey, int32(c*(s.nb+1)+j+1)), append(entSample, int32(i)), append(entP, p)
			}
		}
	}
	s.group(entKey, entSample, entP)
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

// stats returns the statistics of the resample with multiplicities m,
// column sums colSum = mᵀP and, where s has Gram matrices, the canonical
// bins' squared gap norms binNorms (canonicalNorms), by the names
// statistics gives them.
func (s *resampled) stats(m []int32, colSum, binNorms []float64) map[string]float64 {
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
	}
	for _, g := range s.groups {
		count := 0
		var conf, acc float64
		for e := g.start; e < g.end; e++ {
			if mi := m[s.entSample[e]]; mi != 0 {
				count += int(mi)
				conf += float64(mi) * s.entP[e]
				acc += float64(mi) * s.entIs[e]
			}
		}
		cal := &cw.Classes[g.class]
		if g.bin >= 0 {
			b := &cal.Bins[g.bin]
			b.Count += count
			b.Conf += conf
			b.Acc += acc
		} else {
			cal.Unbinned += count
		}
		// Taken out of the lowest bin, which starts as every entry.
		b0 := &cal.Bins[0]
		b0.Count -= count
		b0.Conf -= conf
		b0.Acc -= acc
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
		s.canonicalStats(m, st, binNorms)
	}
	return st
}

// canonicalStats adds the canonical error, its debiased square and its
// bias-corrected estimate of the resample m to st: per bin the count, the
// norm of the summed gap vectors (binNorms, from canonicalNorms) and the
// label frequencies' spread.
func (s *resampled) canonicalStats(m []int32, st map[string]float64, binNorms []float64) {
	k, n := s.k, s.n
	agg := aggregator{norm: s.o.Norm, n: float64(n)}
	var sq, deb float64
	labelCount := make([]float64, k)
	var drawn []int // positions in the bin of its drawn samples
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
		err := math.Sqrt(max(binNorms[b], 0)) / cnt
		agg.add(count, err)
		deb += debiasedVecBin(count, n, err, spread, max(k-1, 1))
		if count >= 2 {
			sq += cnt / float64(n) * (err*err - spread/(cnt-1))
		}
	}
	st["canonical_ece"], st["_sq_canonical_ece"], st["_deb_canonical_ece"] = agg.value(), sq, deb
}

// canonicalNorms returns the squared norms ‖Σ_i m_i·g_i‖² of each
// canonical bin's gap vectors g_i = p_i − onehot(y_i) under the count
// resamples of mf [count, n] (multiplicities), [count, bins]. Per bin it
// is GEMMs, the bin read once for the chunk, not once a resample: where s
// keeps Gram matrices, W·G for the bin's multiplicities W [count, w] and
// Gram matrix G [w, w], each resample's norm its row's dot with W's;
// else W·Gaps, the sums themselves, canonicalPiece members at a time.
func (s *resampled) canonicalNorms(mf []float64, count int) []float64 {
	bins, k := len(s.members), s.k
	out := make([]float64, count*bins)
	tensor.ParallelFor(bins, count*s.n/max(bins, 1)*k/8+1, func(lo, hi int) {
		if s.gram != nil {
			for b := lo; b < hi; b++ {
				idx := s.members[b]
				w := len(idx)
				if w == 0 {
					continue
				}
				mw := s.binMultiplicities(nil, mf, count, idx)
				t := tensor.HostData(tensor.MatMul(tensor.Wrap(mw, count, w), tensor.Wrap(s.gram[b], w, w)))
				for r := range count {
					out[r*bins+b] = vec.Dot(mw[r*w:(r+1)*w], t[r*w:(r+1)*w])
				}
			}
			return
		}
		probs := tensor.HostData(s.probs)
		var mw, gaps []float64
		sums := tensor.Zeros[float64](count, k)
		part := tensor.Zeros[float64](count, k)
		for b := lo; b < hi; b++ {
			sum := tensor.HostData(sums)
			clear(sum)
			for a := 0; a < len(s.members[b]); a += canonicalPiece {
				idx := s.members[b][a:min(a+canonicalPiece, len(s.members[b]))]
				w := len(idx)
				mw = s.binMultiplicities(mw, mf, count, idx)
				gaps = append(gaps[:0], make([]float64, w*k)...)
				for a, i := range idx {
					g := gaps[a*k : (a+1)*k]
					copy(g, probs[i*k:(i+1)*k])
					g[s.labels[i]]--
				}
				t := tensor.HostData(tensor.MatMulTo(part, tensor.Wrap(mw, count, w), tensor.Wrap(gaps, w, k)))
				for j, v := range t {
					sum[j] += v
				}
			}
			for r := range count {
				row := sum[r*k : (r+1)*k]
				out[r*bins+b] = vec.Dot(row, row)
			}
		}
	})
	return out
}

// binMultiplicities returns, in buf (grown as needed), the multiplicities
// [count, len(idx)] of the samples idx under the count resamples of mf.
func (s *resampled) binMultiplicities(buf, mf []float64, count int, idx []int) []float64 {
	w := len(idx)
	buf = append(buf[:0], make([]float64, count*w)...)
	for r := range count {
		row := mf[r*s.n:]
		for a, i := range idx {
			buf[r*w+a] = row[i]
		}
	}
	return buf
}

// canonicalPiece is how many of a canonical bin's samples canonicalNorms
// gathers for one GEMM where s keeps no Gram matrices.
const canonicalPiece = 2048

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
			norms := s.canonicalNorms(mf[:count*n], count)
			out := make([]map[string]float64, count)
			tensor.ParallelFor(count, n*4, func(lo, hi int) {
				for r := lo; r < hi; r++ {
					out[r] = s.stats(mult[r*n:(r+1)*n], cols[r*s.k:(r+1)*s.k], norms[r*len(s.members):(r+1)*len(s.members)])
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
