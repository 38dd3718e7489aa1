package bins

import (
	"fmt"
	"math"
	"slices"
	"sort"

	"github.com/ecl-go/ecl/tensor"
)

func checkBins(fn string, b int) {
	if b < 1 {
		panic(&tensor.ArgumentError{Op: "bins." + fn, Detail: fmt.Sprintf("%d bins, need at least 1", b)})
	}
}

// Centers returns the 1-D anchors (2j−1)/(2b), j = 1..b: the centres of b
// equal-width bins on [0, 1].
func Centers(b int) []float64 {
	checkBins("Centers", b)
	c := make([]float64, b)
	for j := range c {
		c[j] = float64(2*j+1) / float64(2*b)
	}
	return c
}

// Temperature returns the reference code's soft-binning temperature
// τ = −1/(ln(0.9)·b²) (0.0422 for b = 15).
func Temperature(b int) float64 {
	checkBins("Temperature", b)
	return -1 / (math.Log(0.9) * float64(b) * float64(b))
}

// edge is the i-th of b+1 equal-width edges exactly as numpy.linspace(0, 1,
// b+1) computes it: i·(1/b), with the last edge set to 1.
func edge(i, b int) float64 {
	if i == b {
		return 1
	}
	return float64(i) * (1 / float64(b))
}

// Edges returns the b+1 equal-width bin edges on [0, 1] (numpy.linspace(0, 1,
// b+1), bit for bit).
func Edges(b int) []float64 {
	checkBins("Edges", b)
	e := make([]float64, b+1)
	for i := range e {
		e[i] = edge(i, b)
	}
	return e
}

// equalWidth locates x among b equal-width bins (lo, hi]: the clamped index
// and whether x lies inside (0, 1].
func equalWidth(x float64, b int) (int, bool) {
	if !(x > 0) {
		return 0, false
	}
	if x > 1 {
		return b - 1, false
	}
	j := min(max(int(math.Ceil(x*float64(b)))-1, 0), b-1)
	// x·b can be off by an ulp; settle the index on the exact edges.
	for j > 0 && x <= edge(j, b) {
		j--
	}
	for j < b-1 && x > edge(j+1, b) {
		j++
	}
	return j, true
}

// EqualWidth returns the bin of conf among b equal-width bins (lo, hi] on
// [0, 1], the first bin closed at 0; values outside [0, 1] are clamped into
// [0, b−1] and NaN falls in bin 0.
func EqualWidth(conf float64, b int) int {
	checkBins("EqualWidth", b)
	j, _ := equalWidth(conf, b)
	return j
}

// EqualWidthStrict is EqualWidth with the reference metrics' convention:
// −1 (no bin) for conf ≤ 0, conf > 1 and NaN.
func EqualWidthStrict(conf float64, b int) int {
	checkBins("EqualWidthStrict", b)
	if j, in := equalWidth(conf, b); in {
		return j
	}
	return -1
}

// EqualMassEdges returns b+1 edges that split conf into b bins (lo, hi] of
// sizes as equal as possible (the first len(conf) mod b bins hold one sample
// more, as numpy.array_split of the sorted values). Edges[0] = 0, edges[b] = 1
// and each inner edge is the midpoint between the last value of one bin and
// the first of the next; tied values at a boundary all go to the lower bin,
// and bins beyond the data (b > len(conf)) get the edge 1 and stay empty. An
// empty conf gives the equal-width edges.
func EqualMassEdges(conf []float64, b int) []float64 {
	checkBins("EqualMassEdges", b)
	return equalMassEdges(slices.Clone(conf), b)
}

// EqualMassCounts is EqualMassEdges without the copy: it reorders conf in
// place, and it also returns how many values of conf each bin holds (the
// bins of Index). Where no value lies on an inner edge the counts follow
// from the ranks the edges were selected at; the values tied with an edge
// are counted by one scan above its rank.
func EqualMassCounts(conf []float64, b int) (edges []float64, counts []int) {
	checkBins("EqualMassCounts", b)
	edges, counts = equalMassEdges(conf, b), make([]int, b)
	n := len(conf)
	if n == 0 {
		return edges, counts
	}
	if math.IsNaN(conf[0]) { // sorted, NaN first: count as Index bins
		for _, v := range conf {
			j, _ := locate("EqualMassCounts", v, edges)
			counts[j]++
		}
		return edges, counts
	}
	below := func(e float64, from int) int { // values ≤ e in conf[from:]
		m := 0
		for _, v := range conf[from:] {
			if v <= e {
				m++
			}
		}
		return m
	}
	le := make([]int, b+1) // le[i]: values in the bins below i
	le[b] = n
	size, extra := n/b, n%b
	for i := 1; i < b; i++ {
		c, e := i*size+min(i, extra), edges[i]
		switch {
		case e < edges[0]: // Index puts every value ≤ edges[0] in bin 0
			le[i] = below(edges[0], 0)
		case c >= n || e < conf[c-1]:
			le[i] = below(e, 0)
		case e < conf[c]: // conf[:c] ≤ conf[c−1] ≤ e < conf[c] ≤ conf[c:]
			le[i] = c
		default:
			le[i] = c + below(e, c)
		}
	}
	for j := range counts {
		counts[j] = le[j+1] - le[j]
	}
	return edges, counts
}

