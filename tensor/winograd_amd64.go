//go:build !noasm

package tensor

// winogradInput4 and winogradOutput4 are the AVX-512 transforms of
// winograd_avx512_amd64.s: winogradKernels4's input and output on 16
// tiles of c (o) channels, strides in floats; the output adds bias[o] to
// channel o's outputs where add, and nothing where not (reading *bias).
//
//go:noescape
func winogradInput4(x *float32, ldx, plane, c int, v *float32, ldc, ldxi int)

//go:noescape
func winogradOutput4(m *float32, ldo, ldxi, o int, y *float32, ldy, plane int, bias *float32, add bool)

// swinograd4 wraps the assembly, checking the bounds it relies on.
var swinograd4 = winogradKernels4[float32]{
	input: func(v, x []float32, ldx, plane, c, ldc, ldxi int) {
		_, _ = x[(c-1)*plane+5*ldx+4*winogradRun+1], v[35*ldxi+(c-1)*ldc+winogradRun-1]
		winogradInput4(&x[0], ldx, plane, c, &v[0], ldc, ldxi)
	},
	output: func(y, m, bias []float32, ldy, plane, o, ldo, ldxi int) {
		_, _ = y[(o-1)*plane+3*ldy+4*winogradRun-1], m[35*ldxi+(o-1)*ldo+winogradRun-1]
		b := &m[0] // read, never added, without a bias
		if bias != nil {
			_ = bias[o-1]
			b = &bias[0]
		}
		winogradOutput4(&m[0], ldo, ldxi, o, &y[0], ldy, plane, b, bias != nil)
	},
}

// asmWinograd4 returns the assembly transforms of F(4×4, 3×3) for T:
// float32 at level gemmISA AVX-512, else ok = false.
func asmWinograd4[T Float]() (winogradKernels4[T], bool) {
	var z T
	if _, f32 := any(z).(float32); f32 && gemmISA == isaAVX512 {
		return any(swinograd4).(winogradKernels4[T]), true
	}
	return winogradKernels4[T]{}, false
}
