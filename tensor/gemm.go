package tensor

import "runtime"

// GEMM after Goto (as in BLIS and OpenBLAS): op(b) is packed kc×nc at a time
// into nr-wide column panels, op(a) mc×kc at a time into mr-high row panels
// (scaled by alpha), and a micro-kernel multiplies one row panel by one
// column panel into an mr×nr tile of c held in registers. The micro-kernel
// is assembly where the CPU allows, chosen when the package loads from the
// CPU's features (cpufeat_amd64.go): AVX-512 (gemm_avx512_amd64.s, 12×32
// float32, 12×16 float64), else AVX2 and FMA (gemm_amd64.s, 6×16, 6×8),
// else goKernel (4×4; the only one with -tags noasm or off amd64). Large
// products are split into stripes of c, one per core.

// microKernel is a register tile of mr×nr and the function adding
// Σ_p a[p*mr+i]·b[p*ldb+j] over k ≥ 1 steps to c[i*ldc+j] (or, without
// add, setting c[i*ldc+j] to it): a is a packed panel, b a packed panel
// (ldb = nr) or nr columns of a row-major matrix. Its cache blocks are kc,
// mc (a multiple of mr) and nc (of nr): a kc×nr panel of b stays in L1
// (48 KB on Zen 5), an mc×kc block of a in L2 (1 MB), the kc×nc block of b
// in L3. half, where not nil, is fn for the first mr/2 rows only (the same
// panels of a), for the last rows of c.
type microKernel[T Float] struct {
	mr, nr     int
	kc, mc, nc int
	fn, half   func(k int, a, b []T, ldb int, c []T, ldc int, add bool)
}

func (mk microKernel[T]) blocks() (kc, mc, nc int) { return mk.kc, mk.mc, mk.nc }

// gemmISA is the level whose micro-kernels kernelFor picks: the best of
// this CPU and build; tests lower it to cover the others.
var gemmISA = cpuISA

// kernelFor is the micro-kernel for T at level gemmISA.
func kernelFor[T Float]() microKernel[T] { return kernelAt[T](gemmISA) }

// kernelAt is the micro-kernel for T at level l, or below where this
// platform lacks it.
func kernelAt[T Float](l isa) microKernel[T] {
	if mk, ok := asmKernel[T](l); ok {
		return mk
	}
	return microKernel[T]{4, 4, 256, 144, 4096, goKernel[T], nil}
}

// operand is a row-major matrix: element (i, j) of op(x) is data[i*ld+j], or
// data[j*ld+i] when trans. An a operand may also come packed whole
// (packWhole), as when one matrix multiplies many.
type operand[T Float] struct {
	data   []T
	ld     int
	trans  bool
	packed []T
}

// gemmParallelMin is the number of multiply-adds from which gemm splits the
// product over cores: 4M, about 50 µs on one core with AVX-512 (128³ stays
// on one). Below it a split saves a few µs on an idle machine, and each
// stripe packs op(a) or op(b) again; on a loaded one it cost 2–4× (a 128³
// float32 MatMul at 8–20 GFLOP/s split, 24–40 on one core, alternating).
const gemmParallelMin = 1 << 22

