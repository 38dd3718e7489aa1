package bins

import (
	"encoding/json"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// crosscheckDir holds the reference code's published outputs (provenance in
// its README.md).
const crosscheckDir = "../testdata/crosscheck"

func TestCentersAndTemperature(t *testing.T) {
	c := Centers(4)
	if !slices.Equal(c, []float64{0.125, 0.375, 0.625, 0.875}) {
		t.Errorf("Centers(4) = %v", c)
	}
	if tau := Temperature(15); math.Abs(tau-0.0422) > 5e-5 || tau <= 0 {
		t.Errorf("Temperature(15) = %v, want ≈ 0.0422", tau)
	}
}

func TestEqualWidthConventions(t *testing.T) {
	cases := []struct {
		x            float64
		want, strict int
	}{
		{0, 0, -1}, {-0.1, 0, -1}, {math.NaN(), 0, -1}, {1e-300, 0, 0},
		{0.2, 0, 0}, {0.2000001, 1, 1}, {0.4, 1, 1}, {1, 4, 4}, {1.5, 4, -1},
	}
	for _, c := range cases {
		if got := EqualWidth(c.x, 5); got != c.want {
			t.Errorf("EqualWidth(%v, 5) = %d, want %d", c.x, got, c.want)
		}
		if got := EqualWidthStrict(c.x, 5); got != c.strict {
			t.Errorf("EqualWidthStrict(%v, 5) = %d, want %d", c.x, got, c.strict)
		}
	}
}

// EqualWidth's arithmetic shortcut must agree with a search on the numpy
// edges, on every edge itself, its neighbours, and random values.
func TestEqualWidthMatchesEdges(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, b := range []int{1, 2, 3, 7, 10, 15, 100} {
		e := Edges(b)
		if e[0] != 0 || e[b] != 1 {
			t.Fatalf("Edges(%d) ends %v %v", b, e[0], e[b])
		}
		var xs []float64
		for _, v := range e {
			xs = append(xs, v, math.Nextafter(v, 0), math.Nextafter(v, 2))
		}
		for range 1000 {
			xs = append(xs, rng.Float64())
		}
		for _, x := range xs {
			if got, want := EqualWidth(x, b), Index(x, e); got != want {
				t.Errorf("b=%d x=%v: EqualWidth %d, Index %d", b, x, got, want)
			}
			if got, want := EqualWidthStrict(x, b), IndexStrict(x, e); got != want {
				t.Errorf("b=%d x=%v: EqualWidthStrict %d, IndexStrict %d", b, x, got, want)
			}
		}
	}
}

func TestEqualMass(t *testing.T) {
	conf := []float64{0.9, 0.1, 0.5, 0.3, 0.7, 0.2, 0.8}
	e := EqualMassEdges(conf, 3) // sorted 0.1 0.2 0.3 | 0.5 0.7 | 0.8 0.9
	want := []float64{0, 0.4, 0.75, 1}
	for i := range want {
		if math.Abs(e[i]-want[i]) > 1e-15 {
			t.Fatalf("EqualMassEdges = %v, want %v", e, want)
		}
	}
	counts := make([]int, 3)
	for _, c := range conf {
		counts[Index(c, e)]++
	}
	if !slices.Equal(counts, []int{3, 2, 2}) {
		t.Errorf("counts %v, want [3 2 2]", counts)
	}
	// More bins than samples: the extra bins are empty, nothing panics.
	e = EqualMassEdges([]float64{0.25, 0.75}, 4)
	if !slices.Equal(e, []float64{0, 0.5, 1, 1, 1}) {
		t.Errorf("EqualMassEdges(2 samples, 4 bins) = %v", e)
	}
	if !slices.Equal(EqualMassEdges(nil, 2), Edges(2)) {
		t.Error("empty input should give equal-width edges")
	}
	if IndexStrict(0, e) != -1 || Index(0, e) != 0 || Index(2, e) != 3 {
		t.Error("Index conventions at the ends")
	}
}

func TestNearest(t *testing.T) {
	a, _ := Simplex(15, 3)
	for j := 0; j < len(a)/3; j++ {
		if got := Nearest(a[3*j:3*j+3], a, 3); got != j {
			t.Errorf("anchor %d is nearest to %d", j, got)
		}
	}
	// Equidistant from both anchors: the first wins.
	if got := Nearest([]float64{0.5, 0.5}, []float64{0, 1, 1, 0}, 2); got != 0 {
		t.Errorf("tie went to %d", got)
	}
}

func TestSimplexSmall(t *testing.T) {
	grid, n := SimplexGrid(3, 2)
	if n != 2 || !slices.Equal(grid, []int{0, 2, 1, 1, 2, 0}) {
		t.Errorf("SimplexGrid(3, 2) = %v, N = %d", grid, n)
	}
	a, _ := Simplex(15, 10)
	if len(a) != 55*10 {
		t.Errorf("K=10: %d anchors, want 55", len(a)/10)
	}
	for j := 0; j < len(a)/10; j++ {
		s := 0.0
		for _, v := range a[10*j : 10*j+10] {
			s += v
		}
		if math.Abs(s-1) > 1e-12 {
			t.Errorf("anchor %d sums to %v", j, s)
		}
	}
}

// TestInvalidPanics: bad arguments panic with tensor's typed values (the
// policy of ecl/doc.go): an *ArgumentError, or a *ShapeError for lengths
// that do not fit.
func TestInvalidPanics(t *testing.T) {
	for name, c := range map[string]struct {
		f    func()
		want error
	}{
		"Centers(0)":    {func() { Centers(0) }, tensor.ErrArgument},
		"Simplex(15,1)": {func() { Simplex(15, 1) }, tensor.ErrArgument},
		"Simplex(0,3)":  {func() { Simplex(0, 3) }, tensor.ErrArgument},
		"EqualWidth":    {func() { EqualWidth(0.5, 0) }, tensor.ErrArgument},
		"Nearest":       {func() { Nearest([]float64{1}, []float64{1, 0}, 2) }, tensor.ErrShape},
	} {
		func() {
			defer func() {
				r := recover()
				if err, _ := r.(error); !errors.Is(err, c.want) || !strings.HasPrefix(err.Error(), "bins.") {
					t.Errorf("%s: panic %v, want %v naming the bins function", name, r, c.want)
				}
			}()
			c.f()
		}()
	}
}

// TestSimplexMatchesReference checks every case of simplex_anchors.json: N,
// the integer grid, the float32 anchors bit for bit, and the float64 anchors
// within float32 rounding.
func TestSimplexMatchesReference(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join(crosscheckDir, "simplex_anchors.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			K       int         `json:"num_classes"`
			B       int         `json:"num_bins_requested"`
			Rows    int         `json:"num_bins"`
			N       int         `json:"grid_resolution_N"`
			Grid    [][]int     `json:"grid"`
			Anchors [][]float64 `json:"anchors"`
		} `json:"cases"`
	}
	if err := json.Unmarshal(raw, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) == 0 {
		t.Fatal("simplex_anchors.json has no cases")
	}
	for _, c := range ref.Cases {
		grid, n := SimplexGrid(c.B, c.K)
		a32, _ := SimplexFloat32(c.B, c.K)
		a64, _ := Simplex(c.B, c.K)
		if n != c.N || len(grid) != c.Rows*c.K || len(c.Grid) != c.Rows {
			t.Errorf("K=%d B=%d: N=%d rows=%d, want N=%d rows=%d", c.K, c.B, n, len(grid)/c.K, c.N, c.Rows)
			continue
		}
		for j := range c.Rows {
			for i := range c.K {
				at := j*c.K + i
				if grid[at] != c.Grid[j][i] {
					t.Fatalf("K=%d B=%d grid[%d][%d] = %d, want %d", c.K, c.B, j, i, grid[at], c.Grid[j][i])
				}
				want := c.Anchors[j][i]
				if a32[at] != want {
					t.Errorf("K=%d B=%d float32 anchor[%d][%d] = %v, want %v", c.K, c.B, j, i, a32[at], want)
				}
				if math.Abs(a64[at]-want) > 1e-7 {
					t.Errorf("K=%d B=%d anchor[%d][%d] = %v, want %v", c.K, c.B, j, i, a64[at], want)
				}
			}
		}
	}
}

