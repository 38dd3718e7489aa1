package tensor

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// gatherCases are stride-1 convolutions: ResNet's three map sizes (the
// 28-wide one over a batch that leaves the last canvas half full), one and
// three channels, odd sizes and batches, no, uneven and wide padding,
// dilation, a non-square kernel and output channels that fill no tile.
var gatherCases = []Conv2DParams{
	{N: 3, C: 16, H: 28, W: 28, O: 16, KH: 3, KW: 3, PadH: 1, PadW: 1},
	{N: 5, C: 32, H: 14, W: 14, O: 32, KH: 3, KW: 3, PadH: 1, PadW: 1},
	{N: 7, C: 64, H: 7, W: 7, O: 64, KH: 3, KW: 3, PadH: 1, PadW: 1},
	{N: 1, C: 1, H: 5, W: 6, O: 1, KH: 3, KW: 3, PadH: 1, PadW: 1},
	{N: 3, C: 3, H: 9, W: 7, O: 12, KH: 3, KW: 3, PadH: 1, PadW: 1},
	{N: 2, C: 8, H: 11, W: 13, O: 5, KH: 5, KW: 5},
	{N: 3, C: 9, H: 6, W: 10, O: 17, KH: 2, KW: 3, PadH: 1, PadW: 2},
	{N: 4, C: 8, H: 9, W: 9, O: 8, KH: 3, KW: 3, PadH: 2, PadW: 2, DilH: 2, DilW: 2},
	{N: 5, C: 2, H: 4, W: 3, O: 3, KH: 1, KW: 3, PadW: 1},
	// Output rows as wide as the float32 tile (32), computed row by row
	// into the images as the 28-wide ones above (rowTiles), with output
	// channels that fill whole tiles of 8 or leave a part (DenseNet-40's
	// growth of 12).
	{N: 11, C: 16, H: 32, W: 32, O: 16, KH: 3, KW: 3, PadH: 1, PadW: 1},
	{N: 9, C: 12, H: 28, W: 28, O: 12, KH: 3, KW: 3, PadH: 1, PadW: 1},
	{N: 2, C: 8, H: 6, W: 30, O: 9, KH: 3, KW: 3, PadH: 1, PadW: 2},
	// Output rows as wide as the AVX2 kernel's tile (16), ResNet-20's
	// middle stage, with output channels filling two of its tiles of 6.
	{N: 5, C: 16, H: 16, W: 16, O: 12, KH: 3, KW: 3, PadH: 1, PadW: 1},
}

// stridedGatherCases are stride-2 convolutions the forward pass takes on
// the canvas of phases: ResNet-50's 3×3 layers and its 7×7 stem (at a
// smaller size), odd sizes and batches, no and wide padding, dilation,
// mixed strides, a 1×3 kernel, one image on a canvas of several, and
// output channels that fill no tile.
var stridedGatherCases = []Conv2DParams{
	{N: 3, C: 16, H: 28, W: 28, O: 32, KH: 3, KW: 3, PadH: 1, PadW: 1, StrideH: 2, StrideW: 2},
	{N: 2, C: 3, H: 30, W: 30, O: 16, KH: 7, KW: 7, PadH: 3, PadW: 3, StrideH: 2, StrideW: 2},
	{N: 5, C: 8, H: 7, W: 7, O: 8, KH: 3, KW: 3, PadH: 1, PadW: 1, StrideH: 2, StrideW: 2},
	{N: 1, C: 9, H: 9, W: 11, O: 5, KH: 3, KW: 3, StrideH: 2, StrideW: 2},
	{N: 3, C: 8, H: 10, W: 9, O: 12, KH: 3, KW: 3, PadH: 2, PadW: 2, DilH: 2, DilW: 2, StrideH: 2, StrideW: 2},
	{N: 4, C: 10, H: 8, W: 13, O: 9, KH: 3, KW: 2, PadH: 1, PadW: 1, StrideH: 1, StrideW: 2},
	{N: 2, C: 12, H: 9, W: 6, O: 8, KH: 2, KW: 3, PadH: 1, PadW: 1, StrideH: 2, StrideW: 1},
	{N: 3, C: 8, H: 5, W: 5, O: 3, KH: 1, KW: 3, PadW: 1, StrideH: 2, StrideW: 2},
	{N: 1, C: 1, H: 1, W: 1, O: 1, KH: 3, KW: 3, PadH: 1, PadW: 1, StrideH: 2, StrideW: 2},
}

