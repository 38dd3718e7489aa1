package tensor

import (
	"math"
	"sync"
)

// What the vector kernels of the soft binning (soft1D in softbin_1d.go,
// softCanon in softbin_canon.go) share: their constant table, the
// interface the CPU bodies call, the driver of their rounds and their
// scratch.

// softConsts is the vector kernels' constant table. The assembly reads
// each field at the offset the compiler writes to go_asm.h as
// softConsts_<field> (softbin_amd64.h), so the two cannot disagree.
type softConsts struct {
	k            float32 // −1/τ
	log2e        float32
	ln2Hi, ln2Lo float32 // ln 2 in two parts (Cephes' C1, C2)
	// The coefficients of Cephes' expf polynomial, highest degree first.
	p0, p1, p2, p3, p4, p5 float32
	one                    float32
	expMin                 float32 // −104, below which e^x is 0 in float32
	// For equally spaced anchors a_j = a_0 + j·h (soft1D's recurrence, see
	// PRELUDE in softbin1d_amd64.s): a_0, 1/h, h, B − 1, kh², −2kh,
	// γ = e^{2kh²}, the lower bound −40 of the exponents (+∞ when the
	// anchors are not equally spaced: the upper bound is then unused),
	// their upper bound 40, a_{B−1} and (B − 2)·2kh².
	a0, invStep, step, lastBin float32
	kh2, m2kh, gamma           float32
	lo, hi                     float32
	aLast, span                float32
}

// softConstants is the constant table for k = −1/τ, with no equally spaced
// anchors.
func softConstants(k float32) softConsts {
	return softConsts{k: k, log2e: math.Log2E, ln2Hi: 0.693359375, ln2Lo: -2.12194440e-4,
		p0: 1.9875691500e-4, p1: 1.3981999507e-3, p2: 8.3334519073e-3, p3: 4.1665795894e-2, p4: 1.6666665459e-1, p5: 5.0000001201e-1,
		one: 1, expMin: -104,
		lo: float32(math.Inf(1)), hi: 80}
}

// soft1DRounds bounds the rounds summed in float32 before a fold.
const soft1DRounds = 128

// softVec is a vector kernel of the soft binning (soft1D, softCanon), 16
// samples per round.
type softVec interface {
	// stats adds the statistics of rows [lo, hi) to acc, rows the scalar
	// loop for a range of rows, and returns the first row it left (fewer
	// than 16 before hi).
	stats(acc []float64, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int
	// grad returns the loop that adds to (or, canonical, sets) dx and dp,
	// zero before, the gradients of rows [lo, hi) for the statistics'
	// gradient ds, likewise, or nil when ds is not finite (a kernel would
	// spread a NaN over bins the scalar loop skips).
	grad(ds []float32) func(dx, dp, xs, ps []float32, lo, hi int, rows func(lo, hi int)) int
}

// newSoftVec returns the vector kernel for as, g groups and values of
// dimension d, or nil where none applies.
func newSoftVec[T Float](as *anchorSet[T], g, d int) softVec {
	if v := newSoft1D(as, g, d); v != nil {
		return v
	}
	if v := newSoftCanon(as, g, d); v != nil {
		return v
	}
	return nil
}

// vecRounds runs kernel (which takes rounds of 16 rows from row lo and
// returns the rounds done) over the whole rounds of rows [lo, hi), at most
// most rounds a call, and rows on each round it stops before; it returns
// the first row left. An assembly call cannot be preempted, and the
// collector's stop-the-world waits for it (while the other cores idle), so
// callers keep most at soft1DRounds (about 0.1–1 ms of work): a backward
// pass over 5·10⁶ canonical K = 10 rows in one call held a mark
// termination for 191 ms (GODEBUG=gctrace=1), at most 1.5 ms in calls of
// soft1DRounds.
func vecRounds(lo, hi, most int, kernel func(lo, rounds int) int, rows func(lo, hi int)) int {
	for hi-lo >= 16 {
		rounds := min((hi-lo)/16, most)
		done := kernel(lo, rounds)
		lo += 16 * done
		if done < rounds {
			rows(lo, lo+16)
			lo += 16
		}
	}
	return lo
}

// scratch returns a pooled buffer of at least n float32 values, and its
// release.
func scratch(n int) ([]float32, func()) {
	buf := soft1DScratch.Get().(*[]float32)
	if cap(*buf) < n {
		*buf = make([]float32, n)
	}
	return (*buf)[:n], func() { soft1DScratch.Put(buf) }
}

// soft1DScratch holds the vector kernels' scratch between calls.
var soft1DScratch = sync.Pool{New: func() any { return new([]float32) }}

// finite reports whether every value of s is finite.
func finite(s []float32) bool {
	for _, v := range s {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return false
		}
	}
	return true
}
