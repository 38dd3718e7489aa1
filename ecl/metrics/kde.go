package metrics

import (
	"fmt"
	"math"
	"slices"
	"sync"
)

// KDEMode chooses which calibration ECE^KDE estimates.
type KDEMode int

const (
	// KDECanonical: Dirichlet kernel on the whole probability vector.
	KDECanonical KDEMode = iota
	// KDEMarginal: Beta kernel on each class's probability against 1[y = c],
	// averaged over classes (summed with SumClasses, as Popordanoska's code).
	KDEMarginal
	// KDETopLabel: Beta kernel on (max_k S, 1[argmax S = y]).
	KDETopLabel
	// KDEBinary: Beta kernel on P(y = 1) (k = 1, labels in {0, 1}); the
	// estimate is doubled (it counts both classes), as in the reference.
	KDEBinary
)

// KDEOptions configures ECEKDE.
type KDEOptions struct {
	Mode KDEMode
	// P is the exponent p of the estimated CE_p^p (no root taken); 0 means 1.
	P float64
	// Bandwidth is the kernel bandwidth h; 0 selects it with KDEBandwidth.
	Bandwidth float64
	// SumClasses sums the marginal mode's class errors instead of averaging.
	SumClasses bool
}

// KDEResult is an ECE^KDE estimate and the bandwidth it used.
type KDEResult struct {
	Value     float64
	Bandwidth float64
}

// kdeFloor is the smallest probability the kernels see (rows are clamped to
// it, then renormalised).
const kdeFloor = 1e-10

// kdeParallelRows is the sample count from which the O(n²) loops run on two
// goroutines.
const kdeParallelRows = 256

// BandwidthGrid returns the candidate bandwidths of the reference
// get_bandwidth: logspace(−5, −1, 15) followed by linspace(0.2, 1, 5).
func BandwidthGrid() []float64 {
	g := make([]float64, 0, 20)
	for i := range 15 {
		g = append(g, math.Pow(10, -5+4*float64(i)/14))
	}
	for i := range 5 {
		g = append(g, 0.2+0.2*float64(i))
	}
	return g
}

// ECEKDE returns the kernel estimate of the calibration error CE_p^p of
// Popordanoska et al. (2022): (1/n) Σ_j ‖r_j − f_j‖_p^p with the
// leave-one-out ratio r_j = Σ_{i≠j} k(f_j; f_i) y_i / Σ_{i≠j} k(f_j; f_i),
// where k(z; f_i) is the Dirichlet density with α_i = f_i/h + 1 (the Beta
// density for one probability). Probabilities are clamped at 1e-10 and rows
// renormalised; sums run in log space (log-sum-exp). Needs n ≥ 2 and, except
// in KDEBinary mode, k ≥ 2. Costs O(n²k). When o.Bandwidth is 0 the
// bandwidth is KDEBandwidth(probs, k) in every mode, as the reference code
// calls get_bandwidth on the probability matrix.
func ECEKDE(probs []float64, k int, labels []int, o KDEOptions) (KDEResult, error) {
	const fn = "ECEKDE"
	classes, wantK := k, k >= 2
	if o.Mode == KDEBinary {
		classes, wantK = 2, k == 1
	}
	n, err := validate(fn, probs, k, labels, classes)
	if err != nil {
		return KDEResult{}, err
	}
	switch {
	case o.Mode < KDECanonical || o.Mode > KDEBinary:
		return KDEResult{}, fmt.Errorf("metrics.%s: unknown mode %d", fn, o.Mode)
	case !wantK && o.Mode == KDEBinary:
		return KDEResult{}, fmt.Errorf("metrics.%s: binary mode takes k = 1 (P(y=1)), got k = %d", fn, k)
	case !wantK:
		return KDEResult{}, fmt.Errorf("metrics.%s: %d class, need at least 2 (KDEBinary takes one probability)", fn, k)
	case n < 2:
		return KDEResult{}, fmt.Errorf("metrics.%s: %d sample, the leave-one-out estimate needs at least 2", fn, n)
	case o.P < 0 || math.IsNaN(o.P) || math.IsInf(o.P, 0):
		return KDEResult{}, fmt.Errorf("metrics.%s: exponent p = %v must be positive", fn, o.P)
	case o.Bandwidth < 0 || math.IsNaN(o.Bandwidth) || math.IsInf(o.Bandwidth, 0):
		return KDEResult{}, fmt.Errorf("metrics.%s: bandwidth %v must be positive and finite", fn, o.Bandwidth)
	}
	if o.P == 0 {
		o.P = 1
	}
	h := o.Bandwidth
	if h == 0 {
		if h, err = KDEBandwidth(probs, k); err != nil {
			return KDEResult{}, err
		}
	}
	res := KDEResult{Bandwidth: h}
	switch o.Mode {
	case KDECanonical:
		res.Value = newKernel(clampRows(probs, k), k).ece(labels, h, o.P)
	case KDEBinary:
		res.Value = newKernel(binaryRows(probs), 2).ece(labels, h, o.P)
	case KDETopLabel:
		conf, correct := TopLabel(probs, k, labels)
		res.Value = newKernel(binaryRows(conf), 2).ece(asLabels(correct), h, o.P) / 2
	case KDEMarginal:
		for c := range k {
			col := columns(probs, k, labels, c, c+1)[0]
			res.Value += newKernel(binaryRows(col.p), 2).ece(asLabels(col.is), h, o.P) / 2
		}
		if !o.SumClasses {
			res.Value /= float64(k)
		}
	}
	return res, nil
}