// The forward pass on the canvas of phases, with and without bias, equals
// the direct loops for every kernel, in both precisions.
func TestGatherConvStrided(t *testing.T) {
	checkGatherStrided[float32](t, 1e-5)
	checkGatherStrided[float64](t, 1e-13)
}

func checkGatherStrided[T Float](t *testing.T, tol float64) {
	withProcs(t, 2)
	r := rand.New(rand.NewPCG(15, 16))
	multi := false
	for _, p := range stridedGatherCases {
		p.DilH, p.DilW = orOne(p.DilH), orOne(p.DilW)
		if err := p.Validate(); err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		x, x64 := randOf[T](r, p.N*p.C*p.H*p.W)
		w, w64 := randOf[T](r, p.O*p.C*p.KH*p.KW)
		b, b64 := randOf[T](r, p.O)
		wantY, _, _ := refConv(x64, w64, make([]float64, p.N*p.O*p.OutH()*p.OutW()), p)
		for name, gk := range gatherKernels[T]() {
			multi = checkGatherForward(t, "strided forward", name, gk, p, x, w, b, wantY, b64, tol) || multi
		}
	}
	if !multi {
		t.Error("no strided case put several images on a canvas and left the last one in part")
	}
}

// checkGatherForward compares kernel gk's forward pass of p, without and
// with the bias b, against the direct loops' wantY (plus b64 per channel),
// naming the check what; it reports whether p's canvas held several
// images and the last one in part.
func checkGatherForward[T Float](t *testing.T, what, name string, gk gatherKernel[T], p Conv2DParams, x, w, b []T, wantY, b64 []float64, tol float64) (multi bool) {
	t.Helper()
	wantYb := slices.Clone(wantY)
	for i := range wantYb {
		wantYb[i] += b64[i/(p.OutH()*p.OutW())%p.O]
	}
	g := newGatherConv(gk, p)
	defer g.release()
	y, yb := nans[T](len(wantY)), nans[T](len(wantY))
	g.forward(y, x, w, nil)
	g.forward(yb, x, w, biasEpilogue(b))
	if e := relErr(y, wantY); e > tol {
		t.Errorf("%s %s %+v: %s differs from the direct loops by %g", DType[T](), name, p, what, e)
	}
	if e := relErr(yb, wantYb); e > tol {
		t.Errorf("%s %s %+v: %s with bias differs from the direct loops by %g", DType[T](), name, p, what, e)
	}
	return g.imgs > 1 && p.N%g.imgs != 0
}

// gatherKernels are the gather kernels this CPU runs: the portable one at
// each assembly kernel's tile, and the assembly ones for float32.
func gatherKernels[T Float]() map[string]gatherKernel[T] {
	ks := map[string]gatherKernel[T]{"go8x32": goGatherKernel[T](8, 32), "go12x32": goGatherKernel[T](12, 32), "go6x16": goGatherKernel[T](6, 16)}
	if _, f32 := any(*new(T)).(float32); f32 {
		for _, gk := range gatherSets() {
			ks[fmt.Sprintf("asm%dx%d", gk.mr, gk.nr)] = any(gk).(gatherKernel[T])
		}
	}
	return ks
}

// asmGatherOrSkip is the float32 assembly gather kernel; without one it
// skips t.
func asmGatherOrSkip(t *testing.T) gatherKernel[float32] {
	gk, ok := asmGatherKernel[float32](8)
	if !ok {
		t.Skip("no assembly gather kernel on this CPU or build")
	}
	return gk
}

// gatherSetsOrSkip is gatherSets; without any it skips t.
func gatherSetsOrSkip(t *testing.T) []gatherKernel[float32] {
	sets := gatherSets()
	if len(sets) == 0 {
		t.Skip("no assembly gather kernel on this CPU or build")
	}
	return sets
}

func stride1(p Conv2DParams) Conv2DParams {
	p.StrideH, p.StrideW, p.DilH, p.DilW = 1, 1, orOne(p.DilH), orOne(p.DilW)
	return p
}

