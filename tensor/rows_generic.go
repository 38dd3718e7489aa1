//go:build !amd64 || noasm

package tensor

// rowsAsm reports that there are no assembly row moves.
func rowsAsm[T Float](dst, src []T, rows, cols, ldd, lds int, add bool) bool { return false }

// affineMaxAsm reports that there is no assembly: it took no prefix.
func affineMaxAsm[T Float](dst, src []T, a, b, lo T) int { return 0 }

// adamAsm reports that there is no assembly: it took no prefix.
func adamAsm[T Float](p, g, m, v []T, c *AdamScalars[T]) int { return 0 }
