//go:build !noasm

package tensor

// softAsm reports the AVX-512 kernels of softbincanon_amd64.s and of
// attention (soft1D's kernels are chosen by soft1DSets).
var softAsm = cpuISA >= isaAVX512

// softBinFwd16 and softBinBwd16 are soft1D's kernels (softbin1d_amd64.s):
// they take rounds of 16 rows of g groups and return the rounds done,
// stopping before one with a non-finite point or value.
//
//go:noescape
func softBinFwd16(x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, acc, tmp *float32) int

//go:noescape
func softBinBwd16(dx, dp, x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, tab *float32) int

// softBinFwdAVX2 and softBinBwdAVX2 are soft1D's AVX2 kernels
// (softbin1d_avx2_amd64.s), with the contract of softBinFwd16 and
// softBinBwd16 but stopping also before a round whose terms do not follow
// from one another on equally spaced anchors (b ≥ 2).
//
//go:noescape
func softBinFwdAVX2(x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, acc, tmp *float32) int

//go:noescape
func softBinBwdAVX2(dx, dp, x, p *float32, rounds, ng int, a *float32, b int, c *softConsts, tab *float32) int

// soft1DSets are the kernel sets of soft1D this CPU runs, best first:
// AVX-512, AVX2 (equally spaced anchors only).
var soft1DSets = func() []soft1DKernels {
	var ks []soft1DKernels
	if cpuISA >= isaAVX512 {
		ks = append(ks, soft1DKernels{"avx512", softBinFwd16, softBinBwd16, false})
	}
	if cpuISA >= isaAVX2 {
		ks = append(ks, soft1DKernels{"avx2", softBinFwdAVX2, softBinBwdAVX2, true})
	}
	return ks
}()

// softCanonFwd16 and softCanonBwd16 are softCanon's kernels
// (softbincanon_amd64.s), 16 samples per round, with the same contract.
//
//go:noescape
func softCanonFwd16(x, p *float32, rounds, e, d int, cf *float32, nz *int32, b int, c *softConsts, trans *int32, acc, tmp, lat *float32, pw *int32) int

//go:noescape
func softCanonBwd16(dx, dp, x, p *float32, rounds, e, d int, cf *float32, nz *int32, b int, c *softConsts, trans *int32, tab, off, tmp, lat *float32, pw *int32) int
