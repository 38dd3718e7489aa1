//go:build !amd64 || noasm

package tensor

// bnSumsAsm reports that there is no assembly: it took no prefix.
func bnSumsAsm[T Float](x []T, c float64) (n int, s, ss float64) { return 0, 0, 0 }

// bnDotsAsm reports that there is no assembly: it took no prefix.
func bnDotsAsm[T Float](g, x []T, c float64) (n int, sg, sgx float64) { return 0, 0, 0 }

// affineAddReluAsm reports that there is no assembly: it took no prefix.
func affineAddReluAsm[T Float](dst, src, r []T, a, b T) int { return 0 }

// bnDotsReluAsm reports that there is no assembly: it took no prefix.
func bnDotsReluAsm[T Float](dr, g, y, x []T, c float64) (n int, sg, sgx float64) { return 0, 0, 0 }

// bnDotsReluAddAsm reports that there is no assembly: it took no prefix.
func bnDotsReluAddAsm[T Float](d, g, y, x []T, c float64, a T) (n int, sg, sgx float64) {
	return 0, 0, 0
}

// bnInputGradAsm reports that there is no assembly: it took no prefix.
func bnInputGradAsm[T Float](dx, g, y, x []T, a, b, c T) int { return 0 }