// TestNearestEachMatchesNearest compares the row-at-a-time scan with
// NearestEach on vertex anchors (the shortcut, float64 and float32 anchors)
// and on a finer simplex (the scan), including exact and near ties and
// NaN rows.
func TestNearestEachMatchesNearest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range []struct {
		b, k int
		f32  bool
	}{{15, 40, false}, {15, 40, true}, {15, 3, false}, {100, 10, false}, {2, 2, false}} {
		anchors, _ := Simplex(c.b, c.k)
		if c.f32 {
			anchors, _ = SimplexFloat32(c.b, c.k)
		}
		n := 3000
		s := make([]float64, n*c.k)
		for i := range n {
			row := s[i*c.k : (i+1)*c.k]
			sum := 0.0
			for j := range row {
				row[j] = r.ExpFloat64()
				sum += row[j]
			}
			for j := range row {
				row[j] /= sum
			}
			switch i % 50 {
			case 0: // an exact tie of the two largest
				j0, j1 := r.IntN(c.k), r.IntN(c.k)
				m := slices.Max(row)
				row[j0], row[j1] = m, m
			case 1: // a near tie
				j0 := slices.Index(row, slices.Max(row))
				row[(j0+1)%c.k] = row[j0] - 1e-15
			case 2: // uniform
				for j := range row {
					row[j] = 1 / float64(c.k)
				}
			case 3:
				row[r.IntN(c.k)] = math.NaN()
			case 4, 5: // a few levels, as a histogram map's outputs: many entries tie for the largest
				for j := range row {
					row[j] = float64(1+r.IntN(3)) / float64(2*c.k)
				}
			}
		}
		got := make([]int, n)
		NearestEach(s, anchors, c.k, got)
		for i := range n {
			if want := Nearest(s[i*c.k:(i+1)*c.k], anchors, c.k); got[i] != want {
				t.Fatalf("b %d k %d f32 %v row %d: NearestEach %d, Nearest %d", c.b, c.k, c.f32, i, got[i], want)
			}
		}
	}
	if shrunkVertices(must(Simplex(15, 40)), 40) == nil || shrunkVertices(must(Simplex(15, 3)), 3) != nil {
		t.Fatal("shrunkVertices misreads the simplex anchors")
	}
}

