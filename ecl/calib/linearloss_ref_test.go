package calib

// linearLossRows is linearLoss one row at a time, the reference its test
// compares with: the mean negative log-likelihood of softmax(W·x + b) for
// inputs x [n, d] and labels in [0, k), plus Σ pen(i, j)·W_ij² and
// mu·Σ b², as a function of θ = (W row-major k×d, or its diagonal when
// diag, then b), writing its gradient.
func linearLossRows(x []float64, d, k int, labels []int, diag bool, pen func(i, j int) float64, mu float64) func(theta, grad []float64) float64 {
	n := len(labels)
	nw := k * d
	if diag {
		nw = k
	}
	z, q := make([]float64, k), make([]float64, k)
	return func(theta, grad []float64) float64 {
		w, b := theta[:nw], theta[nw:]
		clear(grad)
		gw, gb := grad[:nw], grad[nw:]
		f := 0.0
		for s, y := range labels {
			row := x[s*d : (s+1)*d]
			affineRow(z, w, b, row, diag)
			f += softmaxRow(q, z) - z[y]
			for i := range q {
				g := q[i]
				if i == y {
					g--
				}
				gb[i] += g
				if diag {
					gw[i] += g * row[i]
					continue
				}
				for j, v := range row {
					gw[i*d+j] += g * v
				}
			}
		}
		inv := 1 / float64(n)
		f *= inv
		for i := range grad {
			grad[i] *= inv
		}
		return f + penalise(theta, grad, d, k, diag, pen, mu)
	}
}

// affineRow sets z = W·x + b for one row (W k×d row-major, or diagonal),
// the reference of affineOut.
func affineRow(z, w, b, x []float64, diag bool) {
	d := len(x)
	for i := range z {
		if diag {
			z[i] = w[i]*x[i] + b[i]
			continue
		}
		s := b[i]
		for j, v := range w[i*d : (i+1)*d] {
			s += v * x[j]
		}
		z[i] = s
	}
}