// checkGather compares the gather path's forward pass, with and without
// bias, its weight gradient alone and, where the input gradient is a
// flipped convolution, both gradients, against the direct loops, for
// every kernel.
func checkGather[T Float](t *testing.T, tol float64) {
	withProcs(t, 2)
	r := rand.New(rand.NewPCG(5, 6))
	multi := false
	for _, p := range gatherCases {
		p = stride1(p)
		if err := p.Validate(); err != nil {
			t.Fatalf("%+v: %v", p, err)
		}
		x, x64 := randOf[T](r, p.N*p.C*p.H*p.W)
		w, w64 := randOf[T](r, p.O*p.C*p.KH*p.KW)
		dy, dy64 := randOf[T](r, p.N*p.O*p.OutH()*p.OutW())
		b, b64 := randOf[T](r, p.O)
		wantY, wantDx, wantDw := refConv(x64, w64, dy64, p)
		for name, gk := range gatherKernels[T]() {
			multi = checkGatherForward(t, "forward", name, gk, p, x, w, b, wantY, b64, tol) || multi
			dwOnly := nans[T](len(w))
			g := newGatherConv(gk, p)
			g.weights(dwOnly, x, dy)
			g.release()
			if e := relErr(dwOnly, wantDw); e > tol {
				t.Errorf("%s %s %+v: weight gradient alone differs from the direct loops by %g", DType[T](), name, p, e)
			}
			q, ok := flippedConv(p)
			if !ok {
				continue
			}
			wf := make([]T, len(w))
			flipKernel(wf, w, p)
			dx, dw := nans[T](len(x)), nans[T](len(w))
			g = newGatherConv(gk, q)
			g.grads(dx, dw, x, dy, wf, p)
			g.release()
			if e := relErr(dx, wantDx); e > tol {
				t.Errorf("%s %s %+v: input gradient differs from the direct loops by %g", DType[T](), name, p, e)
			}
			if e := relErr(dw, wantDw); e > tol {
				t.Errorf("%s %s %+v: weight gradient differs from the direct loops by %g", DType[T](), name, p, e)
			}
		}
	}
	if !multi {
		t.Error("no case put several images on a canvas and left the last one in part")
	}
}

func TestGatherConvFloat32(t *testing.T) { checkGather[float32](t, 1e-4) }

func TestGatherConvFloat64(t *testing.T) { checkGather[float64](t, 1e-12) }

// Each assembly kernel sums as the portable one of its tile, up to FMA
// rounding, over steps below, at and past a multiple of its unrolling,
// adding and not, and writes nothing past its tile.
func TestGatherKernelMatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, gk := range gatherSetsOrSkip(t) {
		mr, nr := gk.mr, gk.nr
		ref, ld := goGatherKernel[float32](mr, nr), nr+8
		for _, k := range []int{1, 3, 4, 5, 8, 17} {
			a, _ := randOf[float32](r, mr*k)
			b, _ := randOf[float32](r, ld*k+nr)
			offs := make([]int, k)
			for p := range offs {
				offs[p] = ld*p + r.IntN(8)
			}
			for _, add := range []bool{false, true} {
				c0, _ := randOf[float32](r, (mr+1)*ld)
				got, want := slices.Clone(c0), slices.Clone(c0)
				gk.fn(k, a, b, offs, got, ld, add)
				ref.fn(k, a, b, offs, want, ld, add)
				want64 := make([]float64, len(want))
				for i, v := range want {
					want64[i] = float64(v)
				}
				if e := relErr(got, want64); e > 1e-5 {
					t.Errorf("%d×%d k=%d add=%v: assembly differs from Go by %g", mr, nr, k, add, e)
				}
				for i := range mr + 1 {
					lo := i*ld + nr
					if i == mr {
						lo = i * ld
					}
					if !slices.Equal(got[lo:(i+1)*ld], c0[lo:(i+1)*ld]) {
						t.Errorf("%d×%d k=%d add=%v: row %d written past its %d columns", mr, nr, k, add, i, nr)
					}
				}
			}
		}
	}
}

