//go:build cuda

package cuda

import "github.com/ecl-go/ecl/tensor"

// indexed launches gather or scatter_add: n positions of the walked shape,
// the other operand addressed through its strides with the coordinate along
// axis replaced by idx (uploaded as int64).
func (d *device[T]) indexed(k kernel, walked []int, other *tensor.Tensor[T], axis int, idx []int, args ...uint64) {
	n := len(idx)
	if n == 0 {
		return
	}
	meta := make([]int64, 0, 2*len(walked))
	for _, s := range walked {
		meta = append(meta, int64(s))
	}
	for _, s := range other.Strides() {
		meta = append(meta, int64(s))
	}
	ix := make([]int64, n)
	for i, v := range idx {
		ix[i] = int64(v)
	}
	must(d.e.do(func() error {
		mb, err := d.e.uploadInts(meta)
		defer d.e.alloc.release(mb)
		if err != nil {
			return err
		}
		ib, err := d.e.uploadInts(ix)
		defer d.e.alloc.release(ib)
		if err != nil {
			return err
		}
		all := append([]uint64{uint64(n), uint64(len(walked)), uint64(axis), mb.ptr, ib.ptr}, args...)
		return d.e.launch(k, d.sfx, linear(n), all...)
	}))
}

func (d *device[T]) Gather(dst, x *tensor.Tensor[T], axis int, idx []int) {
	d.indexed(kGather, dst.Shape(), x, axis, idx, d.ptr(x), d.ptr(dst))
	keepAlive(dst, x)
}

// ScatterAdd adds with atomicAdd: repeated indices accumulate in no fixed
// order.
func (d *device[T]) ScatterAdd(dst, src *tensor.Tensor[T], axis int, idx []int) {
	d.indexed(kScatterAdd, src.Shape(), dst, axis, idx, d.ptr(src), d.ptr(dst))
	keepAlive(dst, src)
}
