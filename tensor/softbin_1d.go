package tensor

import "math"

// soft1D runs the soft binning of 1-D float32 points and values (E = D = 1:
// top-label and class-wise) through the vector kernels of
// softbin1d_amd64.s (AVX-512, 16 samples per vector) or
// softbin1d_avx2_amd64.s (AVX2, two halves of 8), in rounds of 16 rows of
// the G groups (see there).
// The kernels sum each lane in float32 over at most soft1DRounds rounds,
// then fold the lanes into the float64 partial sums.
type soft1D struct {
	k    soft1DKernels
	a    []float32
	c    softConsts
	g, b int
	// group[v·16 + l] is the group of lane l of a round's vector v.
	group []int
}

// soft1DKernels are soft1D's forward and backward kernels at one
// instruction-set level (softBinFwd16 and softBinBwd16's contract); a set
// marked uniform takes equally spaced anchors only.
type soft1DKernels struct {
	name    string
	fwd     func(x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, acc, tmp *float32) int
	bwd     func(dx, dp, x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, tab *float32) int
	uniform bool
}

// soft1DSet is the set soft1D runs: the best of soft1DSets, none (nil
// kernels) without one.
var soft1DSet = func() soft1DKernels {
	if len(soft1DSets) == 0 {
		return soft1DKernels{}
	}
	return soft1DSets[0]
}()

// newSoft1D returns the vector kernels for as, g groups and values of
// dimension d, or nil where they do not apply (no kernel set, float64,
// points or values of more than one dimension, anchors not equally spaced
// for a uniform set).
func newSoft1D[T Float](as *anchorSet[T], g, d int) *soft1D {
	k, ok := any(as.k).(float32)
	if soft1DSet.fwd == nil || !ok || as.e != 1 || d != 1 || soft1DSet.uniform && (as.step <= 0 || len(as.a) < 2) {
		return nil
	}
	v := &soft1D{k: soft1DSet, a: reinterpret[float32](as.a), g: g, b: len(as.a), group: make([]int, 16*g)}
	v.c = softConstants(k)
	if h, b := as.step, len(as.a); h > 0 {
		kf, hf := float64(k), float64(float32(h))
		v.c.a0, v.c.invStep, v.c.step, v.c.lastBin = v.a[0], float32(1/h), float32(h), float32(b-1)
		v.c.kh2, v.c.m2kh, v.c.gamma = float32(kf*hf*hf), float32(-2*kf*hf), float32(math.Exp(2*kf*hf*hf))
		v.c.lo, v.c.hi, v.c.aLast, v.c.span = -40, 40, v.a[b-1], float32(float64(b-2)*2*kf*hf*hf)
	}
	for i := range v.group {
		v.group[i] = i % g
	}
	return v
}

func (v *soft1D) stats(acc []float64, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
	size := v.g * v.b * 3 * 16
	buf, release := scratch(size + v.b*16)
	defer release()
	lanes, tmp := buf[:size], buf[size:]
	return vecRounds(lo, hi, soft1DRounds, func(lo, rounds int) int {
		clear(lanes)
		done := v.k.fwd(&xs[lo*v.g], &ps[lo*v.g], rounds, v.g, &v.a[0], v.b, &v.c, &lanes[0], &tmp[0])
		v.fold(acc, lanes)
		return done
	}, rows)
}

// fold adds the per-lane sums [G][B·3][16] to acc [G, B·3].
func (v *soft1D) fold(acc []float64, lanes []float32) {
	bc := 3 * v.b
	for vec := range v.g {
		groups := v.group[vec*16 : vec*16+16]
		for i := range bc {
			s := lanes[(vec*bc+i)*16 : (vec*bc+i)*16+16]
			for l, gg := range groups {
				acc[gg*bc+i] += float64(s[l])
			}
		}
	}
}

func (v *soft1D) grad(ds []float32) func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
	if !finite(ds) {
		return nil
	}
	tab := v.table(ds)
	return func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int {
		return vecRounds(lo, hi, soft1DRounds, func(lo, rounds int) int {
			o := lo * v.g
			return v.k.bwd(&dx[o], &dp[o], &xs[o], &ps[o], rounds, v.g, &v.a[0], v.b, &v.c, &tab[0])
		}, rows)
	}
}

// table lays out the gradient ds [G, B, 3] of the statistics per lane of a
// round's vectors, with the anchors, [G][B][4][16] (dn, dm, dq, a), for
// the backward kernel.
func (v *soft1D) table(ds []float32) []float32 {
	tab := make([]float32, v.g*v.b*4*16)
	for vec := range v.g {
		groups := v.group[vec*16 : vec*16+16]
		for j, a := range v.a {
			t := tab[(vec*v.b+j)*4*16 : (vec*v.b+j+1)*4*16]
			for l, gg := range groups {
				d := ds[(gg*v.b+j)*3 : (gg*v.b+j)*3+3]
				t[l], t[16+l], t[32+l], t[48+l] = d[0], d[1], d[2], a
			}
		}
	}
	return tab
}
