package sim

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestLabel(t *testing.T) {
	for _, c := range []struct {
		x1, x2 float64
		want   int
	}{
		// (0, 0): s = (−1.5, −0.5, −0.5): tie between 1 and 2, first wins.
		{0, 0, 1},
		// (0, 3): s = (1.5, 1, −0.5 − 1.2 sin 3 = −0.669).
		{0, 3, 0},
		// (−2, −2): s = (−4.409, −1.5 cos 2 = 0.624, 1.1 + 1.2 sin 2 = 2.191).
		{-2, -2, 2},
		// (π, 0): s = (−1.5, 2.5, −3.013).
		{math.Pi, 0, 1},
	} {
		if got := Label(c.x1, c.x2); got != c.want {
			t.Errorf("Label(%v, %v) = %d, want %d", c.x1, c.x2, got, c.want)
		}
	}
}

func TestDeterministic(t *testing.T) {
	for k := range shifts {
		s1, t1 := Generate(k, 50, rand.New(rand.NewPCG(1, 2)))
		s2, t2 := Generate(k, 50, rand.New(rand.NewPCG(1, 2)))
		if !slices.Equal(s1.X.Data(), s2.X.Data()) || !slices.Equal(t1.X.Data(), t2.X.Data()) || !slices.Equal(s1.Y, s2.Y) || !slices.Equal(t1.Y, t2.Y) {
			t.Errorf("%v: same seed, different data", k)
		}
		s3, _ := Generate(k, 50, rand.New(rand.NewPCG(3, 4)))
		if slices.Equal(s1.X.Data(), s3.X.Data()) {
			t.Errorf("%v: different seeds, same data", k)
		}
		if s1.Len() != 50 || !slices.Equal(s1.X.Shape(), []int{50, 2}) || !slices.Equal(t1.X.Shape(), []int{50, 2}) || t1.Len() != 50 {
			t.Errorf("%v: sizes %d %v, %d %v", k, s1.Len(), s1.X.Shape(), t1.Len(), t1.X.Shape())
		}
		if s1.Name != k.String()+" source" || t1.Name != k.String()+" target" {
			t.Errorf("%v: names %q, %q", k, s1.Name, t1.Name)
		}
		x := s1.X.Data()
		for i := range s1.Y {
			if s1.Y[i] != Label(x[2*i], x[2*i+1]) {
				t.Fatalf("%v: point %d mislabelled", k, i)
			}
		}
	}
}

// Per-coordinate means and variances of large samples, within five
// standard errors.
func TestDomainStatistics(t *testing.T) {
	const n = 20000
	for k, sh := range shifts {
		src, tgt := Generate(k, n, rand.New(rand.NewPCG(5, 6)))
		for _, c := range []struct {
			name string
			d    dist
			dom  []float64
		}{{"source", sh.source, src.X.Data()}, {"target", sh.target, tgt.X.Data()}} {
			mean, variance := c.d.mean, c.d.variance
			if !c.d.normal {
				mean, variance = (c.d.lo+c.d.hi)/2, (c.d.hi-c.d.lo)*(c.d.hi-c.d.lo)/12
			}
			for axis := range 2 {
				m, v := 0.0, 0.0
				for i := range n {
					m += c.dom[2*i+axis]
				}
				m /= n
				for i := range n {
					v += (c.dom[2*i+axis] - m) * (c.dom[2*i+axis] - m)
				}
				v /= n - 1
				if se := math.Sqrt(variance / n); math.Abs(m-mean) > 5*se {
					t.Errorf("%v %s axis %d: mean %v, want %v", k, c.name, axis, m, mean)
				}
				if math.Abs(v-variance) > 0.05*variance {
					t.Errorf("%v %s axis %d: variance %v, want %v", k, c.name, axis, v, variance)
				}
			}
			if !c.d.normal {
				lo, hi := slices.Min(c.dom), slices.Max(c.dom)
				if lo < c.d.lo || hi > c.d.hi || lo > c.d.lo+0.01 || hi < c.d.hi-0.01 {
					t.Errorf("%v %s: range [%v, %v], want within and near [%v, %v]", k, c.name, lo, hi, c.d.lo, c.d.hi)
				}
			}
		}
	}
}

// The published shifts, restated independently of the table in sim.go.
func TestShiftParameters(t *testing.T) {
	if s := shifts[Normal]; !s.source.normal || s.source.variance != 5 || s.target.mean != 2 {
		t.Errorf("normal: %+v", s)
	}
	if s := shifts[Uniform]; s.source.lo != -2.5 || s.source.hi != 2.5 || s.target.lo != -1.5 || s.target.hi != 3.5 {
		t.Errorf("uniform: %+v", s)
	}
	if s := shifts[NormalWide]; s.source.variance != 6 || s.target.variance != 6 || s.target.mean != 2 {
		t.Errorf("normal-wide: %+v", s)
	}
	if s := shifts[UniformWide]; s.source.lo != -3 || s.source.hi != 3 || s.target.lo != -1 || s.target.hi != 4 {
		t.Errorf("uniform-wide: %+v", s)
	}
}

func TestParseKind(t *testing.T) {
	for k := range shifts {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
	}
	if _, err := ParseKind("gaussian"); err == nil {
		t.Error("ParseKind accepted an unknown name")
	}
	if Kind(9).String() != "Kind(9)" {
		t.Error(Kind(9).String())
	}
	defer func() {
		if recover() == nil {
			t.Error("Generate accepted an unknown kind")
		}
	}()
	Generate(Kind(9), 1, rand.New(rand.NewPCG(1, 1)))
}
