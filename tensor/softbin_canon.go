package tensor

import (
	"math"
	"slices"
)

// softCanon runs the soft binning of float32 points of E ≥ 2 dimensions in
// one group (canonical) through the vector kernels of
// softbincanon_amd64.s, 16 samples per round (see there), summing each lane
// in float32 over at most soft1DRounds rounds before folding the lanes into
// the float64 partial sums.
type softCanon struct {
	e, d, b int
	c       softConsts
	// cf holds per anchor k‖a_j‖², then −2k(a_j − o)_c at its nonzero
	// coordinates c; nz their count, then 64c for each.
	cf  []float32
	nz  []int32
	off []float32 // o
	// trans holds the kernels' tables for the transposition of a round
	// between its rows and coordinate vectors: x, then p to coordinates,
	// x, then p back to rows (transTable).
	trans []int32
	// For lattice anchors (CLATTICE in softbincanon_amd64.s), lat holds
	// γ = −2ku, the bound (−87 − ln min lift)/Σ_c g_jc and lift_j, pw
	// the largest power G, then per anchor the count of its powers
	// g_jc and their offsets 64(cG + g_jc − 1); γ = 0 otherwise. powers
	// is E·G, the vectors of the powers' table.
	lat    []float32
	pw     []int32
	powers int
}

// newSoftCanon returns the vector kernels for as, g groups and values of
// dimension d, or nil where they do not apply (no AVX-512, float64, more
// than one group, 1-D points, no values).
func newSoftCanon[T Float](as *anchorSet[T], g, d int) *softCanon {
	k, ok := any(as.k).(float32)
	if !softAsm || !ok || g != 1 || as.e < 2 || d < 1 {
		return nil
	}
	v := &softCanon{e: as.e, d: d, b: len(as.norm), c: softConstants(k), off: reinterpret[float32](as.off)}
	v.cf, v.nz = make([]float32, 0, v.b+len(as.idx)), make([]int32, 0, v.b+len(as.idx))
	for j := range v.b {
		v.cf = append(v.cf, k*float32(as.norm[j]))
		v.nz = append(v.nz, int32(as.start[j+1]-as.start[j]))
		for t := as.start[j]; t < as.start[j+1]; t++ {
			v.cf = append(v.cf, -2*k*float32(as.val[t]))
			v.nz = append(v.nz, int32(64*as.idx[t]))
		}
	}
	v.trans = slices.Concat(transTable(v.e, false), transTable(d, false), transTable(v.e, true), transTable(d, true))
	v.lattice(any(as).(*anchorSet[float32]))
	return v
}

// lattice sets lat, pw and powers for the anchors of as, where they are
// on a lattice whose terms stay above e^{−87} for some points.
func (v *softCanon) lattice(as *anchorSet[float32]) {
	v.lat, v.pw = []float32{0}, []int32{0}
	if !(as.unit > 0) {
		return
	}
	sum, low := 0, slices.Min(as.lift)
	for t := as.start[0]; t < as.start[1]; t++ {
		sum += as.pow[t]
	}
	bound := (-87 - math.Log(low)) / float64(sum)
	if !(bound < 0) {
		return
	}
	g := as.maxPow
	v.lat = append(make([]float32, 0, 2+len(as.lift)), -2*as.k*float32(as.unit), float32(bound))
	v.pw = append(make([]int32, 0, 1+len(as.lift)+len(as.idx)), int32(g))
	for j, l := range as.lift {
		v.lat = append(v.lat, float32(l))
		v.pw = append(v.pw, int32(as.start[j+1]-as.start[j]))
		for t := as.start[j]; t < as.start[j+1]; t++ {
			v.pw = append(v.pw, int32(64*(as.idx[t]*g+as.pow[t]-1)))
		}
	}
	v.powers = as.e * g
}

// transTable is the table of CTRANS (softbincanon_amd64.s) for a round of 16
// rows of n coordinates, from rows to coordinate vectors (or back, with
// toRows): the gather (scatter) indices l·n, then for each output vector o
// an index and a source vector, its lane m being lane index[m] of the
// input vector source[m]. Row l's coordinate c is at the flat position
// f = l·n + c of the rows: lane f mod 16 of row vector ⌊f/16⌋, and lane l
// of coordinate vector c.
func transTable(n int, toRows bool) []int32 {
	t := make([]int32, 16+32*n)
	for l := range 16 {
		t[l] = int32(l * n)
	}
	for o := range n {
		index, source := t[16+32*o:32+32*o], t[32+32*o:48+32*o]
		for m := range 16 {
			f := m*n + o
			index[m], source[m] = int32(f%16), int32(f/16)
			if toRows {
				f = o*16 + m
				index[m], source[m] = int32(f/n), int32(f%n)
			}
		}
	}
	return t
}

func (v *softCanon) stats(acc []float64, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
	size := v.b * (v.d + 2) * 16
	buf, release := scratch(size + (4*(v.e+v.d+2+v.b)+v.powers)*16)
	defer release()
	lanes, tmp := buf[:size], buf[size:]
	return vecRounds(lo, hi, soft1DRounds, func(lo, rounds int) int {
		clear(lanes)
		done := softCanonFwd16(&xs[lo*v.e], &ps[lo*v.d], rounds, v.e, v.d, &v.cf[0], &v.nz[0], v.b, &v.c, &v.trans[0], &lanes[0], &tmp[0], &v.lat[0], &v.pw[0])
		for i := range acc {
			for _, s := range lanes[i*16 : i*16+16] {
				acc[i] += float64(s)
			}
		}
		return done
	}, rows)
}

func (v *softCanon) grad(ds []float32) func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
	if !finite(ds) {
		return nil
	}
	tab := v.table(ds)
	return func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
		tmp, release := scratch((2*v.e + v.d + 2 + 2*roundUp(v.b, 8) + roundUp(v.d+2, 8) + v.powers) * 16)
		defer release()
		return vecRounds(lo, hi, soft1DRounds, func(lo, rounds int) int {
			e, d := lo*v.e, lo*v.d
			return softCanonBwd16(&dx[e], &dp[d], &xs[e], &ps[d], rounds, v.e, v.d, &v.cf[0], &v.nz[0], v.b, &v.c, &v.trans[0], &tab[0], &v.off[0], &tmp[0], &v.lat[0], &v.pw[0])
		}, rows)
	}
}

// table lays out the statistics' gradient ds [B, D+2] for the backward
// kernel, zero-padded: by blocks of 8 columns, [⌈(D+2)/8⌉][B][8], then by
// blocks of 8 anchors, [⌈B/8⌉][D+2][8].
func (v *softCanon) table(ds []float32) []float32 {
	c := v.d + 2
	second := roundUp(c, 8) * v.b
	tab := make([]float32, second+roundUp(v.b, 8)*c)
	for j := range v.b {
		for i, s := range ds[j*c : (j+1)*c] {
			tab[(i/8*v.b+j)*8+i%8] = s
			tab[second+(j/8*c+i)*8+j%8] = s
		}
	}
	return tab
}
