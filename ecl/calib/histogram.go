package calib

import (
	"fmt"

	"github.com/ecl-go/ecl/ecl/bins"
)

// Histogram is histogram binning (Zadrozny & Elkan, 2001): each class
// probability (P(class 1) alone for two classes) is replaced by the
// frequency of that class among the fitting samples in its bin
// (Edges[c][j], Edges[c][j+1]], the first bin closed at 0; an empty bin
// keeps its midpoint. With more than two classes the row is renormalised.
type Histogram struct {
	Edges  [][]float64 `json:"edges"`
	Values [][]float64 `json:"values"`
}

func (*Histogram) family() string { return "histogram" }

func (c *Histogram) check(k int) error {
	if len(c.Edges) != fittedClasses(k) || len(c.Values) != len(c.Edges) {
		return fmt.Errorf("%d edge and %d value lists for %d classes", len(c.Edges), len(c.Values), k)
	}
	for i, e := range c.Edges {
		if len(e) < 2 || len(c.Values[i]) != len(e)-1 {
			return fmt.Errorf("class %d: %d edges for %d values", i, len(e), len(c.Values[i]))
		}
		for j := 1; j < len(e); j++ {
			if !(e[j] >= e[j-1]) {
				return fmt.Errorf("class %d: edges not increasing at %d", i, j)
			}
		}
	}
	return nil
}

// FitHistogram fits histogram binning with b bins of equal width on [0, 1]
// or, with equalMass, of equal counts of each class's probabilities.
func FitHistogram(logits []float64, k int, labels []int, b int, equalMass bool) (*Histogram, error) {
	if _, err := checkScores("FitHistogram", logits, k, labels); err != nil {
		return nil, err
	}
	if b < 1 {
		return nil, fmt.Errorf("calib.FitHistogram: %d bins", b)
	}
	m := fittedClasses(k)
	c := &Histogram{Edges: make([][]float64, m), Values: make([][]float64, m)}
	perClass(logits, k, labels, 20*len(labels), func(i int, scores, own []float64) {
		c.Edges[i], c.Values[i] = histogram(scores, own, b, equalMass)
	})
	return c, nil
}

// histogram is one class's bin edges and values from its scores s, which it
// reorders, and the scores of its own samples: the fraction of each bin's
// samples that are the class's own, the bin's centre where it is empty.
func histogram(s, own []float64, b int, equalMass bool) (edges, values []float64) {
	var counts []int
	if equalMass {
		edges, counts = bins.EqualMassCounts(s, b)
	} else {
		edges, counts = bins.Edges(b), make([]int, b)
		for _, v := range s {
			counts[bins.Index(v, edges)]++
		}
	}
	values = make([]float64, b)
	for _, v := range own {
		values[bins.Index(v, edges)]++
	}
	for j := range values {
		if counts[j] == 0 {
			values[j] = (edges[j] + edges[j+1]) / 2
		} else {
			values[j] /= float64(counts[j])
		}
	}
	return edges, values
}

// Apply maps every class probability to its bin's value.
func (c *Histogram) Apply(logits []float64, k int) ([]float64, error) {
	if err := c.check(k); err != nil {
		return nil, fmt.Errorf("calib.Histogram.Apply: %w", err)
	}
	maps := make([]func(float64) float64, len(c.Edges))
	for i := range maps {
		edges, values := c.Edges[i], c.Values[i]
		maps[i] = func(p float64) float64 { return values[bins.Index(p, edges)] }
	}
	return oneVsRest("Histogram.Apply", logits, k, maps)
}
