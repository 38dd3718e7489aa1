package calib

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/ecl/baselines"
	"github.com/ecl-go/ecl/tensor"
)

// The references below are the forms the rows-based code replaced, kept to
// check that it computes the same bits: the log-softmax materialised, one
// GEMM over all rows, the folds and held-out rows copied, the class-major
// scores of every class at once, a second n×k array for one-vs-rest.

// logSoftmaxCopy is the row-wise log-softmax of logits [n, k] as a new
// array, a row at a time.
func logSoftmaxCopy(logits []float64, k int) []float64 {
	out, p := make([]float64, len(logits)), make([]float64, k)
	for i := 0; i < len(logits); i += k {
		lse := softmaxRow(p, logits[i:i+k])
		for j, v := range logits[i : i+k] {
			out[i+j] = v - lse
		}
	}
	return out
}

// affineOutWhole is W·x + b for the rows of x [n, d] by one GEMM over all
// of them.
func affineOutWhole(x []float64, d int, w, b []float64, diag bool) []float64 {
	k, n := len(b), len(x)/d
	if n == 0 {
		return []float64{}
	}
	var z []float64
	if diag {
		z = make([]float64, n*k)
	} else {
		z = tensor.HostData(tensor.MatMul(tensor.Wrap(x, n, d), tensor.Transpose(tensor.Wrap(w, k, d), 0, 1)))
	}
	for s := range n {
		zr, xr := z[s*k:(s+1)*k], x[s*d:(s+1)*d]
		for i := range zr {
			if diag {
				zr[i] = w[i]*xr[i] + b[i]
			} else {
				zr[i] += b[i]
			}
		}
	}
	return z
}

// fitAffineCVCopies is FitAffineCV with the inputs materialised and each
// fold's rows copied, on the current solve.
func fitAffineCVCopies(m string, logits []float64, k int, labels []int, s ODIRSearch) (*Affine, error) {
	c := affineMap(m)
	n := len(labels)
	folds := s.Folds
	if folds == 0 {
		folds = DefaultODIRFolds
	}
	fold, err := StratifiedFolds(labels, folds, s.Seed)
	if err != nil {
		return nil, err
	}
	x := logits
	if c.Space == "logprobs" {
		x = logSoftmaxCopy(logits, k)
	}
	type part struct {
		xin, xout   []float64
		yin, yout   []int
		theta, best []float64
	}
	parts := make([]part, folds)
	for i, g := range fold {
		for j := range parts {
			p := &parts[j]
			if j == g {
				p.xout, p.yout = append(p.xout, x[i*k:(i+1)*k]...), append(p.yout, labels[i])
			} else {
				p.xin, p.yin = append(p.xin, x[i*k:(i+1)*k]...), append(p.yin, labels[i])
			}
		}
	}
	cv := &ODIRCV{Folds: folds, Seed: s.Seed}
	best := 0
	for i, v := range ODIRGrid(k) {
		r := ODIR{Lambda: v, Mu: v}
		if c.Diagonal {
			r.Lambda = 0
		}
		nll := 0.0
		for j := range parts {
			p := &parts[j]
			if p.theta, err = c.solve(rows{x: p.xin, d: k}, k, p.yin, r, p.theta, s.Iterations); err != nil {
				return nil, err
			}
			cv.Fits++
			nll += nllWhole(c, p.theta, p.xout, k, p.yout)
		}
		cv.Path = append(cv.Path, ODIRPoint{ODIR: r, NLL: nll / float64(n)})
		if i == 0 || cv.Path[i].NLL < cv.Path[best].NLL {
			best = i
			for j := range parts {
				parts[j].best = parts[j].theta
			}
		} else if i-best >= odirPatience {
			break
		}
	}
	start := make([]float64, len(parts[0].best))
	for _, p := range parts {
		for i, v := range p.best {
			start[i] += v / float64(folds)
		}
	}
	r := cv.Path[best].ODIR
	theta, err := c.solve(rows{x: x, d: k}, k, labels, r, start, s.Iterations)
	if err != nil {
		return nil, err
	}
	cv.Fits++
	c.CV = cv
	return c.set("fitAffineCVCopies", theta, k, r)
}

// nllWhole is Affine.nll on materialised inputs by affineOutWhole.
func nllWhole(c *Affine, theta, x []float64, k int, labels []int) float64 {
	nw := c.nparams(k)
	z := affineOutWhole(x, k, theta[:nw], theta[nw:], c.Diagonal)
	s := 0.0
	for i, y := range labels {
		zr := z[i*k : (i+1)*k]
		zy := zr[y]
		s += softmaxRow(zr, zr) - zy
	}
	return s
}

