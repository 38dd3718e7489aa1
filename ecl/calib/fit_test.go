package calib

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/ecl/metrics"
)

func TestMethodsFor(t *testing.T) {
	if got := MethodsFor(2); !slices.Equal(got, Methods) {
		t.Errorf("two classes: %v, want every method %v", got, Methods)
	}
	want := []string{"ts", "vs", "ms", "dirichlet", "hist", "isotonic", "iwts", "cpcs", "transcal", "ecl"}
	if got := MethodsFor(3); !slices.Equal(got, want) {
		t.Errorf("three classes: %v, want %v", got, want)
	}
}

func TestFitUnknownMethod(t *testing.T) {
	_, err := Fit("nope", FitData{K: 2}, FitOptions{})
	var u *UnknownMethodError
	if !errors.As(err, &u) || u.Method != "nope" || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("error %v, want an UnknownMethodError naming the method", err)
	}
}

func TestFolds(t *testing.T) {
	fold := Folds(10, 3, 7)
	count := make([]int, 3)
	for _, f := range fold {
		count[f]++
	}
	slices.Sort(count)
	if !slices.Equal(count, []int{3, 3, 4}) {
		t.Errorf("fold sizes %v, want 3, 3 and 4", count)
	}
	if !slices.Equal(fold, Folds(10, 3, 7)) || slices.Equal(fold, Folds(10, 3, 8)) {
		t.Errorf("folds not a function of the seed: %v", fold)
	}
}

func TestSubsetPicksRows(t *testing.T) {
	f := FitData{Logits: []float64{0, 1, 2, 3, 4, 5}, Labels: []int{0, 1, 0}, W: []float64{.5, 1, 2},
		Features: []float64{10, 11, 12}, Target: []float64{9, 9}, K: 2, D: 1}
	g := f.Subset([]int{2, 0})
	if !slices.Equal(g.Logits, []float64{4, 5, 0, 1}) || !slices.Equal(g.Labels, []int{0, 0}) ||
		!slices.Equal(g.W, []float64{2, .5}) || !slices.Equal(g.Features, []float64{12, 10}) ||
		g.WBalanced != nil || !slices.Equal(g.Target, f.Target) {
		t.Errorf("subset %+v", g)
	}
}