// Each assembly dot3 sums as the portable one, up to rounding (lanes),
// into a c that other tiles' sums share, leaving the rest alone.
func TestGatherDot3MatchesGo(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for _, gk := range gatherSetsOrSkip(t) {
		ref := goGatherKernel[float32](gk.mr, gk.nr)
		for _, kv := range []int{1, 2, 5} {
			const lda, ldb, lds, ldi = 123, 97, 29, 7
			a, _ := randOf[float32](r, lda+16*kv+16)
			b, _ := randOf[float32](r, 3*ldb+16*kv)
			c0, _ := randOf[float32](r, 2*lds+ldi+4)
			got, want := slices.Clone(c0), slices.Clone(c0)
			gk.dot3(kv, a, lda, b, ldb, got, lds, ldi)
			ref.dot3(kv, a, lda, b, ldb, want, lds, ldi)
			touched := make([]bool, len(c0))
			for s := range 3 {
				for i := range 2 {
					for j := range 4 {
						touched[s*lds+i*ldi+j] = true
					}
				}
			}
			for i := range got {
				if !touched[i] && got[i] != c0[i] {
					t.Errorf("%d×%d kv=%d: element %d written", gk.mr, gk.nr, kv, i)
				}
				if d := float64(got[i] - want[i]); touched[i] && (d > 1e-4 || d < -1e-4) {
					t.Errorf("%d×%d kv=%d: element %d is %v, Go gives %v", gk.mr, gk.nr, kv, i, got[i], want[i])
				}
			}
		}
	}
}

// With the assembly kernel, the forward pass and the input gradient sum
// in the im2col GEMM's order: the paths agree to the bit, on the canvas's
// output and row by row (rows a tile wide or up to a quarter narrower).
func TestGatherMatchesIm2colBitwise(t *testing.T) {
	gk := asmGatherOrSkip(t)
	withProcs(t, 2)
	r := rand.New(rand.NewPCG(9, 10))
	// Row tiles: outputs 24 to 32 wide for a tile of 32, 12 to 16 for 16.
	wantRows := map[int][]bool{
		32: {true, false, false, true, true, true, false},
		16: {false, true, false, false, false, false, true},
	}[gk.nr]
	for i, p := range append(gatherCases[:3:3], gatherCases[len(gatherCases)-4:]...) {
		p = stride1(p)
		g := newGatherConv(gk, p)
		if rows := g.rowTiles(); rows != wantRows[i] {
			t.Errorf("%+v: row tiles %v, want %v", p, rows, wantRows[i])
		}
		g.release()
		x, _ := randOf[float32](r, p.N*p.C*p.H*p.W)
		w, _ := randOf[float32](r, p.O*p.C*p.KH*p.KW)
		dy, _ := randOf[float32](r, p.N*p.O*p.OutH()*p.OutW())
		b, _ := randOf[float32](r, p.O)
		y, want := make([]float32, len(dy)), make([]float32, len(dy))
		g = newGatherConv(gk, p)
		g.forward(y, x, w, biasEpilogue(b))
		g.release()
		im2colForward(want, x, w, biasEpilogue(b), p)
		if !slices.Equal(y, want) {
			t.Errorf("%+v: forward differs from im2col", p)
		}
		if !same(p) { // im2col's input gradient is then col2im
			continue
		}
		q, _ := flippedConv(p)
		wf := make([]float32, len(w))
		flipKernel(wf, w, p)
		dx, dw, wantDx, wantDw := make([]float32, len(x)), make([]float32, len(w)), make([]float32, len(x)), make([]float32, len(w))
		g = newGatherConv(gk, q)
		g.grads(dx, dw, x, dy, wf, p)
		g.release()
		im2colGradsFlipped(wantDx, wantDw, x, dy, wf, p, q)
		if !slices.Equal(dx, wantDx) {
			t.Errorf("%+v: input gradient differs from im2col", p)
		}
	}
}

// ResNet's stride-1 convolutions, its first layer (3→16) included, and
// LeNet's second (8×8 outputs at a canvas width of 12 an image: 1.5
// columns an output) take the gather path; LeNet's first (3→6, fewer than
// 8 channels either side), strided, pointwise and wasteful ones (a 2×2
// map: 1.6 at best) do not.
func TestGathers(t *testing.T) {
	for _, c := range []struct {
		p    Conv2DParams
		want bool
	}{
		{Conv2DParams{N: 100, C: 16, H: 28, W: 28, O: 16, KH: 3, KW: 3, PadH: 1, PadW: 1}, true},
		{Conv2DParams{N: 100, C: 32, H: 14, W: 14, O: 32, KH: 3, KW: 3, PadH: 1, PadW: 1}, true},
		{Conv2DParams{N: 100, C: 64, H: 7, W: 7, O: 64, KH: 3, KW: 3, PadH: 1, PadW: 1}, true},
		{Conv2DParams{N: 100, C: 3, H: 28, W: 28, O: 16, KH: 3, KW: 3, PadH: 1, PadW: 1}, true},
		{Conv2DParams{N: 100, C: 3, H: 28, W: 28, O: 6, KH: 5, KW: 5, PadH: 2, PadW: 2}, false},
		{Conv2DParams{N: 100, C: 6, H: 12, W: 12, O: 16, KH: 5, KW: 5}, true},
		{Conv2DParams{N: 100, C: 16, H: 28, W: 28, O: 32, KH: 3, KW: 3, PadH: 1, PadW: 1, StrideH: 2, StrideW: 2}, false},
		{Conv2DParams{N: 100, C: 16, H: 28, W: 28, O: 32, KH: 1, KW: 1}, false},
		{Conv2DParams{N: 100, C: 16, H: 2, W: 2, O: 16, KH: 3, KW: 3, PadH: 1, PadW: 1}, false},
	} {
		p := c.p
		p.StrideH, p.StrideW, p.DilH, p.DilW = orOne(p.StrideH), orOne(p.StrideW), 1, 1
		if got := gathers(p, 32); got != c.want {
			t.Errorf("%+v: gathers = %v, want %v", p, got, c.want)
		}
	}
}

