//go:build cuda

package cuda

import (
	"fmt"
	"math"
	"runtime"

	"github.com/ecl-go/ecl/tensor"
)

// Reduce views x (contiguous) as [outer, n, inner]. Rows (inner = 1) get a
// block each; a long axis with few outputs is split into chunks reduced in two
// passes; otherwise each thread folds one output sequentially, as the CPU
// does (always so for ArgMax and ArgMin, whose first-index ties follow).
func (d *device[T]) Reduce(op tensor.ReduceOp, dst, x *tensor.Tensor[T], axis int) {
	// The kernels' combine takes any code but the sum's and the maximum's
	// for the minimum: a reduction they do not know fails here instead.
	if op < tensor.OpSum || op > tensor.OpArgMin {
		panic(fmt.Sprintf("cuda: unknown reduce op %d", op))
	}
	shape := x.Shape()
	n, outer, inner := shape[axis], 1, 1
	for _, s := range shape[:axis] {
		outer *= s
	}
	for _, s := range shape[axis+1:] {
		inner *= s
	}
	outputs := outer * inner
	if n == 0 && outputs > 0 {
		switch op {
		case tensor.OpArgMax, tensor.OpArgMin:
			panic("cuda: argmax/argmin over an empty axis")
		case tensor.OpMaxR:
			d.Fill(dst, T(math.Inf(-1)))
		case tensor.OpMinR:
			d.Fill(dst, T(math.Inf(1)))
		default:
			d.Fill(dst, 0)
		}
		return
	}
	if outputs == 0 {
		return
	}
	xp, dp := d.ptr(x), d.ptr(dst)
	must(d.e.do(func() error {
		e := d.e
		switch chunks, chunk := reduceSplit(outputs, n); {
		case op == tensor.OpArgMax || op == tensor.OpArgMin:
			return e.launch(kReduceStrip, d.sfx, linear(outputs), uint64(op), uint64(outer), uint64(n), uint64(inner), uint64(n), xp, dp)
		case inner == 1 && n > 64:
			g := grid{x: min(outer, gridCap), y: 1, z: 1, block: blockSize}
			return e.launch(kReduceRow, d.sfx, g, uint64(op), uint64(outer), uint64(n), xp, dp)
		case chunks > 1:
			part, err := e.malloc(int64(outer*chunks*inner) * d.size)
			defer e.alloc.release(part)
			if err != nil {
				return err
			}
			pp := part.ptr
			if err := e.launch(kReduceStrip, d.sfx, linear(outer*chunks*inner), uint64(op), uint64(outer), uint64(n), uint64(inner), uint64(chunk), xp, pp); err != nil {
				return err
			}
			return e.launch(kReduceStrip, d.sfx, linear(outputs), uint64(op), uint64(outer), uint64(chunks), uint64(inner), uint64(chunks), pp, dp)
		default:
			return e.launch(kReduceStrip, d.sfx, linear(outputs), uint64(op), uint64(outer), uint64(n), uint64(inner), uint64(n), xp, dp)
		}
	}))
	runtime.KeepAlive(x)
	runtime.KeepAlive(dst)
}

// softmaxRows runs softmax_rows over x viewed as [rows, k], one warp per
// row.
func softmaxRows[T tensor.Float](x *tensor.Tensor[T], logs bool) (*tensor.Tensor[T], error) {
	d, err := on("Softmax", x)
	if err != nil {
		return nil, err
	}
	out := tensor.ZerosOn[T](d, x.Shape()...)
	return out, d.rows(kSoftmax, out, tensor.Contiguous(x), nil, logs)
}

// alongAxis runs the row kernel k (see rows) along axis of x (and g) into
// out: in place when axis is the last, else on transposed copies, through
// a scratch tensor copied back into out. It is the body of tensor's
// softmax and log_softmax kernels (softmax_rows, logs selecting the
// latter) and of their backward passes (softmax_backward_rows with g and
// y in x's place, log_softmax_backward_rows with g).
func (d *device[T]) alongAxis(k kernel, out, x, g *tensor.Tensor[T], axis int, logs bool) error {
	last := x.Dims() - 1
	if axis == last {
		return d.rows(k, out, x, g, logs)
	}
	t := func(v *tensor.Tensor[T]) *tensor.Tensor[T] {
		if v == nil {
			return nil
		}
		return tensor.Contiguous(tensor.Transpose(v, axis, last))
	}
	y := tensor.ZerosOn[T](d, swapped(x.Shape(), axis, last)...)
	if err := d.rows(k, y, t(x), t(g), logs); err != nil {
		return err
	}
	tensor.CopyInto(out, tensor.Transpose(y, axis, last))
	return nil
}

// rows launches a one-warp-per-row kernel over x (contiguous) viewed as
// [rows, k] into out: softmax_rows (logs selects log-softmax), or with g
// softmax_backward_rows or log_softmax_backward_rows.
func (d *device[T]) rows(k kernel, out, x, g *tensor.Tensor[T], logs bool) error {
	if out.Len() == 0 {
		return nil
	}
	n := x.Dim(-1)
	rows := x.Len() / n
	xp, op := d.ptr(x), d.ptr(out)
	err := d.e.do(func() error {
		if g != nil {
			return d.e.launch(k, d.sfx, linear(rows*32), uint64(rows), uint64(n), d.ptr(g), xp, op)
		}
		var flag uint64
		if logs {
			flag = 1
		}
		return d.e.launch(k, d.sfx, linear(rows*32), uint64(rows), uint64(n), xp, op, flag)
	})
	runtime.KeepAlive(x)
	runtime.KeepAlive(g)
	runtime.KeepAlive(out)
	return err
}

// swapped is shape with axes a and b exchanged.
func swapped(shape []int, a, b int) []int {
	s := append([]int(nil), shape...)
	s[a], s[b] = s[b], s[a]
	return s
}
