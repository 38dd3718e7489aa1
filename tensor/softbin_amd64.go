//go:build !noasm

package tensor

// softAsm reports the AVX-512 kernels of softbin1d_amd64.s and
// softbincanon_amd64.s.
var softAsm = cpuISA >= isaAVX512

// softBinFwd16 and softBinBwd16 are soft1D's kernels (softbin1d_amd64.s):
// they take rounds of 16 rows of g groups and return the rounds done,
// stopping before one with a non-finite point or value.
//
//go:noescape
func softBinFwd16(x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, acc, tmp *float32) int

//go:noescape
func softBinBwd16(dx, dp, x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, tab *float32) int

// softCanonFwd16 and softCanonBwd16 are softCanon's kernels
// (softbincanon_amd64.s), 16 samples per round, with the same contract.
//
//go:noescape
func softCanonFwd16(x, p *float32, rounds, e, d int, cf *float32, nz *int32, b int, c *softConsts, trans *int32, acc, tmp, lat *float32, pw *int32) int

//go:noescape
func softCanonBwd16(dx, dp, x, p *float32, rounds, e, d int, cf *float32, nz *int32, b int, c *softConsts, trans *int32, tab, off, tmp, lat *float32, pw *int32) int
