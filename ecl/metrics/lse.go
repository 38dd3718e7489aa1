package metrics

import "math"

// expFloor is where the vector exponential clamps its argument: e^−708 is
// still a normal float64, so 2^n is built from its exponent bits; a term
// that small next to the largest term, 1, changes no sum.
const expFloor = -708

// expCoef are the Taylor coefficients 1/k! of e^r for k = 13 down to 2;
// for |r| ≤ ln2/2 the remainder is below 5e−18.
var expCoef = [...]float64{
	1.0 / 6227020800, 1.0 / 479001600, 1.0 / 39916800, 1.0 / 3628800,
	1.0 / 362880, 1.0 / 40320, 1.0 / 5040, 1.0 / 720, 1.0 / 120, 1.0 / 24, 1.0 / 6, 1.0 / 2,
}

// ln2Hi + ln2Lo = ln 2 (fdlibm's split).
const (
	ln2Hi = 6.93147180369123816490e-01
	ln2Lo = 1.90821492927058770002e-10
)

// expPoly is e^x for expFloor ≤ x ≤ 0 (x below expFloor is taken as
// expFloor) within 2 ulp, by the operations of the vector kernel:
// n = round(x/ln2), r = x − n·ln2, e^r by Horner, times 2^n.
func expPoly(x float64) float64 {
	x = max(x, expFloor)
	n := math.RoundToEven(x * math.Log2E)
	r := math.FMA(-n, ln2Hi, x)
	r = math.FMA(-n, ln2Lo, r)
	p := expCoef[0]
	for _, c := range expCoef[1:] {
		p = math.FMA(p, r, c)
	}
	p = math.FMA(p, r, 1)
	p = math.FMA(p, r, 1)
	return p * math.Float64frombits(uint64(int64(n)+1023)<<52)
}

// logSumExp is log Σ_i exp(x_i/h − lb_i) (−∞ if every x_i is −∞), in two
// passes over buf (len(x) scratch values): scaleMax, then sumExp.
func logSumExp(x, lb, buf []float64, h float64) float64 {
	m := scaleMax(x, lb, buf, h)
	if math.IsInf(m, -1) {
		return m
	}
	return m + math.Log(sumExp(buf[:len(x)], m))
}

// scaleMax sets buf[i] = x[i]/h − lb[i] and returns the largest (−∞ for
// none), in vector registers where the CPU has them.
func scaleMax(x, lb, buf []float64, h float64) float64 {
	n := len(x)
	lb, buf = lb[:n], buf[:n]
	v := n &^ 3
	f := scaleMaxGo
	if vectorKernels {
		f = scaleMaxVec
	}
	m := f(x[:v], lb[:v], buf[:v], h)
	for i := v; i < n; i++ {
		buf[i] = x[i]/h - lb[i]
		m = max(m, buf[i])
	}
	return m
}

// sumExp returns Σ exp(a_i − m) for a_i ≤ m: the terms in eight lanes, in
// vector registers where the CPU has them (the same sums either way),
// then those past the last multiple of eight. A term below e^−708 is taken
// as e^−708 or left out, which changes no sum that holds the largest
// term, 1.
func sumExp(a []float64, m float64) float64 {
	v := len(a) &^ 7
	f := sumExpGo
	if vectorKernels {
		f = sumExpAsm
	}
	s := f(a[:v], m)
	for _, x := range a[v:] {
		s += expPoly(x - m)
	}
	return s
}

// scaleMaxGo sets out[i] = x[i]/h − lb[i] and returns the largest (−∞
// for none): scaleMaxVec in Go.
func scaleMaxGo(x, lb, out []float64, h float64) float64 {
	m := math.Inf(-1)
	for i := range x {
		out[i] = x[i]/h - lb[i]
		m = max(m, out[i])
	}
	return m
}

// sumExpGo returns Σ exp(a[i] − m) as expPoly computes each term, summed
// in eight lanes (a[i] into lane i mod 8, then ((0+4)+(2+6))+((1+5)+(3+7))),
// leaving out each eight terms a[8q:8q+8] that all lie below e^expFloor (or
// are NaN): the largest term is 1, next to which they change no sum, and
// with a small bandwidth most terms are that small. len(a) is a multiple
// of 8: sumExpVec and sumExp512 in Go.
func sumExpGo(a []float64, m float64) float64 {
	var l [8]float64
	for i := 0; i < len(a); i += 8 {
		left := true
		for _, x := range a[i : i+8] {
			left = left && !(x-m >= expFloor)
		}
		if left {
			continue
		}
		for k := range l {
			l[k] += expPoly(a[i+k] - m)
		}
	}
	return ((l[0] + l[4]) + (l[2] + l[6])) + ((l[1] + l[5]) + (l[3] + l[7]))
}