// perClassWhole is the probabilities of every fitted class, class-major
// in one n×k array, and ownScoresCopy those of each class's own samples.
func perClassWhole(logits []float64, k int) [][]float64 {
	n := len(logits) / k
	p := make([]float64, len(logits))
	for i := range n {
		softmaxRow(p[i*k:(i+1)*k], logits[i*k:(i+1)*k])
	}
	cols := make([]float64, n*k)
	for i := range n {
		for c := range k {
			cols[c*n+i] = p[i*k+c]
		}
	}
	scores := make([][]float64, fittedClasses(k))
	for c := range scores {
		class := c
		if k == 2 {
			class = 1
		}
		scores[c] = cols[class*n : (class+1)*n : (class+1)*n]
	}
	return scores
}

func ownScoresCopy(scores [][]float64, k int, labels []int) [][]float64 {
	own := make([][]float64, len(scores))
	for i, y := range labels {
		c := y
		if k == 2 {
			if y != 1 {
				continue
			}
			c = 0
		}
		own[c] = append(own[c], scores[c][i])
	}
	return own
}

// oneVsRestCopy is oneVsRest reading the softmax from a second array.
func oneVsRestCopy(logits []float64, k int, maps []func(float64) float64) []float64 {
	p := Softmax(logits, k)
	out := make([]float64, len(p))
	for i := 0; i < len(p); i += k {
		if k == 2 {
			q := min(max(maps[0](p[i+1]), 0), 1)
			out[i], out[i+1] = 1-q, q
			continue
		}
		s := 0.0
		for c := range k {
			out[i+c] = max(maps[c](p[i+c]), 0)
			s += out[i+c]
		}
		if s == 0 {
			copy(out[i:i+k], p[i:i+k])
			continue
		}
		for c := range k {
			out[i+c] /= s
		}
	}
	return out
}

// crossFitCopies is CrossFit with each fold's held-out rows copied
// (FitData.Subset) and calibrated by ApplyTopLabel.
func crossFitCopies(m string, f FitData, fold []int, folds int, o FitOptions) (conf, correct []float64, err error) {
	conf, correct = make([]float64, len(f.Labels)), make([]float64, len(f.Labels))
	for g := range folds {
		var in, out []int
		for i, fg := range fold {
			if fg == g {
				out = append(out, i)
			} else {
				in = append(in, i)
			}
		}
		cg, err := Fit(m, f.Subset(in), o)
		if err != nil {
			return nil, nil, err
		}
		held := f.Subset(out)
		cc, ok, err := ApplyTopLabel(cg, held.Logits, f.K, held.Labels)
		if err != nil {
			return nil, nil, err
		}
		for j, i := range out {
			conf[i], correct[i] = cc[j], ok[j]
		}
	}
	return conf, correct, nil
}

// sameBits reports the first index where a and b differ in bits (or
// length), -1 if none.
func sameBits(a, b []float64) int {
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	for i := range a {
		if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
			return i
		}
	}
	return -1
}

// randomLogits is n rows of k logits with spread 3 and labels.
func randomLogits(r *rand.Rand, n, k int) ([]float64, []int) {
	x, y := make([]float64, n*k), make([]int, n)
	for i := range x {
		x[i] = 3 * r.NormFloat64()
	}
	for i := range y {
		y[i] = r.IntN(k)
	}
	return x, y
}

