//go:build !noasm

package tensor

import (
	"math"
	"unsafe"
)

// extremesVec reports the AVX-512 kernels of extremesAsm for rows of
// k ≤ 16 and of extremeGradAsm.
var extremesVec = cpuISA >= isaAVX512

// wideSets are the sets this CPU runs, best first: AVX-512, AVX2.
var wideSets = func() []wideKernels {
	var ks []wideKernels
	if cpuISA >= isaAVX512 {
		ks = append(ks, wideKernels{"avx512", extremesWide, zeroStream})
	}
	if cpuISA >= isaAVX2 {
		ks = append(ks, wideKernels{"avx2", extremesWideAVX2, zeroStreamAVX2})
	}
	return ks
}()

// wide is the set extremesAsm and clearStream use: the best of wideSets,
// none (nil functions) without AVX2.
var wide = func() wideKernels {
	if len(wideSets) == 0 {
		return wideKernels{}
	}
	return wideSets[0]
}()

// extremesColsK is the largest k that extremesCols takes (at most 4 vectors
// per block); 0 turns it off (tests).
var extremesColsK = 4

// extremesTreeOn turns extremesTree on for the k above extremesColsK (off
// in tests).
var extremesTreeOn = true

// extremesRows is extremesAsm's kernel (reduce_amd64.s).
//
//go:noescape
func extremesRows(x *float32, rows, k int, flip float32, val, idx *float32)

// extremesCols is extremesAsm's kernel for blocks of 16 rows, one row per
// lane (reduce_amd64.s).
//
//go:noescape
func extremesCols(x *float32, blocks, k int, flip float32, val, idx *float32)

// extremesTree is extremesAsm's kernel for blocks of 16 rows reduced
// together (reduce_amd64.s); it returns the blocks done, stopping before
// one with a NaN (or infinities of both signs).
//
//go:noescape
func extremesTree(x *float32, blocks, k int, flip float32, val, idx *float32) int

// extremesWide is extremesAsm's kernel for rows of k ≥ 16, a row at a
// time (reduce_amd64.s); it returns the rows done, stopping before one
// with a NaN.
//
//go:noescape
func extremesWide(x *float32, rows, k int, flip float32, val, idx *float32) int

// extremesWideAVX2 is extremesWide in AVX2, for rows of k ≥ 8
// (reduce_amd64.s).
//
//go:noescape
func extremesWideAVX2(x *float32, rows, k int, flip float32, val, idx *float32) int

// zeroStream sets n float32 at dst (64-byte aligned, n a multiple of 16)
// to zero with streaming stores (reduce_amd64.s); zeroStreamAVX2 is its
// AVX2 form.
//
//go:noescape
func zeroStream(dst *float32, n int)

//go:noescape
func zeroStreamAVX2(dst *float32, n int)

// extremesAsm sets val and idx, the extreme of each row of k contiguous
// elements of x and its index (lastExtreme), where the kernels take them
// (float32: blocks of rows for k ≤ 16 in AVX-512, a row at a time above
// in AVX-512 or AVX2), and returns the number of rows it did.
func extremesAsm[T Float](x, val, idx []T, k int, min bool) int {
	v, ok := any(val).([]float32)
	if !extremesAsmTakes(k) || !ok || len(v) == 0 {
		return 0
	}
	var flip float32
	if min {
		flip = float32(math.Copysign(0, -1))
	}
	xs, is := reinterpret[float32](x), reinterpret[float32](idx)
	if k > 16 {
		for r := 0; r < len(v); r++ {
			r += wide.rows(&xs[r*k], len(v)-r, k, flip, &v[r], &is[r])
			if r < len(v) { // a row with a NaN
				v[r], is[r] = lastExtreme(xs[r*k:(r+1)*k], min)
			}
		}
		return len(v)
	}
	done := 0
	switch blocks := len(v) / 16; {
	case blocks == 0:
	case k <= extremesColsK:
		extremesCols(&xs[0], blocks, k, flip, &v[0], &is[0])
		done = 16 * blocks
	case extremesTreeOn:
		for done < 16*blocks {
			done += 16 * extremesTree(&xs[done*k], blocks-done/16, k, flip, &v[done], &is[done])
			if done < 16*blocks { // a block with a NaN: one row per vector
				extremesRows(&xs[done*k], 16, k, flip, &v[done], &is[done])
				done += 16
			}
		}
	}
	if done < len(v) {
		extremesRows(&xs[done*k], len(v)-done, k, flip, &v[done], &is[done])
	}
	return len(v)
}

// extremesAsmTakes reports whether extremesAsm has a kernel for rows of k
// (float32).
func extremesAsmTakes(k int) bool {
	return k > 16 && wide.rows != nil || k >= 1 && k <= 16 && extremesVec
}

// extremeGradRows and extremeGradRowsCached are extremeGradAsm's kernels
// (reduce_amd64.s), with streaming and with ordinary stores.
//
//go:noescape
func extremeGradRows(dst *float32, blocks, k int, val, idx *float32, tab *int32)

//go:noescape
func extremeGradRowsCached(dst *float32, blocks, k int, val, idx *float32, tab *int32)

// extremeGradAsm sets the rows of k elements of dst to zero but val at the
// index idx (ExtremeGrad along the last axis) for the whole blocks of 16
// rows, where the AVX-512 kernel takes them (float32, k ≤ 16), and returns
// the number of rows it did. With stream it writes with streaming stores,
// for a gradient too large to stay in cache, and only where dst is 64-byte
// aligned.
func extremeGradAsm[T Float](dst, val, idx []T, k int, stream bool) int {
	d, ok := any(dst).([]float32)
	if !extremesVec || !ok || k < 1 || k > 16 || len(val) < 16 || len(d) < len(val)*k || stream && uintptr(unsafe.Pointer(&d[0]))%64 != 0 {
		return 0
	}
	var tab [2 * 16 * 16]int32 // per lane of the block's vectors: its row, then its column
	for e := range 16 * k {
		tab[e], tab[16*k+e] = int32(e/k), int32(math.Float32bits(float32(e%k)))
	}
	blocks := len(val) / 16
	rows := extremeGradRowsCached
	if stream {
		rows = extremeGradRows
	}
	rows(&d[0], blocks, k, &reinterpret[float32](val)[0], &reinterpret[float32](idx)[0], &tab[0])
	return 16 * blocks
}

// clearStream sets dst to zero, with streaming stores over its 64-byte
// aligned middle where stream is set and the CPU has the kernel (float32).
func clearStream[T Float](dst []T, stream bool) {
	d, ok := any(dst).([]float32)
	if !stream || wide.zero == nil || !ok || len(d) < 64 {
		clear(dst)
		return
	}
	head := int((64 - uintptr(unsafe.Pointer(&d[0]))%64) % 64 / 4)
	mid := (len(d) - head) &^ 15
	clear(d[:head])
	wide.zero(&d[head], mid)
	clear(d[head+mid:])
}
