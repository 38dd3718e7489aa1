//go:build cuda

package cuda

import (
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ecl-go/ecl/tensor"
)

// device is the tensor.Device of GPU 0 for element type T (one per type,
// made by the engine, so that device identity is pointer identity).
type device[T tensor.Float] struct {
	e    *engine
	sfx  string // kernel name suffix, "_f32" or "_f64"
	size int64  // bytes per element

	anchorMu sync.Mutex
	anchors  []anchorSet[T] // anchorsOn's cache
}

var (
	_ tensor.Device[float32] = (*device[float32])(nil)
	_ tensor.Device[float64] = (*device[float64])(nil)
)

// buffer is device memory holding n elements; its block returns to the
// allocator when the garbage collector finds the buffer unreachable.
type buffer[T tensor.Float] struct {
	dev *device[T]
	blk block
	n   int
}

func (b *buffer[T]) Device() tensor.Device[T] { return b.dev }
func (b *buffer[T]) Len() int                 { return b.n }

func (d *device[T]) String() string { return "cuda:0 (" + d.e.name + ")" }

// newBuffer wraps a block (on any goroutine).
func (d *device[T]) newBuffer(blk block, n int) *buffer[T] {
	b := &buffer[T]{dev: d, blk: blk, n: n}
	runtime.AddCleanup(b, d.e.alloc.release, blk)
	return b
}

// ptr is the device address of t's first element. It panics when t is not
// on d: tensors never move between devices implicitly.
func (d *device[T]) ptr(t *tensor.Tensor[T]) uint64 {
	b, ok := t.Buffer().(*buffer[T])
	if !ok || b.dev != d {
		panic(&tensor.DeviceError{Op: "cuda", Devices: [2]string{t.Device().String(), d.String()}})
	}
	return b.blk.ptr + uint64(t.Offset())*uint64(d.size)
}

// on reports the CUDA device holding every tensor, or an error naming op.
func on[T tensor.Float](op string, ts ...*tensor.Tensor[T]) (*device[T], error) {
	var d *device[T]
	for _, t := range ts {
		b, ok := t.Buffer().(*buffer[T])
		if !ok {
			return nil, fmt.Errorf("cuda.%s: tensor %v is on %s, not on a CUDA device", op, t.Shape(), t.Device())
		}
		if d == nil {
			d = b.dev
		}
	}
	return d, nil
}

func (d *device[T]) Alloc(n int) tensor.Buffer[T] { return d.alloc(n, true) }

// Empty skips the zeroing; the emulator build fills the block with NaNs
// instead (driver.scribble), so that a kernel that leaves an element
// unwritten fails the tests.
func (d *device[T]) Empty(n int) tensor.Buffer[T] { return d.alloc(n, false) }

func (d *device[T]) alloc(n int, zero bool) tensor.Buffer[T] {
	var blk block
	must(d.e.do(func() (err error) {
		if blk, err = d.e.malloc(int64(n) * d.size); err != nil || blk.size == 0 {
			return err
		}
		if !zero {
			d.e.drv.scribble(blk.ptr, blk.size)
			return nil
		}
		if err = d.e.drv.zero(blk.ptr, blk.size); err != nil {
			d.e.alloc.release(blk)
			return fmt.Errorf("cuda: zeroing %d elements: %w", n, err)
		}
		return nil
	}))
	return d.newBuffer(blk, n)
}

func (d *device[T]) Upload(src []T) tensor.Buffer[T] {
	var blk block
	must(d.e.do(func() (err error) {
		if blk, err = d.e.malloc(int64(len(src)) * d.size); err != nil || len(src) == 0 {
			return err
		}
		if err = d.e.upload(blk.ptr, unsafe.Pointer(&src[0]), int64(len(src))*d.size, &d.e.uploads); err != nil {
			d.e.alloc.release(blk)
		}
		return err
	}))
	return d.newBuffer(blk, len(src))
}

