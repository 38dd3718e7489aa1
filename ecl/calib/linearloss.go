package calib

import (
	"github.com/ecl-go/ecl/tensor"
)

// linearLoss is the mean negative log-likelihood of softmax(W·x + b) for
// inputs x [n, d] and labels in [0, k), plus Σ pen(i, j)·W_ij² and
// mu·Σ b², as a function of θ = (W row-major k×d, or its diagonal when
// diag, then b), writing its gradient. The products X·Wᵀ and Gᵀ·X (G the
// softmax's gradient) are the engine's GEMMs on x and W in place, into
// buffers that every evaluation reuses (tensor.MatMulTo); the rows'
// softmax runs over the cores in fixed blocks whose sums are added in
// block order, so the value does not depend on the number of cores. The
// diagonal map works a row at a time in cache. With mean and scale (d
// values each; the full map only) the inputs are read as standardised,
// (x − mean)/scale, without a standardised copy: the map is folded into
// W/scale and b − (W/scale)·mean, and its gradient back.
func linearLoss(x []float64, d, k int, labels []int, diag bool, pen func(i, j int) float64, mu float64, mean, scale []float64) func(theta, grad []float64) float64 {
	n := len(labels)
	nw := k * d
	if diag {
		nw = k
	}
	blocks := min(n, 64)
	rows := (n + blocks - 1) / blocks
	blocks = (n + rows - 1) / rows
	part := make([]float64, blocks*(2*k+1)) // per block: loss, Σ g, Σ g·x (diag)
	var xt, zt *tensor.Tensor[float64]      // the full map: X and X·Wᵀ, reused by every evaluation
	var rowBuf []float64                    // diag: a row of W·x + b per block
	var wf, bf []float64                    // the map folded with the standardisation
	if mean != nil {
		wf, bf = make([]float64, k*d), make([]float64, k)
	}
	if diag {
		rowBuf = make([]float64, blocks*k)
	} else {
		xt, zt = tensor.Wrap(x, n, d), tensor.Zeros[float64](n, k)
	}
	return func(theta, grad []float64) float64 {
		w, b := theta[:nw], theta[nw:]
		wx, bx := w, b // the map applied to the rows as stored
		if mean != nil {
			foldStandardisation(wf, bf, w, b, mean, scale)
			wx, bx = wf, bf
		}
		var z []float64
		if !diag {
			z = tensor.HostData(tensor.MatMulTo(zt, xt, tensor.Transpose(tensor.Wrap(wx, k, d), 0, 1)))
		}
		clear(part)
		tensor.ParallelFor(blocks, rows*k*8, func(lo, hi int) {
			for blk := lo; blk < hi; blk++ {
				acc := part[blk*(2*k+1) : (blk+1)*(2*k+1)]
				f, gb, gw := &acc[0], acc[1:k+1], acc[k+1:]
				b := bx[:k]
				for s := blk * rows; s < min((blk+1)*rows, n); s++ {
					var zr []float64
					if diag {
						zr = rowBuf[blk*k : (blk+1)*k]
					} else {
						zr = z[s*k : (s+1)*k]
					}
					xr := x[s*d : (s+1)*d]
					if diag {
						xr, wd := xr[:len(zr)], w[:len(zr)]
						for i := range zr {
							zr[i] = wd[i]*xr[i] + b[i]
						}
					} else {
						for i := range zr {
							zr[i] += b[i]
						}
					}
					y := labels[s]
					zy := zr[y]
					*f += softmaxRow(zr, zr) - zy // in place
					// zr now holds the probabilities; make it the gradient.
					zr[y]--
					if diag {
						xr, gw := xr[:len(zr)], gw[:len(zr)]
						for i, g := range zr {
							gb[i] += g
							gw[i] += g * xr[i]
						}
					} else {
						for i, g := range zr {
							gb[i] += g
						}
					}
				}
			}
		})
		clear(grad)
		gw, gb := grad[:nw], grad[nw:]
		f := 0.0
		for blk := range blocks {
			acc := part[blk*(2*k+1) : (blk+1)*(2*k+1)]
			f += acc[0]
			for i := range k {
				gb[i] += acc[1+i]
				if diag {
					gw[i] += acc[1+k+i]
				}
			}
		}
		if !diag {
			tensor.MatMulTo(tensor.Wrap(gw, k, d), tensor.Transpose(zt, 0, 1), xt)
		}
		if mean != nil {
			// ∂/∂W_ij of (W/scale)·x − (W/scale)·mean: (Gᵀx − Σg·mean)_ij/scale_j.
			for i := range k {
				for j := range d {
					gw[i*d+j] = (gw[i*d+j] - gb[i]*mean[j]) / scale[j]
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

// foldStandardisation writes into wf, bf the map (W [k, d], b) of
// standardised inputs (x − mean)/scale as a map of the raw inputs:
// W/scale and b − (W/scale)·mean.
func foldStandardisation(wf, bf, w, b, mean, scale []float64) {
	d := len(mean)
	for i := range bf {
		c := b[i]
		for j := range d {
			v := w[i*d+j] / scale[j]
			wf[i*d+j] = v
			c -= v * mean[j]
		}
		bf[i] = c
	}
}

// penalise adds Σ pen(i, j)·W_ij² + mu·Σ b² to the gradient of θ = (W
// [k, d] row-major, or its diagonal when diag, then b) and returns it.
func penalise(theta, grad []float64, d, k int, diag bool, pen func(i, j int) float64, mu float64) float64 {
	nw := k * d
	if diag {
		nw = k
	}
	w, b, gw, gb := theta[:nw], theta[nw:], grad[:nw], grad[nw:]
	f := 0.0
	for i := range k {
		for j := range d {
			if diag && j != i {
				continue
			}
			p := pen(i, j)
			if p == 0 {
				continue
			}
			idx := i*d + j
			if diag {
				idx = i
			}
			f += p * w[idx] * w[idx]
			gw[idx] += 2 * p * w[idx]
		}
		f += mu * b[i] * b[i]
		gb[i] += 2 * mu * b[i]
	}
	return f
}