// Rows read with a shift are the materialised log-softmax, and rows picked
// by index the copied rows, bit for bit: the log-sum-exps, blocks of rows,
// affineOut against one GEMM over all rows, and the affine loss's value
// and gradient, over more rows than linearRows.
func TestRowsMatchCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 1))
	for _, c := range []struct {
		n, k int
		diag bool
	}{{1, 3, false}, {37, 5, true}, {linearRows + 5, 6, false}, {2*linearRows + 77, 4, true}, {300, 40, false}} {
		logits, y := randomLogits(r, c.n, c.k)
		ls := logSoftmaxCopy(logits, c.k)
		shifted := rows{x: logits, d: c.k, shift: rowLSE(logits, c.k)}
		if i := sameBits(logSoftmax(logits, c.k), ls); i >= 0 {
			t.Fatalf("%+v: logSoftmax differs at %d", c, i)
		}
		if i := sameBits(shifted.block(0, c.n, shifted.buffer(c.n)), ls); i >= 0 {
			t.Fatalf("%+v: shifted rows differ from the log-softmax at %d", c, i)
		}
		// Every third row, in reverse, picked and shifted, against copies.
		var idx []int
		var picked []float64
		var yp []int
		for i := c.n - 1; i >= 0; i -= 3 {
			idx, picked, yp = append(idx, i), append(picked, ls[i*c.k:(i+1)*c.k]...), append(yp, y[i])
		}
		pick := shifted
		pick.idx = idx
		nw := c.k * c.k
		if c.diag {
			nw = c.k
		}
		theta := make([]float64, nw+c.k)
		for i := range theta {
			theta[i] = r.NormFloat64() / 2
		}
		w, b := theta[:nw], theta[nw:]
		for _, v := range []struct {
			name string
			x    rows
			ref  []float64
			y    []int
		}{{"shifted", shifted, ls, y}, {"picked", pick, picked, yp}, {"in place", rows{x: ls, d: c.k}, ls, y}} {
			if i := sameBits(affineOut(v.x, w, b, c.diag), affineOutWhole(v.ref, c.k, w, b, c.diag)); i >= 0 {
				t.Fatalf("%+v %s: affineOut differs from one GEMM at %d", c, v.name, i)
			}
			pen := func(i, j int) float64 { return 0.01 * float64(i+j) }
			g1, g2 := make([]float64, len(theta)), make([]float64, len(theta))
			f1 := linearLoss(v.x, c.k, v.y, c.diag, pen, 0.2, nil, nil)(theta, g1)
			f2 := linearLoss(rows{x: v.ref, d: c.k}, c.k, v.y, c.diag, pen, 0.2, nil, nil)(theta, g2)
			if i := sameBits(append(g1, f1), append(g2, f2)); i >= 0 {
				t.Fatalf("%+v %s: loss or gradient differs from the copies' at %d", c, v.name, i)
			}
		}
	}
}

// FitAffineCV with the folds as indices and Dirichlet's inputs shifted
// finds the same path and map, bit for bit, as with copies, and so does
// FitDirichlet's fit.
func TestFitAffineCVMatchesCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 2))
	logits, y := randomLogits(r, 240, 5)
	for _, m := range []string{"vs", "ms", "dirichlet"} {
		s := ODIRSearch{Folds: 3, Seed: 9, Iterations: 15}
		got, err := FitAffineCV(m, logits, 5, y, s)
		if err != nil {
			t.Fatal(err)
		}
		want, err := fitAffineCVCopies(m, logits, 5, y, s)
		if err != nil {
			t.Fatal(err)
		}
		if i := sameBits(append(got.W, got.B...), append(want.W, want.B...)); i >= 0 {
			t.Errorf("%s: parameter %d differs from the copies' fit", m, i)
		}
		if len(got.CV.Path) != len(want.CV.Path) || got.CV.Fits != want.CV.Fits {
			t.Fatalf("%s: path %v, copies' %v", m, got.CV.Path, want.CV.Path)
		}
		for i, p := range got.CV.Path {
			if math.Float64bits(p.NLL) != math.Float64bits(want.CV.Path[i].NLL) {
				t.Errorf("%s: point %d: held-out NLL %v, copies' %v", m, i, p.NLL, want.CV.Path[i].NLL)
			}
		}
	}
	d, err := FitDirichlet(logits, 5, y, ODIR{Lambda: 0.1, Mu: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	ref := affineMap("dirichlet")
	theta, err := ref.solve(rows{x: logSoftmaxCopy(logits, 5), d: 5}, 5, y, ODIR{Lambda: 0.1, Mu: 0.1}, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if i := sameBits(append(d.W, d.B...), theta); i >= 0 || d.Iterations != ref.Iterations {
		t.Errorf("FitDirichlet: parameter %d differs from the fit on the log-softmax (%d and %d iterations)", i, d.Iterations, ref.Iterations)
	}
}

// Isotonic regression and histogram binning fitted a block of classes at
// a time equal those fitted on every class's scores at once, with one
// block (k = 2, 5) and several (k = 2·perClassBlock + 3); one-vs-rest's
// mapping in place equals it on a second array, rows every map sends to
// 0 included.
func TestPerClassMatchesWhole(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 3))
	for _, c := range []struct{ n, k int }{{300, 2}, {500, 5}, {400, 2*perClassBlock + 3}} {
		logits, y := randomLogits(r, c.n, c.k)
		scores := perClassWhole(logits, c.k)
		own := ownScoresCopy(scores, c.k, y)
		iso, err := FitIsotonic(logits, c.k, y)
		if err != nil {
			t.Fatal(err)
		}
		hist, err := FitHistogram(logits, c.k, y, 7, true)
		if err != nil {
			t.Fatal(err)
		}
		for i := range scores {
			s, o := slices.Clone(scores[i]), slices.Clone(own[i])
			ex, ey := histogram(s, o, 7, true)
			kx, ky := pav(scores[i], own[i])
			if sameBits(iso.X[i], kx) >= 0 || sameBits(iso.Y[i], ky) >= 0 {
				t.Fatalf("%+v: isotonic class %d: knots %v %v, whole %v %v", c, i, iso.X[i], iso.Y[i], kx, ky)
			}
			if sameBits(hist.Edges[i], ex) >= 0 || sameBits(hist.Values[i], ey) >= 0 {
				t.Fatalf("%+v: histogram class %d: %v %v, whole %v %v", c, i, hist.Edges[i], hist.Values[i], ex, ey)
			}
		}
		// Maps that send every probability below 0.3 to 0: some rows all 0.
		maps := make([]func(float64) float64, fittedClasses(c.k))
		for i := range maps {
			kx, ky := iso.X[i], iso.Y[i]
			maps[i] = func(p float64) float64 {
				if p < 0.3 {
					return 0
				}
				return interpolate(kx, ky, p)
			}
		}
		got, err := oneVsRest("test", logits, c.k, maps)
		if err != nil {
			t.Fatal(err)
		}
		if i := sameBits(got, oneVsRestCopy(logits, c.k, maps)); i >= 0 {
			t.Fatalf("%+v: oneVsRest differs from the copy's at %d", c, i)
		}
	}
}

