package calib

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// heldOut is the mean −ln p(label) and the accuracy of probabilities p.
func heldOut(p []float64, k int, labels []int) (nll, acc float64) {
	for i, y := range labels {
		row := p[i*k : (i+1)*k]
		nll -= math.Log(row[y])
		best := 0
		for j, v := range row {
			if v > row[best] {
				best = j
			}
		}
		if best == y {
			acc++
		}
	}
	return nll / float64(len(labels)), acc / float64(len(labels))
}

// overfitSet is 20-class logits of sd 3 with labels from softmax(z/2): the
// true calibration map is a temperature (diagonal), so a full map's 420
// parameters fitted on 2,000 samples have only noise off the diagonal.
func overfitSet(seed uint64, n int) (z []float64, y []int) {
	const k = 20
	rng := rand.New(rand.NewPCG(seed, 3))
	z = gaussianLogits(rng, n, k, 3)
	return z, labelsFrom(rng, temperatureScaled(z, k, 2), k)
}

// On a set where a full map overfits, the cross-validated penalty does no
// worse on fresh samples than the fixed 10⁻³, in NLL and accuracy, and
// keeps the uncalibrated accuracy to within a point.
func TestODIRCVBeatsFixedPenaltyOnFreshData(t *testing.T) {
	const k = 20
	z, y := overfitSet(1, 2000)
	zt, yt := overfitSet(2, 4000)
	_, uncalAcc := heldOut(Softmax(zt, k), k, yt)
	f := FitData{Logits: z, Labels: y, K: k}
	for _, m := range []string{"ms", "dirichlet"} {
		fixed, err := Fit(m, f, FitOptions{ODIR: ODIR{Lambda: 1e-3, Mu: 1e-3}})
		if err != nil {
			t.Fatal(err)
		}
		cv, err := Fit(m, f, FitOptions{ODIRCV: &ODIRSearch{Seed: 1}})
		if err != nil {
			t.Fatal(err)
		}
		pf, _ := fixed.Apply(zt, k)
		pc, _ := cv.Apply(zt, k)
		nllF, accF := heldOut(pf, k, yt)
		nllC, accC := heldOut(pc, k, yt)
		a := cv.(*Affine)
		t.Logf("%s: fixed NLL %.4f acc %.4f; CV (λ %g, μ %g, %d fits) NLL %.4f acc %.4f; uncal acc %.4f", m, nllF, accF, a.ODIR.Lambda, a.ODIR.Mu, a.CV.Fits, nllC, accC, uncalAcc)
		if !(nllC <= nllF) || !(accC >= accF) || !(accC >= uncalAcc-0.01) {
			t.Errorf("%s: held-out NLL %.4f, accuracy %.4f with CV; %.4f, %.4f at 10⁻³; uncalibrated accuracy %.4f", m, nllC, accC, nllF, accF, uncalAcc)
		}
	}
}

// The folds put every class's samples and every fold's share within one of
// each other, and depend on the seed alone.
func TestStratifiedFolds(t *testing.T) {
	var y []int
	for c, count := range []int{1, 7, 23, 50, 4} {
		for range count {
			y = append(y, c)
		}
	}
	rng := rand.New(rand.NewPCG(5, 5))
	rng.Shuffle(len(y), func(i, j int) { y[i], y[j] = y[j], y[i] })
	const folds = 5
	fold, err := StratifiedFolds(y, folds, 9)
	if err != nil {
		t.Fatal(err)
	}
	spread := func(xs []int) int { return slices.Max(xs) - slices.Min(xs) }
	size := make([]int, folds)
	perClass := make([][]int, 5)
	for c := range perClass {
		perClass[c] = make([]int, folds)
	}
	for i, g := range fold {
		size[g]++
		perClass[y[i]][g]++
	}
	if spread(size) > 1 {
		t.Errorf("fold sizes %v", size)
	}
	for c, cs := range perClass {
		if spread(cs) > 1 {
			t.Errorf("class %d across the folds: %v", c, cs)
		}
	}
	again, _ := StratifiedFolds(y, folds, 9)
	other, _ := StratifiedFolds(y, folds, 10)
	if !slices.Equal(fold, again) || slices.Equal(fold, other) {
		t.Errorf("folds not a function of the seed")
	}
	for _, bad := range []int{1, len(y) + 1} {
		if _, err := StratifiedFolds(y, bad, 9); err == nil {
			t.Errorf("%d folds for %d samples accepted", bad, len(y))
		}
	}
}