// equalMassEdges is EqualMassEdges on s, which it reorders: the ranks the
// edges need selected in place, or s sorted where it holds NaN.
func equalMassEdges(s []float64, b int) []float64 {
	n := len(s)
	if n == 0 {
		return Edges(b)
	}
	e := make([]float64, b+1)
	e[b] = 1
	size, extra := n/b, n%b
	var ranks []int // the order statistics the inner edges need
	for i := 1; i < b; i++ {
		if c := i*size + min(i, extra); c < n { // c: first sample of bin i
			ranks = append(ranks, c-1, c)
		}
	}
	if slices.ContainsFunc(s, math.IsNaN) {
		slices.Sort(s)
	} else {
		selectRanks(s, slices.Compact(ranks))
	}
	for i := 1; i < b; i++ {
		c := i*size + min(i, extra)
		if c >= n {
			e[i] = 1
			continue
		}
		e[i] = (s[c-1] + s[c]) / 2
	}
	return e
}

// selectRanks reorders s (no NaN) so that s[r] is its r-th smallest value
// for every r of ranks (ascending), as a sort would place it: quickselect
// with Hoare's partition into the parts that hold a rank, O(len(s)·log
// len(ranks)).
func selectRanks(s []float64, ranks []int) { selectAt(s, 0, ranks) }

// selectAt is selectRanks on the part s = all[off:off+len(s)] of a slice,
// for ranks of all.
func selectAt(s []float64, off int, ranks []int) {
	for len(ranks) > 0 {
		if len(s) <= 32 {
			slices.Sort(s)
			return
		}
		a, b, c := s[0], s[len(s)/2], s[len(s)-1]
		pivot := max(min(a, b), min(max(a, b), c))
		// Hoare: afterwards s[:j+1] ≤ pivot ≤ s[j+1:].
		i, j := -1, len(s)
		for {
			for i++; s[i] < pivot; i++ {
			}
			for j--; s[j] > pivot; j-- {
			}
			if i >= j {
				break
			}
			s[i], s[j] = s[j], s[i]
		}
		if j+1 >= len(s) { // no split: cannot happen with a median-of-three pivot
			slices.Sort(s)
			return
		}
		split := sort.SearchInts(ranks, off+j+1)
		selectAt(s[:j+1], off, ranks[:split])
		s, ranks, off = s[j+1:], ranks[split:], off+j+1
	}
}

// locate finds x among the bins (edges[i], edges[i+1]]: the clamped index
// (NaN → 0) and whether x lies inside (edges[0], edges[len−1]].
func locate(fn string, x float64, edges []float64) (int, bool) {
	b := len(edges) - 1
	if b < 1 {
		panic(&tensor.ArgumentError{Op: "bins." + fn, Detail: fmt.Sprintf("%d edges, need at least 2", len(edges))})
	}
	if !(x > edges[0]) {
		return 0, false
	}
	return sort.SearchFloat64s(edges[1:b], x), x <= edges[b]
}

// Index returns the bin of x among the bins (edges[i], edges[i+1]] (for
// instance from EqualMassEdges), the first bin closed at edges[0]; values
// outside are clamped into [0, len(edges)−2] and NaN falls in bin 0.
func Index(x float64, edges []float64) int {
	j, _ := locate("Index", x, edges)
	return j
}

// IndexStrict is Index with the reference convention: −1 (no bin) for
// x ≤ edges[0], x > edges[len−1] and NaN.
func IndexStrict(x float64, edges []float64) int {
	if j, in := locate("IndexStrict", x, edges); in {
		return j
	}
	return -1
}

// Nearest returns the index of the anchor nearest to s in Euclidean distance;
// anchors is row-major [len(anchors)/k][k] and s has k entries. Ties go to the
// first anchor.
func Nearest(s []float64, anchors []float64, k int) int {
	if k < 1 || len(s) != k || len(anchors) < k || len(anchors)%k != 0 {
		panic(&tensor.ShapeError{Op: "bins.Nearest", Shapes: [][]int{{len(s)}, {len(anchors)}}, Detail: fmt.Sprintf("%d values, %d anchor entries, k = %d; want k values and a multiple of k anchor entries", len(s), len(anchors), k)})
	}
	best, bestD := 0, math.Inf(1)
	for j := 0; j < len(anchors)/k; j++ {
		if d := dist2(s, anchors[j*k:(j+1)*k]); d < bestD {
			best, bestD = j, d
		}
	}
	return best
}