// CrossFit's held-out rows by index give the confidences and correctness
// of the copies' form, bit for bit, over more rows than topLabelRows.
func TestCrossFitMatchesCopies(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 4))
	const n, k, folds = 2*topLabelRows + 300, 4, 3
	logits, y := randomLogits(r, n, k)
	f := FitData{Logits: logits, Labels: y, K: k}
	fold := Folds(n, folds, 5)
	for _, m := range []string{"ts", "dirichlet", "isotonic", "hist"} {
		o := FitOptions{HistBins: 10, AffineIterations: 10}
		c1, k1, err := CrossFit(m, f, fold, folds, o)
		if err != nil {
			t.Fatal(err)
		}
		c2, k2, err := crossFitCopies(m, f, fold, folds, o)
		if err != nil {
			t.Fatal(err)
		}
		if i := sameBits(append(c1, k1...), append(c2, k2...)); i >= 0 {
			t.Errorf("%s: differs from the copies' at %d", m, i)
		}
	}
}

// The pseudo-target set's mixed rows, made a block at a time, give the
// top-label confidences and correctness of PseudoMixup's materialised
// set, bit for bit, over more rows than topLabelRows.
func TestPseudoTargetMatchesMixup(t *testing.T) {
	r := rand.New(rand.NewPCG(41, 5))
	const n, k = 3 * topLabelRows, 6
	z, y := randomLogits(r, n, k)
	set, err := PseudoTarget(z, k, 64, 3)
	if err != nil {
		t.Fatal(err)
	}
	mixed, labels, err := baselines.PseudoMixup(z, k, Softmax(z, k), k, 64, 0.65, false, rand.New(rand.NewPCG(3, 0x9c)))
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Pairs) <= topLabelRows || !slices.Equal(set.Labels, labels) {
		t.Fatalf("%d pairs, labels equal %v", len(set.Pairs), slices.Equal(set.Labels, labels))
	}
	d, err := FitDirichlet(z, k, y, ODIR{Lambda: 0.1, Mu: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []Calibrator{&Temperature{T: 1.7}, d} {
		c1, k1, err := set.TopLabel(c, k)
		if err != nil {
			t.Fatal(err)
		}
		c2, k2, err := ApplyTopLabel(c, mixed, k, labels)
		if err != nil {
			t.Fatal(err)
		}
		if i := sameBits(append(c1, k1...), append(c2, k2...)); i >= 0 {
			t.Errorf("%T: differs from the materialised set's at %d", c, i)
		}
	}
}