// The identity calibrator cross-fitted is the softmax of every row, each
// row predicted from the other folds; a method that fails names its fold.
func TestCrossFit(t *testing.T) {
	z := []float64{0, 0, 0, math.Log(3), math.Log(3), 0, 1, 1, 2, 2, -1, 0}
	f := FitData{Logits: z, Labels: []int{0, 1, 0, 1, 0, 1}, K: 2}
	conf, correct, err := CrossFit("uncal", f, Folds(6, 2, 1), 2, FitOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// Ties go to class 0; σ(1) for the last row.
	wantConf := []float64{.5, .75, .75, .5, .5, 1 / (1 + math.Exp(-1))}
	wantCorrect := []float64{1, 1, 1, 0, 1, 1}
	for i := range wantConf {
		if math.Abs(conf[i]-wantConf[i]) > 1e-15 || correct[i] != wantCorrect[i] {
			t.Errorf("row %d: confidence %v, correct %v; want %v, %v", i, conf[i], correct[i], wantConf[i], wantCorrect[i])
		}
	}
	f3 := FitData{Logits: make([]float64, 9), Labels: []int{0, 1, 2}, K: 3}
	if _, _, err := CrossFit("platt", f3, []int{0, 1, 0}, 2, FitOptions{}); err == nil || !strings.Contains(err.Error(), "estimate fold 1") {
		t.Errorf("Platt on three classes: error %v, want one naming the fold", err)
	}
}

// ApplyTopLabel, a block of rows at a time, is the top label of Apply on
// all the rows, for every method fitted on more rows than a block.
func TestApplyTopLabelMatchesApply(t *testing.T) {
	const n, k = topLabelRows + 905, 4
	r := rand.New(rand.NewPCG(21, 22))
	z, y, w := make([]float64, n*k), make([]int, n), make([]float64, n)
	for i := range n {
		y[i] = r.IntN(k)
		for j := range k {
			z[i*k+j] = r.NormFloat64()
		}
		z[i*k+y[i]] += 1.5
		w[i] = 0.5 + r.Float64()
	}
	f := FitData{Logits: z, Labels: y, W: w, WBalanced: w, Target: z[:600*k], K: k}
	for _, m := range append([]string{"uncal"}, MethodsFor(k)...) {
		c, err := Fit(m, f, FitOptions{ODIR: ODIR{Lambda: 1e-3, Mu: 1e-3}, AffineIterations: 30, HistBins: 15, ECL: ECLOptions{Steps: 20}})
		if err != nil {
			t.Fatalf("%s: %v", m, err)
		}
		p, err := c.Apply(z, k)
		if err != nil {
			t.Fatal(err)
		}
		wantConf, wantCorrect := metrics.TopLabel(p, k, y)
		conf, correct, err := ApplyTopLabel(c, z, k, y)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(conf, wantConf) || !slices.Equal(correct, wantCorrect) {
			t.Errorf("%s: the blocked top labels differ from Apply's", m)
		}
	}
	if _, _, err := ApplyTopLabel(&Temperature{T: 1}, z, k, y[:5]); err == nil {
		t.Error("5 labels for all the rows accepted")
	}
}

// Fit's platt fits the targets FitOptions.Platt names: the labels by
// default, Platt's smoothed targets with SmoothedTargets (what "ecl
// calibrate -platt-targets smoothed" passes).
func TestFitPlattTargets(t *testing.T) {
	var z []float64
	var y []int
	for i := range 40 {
		s := float64(i%10) / 3
		z = append(z, 0, s)
		y = append(y, (i*7)%3%2)
	}
	f := FitData{Logits: z, Labels: y, K: 2}
	for _, tg := range []PlattTargets{LabelTargets, SmoothedTargets} {
		c, err := Fit("platt", f, FitOptions{Platt: tg})
		if err != nil {
			t.Fatal(err)
		}
		want, err := FitPlattWith(z, 2, y, tg)
		if err != nil {
			t.Fatal(err)
		}
		if got := c.(*Platt); *got != *want {
			t.Errorf("targets %s: Fit gave %+v, FitPlattWith %+v", PlattTargetNames[tg], *got, *want)
		}
	}
	a, _ := Fit("platt", f, FitOptions{})
	b, _ := Fit("platt", f, FitOptions{Platt: SmoothedTargets})
	if *a.(*Platt) == *b.(*Platt) {
		t.Errorf("label and smoothed targets gave the same fit %+v", *a.(*Platt))
	}
}

// FitOptions.AffineIterations caps the affine fits (the cross-validated
// ones' too), which record their iterations and evaluations; without it a
// fit runs to convergence, below DefaultAffineIterations; a negative cap
// is an error.
func TestFitAffineIterations(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	const n, k = 300, 4
	z, y := make([]float64, n*k), make([]int, n)
	for i := range y {
		y[i] = r.IntN(k)
		for j := range k {
			z[i*k+j] = r.NormFloat64()
		}
		z[i*k+y[i]] += 2
	}
	f := FitData{Logits: z, Labels: y, K: k}
	o := FitOptions{ODIR: ODIR{Lambda: 1e-2, Mu: 1e-2}}
	for _, m := range []string{"vs", "ms", "dirichlet"} {
		c, err := Fit(m, f, o)
		if err != nil {
			t.Fatal(err)
		}
		free := c.(*Affine)
		if free.Iterations <= 3 || free.Iterations >= DefaultAffineIterations || free.Evaluations < free.Iterations {
			t.Errorf("%s: %d iterations, %d evaluations; want a converged fit of more than 3", m, free.Iterations, free.Evaluations)
		}
		capped := o
		capped.AffineIterations = 3
		c, err = Fit(m, f, capped)
		if err != nil {
			t.Fatal(err)
		}
		if a := c.(*Affine); a.Iterations != 3 {
			t.Errorf("%s capped at 3: %d iterations", m, a.Iterations)
		}
		capped.ODIRCV = &ODIRSearch{Folds: 2, Seed: 1}
		if c, err = Fit(m, f, capped); err != nil || c.(*Affine).Iterations != 3 {
			t.Errorf("%s cross-validated, capped at 3: %v, error %v", m, c, err)
		}
		capped.AffineIterations, capped.ODIRCV = -1, nil
		if _, err := Fit(m, f, capped); err == nil || !strings.Contains(err.Error(), "-1 iterations") {
			t.Errorf("%s with -1 iterations: error %v", m, err)
		}
	}
}