// The forward pass also takes ResNet-50's strided 3×3 layers and its 7×7
// stem on the canvas of phases, but not its strided 1×1 shortcuts, a
// stride of 3, or LeNet's first layer; the gradients' layouts stay at
// stride 1.
func TestGathersForward(t *testing.T) {
	for _, c := range []struct {
		p    Conv2DParams
		want bool
	}{
		{Conv2DParams{N: 8, C: 128, H: 56, W: 56, O: 128, KH: 3, KW: 3, PadH: 1, PadW: 1, StrideH: 2, StrideW: 2}, true},
		{Conv2DParams{N: 8, C: 512, H: 14, W: 14, O: 512, KH: 3, KW: 3, PadH: 1, PadW: 1, StrideH: 2, StrideW: 2}, true},
		{Conv2DParams{N: 8, C: 3, H: 224, W: 224, O: 64, KH: 7, KW: 7, PadH: 3, PadW: 3, StrideH: 2, StrideW: 2}, true},
		{Conv2DParams{N: 8, C: 256, H: 56, W: 56, O: 512, KH: 1, KW: 1, StrideH: 2, StrideW: 2}, false},
		{Conv2DParams{N: 8, C: 16, H: 28, W: 28, O: 16, KH: 3, KW: 3, StrideH: 3, StrideW: 3}, false},
		{Conv2DParams{N: 100, C: 3, H: 28, W: 28, O: 6, KH: 5, KW: 5, PadH: 2, PadW: 2, StrideH: 1, StrideW: 1}, false},
	} {
		p := c.p
		p.DilH, p.DilW = 1, 1
		if got := gathersForward(p, 32); got != c.want {
			t.Errorf("%+v: gathersForward = %v, want %v", p, got, c.want)
		}
		if p.StrideH > 1 && gathers(p, 32) {
			t.Errorf("%+v: gathers takes a stride above 1", p)
		}
	}
}

// A canvas holds at most maxCanvasValues with its sums, else a core's
// share of the batch: ResNet-50's 28×28 layer of 128 channels at batch 8
// fits one image (canvas 128·30·30 + sums 128·896 = 229,888 values; two
// would take 128·30·59 + 128·1664 = 439,552), ResNet-20's 32×32 layer of
// 16 at batch 100 seven (16·34·232 + 16·7424 = 244,992; eight: 16·34·265
// + 16·8480 = 279,840), though more images waste fewer columns in both.
func TestCanvasImages(t *testing.T) {
	runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	for _, c := range []struct {
		n, ch, hw, want int
	}{{8, 128, 28, 1}, {100, 16, 32, 7}} {
		p := Conv2DParams{N: c.n, C: c.ch, H: c.hw, W: c.hw, O: c.ch, KH: 3, KW: 3, PadH: 1, PadW: 1, StrideH: 1, StrideW: 1, DilH: 1, DilW: 1}
		if got, _ := canvas(p, 32); got != c.want {
			t.Errorf("%d×%d×%d at batch %d: %d images a canvas, want %d", c.ch, c.hw, c.hw, c.n, got, c.want)
		}
	}
}

