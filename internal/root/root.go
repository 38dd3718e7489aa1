// Package root finds the point where an increasing function of one
// variable reaches a value: regula falsi with the Illinois step, for the
// bias corrections of ecl/metrics and the temperature fits of
// ecl/baselines.
package root

// Increasing returns the x in [lo, hi] with f(x) = a for f increasing on
// it, f(lo) < a ≤ f(hi), by regula falsi with the Illinois step (the end
// that stays has its value halved), to a width of 1e-14·max(|lo|, |hi|,
// 1e-300) or 100 steps; it returns the upper end of the last bracket.
func Increasing(f func(float64) float64, a, lo, hi float64) float64 {
	flo, fhi := f(lo)-a, f(hi)-a
	side := 0
	for range 100 {
		if fhi == 0 || hi-lo <= 1e-14*max(abs(lo), abs(hi), 1e-300) {
			break
		}
		m := hi - fhi*(hi-lo)/(fhi-flo)
		if !(m > lo && m < hi) {
			m = (lo + hi) / 2
		}
		switch fm := f(m) - a; {
		case fm < 0:
			lo, flo = m, fm
			if side == -1 {
				fhi /= 2
			}
			side = -1
		default:
			hi, fhi = m, fm
			if side == 1 {
				flo /= 2
			}
			side = 1
		}
	}
	return hi
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}
