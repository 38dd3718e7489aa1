package tensor

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPointwiseBatchedFloat32(t *testing.T) { checkPointwiseBatched[float32](t) }

func TestPointwiseBatchedFloat64(t *testing.T) { checkPointwiseBatched[float64](t) }

// checkPointwiseBatched compares the batched pointwise forward pass (no
// epilogue, bias, and the affine epilogue with residual and ReLU) and
// input gradient with the same convolution image by image, bit for bit:
// odd channel counts on a 3×3 map (fewer than two tiles of every
// micro-kernel but the portable one), a 2×3 map, and products narrower
// than a tile (1×1 maps), on one core and two.
func checkPointwiseBatched[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	cases := []Conv2DParams{
		{N: 3, C: 37, H: 3, W: 3, O: 29},
		{N: 8, C: 64, H: 2, W: 3, O: 48},
		{N: 2, C: 5, H: 1, W: 1, O: 3},
		{N: 5, C: 130, H: 1, W: 1, O: 70},
	}
	for _, procs := range []int{1, 2} {
		withProcs(t, procs)
		for _, p := range cases {
			p.KH, p.KW, p.StrideH, p.StrideW, p.DilH, p.DilW = 1, 1, 1, 1, 1, 1
			if !batchesColumns[T](p) {
				continue // the portable kernel's 4 columns
			}
			img, out := p.C*p.H*p.W, p.O*p.H*p.W
			x, _ := randOf[T](r, p.N*img)
			w, _ := randOf[T](r, p.O*p.C)
			dy, _ := randOf[T](r, p.N*out)
			b, _ := randOf[T](r, p.O)
			scale, _ := randOf[T](r, p.O)
			res, _ := randOf[T](r, p.N*out)
			forwardByImage(t, procs, p, x, w, b, scale, res)
			one := p
			one.N = 1
			dx, want := nans[T](p.N*img), nans[T](p.N*img)
			conv2dBackwardInput(dx, dy, w, p)
			for n := range p.N {
				conv2dBackwardInput(want[n*img:(n+1)*img], dy[n*out:(n+1)*out], w, one)
			}
			if !slices.Equal(dx, want) {
				t.Errorf("%d procs, %+v: input gradient differs from image by image", procs, p)
			}
		}
	}
	nr := kernelFor[T]().nr
	for _, hw := range []int{7, 8} {
		p := Conv2DParams{N: 8, C: 4, H: hw, W: hw, O: 4, KH: 1, KW: 1, StrideH: 1, StrideW: 1, DilH: 1, DilW: 1}
		if batchesColumns[T](p) != (hw*hw < 2*nr) {
			t.Errorf("%d×%d map: batched %v with tiles of %d", hw, hw, !(hw*hw < 2*nr), nr)
		}
		if p.N = 1; batchesColumns[T](p) {
			t.Errorf("%d×%d map: a single image batched", hw, hw)
		}
	}
}

func TestBatchedForwardFloat32(t *testing.T) { checkBatchedForward[float32](t) }

func TestBatchedForwardFloat64(t *testing.T) { checkBatchedForward[float64](t) }

// checkBatchedForward compares the batched im2col forward pass of
// kernels other than 1×1 (no epilogue, bias, affine with residual and
// ReLU) with the same convolution image by image, bit for bit, on maps
// of fewer than two of every assembly kernel's column tiles and more
// than batchedWeights weights: a 3×3 stride-2 layer to 5×5 maps, a 3×3
// "same" one on 5×5, an unpadded 5×5 kernel with odd channels, a 1×3
// kernel, and, in float32, 7×7 maps whose columns pass
// maxBatchedColumns, so that the batch takes two GEMMs; on one core and
// two. ResNet-20's 64→64 layer on 7×7, with few weights, is not batched.
func checkBatchedForward[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(23, 24))
	cases := []Conv2DParams{
		{N: 5, C: 128, H: 9, W: 9, O: 257, KH: 3, KW: 3, StrideH: 2, StrideW: 2, PadH: 1, PadW: 1},
		{N: 3, C: 256, H: 5, W: 5, O: 129, KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1},
		{N: 4, C: 70, H: 8, W: 8, O: 151, KH: 5, KW: 5, StrideH: 1, StrideW: 1},
		{N: 2, C: 1000, H: 4, W: 6, O: 90, KH: 1, KW: 3, StrideH: 1, StrideW: 1, PadW: 1},
	}
	var z T
	if _, f32 := any(z).(float32); f32 {
		cases = append(cases, Conv2DParams{N: 10, C: 2048, H: 7, W: 7, O: 16, KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1})
	}
	small := Conv2DParams{N: 100, C: 64, H: 7, W: 7, O: 64, KH: 3, KW: 3, StrideH: 1, StrideW: 1, PadH: 1, PadW: 1, DilH: 1, DilW: 1}
	if batchesForward[T](small) {
		t.Errorf("%+v: batched with %d weights", small, small.O*small.C*9)
	}
	for _, procs := range []int{1, 2} {
		withProcs(t, procs)
		for _, p := range cases {
			p.DilH, p.DilW = 1, 1
			if !batchesForward[T](p) {
				if kernelFor[T]().nr >= 16 {
					t.Fatalf("%+v: not batched", p)
				}
				continue // the portable kernel's 4 columns
			}
			rows, cols := colShape(p)
			if p.C == 2048 && rows*cols*p.N <= maxBatchedColumns {
				t.Fatalf("%+v: %d columns' values, want more than one GEMM's %d", p, rows*cols*p.N, maxBatchedColumns)
			}
			img, out := p.C*p.H*p.W, p.O*cols
			x, _ := randOf[T](r, p.N*img)
			w, _ := randOf[T](r, p.O*rows)
			b, _ := randOf[T](r, p.O)
			scale, _ := randOf[T](r, p.O)
			res, _ := randOf[T](r, p.N*out)
			forwardByImage(t, procs, p, x, w, b, scale, res)
		}
	}
}

// forwardByImage checks im2colForward of p (x, w) with no epilogue, the
// bias b, and the affine epilogue (scale, b) with the residual res and
// ReLU against the same convolution image by image, bit for bit.
func forwardByImage[T Float](t *testing.T, procs int, p Conv2DParams, x, w, b, scale, res []T) {
	t.Helper()
	img, out := p.C*p.H*p.W, p.O*p.OutH()*p.OutW()
	one := p
	one.N = 1
	for name, e := range map[string]*epilogue[T]{"none": nil, "bias": {bias: b}, "affine": {scale: scale, shift: b, r: res, relu: true}} {
		y, want := nans[T](p.N*out), nans[T](p.N*out)
		im2colForward(y, x, w, e, p)
		for n := range p.N {
			en := e
			if e != nil && e.r != nil { // one image's residual
				en = &epilogue[T]{scale: e.scale, shift: e.shift, r: e.r[n*out : (n+1)*out], relu: e.relu}
			}
			im2colForward(want[n*out:(n+1)*out], x[n*img:(n+1)*img], w, en, one)
		}
		if !slices.Equal(y, want) {
			t.Errorf("%d procs, %+v, %s: forward differs from image by image", procs, p, name)
		}
	}
}