// Download waits for the queued work and copies src (made contiguous on the
// device first if it is a view) to dst.
func (d *device[T]) Download(dst []T, src *tensor.Tensor[T]) {
	n := src.Len()
	if len(dst) < n {
		panic(&tensor.ShapeError{Op: "cuda.Download", Shapes: [][]int{src.Shape(), {len(dst)}}, Detail: fmt.Sprintf("downloading %d elements into %d", n, len(dst))})
	}
	src = tensor.Contiguous(src)
	p := d.ptr(src)
	must(d.e.do(func() error {
		if n > 0 {
			d.e.downloads.Add(1)
			if err := d.e.drv.dtoh(unsafe.Pointer(&dst[0]), p, int64(n)*d.size); err != nil {
				return fmt.Errorf("cuda: downloading %d elements (last kernel %s): %w", n, d.e.lastLaunch(), err)
			}
		}
		return d.e.sync()
	}))
	runtime.KeepAlive(src)
}

// operand is an operand of the elementwise kernels: a device address and
// the element strides of the common shape.
type operand struct {
	ptr     uint64
	strides []int
}

// operand is t as an operand of the elementwise kernels.
func (d *device[T]) operand(t *tensor.Tensor[T]) operand { return operand{d.ptr(t), t.Strides()} }

// elementwise launches k over the operands of shape (on the context
// thread): arguments n, nd, meta, then the operands' addresses, then extra.
func (d *device[T]) elementwise(k kernel, shape []int, vs []operand, extra ...uint64) error {
	n := 1
	for _, s := range shape {
		n *= s
	}
	if n == 0 {
		return nil
	}
	strides := make([][]int, len(vs))
	for i, v := range vs {
		strides[i] = v.strides
	}
	sizes, st := coalesce(shape, strides)
	args := []uint64{uint64(n), uint64(len(sizes)), 0}
	if meta := stridedMeta(sizes, st); meta != nil {
		blk, err := d.e.uploadInts(meta)
		defer d.e.alloc.release(blk) // after the launch is queued
		if err != nil {
			return err
		}
		args[2] = blk.ptr
	}
	for _, v := range vs {
		args = append(args, v.ptr)
	}
	return d.e.launch(k, d.sfx, linear(n), append(args, extra...)...)
}

// run runs elementwise on the context thread and panics on failure.
func (d *device[T]) run(k kernel, dst *tensor.Tensor[T], xs []*tensor.Tensor[T], extra ...uint64) {
	vs := []operand{d.operand(dst)}
	for _, x := range xs {
		vs = append(vs, d.operand(x))
	}
	shape := dst.Shape()
	must(d.e.do(func() error { return d.elementwise(k, shape, vs, extra...) }))
	runtime.KeepAlive(dst) // no buffer may return to the allocator before its kernel is queued
	runtime.KeepAlive(xs)
}

func (d *device[T]) Fill(dst *tensor.Tensor[T], v T) { d.run(kFill, dst, nil, f64(float64(v))) }

func (d *device[T]) Copy(dst, src *tensor.Tensor[T]) {
	if dst.IsContiguous() && src.IsContiguous() {
		n := int64(dst.Len()) * d.size
		to, from := d.ptr(dst), d.ptr(src)
		must(d.e.do(func() error {
			if n == 0 {
				return nil
			}
			if err := d.e.drv.dtod(to, from, n); err != nil {
				return fmt.Errorf("cuda: copying %d bytes on %s: %w", n, d.e.name, err)
			}
			return nil
		}))
		runtime.KeepAlive(dst)
		runtime.KeepAlive(src)
		return
	}
	d.run(kCopy, dst, []*tensor.Tensor[T]{src})
}

func (d *device[T]) Unary(op tensor.UnaryOp, dst, x *tensor.Tensor[T], a, b T) {
	d.run(kUnary, dst, []*tensor.Tensor[T]{x}, uint64(op), f64(float64(a)), f64(float64(b)))
}

func (d *device[T]) Binary(op tensor.BinaryOp, dst, x, y *tensor.Tensor[T]) {
	d.run(kBinary, dst, []*tensor.Tensor[T]{x, y}, uint64(op))
}

func (d *device[T]) Where(dst, cond, x, y *tensor.Tensor[T]) {
	d.run(kWhere, dst, []*tensor.Tensor[T]{cond, x, y})
}
