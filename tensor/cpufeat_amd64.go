//go:build !noasm

package tensor

func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)
func xgetbv() (eax uint32)

// cpuISA is the best level this CPU and its OS support.
var cpuISA = detectISA()

// asmKernels reports AVX2 and FMA, which the assembly kernels of this
// package need.
var asmKernels = cpuISA >= isaAVX2

// detectISA reads the CPU's features (CPUID) and the register state the OS
// saves (XCR0): YMM for AVX2 and FMA, opmask and all 32 ZMM for AVX-512.
func detectISA() isa {
	maxLeaf, _, _, _ := cpuid(0, 0)
	if maxLeaf < 7 {
		return isaGo
	}
	_, _, ecx1, _ := cpuid(1, 0)
	const fma, osxsave, avx = 1 << 12, 1 << 27, 1 << 28
	if ecx1&(fma|osxsave|avx) != fma|osxsave|avx {
		return isaGo
	}
	xcr0 := xgetbv()
	_, ebx7, _, _ := cpuid(7, 0)
	const avx2, avx512f = 1 << 5, 1 << 16
	switch {
	case xcr0&6 != 6 || ebx7&avx2 == 0:
		return isaGo
	case xcr0&0xe6 != 0xe6 || ebx7&avx512f == 0:
		return isaAVX2
	}
	return isaAVX512
}