// KDEBandwidth selects the ECE^KDE bandwidth as the reference get_bandwidth
// does: the h of BandwidthGrid maximising the leave-one-out score
// Σ_j [log Σ_{i≠j} k_h(f_j; f_i) − log((n−1)h)] of the Dirichlet kernel on
// the rows of probs (k = 1: the Beta kernel on P(y = 1)); the first h wins
// ties. Unlike the reference, which starts from a best score of 0 and
// returns −1 when every score is negative, it always returns a grid value.
func KDEBandwidth(probs []float64, k int) (float64, error) {
	n, err := validateProbs("KDEBandwidth", probs, k)
	if err != nil {
		return 0, err
	}
	if n < 2 {
		return 0, fmt.Errorf("metrics.KDEBandwidth: %d sample, the leave-one-out likelihood needs at least 2", n)
	}
	var kern kernel
	if k == 1 {
		kern = newKernel(binaryRows(probs), 2)
	} else {
		kern = newKernel(clampRows(probs, k), k)
	}
	grid := BandwidthGrid()
	score := kern.looLogDensity(grid)
	best, bestScore := -1, math.Inf(-1)
	for g, h := range grid {
		if s := score[g] - float64(n)*math.Log(float64(n-1)*h); s > bestScore {
			best, bestScore = g, s
		}
	}
	if best < 0 {
		return 0, fmt.Errorf("metrics.KDEBandwidth: no bandwidth of the grid gives a finite likelihood")
	}
	return grid[best], nil
}

// clampRows clamps every entry of the rows (d columns) at kdeFloor and
// renormalises each row to sum 1.
func clampRows(probs []float64, d int) []float64 {
	z := make([]float64, len(probs))
	for i := 0; i < len(z); i += d {
		s := 0.0
		for c := range d {
			z[i+c] = max(probs[i+c], kdeFloor)
			s += z[i+c]
		}
		for c := range d {
			z[i+c] /= s
		}
	}
	return z
}

// binaryRows turns probabilities p into clamped rows (1 − p, p), so that the
// Dirichlet kernel on them is the Beta kernel on p.
func binaryRows(p []float64) []float64 {
	z := make([]float64, 2*len(p))
	for i, v := range p {
		z[2*i], z[2*i+1] = 1-v, v
	}
	return clampRows(z, 2)
}

// asLabels turns 0/1 outcomes into class indices.
func asLabels(outcome []float64) []int {
	y := make([]int, len(outcome))
	for i, v := range outcome {
		y[i] = int(v)
	}
	return y
}

// kernel is the Dirichlet kernel on n clamped rows z of d probabilities:
// log k_h(z_j; z_i) = Σ_c (z_ic/h) log z_jc − log B(z_i/h + 1), where
// α_i − 1 = z_i/h. The first term is cross(j)[i]/h, independent of h.
type kernel struct {
	z, logz []float64
	n, d    int
}

func newKernel(z []float64, d int) kernel {
	logz := make([]float64, len(z))
	for i, v := range z {
		logz[i] = math.Log(v)
	}
	return kernel{z: z, logz: logz, n: len(z) / d, d: d}
}

// logBeta returns log B(z_i/h + 1) for every row i.
func (k kernel) logBeta(h float64) []float64 {
	lb := make([]float64, k.n)
	for i := range k.n {
		sum, total := 0.0, 0.0
		for _, v := range k.z[i*k.d : (i+1)*k.d] {
			a := v/h + 1
			lg, _ := math.Lgamma(a)
			sum += lg
			total += a
		}
		lgTotal, _ := math.Lgamma(total)
		lb[i] = sum - lgTotal
	}
	return lb
}

