package calib

import (
	"math"

	"github.com/ecl-go/ecl/ecl/predict"
	"github.com/ecl-go/ecl/tensor"
)

// linearRows is the number of rows of one product of linearLoss's full
// map: its buffer is linearRows × k, not n × k.
const linearRows = 4096

// linearBlock is the number of rows whose sums linearLoss adds together
// before adding them to the others, in row order: the value does not
// depend on the number of cores.
const linearBlock = 64

// rows are the inputs [n, d] of a linear map as linearLoss, affineOut and
// Affine.solve read them, a block of rows at a time: the rows idx of x
// (row-major, d wide; every row, in order, when idx is nil), each less
// shift[i] in every entry, i its row in x (no shift when shift is nil).
// The log-softmax of logits is the logits less each row's log-sum-exp:
// Dirichlet calibration reads it so, with n values beside the logits
// rather than an n×d copy, and a fold of the ODIR search is its rows'
// indices rather than a copy of them.
type rows struct {
	x     []float64
	d     int
	idx   []int
	shift []float64
}

// n is the number of rows.
func (r rows) n() int {
	if r.idx != nil {
		return len(r.idx)
	}
	return len(r.x) / r.d
}

// buffer is what block needs for up to m rows: nil when it reads x in
// place.
func (r rows) buffer(m int) []float64 {
	if r.idx == nil && r.shift == nil {
		return nil
	}
	return make([]float64, min(m, r.n())*r.d)
}

// block returns rows lo…hi contiguously ([hi−lo, d]): x's own when r
// neither picks nor shifts, else written into buf (from buffer), rows
// over the cores.
func (r rows) block(lo, hi int, buf []float64) []float64 {
	d := r.d
	if r.idx == nil && r.shift == nil {
		return r.x[lo*d : hi*d]
	}
	out := buf[:(hi-lo)*d]
	tensor.ParallelFor(hi-lo, 2*d, func(a, b int) {
		for s := a; s < b; s++ {
			i := lo + s
			if r.idx != nil {
				i = r.idx[i]
			}
			src, dst := r.x[i*d:(i+1)*d], out[s*d:(s+1)*d]
			if r.shift == nil {
				copy(dst, src)
				continue
			}
			c := r.shift[i]
			for j, v := range src {
				dst[j] = v - c
			}
		}
	})
	return out
}

