package calib

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/ecl/bins"
)

// TestHistogramMatchesLoop compares FitHistogram with the plain loop it
// stands for: each class's probabilities binned one by one, each bin's
// value the mean of the 0/1 outcomes y = c of its samples. Logits with
// ties (rounded to a grid) and without; 2 and 7 classes; both bin kinds.
func TestHistogramMatchesLoop(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for _, k := range []int{2, 7} {
		for _, grid := range []float64{0, 0.5} {
			n := 600
			z, y := make([]float64, n*k), make([]int, n)
			for i := range z {
				z[i] = 2 * r.NormFloat64()
				if grid > 0 {
					z[i] = math.Round(z[i]/grid) * grid
				}
			}
			for i := range y {
				y[i] = r.IntN(k)
			}
			p := Softmax(z, k)
			for _, equalMass := range []bool{false, true} {
				got, err := FitHistogram(z, k, y, 15, equalMass)
				if err != nil {
					t.Fatal(err)
				}
				for ci := range fittedClasses(k) {
					c := ci
					if k == 2 {
						c = 1
					}
					s := make([]float64, n)
					for i := range s {
						s[i] = p[i*k+c]
					}
					edges := bins.Edges(15)
					if equalMass {
						edges = bins.EqualMassEdges(s, 15)
					}
					sum, count := make([]float64, 15), make([]float64, 15)
					for i, v := range s {
						j := bins.Index(v, edges)
						count[j]++
						if y[i] == c {
							sum[j]++
						}
					}
					for j := range sum {
						if count[j] == 0 {
							sum[j] = (edges[j] + edges[j+1]) / 2
						} else {
							sum[j] /= count[j]
						}
					}
					if !slices.Equal(got.Edges[ci], edges) || !slices.Equal(got.Values[ci], sum) {
						t.Fatalf("k %d, grid %v, equal mass %v, class %d: edges %v values %v, loop %v %v",
							k, grid, equalMass, c, got.Edges[ci], got.Values[ci], edges, sum)
					}
				}
			}
		}
	}
}
