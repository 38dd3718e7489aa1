//go:build cuda

package cuda

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// lay places a batch of rows×cols matrices in a buffer: transposed (unit
// row stride) or not, step apart along the unit dimension, rows (or
// columns) pad elements longer than they need, off elements into the
// buffer (1 breaks 16-byte alignment), the batch broadcast (stride 0).
type lay struct {
	trans     bool
	step, pad int
	off       int
	bcast     bool
}

func (l lay) String() string {
	s := "row-major"
	if l.trans {
		s = "transposed"
	}
	s += fmt.Sprintf(" step %d pad %d off %d", l.step, l.pad, l.off)
	if l.bcast {
		s += " broadcast"
	}
	return s
}

// place returns the strides of l for a batch of rows×cols matrices and the
// buffer length it needs.
func (l lay) place(batch, rows, cols int) (s0, s1, s2, size int) {
	if l.trans {
		s1, s2 = l.step, rows*l.step+l.pad
	} else {
		s1, s2 = cols*l.step+l.pad, l.step
	}
	span := (rows-1)*s1 + (cols-1)*s2 + 1
	if !l.bcast {
		s0 = span + l.pad
	}
	return s0, s1, s2, l.off + (batch-1)*s0 + span
}

var (
	rowMajor  = lay{step: 1}
	colMajor  = lay{trans: true, step: 1}
	unaligned = lay{step: 1, off: 1}
	oddRows   = lay{step: 1, pad: 1}
	oddCols   = lay{trans: true, step: 1, pad: 3, off: 2}
	strided   = lay{step: 2, pad: 1}
	shared    = lay{step: 1, bcast: true}
	sharedT   = lay{trans: true, step: 1, bcast: true}
)

// gemmCases drive the device's gemm directly, with every operand layout
// the kernels distinguish (16-byte loads along k or along the rows or
// columns, element loads), sizes on and off the tile edges, more tiles than
// the emulator's grid of at most 3 blocks a dimension (strided grid loops,
// batch 4 included), beta = 1 and split depths.
var gemmCases = []struct {
	batch, m, n, k int
	a, b, c        lay
	accumulate     bool
	want           gemmKernel
	split          bool
}{
	{1, 128, 128, 16, rowMajor, rowMajor, rowMajor, false, gemmBig, false},
	{1, 130, 257, 37, rowMajor, rowMajor, rowMajor, false, gemmBig, false},
	{2, 200, 136, 29, colMajor, colMajor, rowMajor, true, gemmBig, false},
	{1, 131, 129, 21, unaligned, oddCols, colMajor, false, gemmBig, false},
	{2, 129, 140, 19, oddRows, unaligned, oddRows, true, gemmBig, false},
	{4, 140, 133, 11, shared, sharedT, unaligned, false, gemmBig, false},
	{1, 150, 131, 9, strided, strided, strided, true, gemmBig, false},
	{1, 520, 400, 8, colMajor, rowMajor, oddCols, false, gemmBig, false},
	{1, 130, 136, 1100, rowMajor, colMajor, rowMajor, true, gemmBig, true},
	{1, 131, 129, 1031, unaligned, oddRows, rowMajor, false, gemmBig, true},
	{2, 65, 97, 33, colMajor, strided, unaligned, true, gemmTiled, false},
	{3, 16, 300, 40, shared, colMajor, rowMajor, false, gemmWide, false},
	{2, 8, 200, 7, oddCols, rowMajor, colMajor, true, gemmWide, false},
	{1, 29, 130, 1100, unaligned, strided, oddRows, true, gemmWide, true},
	{1, 5, 7, 3, oddCols, rowMajor, rowMajor, true, gemmNaive, false},
}

func TestGemmLayouts(t *testing.T) {
	forArchs(func(arch string) {
		t.Run(arch+"/float32", gemmLayouts[float32])
		t.Run(arch+"/float64", gemmLayouts[float64])
	})
}

func gemmLayouts[T tensor.Float](t *testing.T) {
	dv, err := newDevice[T]()
	if err != nil {
		t.Skipf("no CUDA device: %v", err)
	}
	d := dv.(*device[T])
	u := 0x1p-53
	if d.size == 4 {
		u = 0x1p-24
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, c := range gemmCases {
		name := fmt.Sprintf("%d×%d×%d batch %d, A %v, B %v, C %v, accumulate %v", c.m, c.n, c.k, c.batch, c.a, c.b, c.c, c.accumulate)
		kern, splits, _ := gemmPlan(c.batch, c.m, c.n, c.k)
		if kern != c.want || (splits > 1) != c.split {
			t.Fatalf("%s: plan takes kernel %d in %d slices, not the one the case is for", name, kern, splits)
		}
		buf := func(l lay, rows, cols int) ([]T, *tensor.Tensor[T], mat) {
			s0, s1, s2, size := l.place(c.batch, rows, cols)
			host := tensor.RandUniform[T](r, -1, 1, size).Data()
			x := tensor.FromSliceOn(dv, host, size)
			return host, x, mat{d.ptr(x) + uint64(l.off)*uint64(d.size), s0, s1, s2}
		}
		ha, xa, ma := buf(c.a, c.m, c.k)
		hb, xb, mb := buf(c.b, c.k, c.n)
		hc, xc, mc := buf(c.c, c.m, c.n)
		if err := d.e.do(func() error { return d.gemm(c.batch, c.m, c.n, c.k, ma, mb, mc, c.accumulate) }); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got := xc.Data()
		keepAlive(xa, xb)
		want := append([]T(nil), hc...)
		bound := make([]float64, len(hc))
		for z := range c.batch {
			for i := range c.m {
				for j := range c.n {
					var s, mag float64
					for l := range c.k {
						p := float64(ha[c.a.off+z*ma.s0+i*ma.s1+l*ma.s2]) * float64(hb[c.b.off+z*mb.s0+l*mb.s1+j*mb.s2])
						s += p
						mag += math.Abs(p)
					}
					o := c.c.off + z*mc.s0 + i*mc.s1 + j*mc.s2
					if c.accumulate {
						s += float64(hc[o])
						mag += math.Abs(float64(hc[o]))
					}
					want[o] = T(s)
					bound[o] = float64(c.k+2)*u*mag + 1e-30
				}
			}
		}
		bad := 0
		for o := range got {
			if d := math.Abs(float64(got[o]) - float64(want[o])); !(d <= bound[o]) {
				if bad++; bad <= 5 {
					t.Errorf("%s: element %d of C's buffer = %v, want %v (bound %.3g; untouched: %v)", name, o, got[o], want[o], bound[o], want[o] == hc[o])
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d elements of C's buffer wrong", name, bad, len(got))
		}
	}
}
