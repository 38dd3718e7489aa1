package sim

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/tensor"
)

// Label returns the class of (x1, x2): the argmax (first on ties) of
// s0 = sin x1 + x2 − 1.5, s1 = −1.5 cos x1 + 0.5 x2 + 1 and
// s2 = −0.8 x1 − 1.2 sin x2 − 0.5.
func Label(x1, x2 float64) int {
	s := [3]float64{
		math.Sin(x1) + x2 - 1.5,
		-1.5*math.Cos(x1) + 0.5*x2 + 1,
		-0.8*x1 - 1.2*math.Sin(x2) - 0.5,
	}
	best := 0
	for c := 1; c < len(s); c++ {
		if s[c] > s[best] {
			best = c
		}
	}
	return best
}

// Kind is a covariate shift: a source and a target input distribution.
type Kind int

const (
	// Normal: source N([0,0], 5I), target N([2,2], 5I) (the paper).
	Normal Kind = iota
	// Uniform: source U[−2.5, 2.5]², target U[−1.5, 3.5]² (the paper).
	Uniform
	// NormalWide: source N([0,0], 6I), target N([2,2], 6I) (the reference
	// notebook's class-wise and canonical runs).
	NormalWide
	// UniformWide: source U[−3, 3]², target U[−1, 4]² (the reference
	// notebook's class-wise and canonical runs).
	UniformWide
)

// dist is an isotropic 2-D distribution: normal with the given mean and
// variance per coordinate, or uniform on [lo, hi]².
type dist struct {
	normal         bool
	mean, variance float64 // normal
	lo, hi         float64 // uniform
}

var shifts = map[Kind]struct {
	name           string
	source, target dist
}{
	Normal:      {"normal", dist{normal: true, mean: 0, variance: 5}, dist{normal: true, mean: 2, variance: 5}},
	Uniform:     {"uniform", dist{lo: -2.5, hi: 2.5}, dist{lo: -1.5, hi: 3.5}},
	NormalWide:  {"normal-wide", dist{normal: true, mean: 0, variance: 6}, dist{normal: true, mean: 2, variance: 6}},
	UniformWide: {"uniform-wide", dist{lo: -3, hi: 3}, dist{lo: -1, hi: 4}},
}

// String returns the kind's name ("normal", "uniform", "normal-wide",
// "uniform-wide").
func (k Kind) String() string {
	if s, ok := shifts[k]; ok {
		return s.name
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind returns the Kind named s (as String writes it).
func ParseKind(s string) (Kind, error) {
	for k, sh := range shifts {
		if sh.name == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("sim.ParseKind: unknown shift %q (normal, uniform, normal-wide, uniform-wide)", s)
}

// draw is a labelled sample of n points of d, named name: X [n, 2].
func (d dist) draw(name string, n int, rng *rand.Rand) datasets.Split[float64] {
	x, y := make([]float64, 2*n), make([]int, n)
	sd := math.Sqrt(d.variance)
	for i := range x {
		if d.normal {
			x[i] = d.mean + sd*rng.NormFloat64()
		} else {
			x[i] = d.lo + (d.hi-d.lo)*rng.Float64()
		}
	}
	for i := range y {
		y[i] = Label(x[2*i], x[2*i+1])
	}
	return datasets.Split[float64]{Name: name, X: tensor.FromSlice(x, n, 2), Y: y}
}

// Generate draws n source points and then n target points of the shift
// kind from rng, labelled by Label, as splits named "<kind> source" and
// "<kind> target" with inputs [n, 2] on the CPU; the same rng state gives
// the same splits. It panics for an unknown kind, n < 0 or a nil rng.
func Generate(kind Kind, n int, rng *rand.Rand) (source, target datasets.Split[float64]) {
	sh, ok := shifts[kind]
	if !ok || n < 0 || rng == nil {
		panic(&tensor.ArgumentError{Op: "sim.Generate", Detail: fmt.Sprintf("kind %v, n = %d, nil rng %v", kind, n, rng == nil)})
	}
	return sh.source.draw(sh.name+" source", n, rng), sh.target.draw(sh.name+" target", n, rng)
}
