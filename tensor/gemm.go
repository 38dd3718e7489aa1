package tensor

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

var blasImpl gonum.Implementation

func transFlag(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}

// gemm computes c = alpha*op(a)*op(b) + beta*c for row-major matrices, with
// op(a) m×k and op(b) k×n, through gonum's BLAS (which parallelises large
// products itself).
func gemm[T Float](transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	if k == 0 {
		for i := 0; i < m; i++ {
			row := c[i*ldc : i*ldc+n]
			for j := range row {
				if beta == 0 {
					row[j] = 0
				} else {
					row[j] *= beta
				}
			}
		}
		return
	}
	switch cs := any(c).(type) {
	case []float32:
		blasImpl.Sgemm(transFlag(transA), transFlag(transB), m, n, k, float32(alpha), any(a).([]float32), lda, any(b).([]float32), ldb, float32(beta), cs, ldc)
	case []float64:
		blasImpl.Dgemm(transFlag(transA), transFlag(transB), m, n, k, float64(alpha), any(a).([]float64), lda, any(b).([]float64), ldb, float64(beta), cs, ldc)
	}
}