// cross fills out[i] = Σ_c z_ic log z_jc for every row i.
func (k kernel) cross(j int, out []float64) {
	lz := k.logz[j*k.d : (j+1)*k.d]
	for i := range k.n {
		s := 0.0
		for c, v := range k.z[i*k.d : (i+1)*k.d] {
			s += v * lz[c]
		}
		out[i] = s
	}
}

// forRows calls row(j, scratch) for every row, on two goroutines when n is
// large; scratch is a 2n-vector owned by the calling goroutine.
func (k kernel) forRows(row func(j int, scratch []float64)) {
	run := func(lo, hi int) {
		scratch := make([]float64, 2*k.n)
		for j := lo; j < hi; j++ {
			row(j, scratch)
		}
	}
	if k.n < kdeParallelRows {
		run(0, k.n)
		return
	}
	var wg sync.WaitGroup
	wg.Go(func() { run(0, k.n/2) })
	run(k.n/2, k.n)
	wg.Wait()
}

// looLogDensity returns, for each bandwidth h of grid, Σ_j log Σ_{i≠j}
// k_h(z_j; z_i).
//
// The cost stays O(n²) per bandwidth: the inner sums are sums of
// exponentials of inner products (Σ_c z_ic log z_jc)/h − log B_i, which
// have no exact sub-quadratic form; logSumExp takes them in vector
// registers where the CPU has them.
func (k kernel) looLogDensity(grid []float64) []float64 {
	lbs := make([][]float64, len(grid))
	for g, h := range grid {
		lbs[g] = k.logBeta(h)
	}
	perRow := make([]float64, k.n*len(grid)) // row-major [n][len(grid)]
	k.forRows(func(j int, scratch []float64) {
		cross, buf := scratch[:k.n], scratch[k.n:]
		k.cross(j, cross)
		cross[j] = math.Inf(-1) // leave j out: its term is e^−∞ = 0
		for g, h := range grid {
			perRow[j*len(grid)+g] = logSumExp(cross, lbs[g], buf, h)
		}
	})
	score := make([]float64, len(grid))
	for j := range k.n {
		for g := range grid {
			score[g] += perRow[j*len(grid)+g]
		}
	}
	return score
}

// ece returns (1/n) Σ_j Σ_c |r_jc − z_jc|^p with the leave-one-out kernel
// ratios r_j of the one-hot labels (labels index the d columns). The rows
// are taken class by class, so that each class's sum of kernel weights is
// one run of sumExp.
func (k kernel) ece(labels []int, h, p float64) float64 {
	order, start := byLabel(labels, k.d)
	s := kernel{z: make([]float64, len(k.z)), logz: make([]float64, len(k.logz)), n: k.n, d: k.d}
	for r, i := range order {
		copy(s.z[r*k.d:(r+1)*k.d], k.z[i*k.d:(i+1)*k.d])
		copy(s.logz[r*k.d:(r+1)*k.d], k.logz[i*k.d:(i+1)*k.d])
	}
	lb := s.logBeta(h)
	perRow := make([]float64, k.n) // in the original order
	s.forRows(func(j int, scratch []float64) {
		w, buf := scratch[:k.n], scratch[k.n:]
		s.cross(j, w)
		w[j] = math.Inf(-1) // leave j out: its weight is e^−∞ = 0
		m := scaleMax(w, lb, buf, h)
		num := make([]float64, k.d)
		den := 0.0
		for c := range num {
			num[c] = sumExp(buf[start[c]:start[c+1]], m)
			den += num[c]
		}
		err := 0.0
		for c, v := range s.z[j*k.d : (j+1)*k.d] {
			err += math.Pow(math.Abs(num[c]/den-v), p)
		}
		perRow[order[j]] = err
	})
	total := 0.0
	for _, v := range perRow {
		total += v
	}
	return total / float64(k.n)
}

// byLabel returns the sample indices ordered by label (stable), and where
// each of the d labels' run starts in them (start[d] = len(labels)).
func byLabel(labels []int, d int) (order, start []int) {
	start = make([]int, d+1)
	for _, y := range labels {
		start[y+1]++
	}
	for c := range d {
		start[c+1] += start[c]
	}
	order = make([]int, len(labels))
	next := slices.Clone(start[:d])
	for i, y := range labels {
		order[next[y]] = i
		next[y]++
	}
	return order, start
}
