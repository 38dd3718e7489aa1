package ecl

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

type V = *autograd.Var[float64]
type T64 = *tensor.Tensor[float64]

// batch draws main-head logits [n, k] and auxiliary logits (2 columns for
// top-label, k otherwise).
func batch(r *rand.Rand, p Paradigm, n, k int) (main, aux T64) {
	auxK := k
	if p == TopLabel {
		auxK = 2
	}
	return tensor.RandNormal[float64](r, 0, 2, n, k), tensor.RandNormal[float64](r, 0, 1, n, auxK)
}

func auxProb(p Paradigm, v V) V {
	if p == TopLabel {
		return CorrectnessProb(v)
	}
	return autograd.Softmax(v, 1)
}

func gradCheck(t *testing.T, name string, f func(xs []V) V, inputs []T64) {
	t.Helper()
	rep, err := autograd.Check(name, f, inputs, autograd.CheckOptions{})
	if err != nil {
		t.Error(err)
	}
	t.Logf("%s: %v", name, rep)
}

// The soft-binned estimator is differentiable through both heads' outputs.
func TestSoftBinnedGradients(t *testing.T) {
	for _, p := range []Paradigm{Canonical, ClassWise, TopLabel} {
		for _, norm := range []Norm{L1, L2} {
			r := rand.New(rand.NewPCG(uint64(p), uint64(norm)))
			sm, sa := batch(r, p, 7, 3)
			tm, ta := batch(r, p, 5, 3)
			sb, err := NewSoftBinned(Config{Paradigm: p, Classes: 3, Bins: 5, Input: InputLogits}, norm, 0)
			if err != nil {
				t.Fatal(err)
			}
			gradCheck(t, "SoftBinned/"+p.String(), func(xs []V) V {
				return SoftBinnedLoss(sb, xs[0], xs[1], auxProb(p, xs[2]), auxProb(p, xs[3]))
			}, []T64{sm, tm, sa, ta})
		}
	}
}

// The mini-batch loss with the auxiliary variables held at the values of one
// step: gradients flow through the soft assignments and through p.
func TestMiniBatchGradients(t *testing.T) {
	for _, p := range []Paradigm{Canonical, ClassWise, TopLabel} {
		for _, red := range []Reduction{Sum, Mean} {
			r := rand.New(rand.NewPCG(uint64(p)+10, uint64(red)))
			sm, sa := batch(r, p, 8, 3)
			tm, ta := batch(r, p, 6, 3)
			mb, err := NewMiniBatch(Config{Paradigm: p, Classes: 3, Reduce: red})
			if err != nil {
				t.Fatal(err)
			}
			l := mb.l
			stats := func(xs []V) (ss, st V) {
				return binStats(l, autograd.Softmax(xs[0], 1), auxProb(p, xs[2])), binStats(l, autograd.Softmax(xs[1], 1), auxProb(p, xs[3]))
			}
			ss, st := stats([]V{autograd.Const(sm), autograd.Const(tm), autograd.Const(sa), autograd.Const(ta)})
			ns, ms, nt, mt := downloadStats(l, ss.Value, st.Value)
			us, ut, keep := mb.proximal(ns, ms, nt, mt)
			gradCheck(t, "MiniBatch/"+p.String(), func(xs []V) V {
				ss, st := stats(xs)
				return fixedULoss(l, red, ss, st, 8, 6, us, ut, keep)
			}, []T64{sm, tm, sa, ta})
		}
	}
}

func TestSoftECEGradient(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 9))
	conf := tensor.RandUniform[float64](r, 0.3, 1, 20)
	correct := tensor.Step(tensor.RandUniform[float64](r, -0.3, 1, 20))
	gradCheck(t, "SoftECE", func(xs []V) V { return SoftECE(xs[0], correct, 15) }, []T64{conf})
}

// Integer weights count a sample that many times: weights (2, 0, 1) give
// the Soft-ECE of the first sample twice and the third once; a weight
// scale changes nothing.
func TestWeightedSoftECE(t *testing.T) {
	conf := []float64{0.9, 0.55, 0.7}
	correct := []float64{0, 1, 1}
	want := SoftECE(autograd.Const(tensor.FromSlice([]float64{0.9, 0.9, 0.7})), tensor.FromSlice([]float64{0, 0, 1}), 15).Value.Item()
	for _, w := range [][]float64{{2, 0, 1}, {4, 0, 2}} {
		got := WeightedSoftECE(autograd.Const(tensor.FromSlice(conf)), tensor.FromSlice(correct), w, 15).Value.Item()
		if math.Abs(got-want) > 1e-12 {
			t.Errorf("weights %v: %v, want %v", w, got, want)
		}
	}
	c := tensor.FromSlice(conf)
	gradCheck(t, "WeightedSoftECE", func(xs []V) V { return WeightedSoftECE(xs[0], tensor.FromSlice(correct), []float64{2, 0.5, 1}, 15) }, []T64{c})
}

