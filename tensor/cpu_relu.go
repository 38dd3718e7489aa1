package tensor

import "unsafe"

// The ReLU kernels. The sign of a ReLU's input is a coin toss to the branch
// predictor, so they mask the bits of the value they pass instead of
// branching: the mask is all ones where the value passes, else zero.

func init() { registerCPU(ReluGradKernel, reluGradCPU[float32], reluGradCPU[float64]) }

// reluGradCPU sets out[0] = in[0] where in[1] > 0, else 0, in one pass
// without branches on the sign (strided operands: elementwise).
func reluGradCPU[T Float](out, in []*Tensor[T], _ struct{}) {
	dst, g, x := out[0], in[0], in[1]
	gs, xs := host(g), host(x)
	forEach3(dst, g, x, func(d []T, od, og, ox, n, sd, sg, sx int) {
		if sd == 1 && sg == 1 && sx == 1 {
			reluGradContiguous(d[od:od+n], gs[og:og+n], xs[ox:ox+n])
			return
		}
		for i := 0; i < n; i++ {
			d[od+i*sd] = 0
			if xs[ox+i*sx] > 0 {
				d[od+i*sd] = gs[og+i*sg]
			}
		}
	})
}

// reluContiguous sets d[i] = max(x[i], 0): x[i] unless x[i] ≤ 0, so that NaN
// stays NaN and −0 becomes 0.
func reluContiguous[T Float](d, x []T) { passPositive(d, x, x, true) }

// reluGradContiguous sets d[i] = g[i] where x[i] > 0 (not NaN), else 0.
func reluGradContiguous[T Float](d, g, x []T) { passPositive(d, g, x, false) }

// passPositive sets d[i] to g[i] where x[i] > 0, or x[i] is NaN and nan is
// set, else to 0.
func passPositive[T Float](d, g, x []T, nan bool) {
	g, x = g[:len(d)], x[:len(d)]
	n := maskPrefix(d, g, x, nan)
	d, g, x = d[n:], g[n:], x[n:]
	if unsafe.Sizeof(d[0]) == 4 {
		maskRow(reinterpret[uint32](d), reinterpret[uint32](g), reinterpret[float32](x), nan)
	} else {
		maskRow(reinterpret[uint64](d), reinterpret[uint64](g), reinterpret[float64](x), nan)
	}
}

func maskRow[U uint32 | uint64, F float32 | float64](d, g []U, x []F, nan bool) {
	g, x = g[:len(d)], x[:len(d)]
	if nan {
		for i := range d {
			d[i] = g[i] & mask[U](!(x[i] <= 0))
		}
		return
	}
	for i := range d {
		d[i] = g[i] & mask[U](x[i] > 0)
	}
}

// mask is all ones if b, else zero.
func mask[U uint32 | uint64](b bool) U {
	var m U
	if b {
		m = ^U(0)
	}
	return m
}

// reinterpret casts s to a slice of E, which has T's size.
func reinterpret[E any, T Float](s []T) []E {
	return unsafe.Slice((*E)(unsafe.Pointer(unsafe.SliceData(s))), len(s))
}
