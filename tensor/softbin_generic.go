//go:build !amd64 || noasm

package tensor

// softAsm reports that there are no AVX-512 soft-binning kernels.
var softAsm = false

// soft1DSets is empty: soft1D takes no rows.
var soft1DSets []soft1DKernels

// The kernels do no rounds: their callers take every row on the scalar
// path.
func softCanonFwd16(x, p *float32, rounds, e, d int, cf *float32, nz *int32, b int, c *softConsts, trans *int32, acc, tmp, lat *float32, pw *int32) int {
	return 0
}

func softCanonBwd16(dx, dp, x, p *float32, rounds, e, d int, cf *float32, nz *int32, b int, c *softConsts, trans *int32, tab, off, tmp, lat *float32, pw *int32) int {
	return 0
}
