//go:build !amd64 || noasm

package vec

// asm is false: this build has no kernels.
const asm = false

func dotAVX2(x, y *float64, n int) float64 { panic("vec: no AVX2 kernel in this build") }

func axpyAVX2(a float64, x, y *float64, n int) { panic("vec: no AVX2 kernel in this build") }

func maxAVX2(x *float64, n int) (float64, bool) { panic("vec: no AVX2 kernel in this build") }