func must(a []float64, _ int) []float64 { return a }

// TestEqualMassEdgesMatchSort compares the edges from selected order
// statistics with those of the sorted values, with ties, few distinct
// values, more bins than samples and a NaN.
func TestEqualMassEdgesMatchSort(t *testing.T) {
	sorted := func(conf []float64, b int) []float64 {
		s := slices.Sorted(slices.Values(conf))
		e := make([]float64, b+1)
		e[b] = 1
		size, extra := len(s)/b, len(s)%b
		for i := 1; i < b; i++ {
			if c := i*size + min(i, extra); c < len(s) {
				e[i] = (s[c-1] + s[c]) / 2
			} else {
				e[i] = 1
			}
		}
		return e
	}
	r := rand.New(rand.NewPCG(21, 22))
	for _, c := range []struct{ n, b, distinct int }{{1000, 15, 0}, {5000, 15, 7}, {37, 15, 0}, {10, 15, 0}, {100000, 100, 0}, {3000, 2, 3}} {
		conf := make([]float64, c.n)
		for i := range conf {
			conf[i] = r.Float64()
			if c.distinct > 0 {
				conf[i] = float64(r.IntN(c.distinct)) / float64(c.distinct)
			}
		}
		if got, want := EqualMassEdges(conf, c.b), sorted(conf, c.b); !slices.Equal(got, want) {
			t.Fatalf("n %d, b %d, %d distinct: edges %v, sorted %v", c.n, c.b, c.distinct, got, want)
		}
	}
	conf := []float64{0.3, math.NaN(), 0.1, 0.7}
	if got := EqualMassEdges(conf, 2); got[1] != 0.2 {
		t.Fatalf("with a NaN: %v, want the sort's edge 0.2 between 0.1 and 0.3", got)
	}
}

// TestEqualMassCountsMatchIndex checks EqualMassCounts' edges against
// EqualMassEdges and its counts against binning every value with Index, with
// ties on the edges, few distinct values, values outside [0, 1], more bins
// than samples and NaN.
func TestEqualMassCountsMatchIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	for _, c := range []struct {
		n, b, distinct int
		outside, nan   bool
	}{{1000, 15, 0, false, false}, {5000, 15, 7, false, false}, {37, 15, 0, false, false}, {10, 15, 0, false, false},
		{20000, 100, 0, false, false}, {3000, 2, 3, false, false}, {3000, 15, 40, true, false}, {500, 15, 0, true, true},
		{4000, 15, 2, false, false}, {1, 1, 0, false, false}} {
		conf := make([]float64, c.n)
		for i := range conf {
			conf[i] = r.Float64()
			if c.distinct > 0 {
				conf[i] = float64(r.IntN(c.distinct)) / float64(c.distinct)
			}
			if c.outside {
				conf[i] = 3*conf[i] - 1
			}
		}
		if c.nan {
			conf[r.IntN(c.n)] = math.NaN()
		}
		wantEdges := EqualMassEdges(conf, c.b)
		want := make([]int, c.b)
		for _, v := range conf {
			want[Index(v, wantEdges)]++
		}
		orig := slices.Clone(conf)
		edges, counts := EqualMassCounts(conf, c.b)
		if !slices.Equal(edges, wantEdges) && !c.nan {
			t.Fatalf("%+v: edges %v, EqualMassEdges %v", c, edges, wantEdges)
		}
		if !slices.Equal(counts, want) {
			t.Fatalf("%+v: counts %v, Index gives %v", c, counts, want)
		}
		slices.SortFunc(orig, cmpNaN)
		slices.SortFunc(conf, cmpNaN)
		if !slices.EqualFunc(orig, conf, func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }) {
			t.Fatalf("%+v: the values were not only reordered", c)
		}
	}
}

func cmpNaN(a, b float64) int {
	switch {
	case math.IsNaN(a) && math.IsNaN(b):
		return 0
	case math.IsNaN(a) || a < b:
		return -1
	case math.IsNaN(b) || a > b:
		return 1
	}
	return 0
}