// gemm computes c = alpha·op(a)·op(b) + beta·c for row-major matrices, with
// op(a) m×k and op(b) k×n, on all cores from gemmParallelMin multiply-adds.
// As in BLAS, beta = 0 overwrites c whatever it holds.
func gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	workers := 1
	if m*n*k >= gemmParallelMin {
		workers = runtime.GOMAXPROCS(0)
	}
	mk := kernelFor[T]()
	if transA != transB && workers == 1 && n < mk.nr && n < m && k <= mk.kc && alpha == 1 && beta == 0 {
		gemmTransposed(mk, transA, m, n, k, a, lda, b, ldb, c, ldc)
		return
	}
	gemmWith(mk, workers, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmTransposed sets c = op(a)·op(b) for a narrow op(b) (n < nr) and
// one transposed operand, as the output layer of a small network (100
// rows by 3 classes) multiplies: packing the m rows of op(a) cost more
// than the product. It computes cᵀ = op(b)ᵀ·op(a)ᵀ instead, which packs
// the n rows of op(b)ᵀ and, for op(a) = aᵀ, reads a in place, and writes
// cᵀ into c. With one k-block each element is the same chain of
// multiply-adds either way: the same bits as gemmWith.
func gemmTransposed[T Float](mk microKernel[T], transA bool, m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	buf := getScratch[T](n * m)
	defer putScratch(buf)
	ct := (*buf)[:n*m]
	gemmWith(mk, 1, transA, !transA, n, m, k, 1, b, ldb, a, lda, 0, ct, m)
	for j := range n {
		for i, v := range ct[j*m : (j+1)*m] {
			c[i*ldc+j] = v
		}
	}
}

// gemmSerial is gemm on the calling goroutine, for callers that already run
// on every core.
func gemmSerial[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	gemmWith(kernelFor[T](), 1, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// gemmWith is gemm with the given micro-kernel on up to workers goroutines
// whatever the size (tests split small products), each computing a stripe
// of c: columns when c is wider than tall, else rows.
func gemmWith[T Float](mk microKernel[T], workers int, transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	gemmOperands(mk, workers, m, n, k, alpha, operand[T]{data: a, ld: lda, trans: transA}, operand[T]{data: b, ld: ldb, trans: transB}, beta, c, ldc)
}

// gemmOperands is gemmWith on operands; where A comes packed, alpha must
// be the one it was packed with.
func gemmOperands[T Float](mk microKernel[T], workers int, m, n, k int, alpha T, A, B operand[T], beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if workers <= 1 { // no closure: callers such as Winograd's run many small products
		gemmRange(mk, 0, m, 0, n, k, alpha, A, B, beta, c, ldc)
		return
	}
	wide := n >= m
	size, unit := m, mk.mr
	if wide {
		size, unit = n, mk.nr
	}
	tiles := (size + unit - 1) / unit
	parts := min(workers, tiles)
	parallelFor(parts, grain, func(lo, hi int) {
		for w := lo; w < hi; w++ {
			s0, s1 := w*tiles/parts*unit, min((w+1)*tiles/parts*unit, size)
			if wide {
				gemmRange(mk, 0, m, s0, s1, k, alpha, A, B, beta, c, ldc)
			} else {
				gemmRange(mk, s0, s1, 0, n, k, alpha, A, B, beta, c, ldc)
			}
		}
	})
}

// gemmRange computes rows [i0, i1) × columns [j0, j1) of
// c = alpha·A·B + beta·c.
func gemmRange[T Float](mk microKernel[T], i0, i1, j0, j1, k int, alpha T, A, B operand[T], beta T, c []T, ldc int) {
	product := k > 0 && alpha != 0
	overwrite := product && beta == 0 // the product's first k-block sets c
	if !overwrite {
		scaleBlock(c, ldc, i0, i1, j0, j1, beta)
	}
	if product {
		gemmBlock(mk, i0, i1, j0, j1, k, alpha, A, B, !overwrite, c, ldc)
	}
}

// scaleBlock multiplies rows [i0, i1) × columns [j0, j1) of c by beta
// (clearing them for beta = 0).
func scaleBlock[T Float](c []T, ldc, i0, i1, j0, j1 int, beta T) {
	if beta == 1 {
		return
	}
	for i := i0; i < i1; i++ {
		row := c[i*ldc+j0 : i*ldc+j1]
		if beta == 0 {
			clear(row)
			continue
		}
		for j := range row {
			row[j] *= beta
		}
	}
}

// gemmBlock adds alpha·op(a)·op(b) to rows [i0, i1) × columns [j0, j1) of c,
// or sets them to it without add.
func gemmBlock[T Float](mk microKernel[T], i0, i1, j0, j1, k int, alpha T, a, b operand[T], add bool, c []T, ldc int) {
	mr, nr := mk.mr, mk.nr
	kc, mc, nc := mk.blocks()
	kc, mc, nc = min(kc, k), min(mc, roundUp(i1-i0, mr)), min(nc, roundUp(j1-j0, nr))
	bufA, bufB, bufT := getScratch[T](mc*kc), getScratch[T](kc*nc), getScratch[T](mr*nr)
	defer func() { putScratch(bufA); putScratch(bufB); putScratch(bufT) }()
	pa, pb, tile := *bufA, *bufB, *bufT
	// Packing b pays where each panel of it meets many row blocks of a;
	// op(a) of at most two blocks (ResNet's 1×1 convolutions: 64 to 256
	// output channels against an image's pixels; bench/README.md, "b read
	// in place for short products") or a small b (at most 2¹⁵ elements, a
	// 128² matrix of float32 or float64, in cache whole) are read in place
	// instead, and only the last, partial panel packed.
	inPlace := !b.trans && (i1-i0 <= 2*mk.mc || k*b.ld <= 1<<15)
	for jc := j0; jc < j1; jc += nc {
		nb := min(nc, j1-jc)
		for pc := 0; pc < k; pc += kc {
			kb := min(kc, k-pc)
			acc := add || pc > 0 // whether this k-block adds to c
			full := 0            // columns read in place
			if inPlace {
				full = nb / nr * nr
				packB(pb, b, pc, kb, jc+full, nb-full, nr)
			} else {
				packB(pb, b, pc, kb, jc, nb, nr)
			}
			for ic := i0; ic < i1; ic += mc {
				mb := min(mc, i1-ic)
				if a.packed != nil {
					pa = a.packed[len(a.packed)/k*pc+ic*kb:] // see packWhole
				} else {
					packA(pa, a, ic, mb, pc, kb, mr, alpha)
				}
				for jr := 0; jr < nb; jr += nr {
					cols := min(nr, nb-jr)
					var panelB []T
					ldb := nr
					if jr < full {
						panelB, ldb = b.data[pc*b.ld+jc+jr:], b.ld
					} else {
						panelB = pb[(jr-full)*kb : (jr-full+nr)*kb]
					}
					for ir := 0; ir < mb; ir += mr {
						rows := min(mr, mb-ir)
						panelA := pa[ir*kb : (ir+mr)*kb]
						off := (ic+ir)*ldc + jc + jr
						fn, fr := mk.fn, mr // the kernel and the rows it computes
						if rows <= mr/2 && mk.half != nil {
							fn, fr = mk.half, mr/2
						}
						if rows == fr && cols == nr {
							fn(kb, panelA, panelB, ldb, c[off:], ldc, acc)
							continue
						}
						// Edge tile: compute the tile aside, move its valid
						// part.
						fn(kb, panelA, panelB, ldb, tile, nr, false)
						for i := range rows {
							row, t := c[off+i*ldc:off+i*ldc+cols], tile[i*nr:i*nr+cols]
							if !acc {
								copy(row, t)
								continue
							}
							for j := range row {
								row[j] += t[j]
							}
						}
					}
				}
			}
		}
	}
}

func roundUp(n, unit int) int { return (n + unit - 1) / unit * unit }

// packA packs alpha times rows [i0, i0+mb) × columns [p0, p0+kb) of op(a)
// into panels of mr rows, panel r at dst[r*mr*kb:], element (i, p) at
// p*mr+i, the rows past mb zero.
func packA[T Float](dst []T, a operand[T], i0, mb, p0, kb, mr int, alpha T) {
	for ir := 0; ir < mb; ir += mr {
		panel := dst[ir*kb : (ir+mr)*kb]
		rows := min(mr, mb-ir)
		if a.trans {
			for p := range kb {
				src := a.data[(p0+p)*a.ld+i0+ir:][:rows]
				d := panel[p*mr : (p+1)*mr]
				for i, v := range src {
					d[i] = alpha * v
				}
				clear(d[rows:])
			}
			continue
		}
		interleave(panel, mr, rows, a.data[(i0+ir)*a.ld+p0:], a.ld, kb, alpha)
		if rows < mr {
			for p := range kb {
				clear(panel[p*mr+rows : (p+1)*mr])
			}
		}
	}
}

// packWhole packs alpha times op(a), m×k, into dst, of exactly
// roundUp(m, mr)·k elements, as gemmBlock packs it block by block: the block of columns from
// p0 (a multiple of kc) at dst[roundUp(m, mr)·p0:], in panels of mr rows, the
// panel of row i (a multiple of mr) at i·kb of it. gemmBlock then finds the
// panels of any of its blocks in dst. The panels are split over cores.
func packWhole[T Float](mk microKernel[T], a operand[T], m, k int, alpha T, dst []T) {
	kc, _, _ := mk.blocks()
	mm := roundUp(m, mk.mr)
	packPanels(m, mk.mr, k, func(i0, i1 int) {
		for p0 := 0; p0 < k; p0 += kc {
			kb := min(kc, k-p0)
			packA(dst[mm*p0+i0*kb:], a, i0, i1-i0, p0, kb, mk.mr, alpha)
		}
	})
}

// packPanels runs pack over the rows [i0, i1) of m, in whole panels of mr
// rows of k columns each, split over cores from packParallelMin elements.
func packPanels(m, mr, k int, pack func(i0, i1 int)) {
	if m*k < packParallelMin {
		pack(0, m)
		return
	}
	parallelFor((m+mr-1)/mr, mr*k, func(lo, hi int) { pack(lo*mr, min(hi*mr, m)) })
}

// packParallelMin is the size of a matrix from which packPanels splits it
// over cores: 2¹⁸ elements, 1 MB of float32, about 100 µs to move on
// one core from memory. Smaller ones (a dense block's 32 output channels)
// cost less than waking a core.
const packParallelMin = 1 << 18

// packB packs rows [p0, p0+kb) × columns [j0, j0+nb) of op(b) into panels
// of nr columns, panel r at dst[r*nr*kb:], element (p, j) at p*nr+j, the
// columns past nb zero.
func packB[T Float](dst []T, b operand[T], p0, kb, j0, nb, nr int) {
	for jr := 0; jr < nb; jr += nr {
		panel := dst[jr*kb : (jr+nr)*kb]
		cols := min(nr, nb-jr)
		if b.trans {
			interleave(panel, nr, cols, b.data[(j0+jr)*b.ld+p0:], b.ld, kb, 1)
		} else { // rows of cols elements: the assembly row move, not a copy call a row
			moveRows(panel, b.data[p0*b.ld+j0+jr:], kb, cols, nr, b.ld, false)
		}
		if cols < nr {
			for p := range kb {
				clear(panel[p*nr+cols : (p+1)*nr])
			}
		}
	}
}

// interleave sets dst[p*w+i] to alpha·src[i*ld+p] for i < rows, p < kb:
// rows of src become columns of dst, read four at a time (in assembly
// where interleave4Asm can).
func interleave[T Float](dst []T, w, rows int, src []T, ld, kb int, alpha T) {
	i := 0
	for ; i+4 <= rows; i += 4 {
		s := src[i*ld:]
		r0, r1, r2, r3 := s[:kb], s[ld:][:kb], s[2*ld:][:kb], s[3*ld:][:kb]
		for p := interleave4Asm(dst[i:], w, s, ld, kb, alpha); p < kb; p++ {
			d := dst[p*w+i : p*w+i+4 : p*w+i+4]
			d[0], d[1], d[2], d[3] = alpha*r0[p], alpha*r1[p], alpha*r2[p], alpha*r3[p]
		}
	}
	if i+2 <= rows { // two rows in one pass (mr = 6: the rows the four leave)
		r0, r1 := src[i*ld:][:kb], src[(i+1)*ld:][:kb]
		for p := range kb {
			d := dst[p*w+i : p*w+i+2 : p*w+i+2]
			d[0], d[1] = alpha*r0[p], alpha*r1[p]
		}
		i += 2
	}
	for ; i < rows; i++ {
		for p, v := range src[i*ld:][:kb] {
			dst[p*w+i] = alpha * v
		}
	}
}

// goKernel is the portable micro-kernel: a 4×4 tile in local variables.
func goKernel[T Float](k int, a, b []T, ldb int, c []T, ldc int, add bool) {
	var c00, c01, c02, c03, c10, c11, c12, c13, c20, c21, c22, c23, c30, c31, c32, c33 T
	a = a[:4*k]
	for p := 0; p < k; p++ {
		ap, bp := a[4*p:4*p+4:4*p+4], b[p*ldb:p*ldb+4:p*ldb+4]
		b0, b1, b2, b3 := bp[0], bp[1], bp[2], bp[3]
		a0 := ap[0]
		c00, c01, c02, c03 = c00+a0*b0, c01+a0*b1, c02+a0*b2, c03+a0*b3
		a1 := ap[1]
		c10, c11, c12, c13 = c10+a1*b0, c11+a1*b1, c12+a1*b2, c13+a1*b3
		a2 := ap[2]
		c20, c21, c22, c23 = c20+a2*b0, c21+a2*b1, c22+a2*b2, c23+a2*b3
		a3 := ap[3]
		c30, c31, c32, c33 = c30+a3*b0, c31+a3*b1, c32+a3*b2, c33+a3*b3
	}
	for i, acc := range [4][4]T{{c00, c01, c02, c03}, {c10, c11, c12, c13}, {c20, c21, c22, c23}, {c30, c31, c32, c33}} {
		row := c[i*ldc : i*ldc+4]
		if !add {
			copy(row, acc[:])
			continue
		}
		for j, v := range acc {
			row[j] += v
		}
	}
}
