//go:build cuda

package cuda

import "github.com/ecl-go/ecl/tensor"

// mat is a batch of matrices for gemm: a device address and the element
// strides of batch, row and column.
type mat struct {
	ptr        uint64
	s0, s1, s2 int
}

func (d *device[T]) mat(t *tensor.Tensor[T]) mat {
	s := t.Strides()
	return mat{d.ptr(t), s[0], s[1], s[2]}
}

// gemmKernels are the kernels of gemmPlan's choices.
var gemmKernels = [...]kernel{gemmNaive: kGemmNaive, gemmTiled: kGemmTiled, gemmWide: kGemmWide, gemmBig: kGemmBig}

// gemm queues c[z] = a[z]·b[z] (+ c[z] when accumulate) for z < batch, with
// a [m, k], b [k, n], c [m, n] (on the context thread), as gemmPlan chooses.
// A split product goes through a buffer of partial products whose slices are
// then added in order, so the result does not depend on scheduling.
func (d *device[T]) gemm(batch, m, n, k int, a, b, c mat, accumulate bool) error {
	if batch*m*n == 0 {
		return nil
	}
	kern, splits, kc := gemmPlan(batch, m, n, k)
	launch := func(c mat, beta float64) error {
		args := []uint64{uint64(batch), uint64(m), uint64(n), uint64(k),
			a.ptr, uint64(a.s0), uint64(a.s1), uint64(a.s2),
			b.ptr, uint64(b.s0), uint64(b.s1), uint64(b.s2),
			c.ptr, uint64(c.s0), uint64(c.s1), uint64(c.s2), f64(beta), uint64(kc), uint64(splits)}
		if kern == gemmNaive {
			return d.e.launch(kGemmNaive, d.sfx, linear(batch*m*n), args...)
		}
		tm, tn := kern.tile()
		g := grid{x: min((n+tn-1)/tn, gridCap), y: min((m+tm-1)/tm, gridCap), z: min(batch*splits, gridCap), block: 256}
		return d.e.launch(gemmKernels[kern], d.sfx, g, args...)
	}
	if splits == 1 {
		beta := 0.0
		if accumulate {
			beta = 1
		}
		return launch(c, beta)
	}
	e := d.e
	part, err := e.malloc(int64(batch*splits*m*n) * d.size)
	defer e.alloc.release(part)
	if err != nil {
		return err
	}
	sum, err := e.malloc(int64(batch*m*n) * d.size)
	defer e.alloc.release(sum)
	if err != nil {
		return err
	}
	if err := launch(mat{part.ptr, m * n, n, 1}, 0); err != nil {
		return err
	}
	err = e.launch(kReduceStrip, d.sfx, linear(batch*m*n), uint64(tensor.OpSum), uint64(batch), uint64(splits), uint64(m*n), uint64(splits), part.ptr, sum.ptr)
	if err != nil {
		return err
	}
	shape := []int{batch, m, n}
	cv, sv := operand{c.ptr, []int{c.s0, c.s1, c.s2}}, operand{sum.ptr, []int{m * n, n, 1}}
	if accumulate {
		return d.elementwise(kBinary, shape, []operand{cv, cv, sv}, uint64(tensor.OpAdd))
	}
	return d.elementwise(kCopy, shape, []operand{cv, sv})
}

func (d *device[T]) MatMul(dst, a, b *tensor.Tensor[T]) {
	s := a.Shape()
	ma, mb, mc := d.mat(a), d.mat(b), d.mat(dst)
	must(d.e.do(func() error { return d.gemm(s[0], s[1], b.Dim(2), s[2], ma, mb, mc, false) }))
	keepAlive(a, b, dst)
}