// Warm starts change where the optimiser starts, not where it ends: along
// one fold's path and for the final fit, the objective at the chosen point
// is a cold fit's to 10⁻⁶.
func TestODIRCVWarmStartMatchesColdFit(t *testing.T) {
	const k = 20
	z, y := overfitSet(3, 1000)
	c, err := FitAffineCV("dirichlet", z, k, y, ODIRSearch{Folds: 3, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	r := *c.ODIR
	if n := len(c.CV.Path); c.CV.Fits != 3*n+1 || n > len(ODIRGrid(k)) {
		t.Errorf("%d fits for %d points of 3 folds", c.CV.Fits, n)
	}
	relDiff := func(a, b float64) float64 { return math.Abs(a-b) / math.Abs(b) }
	x := logSoftmax(z, k)
	obj := func(x []float64, y []int, theta []float64) float64 {
		return c.objective(rows{x: x, d: k}, k, y, r)(theta, make([]float64, len(theta)))
	}
	cold, err := FitDirichlet(z, k, y, r)
	if err != nil {
		t.Fatal(err)
	}
	warm, coldF := obj(x, y, append(slices.Clone(c.W), c.B...)), obj(x, y, append(slices.Clone(cold.W), cold.B...))
	if d := relDiff(warm, coldF); d > 1e-6 {
		t.Errorf("final fit: objective %v warm, %v cold", warm, coldF)
	}
	// The first fold's path, warm from the strongest penalty to the chosen.
	fold, _ := StratifiedFolds(y, 3, 4)
	var xin []float64
	var yin []int
	for i, g := range fold {
		if g != 0 {
			xin, yin = append(xin, x[i*k:(i+1)*k]...), append(yin, y[i])
		}
	}
	var theta []float64
	for _, v := range ODIRGrid(k) {
		if theta, err = c.solve(rows{x: xin, d: k}, k, yin, ODIR{Lambda: v, Mu: v}, theta, 0); err != nil {
			t.Fatal(err)
		}
		if v == r.Lambda {
			break
		}
	}
	coldTheta, err := c.solve(rows{x: xin, d: k}, k, yin, r, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := obj(xin, yin, theta), obj(xin, yin, coldTheta); relDiff(a, b) > 1e-6 {
		t.Errorf("fold 1 at λ %g: objective %v warm, %v cold", r.Lambda, a, b)
	}
}

// Fixed penalties fit once, as the Fit* functions do; a search records
// itself and its choice.
func TestFixedODIRBypassesCV(t *testing.T) {
	const k = 20
	z, y := overfitSet(5, 600)
	f := FitData{Logits: z, Labels: y, K: k}
	r := ODIR{Lambda: 0.5, Mu: 0.25}
	got, err := Fit("ms", f, FitOptions{ODIR: r})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := FitMatrixScaling(z, k, y, r)
	a := got.(*Affine)
	if a.CV != nil || *a.ODIR != r || !slices.Equal(a.W, want.W) || !slices.Equal(a.B, want.B) {
		t.Errorf("fixed ODIR: %+v, CV %v; want FitMatrixScaling's fit at %+v", *a.ODIR, a.CV, r)
	}
	vs, err := Fit("vs", f, FitOptions{ODIR: r, ODIRCV: &ODIRSearch{Folds: 2, Seed: 1}})
	if err != nil {
		t.Fatal(err)
	}
	v := vs.(*Affine)
	if v.CV == nil || v.CV.Folds != 2 || v.ODIR.Lambda != 0 || !slices.ContainsFunc(v.CV.Path, func(p ODIRPoint) bool { return p.ODIR == *v.ODIR }) {
		t.Errorf("vs by CV: chose %+v, search %+v", *v.ODIR, v.CV)
	}
	if _, err := FitAffineCV("ts", z, k, y, ODIRSearch{}); err == nil {
		t.Error("CV of temperature scaling accepted")
	}
}