// dist2 is the squared Euclidean distance between s and a, summed in
// index order.
func dist2(s, a []float64) float64 {
	a = a[:len(s)]
	d := 0.0
	for c, v := range s {
		d += (v - a[c]) * (v - a[c])
	}
	return d
}

// NearestEach sets assign[i] to Nearest(s[i·k:(i+1)·k], anchors, k) for
// every row of s [len(assign), k], over the cores. Anchors that are the
// simplex's shrunk vertices (k anchors, each u + (v−u)·e_c for a distinct
// c, v > u: Simplex for k ≥ b) take a shortcut: the squared distance to
// the vertex of class c is a constant minus 2(v−u)·s_c, so the nearest is
// the vertex of the row's largest entry, O(k) instead of O(k²); a row
// whose two largest entries lie within tieMargin of each other, where
// rounding could order the distances otherwise, takes Nearest's exact
// scan over the vertices of the entries within tieMargin of the largest
// (the others lie farther by more than rounding can reorder), in anchor
// order, so that the result is Nearest's.
func NearestEach(s, anchors []float64, k int, assign []int) {
	n := len(assign)
	if k < 1 || len(s) != n*k || len(anchors) < k || len(anchors)%k != 0 {
		panic(&tensor.ShapeError{Op: "bins.NearestEach", Shapes: [][]int{{len(s)}, {len(anchors)}, {n}}, Detail: fmt.Sprintf("%d values, %d anchor entries, %d rows, k = %d; want rows·k values and a multiple of k anchor entries", len(s), len(anchors), n, k)})
	}
	vertex := shrunkVertices(anchors, k)
	cost := len(anchors)
	if vertex != nil {
		cost = 2 * k
	}
	tensor.ParallelFor(n, cost, func(lo, hi int) {
		var near []int
		for i := lo; i < hi; i++ {
			row := s[i*k : (i+1)*k]
			if vertex != nil {
				c, ok := clearMax(row)
				if ok {
					assign[i] = vertex[c]
					continue
				}
				if top := row[c]; top == top && !slices.ContainsFunc(row, math.IsNaN) {
					assign[i] = nearestVertex(row, anchors, vertex, top-tieMargin, &near)
					continue
				}
			}
			assign[i] = Nearest(row, anchors, k)
		}
	})
}

// nearestVertex is Nearest(row, anchors, k) over the anchors vertex[c] of
// the classes c whose entries are at least floor, scanned in anchor order
// (near is scratch).
func nearestVertex(row, anchors []float64, vertex []int, floor float64, near *[]int) int {
	k := len(row)
	*near = (*near)[:0]
	for c, v := range row {
		if v >= floor {
			*near = append(*near, vertex[c])
		}
	}
	slices.Sort(*near)
	best, bestD := 0, math.Inf(1)
	for _, j := range *near {
		if d := dist2(row, anchors[j*k:(j+1)*k]); d < bestD {
			best, bestD = j, d
		}
	}
	return best
}

// tieMargin bounds the rounding error of a squared distance between
// probability vectors far below itself: rows whose largest entries are
// closer than this are left to Nearest's scan.
const tieMargin = 1e-9

// clearMax returns the index of row's largest entry and whether it exceeds
// every other entry by more than tieMargin (false for NaN).
func clearMax(row []float64) (int, bool) {
	best, second := 0, math.Inf(-1)
	for j := 1; j < len(row); j++ {
		switch v := row[j]; {
		case v > row[best]:
			best, second = j, row[best]
		case v > second:
			second = v
		case v != v:
			return 0, false
		}
	}
	top := row[best]
	return best, top == top && top-second > tieMargin
}

// shrunkVertices returns, when anchors [k][k] are u + (v−u)·e_c for every
// class c in some order (v > u), the anchor of each class c; nil otherwise.
func shrunkVertices(anchors []float64, k int) []int {
	if len(anchors) != k*k || k < 2 {
		return nil
	}
	v := slices.Max(anchors[:k])
	u := slices.Min(anchors[:k])
	if !(v > u) {
		return nil
	}
	vertex := make([]int, k)
	seen := make([]bool, k)
	for a := range k {
		c := -1
		for j, x := range anchors[a*k : (a+1)*k] {
			switch {
			case x == v && c < 0:
				c = j
			case x != u:
				return nil
			}
		}
		if c < 0 || seen[c] {
			return nil
		}
		seen[c], vertex[c] = true, a
	}
	return vertex
}