// linearLoss is the mean negative log-likelihood of softmax(W·x + b) for
// inputs x [n, d] (rows) and labels in [0, k), plus Σ pen(i, j)·W_ij² and
// mu·Σ b², as a function of θ = (W row-major k×d, or its diagonal when
// diag, then b), writing its gradient. The full map works linearRows rows
// at a time: the products X·Wᵀ and Gᵀ·X (G the softmax's gradient) are
// the engine's GEMMs on the rows of x (in place, or a block that rows
// writes), into buffers that every evaluation reuses (tensor.MatMulTo); the rows' softmax runs over the
// cores in blocks of linearBlock rows whose sums are added in block
// order. The diagonal map works a row at a time in cache. With mean and
// scale (d values each; the full map only) the inputs are read as
// standardised, (x − mean)/scale, without a standardised copy: the map is
// folded into W/scale and b − (W/scale)·mean, and its gradient back.
func linearLoss(x rows, k int, labels []int, diag bool, pen func(i, j int) float64, mu float64, mean, scale []float64) func(theta, grad []float64) float64 {
	n, d := len(labels), x.d
	nw := k * d
	if diag {
		nw = k
	}
	blocks := (n + linearBlock - 1) / linearBlock
	part := make([]float64, blocks*(2*k+1)) // per block: loss, Σ g, Σ g·x (diag)
	var zt, gt *tensor.Tensor[float64]      // the full map: a chunk's X·Wᵀ + b, and Gᵀ·X
	xBuf := x.buffer(linearRows)            // a chunk of x, where rows writes it
	var wf, bf []float64                    // the map folded with the standardisation
	if mean != nil {
		wf, bf = make([]float64, k*d), make([]float64, k)
	}
	// The rows that go through the softmax together (softmaxRows): a
	// block's below blockSoftmaxClasses classes, else one; diag: each
	// block's rows of W⊙x + b, rowStride values apart.
	together := 1
	if k < blockSoftmaxClasses {
		together = linearBlock
	}
	var rowBuf []float64
	rowStride := together * k
	if diag {
		rowBuf = make([]float64, min(blocks, linearRows/linearBlock)*rowStride)
	} else {
		zt, gt = tensor.Zeros[float64](min(n, linearRows), k), tensor.Zeros[float64](k, d)
	}
	return func(theta, grad []float64) float64 {
		w, b := theta[:nw], theta[nw:]
		wx, bx := w, b // the map applied to the rows as stored
		if mean != nil {
			foldStandardisation(wf, bf, w, b, mean, scale)
			wx, bx = wf, bf
		}
		clear(part)
		clear(grad)
		gw, gb := grad[:nw], grad[nw:]
		for lo := 0; lo < n; lo += linearRows {
			hi := min(lo+linearRows, n)
			xs := x.block(lo, hi, xBuf) // rows lo…hi of x
			var z []float64             // rows lo…hi of X·Wᵀ + b
			var xc, zc *tensor.Tensor[float64]
			if !diag {
				xc, zc = tensor.Wrap(xs, hi-lo, d), tensor.Wrap(tensor.HostData(zt)[:(hi-lo)*k], hi-lo, k)
				z = tensor.HostData(tensor.MatMulTo(zc, xc, tensor.Transpose(tensor.Wrap(wx, k, d), 0, 1)))
			}
			b0, b1 := lo/linearBlock, (hi+linearBlock-1)/linearBlock
			tensor.ParallelFor(b1-b0, linearBlock*k*8, func(l, h int) {
				for blk := b0 + l; blk < b0+h; blk++ {
					acc := part[blk*(2*k+1) : (blk+1)*(2*k+1)]
					gb, gw := acc[1:k+1], acc[k+1:]
					// The block's rows together or one at a time, in L1
					// from the map through the softmax to the gradient.
					for first := blk * linearBlock; first < min((blk+1)*linearBlock, n); first += together {
						last := min(first+together, (blk+1)*linearBlock, n)
						xb := xs[(first-lo)*d : (last-lo)*d]
						var zs []float64
						if diag {
							zs = rowBuf[(blk-b0)*rowStride:][:(last-first)*k]
						} else {
							zs = z[(first-lo)*k : (last-lo)*k]
						}
						for r := range last - first {
							zr := zs[r*k : (r+1)*k]
							b := bx[:len(zr)]
							if diag {
								xr, wd := xb[r*d:][:len(zr)], w[:len(zr)]
								for i := range zr {
									zr[i] = wd[i]*xr[i] + b[i]
								}
								continue
							}
							for i := range zr {
								zr[i] += b[i]
							}
						}
						// The rows' softmax in place, then its gradient: each
						// row's probabilities less the one-hot label.
						if together == 1 {
							y := labels[first]
							zy := zs[y]
							acc[0] += softmaxRow(zs, zs) - zy
						} else {
							acc[0] += softmaxRows(zs, k, labels[first:last])
						}
						for r, y := range labels[first:last] {
							zr := zs[r*k : (r+1)*k]
							zr[y]--
							gb := gb[:len(zr)]
							if diag {
								xr, gw := xb[r*d:][:len(zr)], gw[:len(zr)]
								for i, g := range zr {
									gb[i] += g
									gw[i] += g * xr[i]
								}
								continue
							}
							for i, g := range zr {
								gb[i] += g
							}
						}
					}
				}
			})
			if !diag {
				g := tensor.HostData(tensor.MatMulTo(gt, tensor.Transpose(zc, 0, 1), xc))
				for i, v := range g {
					gw[i] += v
				}
			}
		}
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

// softmaxRows sets each row of z [len(labels), k] to its softmax and
// returns Σ −ln softmax(z_r)[labels[r]], the rows' log-loss, for at most
// linearBlock rows: every row less its largest entry, then the
// exponentials of the whole block in one tensor.ExpScaled64 call, then
// each row's sum added in order. Below blockSoftmaxClasses classes a call
// a row (predict.SoftmaxScaled) costs more than the row's exponentials;
// from there on linearLoss takes a row at a time, the kernel also adding
// the sum in vector lanes.
func softmaxRows(z []float64, k int, labels []int) float64 {
	loss := 0.0
	var top [linearBlock]float64 // each row's label entry less its maximum
	for r, y := range labels {
		zr := z[r*k : (r+1)*k]
		m := predict.RowMax(zr)
		for i := range zr {
			zr[i] -= m
		}
		top[r] = zr[y]
	}
	tensor.ExpScaled64(z, z, 0, 1)
	for r := range labels {
		zr := z[r*k : (r+1)*k]
		s := 0.0
		for _, v := range zr {
			s += v
		}
		inv := 1 / s
		for i := range zr {
			zr[i] *= inv
		}
		loss += math.Log(s) - top[r]
	}
	return loss
}

// blockSoftmaxClasses is the number of classes from which linearLoss
// takes the softmax a row at a time rather than by softmaxRows.
const blockSoftmaxClasses = 32

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
