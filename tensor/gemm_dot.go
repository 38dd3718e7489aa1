package tensor

// dotKernel is a register tile of mr×nr dot products and the function
// adding Σ_p a[i*lda+p]·b[j*ldb+p], p < lanes·kv, to c[i*ldc+j].
type dotKernel[T Float] struct {
	mr, nr, lanes int
	fn            func(kv int, a []T, lda int, b []T, ldb int, c []T, ldc int)
}

// gemmNT adds a·bᵀ to c, c[i*ldc+j] += Σ_p a[i*lda+p]·b[j*ldb+p] for the
// m×n matrix c and inner dimension k, on the calling goroutine. Both
// operands are read along k in place, with no packing: the shape of a
// convolution's weight gradient dy·colᵀ, whose operands are both long rows.
// Without an assembly dot-product kernel it is gemmSerial, and so it is
// for short rows (k up to 4 vectors) of 32 or more rows of a, where the
// lane sums ending each dot product cost more than packing for the GEMM
// micro-kernel (64×576×64 float32 with AVX-512: 86 → 140 GFLOP/s), and
// for large products (m, n ≥ 32, and m·n ≥ 2¹⁴ or (m + n)·k ≥ 2¹⁹, as
// ResNet-50's 1×1 and stem weight gradients), whose rows, read whole for
// every tile, no longer stay in cache (bench/README.md).
func gemmNT[T Float](m, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	dk, ok := asmDotKernel[T]()
	large := m >= 32 && n >= 32 && (m*n >= 1<<14 || (m+n)*k >= 1<<19)
	if !ok || k < dk.lanes || m == 0 || n == 0 || (k <= 4*dk.lanes && m >= 32) || large {
		gemmSerial(false, true, m, n, k, 1, a, lda, b, ldb, 1, c, ldc)
		return
	}
	mr, nr, kv := dk.mr, dk.nr, k/dk.lanes
	kt := kv * dk.lanes // the kernel's part of k; the rest is added below
	// Edge tiles read zero-padded copies of the missing rows and write a
	// tile aside.
	buf := getScratch[T]((mr+nr)*k + mr*nr)
	defer putScratch(buf)
	padA, padB, tile := (*buf)[:mr*k], (*buf)[mr*k:(mr+nr)*k], (*buf)[(mr+nr)*k:]
	for i := 0; i < m; i += mr {
		rows := min(mr, m-i)
		ai, lda2 := a[i*lda:], lda
		if rows < mr {
			ai, lda2 = padRows(padA, a[i*lda:], lda, rows, k), k
		}
		for j := 0; j < n; j += nr {
			cols := min(nr, n-j)
			bj, ldb2 := b[j*ldb:], ldb
			if cols < nr {
				bj, ldb2 = padRows(padB, b[j*ldb:], ldb, cols, k), k
			}
			if rows == mr && cols == nr {
				dk.fn(kv, ai, lda2, bj, ldb2, c[i*ldc+j:], ldc)
				continue
			}
			clear(tile)
			dk.fn(kv, ai, lda2, bj, ldb2, tile, nr)
			for r := range rows {
				row := c[(i+r)*ldc+j : (i+r)*ldc+j+cols]
				for q := range row {
					row[q] += tile[r*nr+q]
				}
			}
		}
	}
	if kt == k {
		return
	}
	// The last k−kt < lanes steps: zero-padded copies of the rows' tails
	// make one more vector.
	l := dk.lanes
	tails := getScratch[T]((m + n) * l)
	defer putScratch(tails)
	ta, tb := (*tails)[:m*l], (*tails)[m*l:]
	padTails(ta, a[kt:], lda, m, k-kt, l)
	padTails(tb, b[kt:], ldb, n, k-kt, l)
	gemmNT(m, n, l, ta, l, tb, l, c, ldc)
}

// padTails copies the first r elements of each of the rows rows of src (row
// stride ld) into dst, with row stride l > r and zeros after them.
func padTails[T Float](dst, src []T, ld, rows, r, l int) {
	for i := range rows {
		d := dst[i*l : (i+1)*l]
		copy(d, src[i*ld:i*ld+r])
		clear(d[r:])
	}
}

// padRows copies rows [0, rows) of src (row stride ld, length k) into dst,
// whose further rows it zeroes, and returns dst (row stride k).
func padRows[T Float](dst, src []T, ld, rows, k int) []T {
	for r := range len(dst) / k {
		if r < rows {
			copy(dst[r*k:(r+1)*k], src[r*ld:r*ld+k])
		} else {
			clear(dst[r*k : (r+1)*k])
		}
	}
	return dst
}
