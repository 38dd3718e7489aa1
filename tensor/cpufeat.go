package tensor

// isa is an instruction-set level for the GEMM micro-kernels, each level
// including the ones below it.
type isa int

const (
	isaGo     isa = iota // portable Go
	isaAVX2              // AVX2 and FMA
	isaAVX512            // AVX-512 F
)

func (l isa) String() string {
	return [...]string{"go", "avx2", "avx512"}[l]
}

// HasAVX2FMA reports whether this CPU, its OS and this build (not noasm)
// support AVX2 and FMA, for the assembly kernels of other packages.
func HasAVX2FMA() bool { return cpuISA >= isaAVX2 }

// HasAVX512 reports whether this CPU, its OS and this build support
// AVX-512 F (with AVX2 and FMA), for the assembly kernels of other packages.
func HasAVX512() bool { return cpuISA >= isaAVX512 }
