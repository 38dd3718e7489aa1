//go:build !amd64 || noasm

package tensor

// softAsm reports that there are no vector soft-binning kernels.
var softAsm = false

// The kernels do no rounds: their callers take every row on the scalar
// path.
func softBinFwd16(x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, acc, tmp *float32) int {
	return 0
}

func softBinBwd16(dx, dp, x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, tab *float32) int {
	return 0
}

func softCanonFwd16(x, p *float32, rounds, e, d int, cf *float32, nz *int32, b int, c *softConsts, trans *int32, acc, tmp, lat *float32, pw *int32) int {
	return 0
}

func softCanonBwd16(dx, dp, x, p *float32, rounds, e, d int, cf *float32, nz *int32, b int, c *softConsts, trans *int32, tab, off, tmp, lat *float32, pw *int32) int {
	return 0
}