// canvasCopy moves rows of every width, below, at and past whole
// vectors, between strides, and leaves the gaps alone.
func TestCanvasCopy(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	for cols := 1; cols <= 40; cols++ {
		const rows, lds, ldd = 3, 41, 45
		src, _ := randOf[float32](r, rows*lds)
		got, want := nans[float32](rows*ldd), nans[float32](rows*ldd)
		canvasCopy(got, src, rows, cols, ldd, lds)
		for i := range rows {
			copy(want[i*ldd:i*ldd+cols], src[i*lds:i*lds+cols])
		}
		for i := range got {
			if got[i] != want[i] && !(got[i] != got[i] && want[i] != want[i]) {
				t.Fatalf("cols=%d: element %d is %v, want %v", cols, i, got[i], want[i])
			}
		}
	}
}

// convAffineInput maps each input channel on its way to the canvas: the
// same bits as mapping the input into a buffer and convolving that, on
// the gather path (DenseNet-121's 128→32 layers at 56×56 and 7×7, a
// 28-wide map of row tiles with a canvas part empty, canvases of three
// images copied out),
// reading the first C channels of wider images and writing into a band
// of channels of wider outputs, leaving the rest as they were; it
// declines other paths and strides.
func TestConvAffineInputMatchesMapped(t *testing.T) {
	asmGatherOrSkip(t)
	withProcs(t, 2)
	useConvPath(t, "direct")
	r := rand.New(rand.NewPCG(11, 12))
	cases := []Conv2DParams{
		{N: 3, C: 128, H: 56, W: 56, O: 32, KH: 3, KW: 3, PadH: 1, PadW: 1},
		{N: 5, C: 128, H: 7, W: 7, O: 32, KH: 3, KW: 3, PadH: 1, PadW: 1},
		{N: 7, C: 12, H: 28, W: 28, O: 12, KH: 3, KW: 3, PadH: 1, PadW: 1},
		{N: 2, C: 9, H: 5, W: 13, O: 8, KH: 3, KW: 3},
		{N: 6, C: 16, H: 10, W: 10, O: 8, KH: 3, KW: 3, PadH: 1, PadW: 1}, // three images a canvas
	}
	for _, p := range cases {
		p = stride1(p)
		for _, wide := range []bool{false, true} {
			extraC, extraO, band := 0, 0, 0 // channels past C, past O, before the output band
			if wide {
				extraC, extraO, band = 3, 5, 2
			}
			hw, ohw := p.H*p.W, p.OutH()*p.OutW()
			xs, ys := (p.C+extraC)*hw, (p.O+extraO)*ohw
			x, _ := randOf[float32](r, p.N*xs)
			w, _ := randOf[float32](r, p.O*p.C*p.KH*p.KW)
			scale, _ := randOf[float32](r, p.C) // of both signs
			shift, _ := randOf[float32](r, p.C)
			z := make([]float32, p.N*p.C*hw)
			for i := range p.N {
				for c := range p.C {
					for j, v := range x[i*xs+c*hw:][:hw] {
						z[(i*p.C+c)*hw+j] = max(v*scale[c]+shift[c], 0)
					}
				}
			}
			y, mapped := make([]float32, p.N*ys), make([]float32, p.N*p.O*ohw)
			for i := range y {
				y[i] = -7
			}
			if !convAffineInput(y[band*ohw:], x, w, scale, shift, p, xs, ys) {
				t.Errorf("%+v: declined the gather path", p)
				continue
			}
			forwardBy(pathDirect, mapped, z, w, nil, p)
			want := make([]float32, len(y))
			for i := range want {
				want[i] = -7
			}
			for i := range p.N {
				copy(want[i*ys+band*ohw:], mapped[i*p.O*ohw:][:p.O*ohw])
			}
			if !slices.Equal(y, want) {
				t.Errorf("%+v, wide %v: differs from the convolution of the mapped input", p, wide)
			}
		}
	}
	p := stride1(cases[3])
	x, w := make([]float32, p.N*p.C*p.H*p.W), make([]float32, p.O*p.C*9)
	s := make([]float32, p.C)
	y := make([]float32, p.N*p.O*p.OutH()*p.OutW())
	useConvPath(t, "im2col")
	if convAffineInput(y, x, w, s, s, p, p.C*p.H*p.W, len(y)/p.N) {
		t.Error("took the im2col path")
	}
	useConvPath(t, "direct")
	p.StrideH, p.StrideW = 2, 2
	if convAffineInput(y, x, w, s, s, p, p.C*p.H*p.W, len(y)/p.N) {
		t.Error("took a stride of 2")
	}
}
