// Package vec holds the float64 slice loops that ecl/metrics, ecl/calib,
// ecl/baselines and ecl/predict share: Dot, Axpy and Max, in AVX2 and FMA
// where the CPU has them (vec_amd64.s), else in Go.
package vec

import "math"

// Dot is x·y; y holds at least len(x) values. The AVX2 kernel adds in 16
// running sums (four vectors of four), the Go loop in four: a chain of
// dependent additions would wait on each one's latency.
func Dot(x, y []float64) float64 {
	y = y[:len(x)]
	if len(x) >= 16 && asm {
		return dotAVX2(&x[0], &y[0], len(x))
	}
	return dotGo(x, y)
}

// dotGo is Dot in four running sums.
func dotGo(x, y []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += x[i] * y[i]
		s1 += x[i+1] * y[i+1]
		s2 += x[i+2] * y[i+2]
		s3 += x[i+3] * y[i+3]
	}
	for ; i < len(x); i++ {
		s0 += x[i] * y[i]
	}
	return (s0 + s1) + (s2 + s3)
}

// Axpy adds a·x to y; y holds at least len(x) values. Each element is
// a·x[i] + y[i] rounded once (a fused multiply-add) by the AVX2 kernel,
// twice by the Go loop.
func Axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	if len(x) >= 16 && asm {
		axpyAVX2(a, &x[0], &y[0], len(x))
		return
	}
	for i, v := range x {
		y[i] += a * v
	}
}

// Max is the largest element of x (−∞ if empty), NaN if x holds one.
func Max(x []float64) float64 {
	m, nan, i := math.Inf(-1), false, 0
	if n := len(x) &^ 3; n >= 16 && asm {
		m, nan = maxAVX2(&x[0], n)
		i = n
	}
	m0, m1, m2, m3 := m, math.Inf(-1), math.Inf(-1), math.Inf(-1)
	for ; i+4 <= len(x); i += 4 {
		r := x[i : i+4 : i+4]
		m0, m1, m2, m3 = max(m0, r[0]), max(m1, r[1]), max(m2, r[2]), max(m3, r[3])
	}
	for ; i < len(x); i++ {
		m0 = max(m0, x[i])
	}
	if nan {
		return math.NaN()
	}
	return max(m0, m1, m2, m3)
}