func TestHardEstimator(t *testing.T) {
	// Same data in both domains: zero in every paradigm.
	probs := []float64{0.7, 0.2, 0.1, 0.1, 0.8, 0.1, 0.3, 0.3, 0.4}
	for _, p := range []Paradigm{Canonical, ClassWise, TopLabel} {
		aux := probs
		if p == TopLabel {
			aux = []float64{0.9, 0.6, 0.5}
		}
		v, err := Hard(Config{Paradigm: p, Classes: 3}, L1, probs, probs, aux, aux)
		if err != nil || v != 0 {
			t.Errorf("%v: identical domains give %v, %v", p, v, err)
		}
	}
	// Top-label by hand: target confidences 0.7 (bin 10 of 15) twice and 0.8
	// (bin 11) once; source has 0.7 once with p = 0.5 and 0.8 once with p = 0.9.
	src := []float64{0.7, 0.3, 0.8, 0.2}
	tgt := []float64{0.7, 0.3, 0.7, 0.3, 0.8, 0.2}
	v, err := Hard(Config{Paradigm: TopLabel, Classes: 2}, L1, src, tgt, []float64{0.5, 0.9}, []float64{0.6, 0.8, 0.6})
	want := 2.0/3*math.Abs(0.5-0.7) + 1.0/3*math.Abs(0.9-0.6)
	if err != nil || math.Abs(v-want) > 1e-15 {
		t.Errorf("top-label hard estimate %v (%v), want %v", v, err, want)
	}
	if _, err := Hard(Config{Paradigm: TopLabel, Classes: 2}, L1, src, tgt, []float64{0.5}, []float64{0.6, 0.8, 0.6}); err == nil {
		t.Error("mismatched lengths were accepted")
	}
}

func TestConfigErrors(t *testing.T) {
	// Each bad setting is one *ConfigError naming its field, from every
	// function that takes a Config.
	for field, c := range map[string]Config{
		"Classes":  {Classes: 1},
		"Bins":     {Classes: 3, Bins: -1},
		"EMA":      {Classes: 3, EMA: 2},
		"Tau":      {Classes: 3, Tau: -1},
		"Paradigm": {Paradigm: 7, Classes: 3},
		"NProx":    {Classes: 3, NProx: -2},
		"Skip":     {Classes: 3, Skip: math.NaN()},
		"Reduce":   {Classes: 3, Reduce: 2},
		"Input":    {Classes: 3, Input: -1},
	} {
		_, errMB := NewMiniBatch(c)
		_, errSB := NewSoftBinned(c, L1, 0)
		_, errHard := Hard(c, L1, []float64{1, 0, 0}, []float64{1, 0, 0}, []float64{1, 0, 0}, []float64{1, 0, 0})
		for i, err := range []error{c.Validate(), errMB, errSB, errHard} {
			var ce *ConfigError
			if !errors.As(err, &ce) || ce.Field != field || !strings.Contains(err.Error(), "Config."+field) {
				t.Errorf("config %+v, call %d: error %v, want a *ConfigError naming %s", c, i, err, field)
			}
		}
	}
	if err := (Config{Classes: 3}).Validate(); err != nil {
		t.Errorf("default config: %v", err)
	}
	if p, err := ParseParadigm("classwise"); err != nil || p != ClassWise {
		t.Error("ParseParadigm(classwise)")
	}
	if _, err := ParseParadigm("nope"); err == nil {
		t.Error("ParseParadigm accepted nope")
	}
}

// Inputs of the wrong shape are a programming error: a panic with a
// *tensor.ShapeError naming the function and the shapes.
func TestShapePanics(t *testing.T) {
	mb, _ := NewMiniBatch(Config{Classes: 3})
	probs := autograd.Const(tensor.Full(1.0/3, 4, 3))
	for name, f := range map[string]func(){
		"ecl":                 func() { MiniBatchLoss(mb, probs, probs, probs, autograd.Const(tensor.Zeros[float64](4, 2))) },
		"ecl.Probabilities":   func() { Probabilities(InputLogits, autograd.Const(tensor.Zeros[float64](4))) },
		"ecl.CorrectnessProb": func() { CorrectnessProb(autograd.Const(tensor.Zeros[float64](4, 3))) },
		"ecl.SoftECE":         func() { SoftECE(autograd.Const(tensor.Zeros[float64](4)), tensor.Zeros[float64](3), 15) },
		"ecl.WeightedSoftECE": func() {
			WeightedSoftECE(autograd.Const(tensor.Zeros[float64](2)), tensor.Zeros[float64](2), []float64{0, 0}, 15)
		},
	} {
		func() {
			defer func() {
				err, _ := recover().(error)
				var se *tensor.ShapeError
				if !errors.As(err, &se) || se.Op != name || len(se.Shapes) == 0 {
					t.Errorf("%s: panic %v, want a *tensor.ShapeError of %s", name, err, name)
				}
			}()
			f()
		}()
	}
}

func TestAdaptiveWeight(t *testing.T) {
	var a AdaptiveWeight
	if a.Lambda() != 1 {
		t.Error("λ before observations")
	}
	a.Observe(2, 1)
	a.Observe(4, 2)
	if a.Lambda() != 2 {
		t.Errorf("λ = %v, want 6/3 = 2", a.Lambda())
	}
	a.Gamma = 0.5
	if math.Abs(a.Lambda()-math.Sqrt2) > 1e-15 {
		t.Errorf("λ = %v, want √2", a.Lambda())
	}
}
