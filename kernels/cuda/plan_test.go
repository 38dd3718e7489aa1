package cuda

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// kernelOffsets is strided_offsets of src/common.cuh in Go: the offset of
// row-major position i in operand k.
func kernelOffsets(i int, meta []int64, nd, k int) int {
	if meta == nil {
		return i
	}
	off := 0
	for d := nd - 1; d >= 0; d-- {
		s := int(meta[d])
		c := i % s
		i /= s
		off += c * int(meta[(k+1)*nd+d])
	}
	return off
}

// TestStridedLayout: for random views (permuted, narrowed, broadcast), the
// kernels' decoding of the coalesced layout gives every operand's offsets in
// row-major order.
func TestStridedLayout(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 500 {
		nd := r.IntN(5)
		shape := make([]int, nd)
		for d := range shape {
			shape[d] = 1 + r.IntN(4)
		}
		var strides [][]int
		for range 1 + r.IntN(3) {
			strides = append(strides, randomStrides(r, shape))
		}
		sizes, st := coalesce(shape, strides)
		meta := stridedMeta(sizes, st)
		n := 1
		for _, s := range shape {
			n *= s
		}
		if p := slices.Index(sizes, 1); p >= 0 {
			t.Fatalf("trial %d: coalesced sizes %v keep a 1", trial, sizes)
		}
		idx := make([]int, nd)
		for i := range n {
			for k := range strides {
				want := 0
				for d := range idx {
					want += idx[d] * strides[k][d]
				}
				if got := kernelOffsets(i, meta, len(sizes), k); got != want {
					t.Fatalf("trial %d: shape %v strides %v: position %d operand %d offset %d, want %d (meta %v)", trial, shape, strides, i, k, got, want, meta)
				}
			}
			for d := nd - 1; d >= 0; d-- {
				if idx[d]++; idx[d] < shape[d] {
					break
				}
				idx[d] = 0
			}
		}
	}
}

// randomStrides are the strides of a random view of shape: a permuted dense
// tensor, possibly padded (narrowed) or broadcast along some dimensions.
func randomStrides(r *rand.Rand, shape []int) []int {
	nd := len(shape)
	perm := r.Perm(nd)
	st := make([]int, nd)
	s := 1
	for _, d := range perm {
		st[d] = s
		s *= shape[d] + r.IntN(2)
	}
	for d := range st {
		if r.IntN(5) == 0 {
			st[d] = 0
		}
	}
	return st
}

func TestDenseLayoutHasNoMeta(t *testing.T) {
	for _, c := range []struct {
		shape   []int
		strides [][]int
	}{
		{[]int{}, [][]int{{}, {}}},
		{[]int{1, 1}, [][]int{{5, 9}, {0, 0}}},
		{[]int{3, 4, 5}, [][]int{{20, 5, 1}, {20, 5, 1}}},
		{[]int{3, 1, 5}, [][]int{{5, 7, 1}, {5, 0, 1}}},
	} {
		sizes, st := coalesce(c.shape, c.strides)
		if m := stridedMeta(sizes, st); m != nil {
			t.Errorf("shape %v strides %v: meta %v, want nil (dense)", c.shape, c.strides, m)
		}
	}
	sizes, st := coalesce([]int{3, 4}, [][]int{{4, 1}, {1, 3}})
	if m := stridedMeta(sizes, st); m == nil {
		t.Error("transposed operand taken as dense")
	}
}

func TestBlocks(t *testing.T) {
	for _, c := range []struct{ n, want int }{{0, 0}, {1, 1}, {256, 1}, {257, 2}, {1 << 40, gridCap}} {
		if got := blocks(c.n, blockSize); got != c.want {
			t.Errorf("blocks(%d) = %d, want %d", c.n, got, c.want)
		}
	}
}

func TestSizeClass(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{{0, 0}, {1, 256}, {256, 256}, {257, 512}, {1 << 20, 1 << 20}, {1<<20 + 1, 2 << 20}, {5<<20 + 7, 6 << 20}} {
		if got := sizeClass(c.in); got != c.want {
			t.Errorf("sizeClass(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

// TestReduceSplit: the chunks cover the axis, each non-empty, and long axes
// with few outputs are split.
func TestReduceSplit(t *testing.T) {
	for _, c := range []struct{ outputs, n int }{{1, 1}, {1, 513}, {1, 10_000_000}, {15, 100_000}, {10_000, 100_000}, {3, 7}} {
		chunks, chunk := reduceSplit(c.outputs, c.n)
		if chunks < 1 || chunk < 1 || (chunks-1)*chunk >= c.n || chunks*chunk < c.n {
			t.Errorf("reduceSplit(%d, %d) = %d chunks of %d", c.outputs, c.n, chunks, chunk)
		}
		if c.outputs < 100 && c.n > 100_000 && chunks == 1 {
			t.Errorf("reduceSplit(%d, %d) does not split", c.outputs, c.n)
		}
	}
}

func TestChunks(t *testing.T) {
	if got := rowsPerChunk(10_000_000); (10_000_000+got-1)/got > 1024 {
		t.Errorf("rowsPerChunk(1e7) = %d gives more than 1024 chunks", got)
	}
	if got := rowsPerChunk(1); got != 64 {
		t.Errorf("rowsPerChunk(1) = %d", got)
	}
	if got := convChunk(128, 27, 1024, 4); got != 128 {
		t.Errorf("convChunk small = %d, want all 128 images", got)
	}
	if got := convChunk(4, 1<<20, 1<<10, 8); got != 1 {
		t.Errorf("convChunk huge = %d, want 1", got)
	}
}

// TestECLPlans: the fast ECL kernels take exactly the sizes their register
// arrays hold (src/ecl.cu).
func TestECLPlans(t *testing.T) {
	for _, c := range []struct{ b, d, lanes int }{
		{1, 1, 4}, {8, 3, 4}, {9, 3, 8}, {15, 1, 8}, {17, 4, 16}, {55, 10, 32}, {64, 16, 32}, {65, 3, 0}, {15, 17, 0}, {1000, 10, 0},
	} {
		if got := anchorLanes(c.b, c.d); got != c.lanes {
			t.Errorf("anchorLanes(%d, %d) = %d, want %d", c.b, c.d, got, c.lanes)
		}
	}
	for _, c := range []struct {
		gb, d int
		rows  bool
	}{{15, 3, true}, {150, 1, true}, {55, 10, true}, {256, 16, true}, {257, 1, false}, {15, 17, false}} {
		if got := binRows(c.gb, c.d); got != c.rows {
			t.Errorf("binRows(%d, %d) = %v", c.gb, c.d, got)
		}
	}
}

// TestGemmPlan: the slices cover k exactly once, none empty, deep products
// into small matrices are split, and each kernel gets the shapes it is for.
func TestGemmPlan(t *testing.T) {
	for _, c := range []struct{ batch, m, n, k int }{
		{1, 3, 3, 3}, {1000, 3, 3, 4}, {1, 16, 144, 131072}, {1, 64, 576, 8192}, {1, 4096, 4096, 4096}, {1, 1, 1, 5000}, {7, 33, 65, 1025},
		{1, 1024, 1024, 1024}, {1, 130, 257, 2000},
	} {
		kern, splits, kc := gemmPlan(c.batch, c.m, c.n, c.k)
		if splits < 1 || kc < 1 || (splits-1)*kc >= c.k || splits*kc < c.k {
			t.Errorf("gemmPlan%v = %v, %d slices of %d", c, kern, splits, kc)
		}
		if kern == gemmNaive && splits != 1 {
			t.Errorf("gemmPlan%v splits the naive kernel", c)
		}
		if splits > 1 && kc%16 != 0 {
			t.Errorf("gemmPlan%v: slices of %d, not whole kernel depths", c, kc)
		}
	}
	if _, splits, _ := gemmPlan(1, 16, 144, 131072); splits < 8 {
		t.Errorf("conv weight-gradient GEMM split only %d ways", splits)
	}
	if _, splits, _ := gemmPlan(1, 1024, 1024, 1024); splits != 2 {
		t.Errorf("1024² GEMM (64 tiles of 128²) split %d ways, want 2", splits)
	}
	if _, splits, _ := gemmPlan(1, 2048, 2048, 2048); splits != 1 {
		t.Errorf("2048² GEMM (256 tiles of 128²) split %d ways, want 1", splits)
	}
	for _, c := range []struct {
		batch, m, n, k int
		want           gemmKernel
	}{
		{1000, 3, 3, 4, gemmNaive}, {1, 64, 576, 8192, gemmTiled}, {3, 127, 500, 64, gemmTiled},
		{128, 16, 1024, 144, gemmWide}, {128, 32, 256, 288, gemmWide}, {1, 16, 144, 131072, gemmWide},
		{100, 6, 576, 25, gemmNaive}, {128, 64, 64, 576, gemmTiled},
		{1, 128, 128, 1, gemmBig}, {1, 4096, 4096, 4096, gemmBig},
	} {
		if kern, _, _ := gemmPlan(c.batch, c.m, c.n, c.k); kern != c.want {
			t.Errorf("gemmPlan(%d, %d, %d, %d) takes kernel %d, want %d", c.batch, c.m, c.n, c.k, kern, c.want)
		}
	}
}

func TestConvTileAndSplit(t *testing.T) {
	for _, c := range []struct{ m, want int }{{1, 0}, {16, 0}, {17, 1}, {32, 1}, {33, 2}, {64, 2}, {65, 2}, {2048, 2}} {
		if got := convTile(c.m); got != c.want {
			t.Errorf("convTile(%d) = %d, want %d", c.m, got, c.want)
		}
	}
	for _, c := range []struct{ tiles, k, splits, kc int }{
		{1, 200, 1, 200},           // shallow: one pass
		{600, 1 << 20, 1, 1 << 20}, // enough tiles
		{1, 131072, 512, 256},      // ResNet-20's first weight gradient at batch 128: 512 slices of 256
		{77, 576, 4, 144},          // its third stage's forward pass at batch 100: 4 slices of 144
		{3, 20000, 139, 144},       // 156 slices of 128.2 rounded up to 144: 139 cover k
		{5, 1000, 7, 144},          // the last slice is short: 6·144 + 136
	} {
		splits, kc := convSplit(c.tiles, c.k)
		if splits != c.splits || kc != c.kc {
			t.Errorf("convSplit(%d, %d) = %d, %d; want %d, %d", c.tiles, c.k, splits, kc, c.splits, c.kc)
		}
		if kc%16 != 0 && splits > 1 || splits*kc < c.k || (splits-1)*kc >= c.k {
			t.Errorf("convSplit(%d, %d) = %d slices of %d do not cover the depth exactly", c.tiles, c.k, splits, kc)
		}
	}
}

// implicitConv on ResNet-50's layers (batch 16): the choices
// BenchmarkConvResNet50 measured on an H200.
func TestImplicitConv(t *testing.T) {
	conv := func(c, o, k, stride int) tensor.Conv2DParams {
		return tensor.Conv2DParams{N: 16, C: c, H: 28, W: 28, O: o, KH: k, KW: k, StrideH: stride, StrideW: stride, DilH: 1, DilW: 1}
	}
	for _, c := range []struct {
		name           string
		p              tensor.Conv2DParams
		fwd, in, wgrad bool
	}{
		{"stem 7×7/2", conv(3, 64, 7, 2), true, false, true},
		{"3×3 64", conv(64, 64, 3, 1), true, true, true},
		{"3×3 128", conv(128, 128, 3, 1), true, false, true},
		{"3×3/2 128", conv(128, 128, 3, 2), true, false, true},
		{"3×3 256", conv(256, 256, 3, 1), true, false, false},
		{"1×1 256→64", conv(256, 64, 1, 1), true, false, true},
		{"1×1 64→256", conv(64, 256, 1, 1), false, true, false},
		{"1×1/2 256→512", conv(256, 512, 1, 2), false, false, false},
	} {
		got := [3]bool{implicitConv(convForward, c.p), implicitConv(convBackwardInput, c.p), implicitConv(convBackwardWeight, c.p)}
		if want := [3]bool{c.fwd, c.in, c.wgrad}; got != want {
			t.Errorf("%s: implicit forward, input and weight gradients %v, want %v", c.name, got, want)
		}
	}
}

func TestStagedRows(t *testing.T) {
	for _, c := range []struct{ width, size, rpb, threads, shared int }{
		{2*55 + 2*10, 4, 78, 96, 78 * 130 * 4},  // canonical K = 10, float32: 40 KiB / 520 B
		{2*15 + 2*1, 4, 128, 128, 128 * 32 * 4}, // class-wise: capped at 128 rows
		{2*1000 + 2*10, 8, 2, 32, 2 * 2020 * 8}, // 1000 anchors of 10 in float64: 2 rows, one warp
		{2*2560 + 2, 8, 0, 256, 0},              // a row beyond 40 KiB: direct access
	} {
		rpb, threads, shared := stagedRows(c.width, c.size)
		if rpb != c.rpb || threads != c.threads || shared != c.shared {
			t.Errorf("stagedRows(%d, %d) = %d, %d, %d; want %d, %d, %d", c.width, c.size, rpb, threads, shared, c.rpb, c.threads, c.shared)
		}
	}
}

func TestLNChunks(t *testing.T) {
	for _, c := range []struct{ rows, want int }{{1, 1}, {16, 1}, {17, 2}, {3001, 188}, {100 * 197, 528}, {1 << 30, 528}} {
		if got := lnChunks(c.rows); got != c.want {
			t.Errorf("lnChunks(%d) = %d, want %d", c.rows, got, c.want)
		}
	}
}

func TestAttnPlan(t *testing.T) {
	for _, c := range []struct {
		kind                     attnKind
		dh, rows, streamed, size int
		br, bc, shared           int
		ok                       bool
	}{
		// ViT-B's heads (Dh = 64, N = 197): float32 fills a block, float64
		// halves or quarters it.
		{attnForward, 64, 197, 197, 4, 32, 32, 4 * (2*32*64 + 32*65 + 32*64 + 4*32), true},
		{attnForward, 64, 197, 197, 8, 8, 32, 8 * (2*8*64 + 32*65 + 32*64 + 4*32), true},
		{attnDQ, 64, 197, 197, 8, 8, 32, 8 * (3*8*64 + 2*32*65 + 4*32), true},
		{attnDKDV, 64, 197, 197, 4, 16, 32, 4 * (4*16*64 + 2*32*65 + 2*32 + 8*32), true},
		{attnDKDV, 64, 197, 197, 8, 4, 32, 8 * (4*4*64 + 2*32*65 + 2*32 + 8*32), true},
		// No larger than the rows and streamed rows: one query, three keys.
		{attnForward, 4, 1, 3, 4, 1, 4, 4 * (2*4 + 4*5 + 4*4 + 4*4), true},
		// A head too large for float64's tiles; float32's take one key.
		{attnForward, 1600, 3, 5, 8, 0, 0, 0, false},
		{attnForward, 1600, 3, 5, 4, 1, 2, 4 * (2*1600 + 2*1601 + 2*1600 + 4*2), true},
	} {
		br, bc, shared, ok := attnPlan(c.kind, c.dh, c.rows, c.streamed, c.size)
		if br != c.br || bc != c.bc || shared != c.shared || ok != c.ok {
			t.Errorf("attnPlan(%d, %d, %d, %d, %d) = %d, %d, %d, %v; want %d, %d, %d, %v", c.kind, c.dh, c.rows, c.streamed, c.size,
				br, bc, shared, ok, c.br, c.bc, c.shared, c.ok)
		}
	}
	// Every plan fits, in powers of two within the block's rows and a
	// warp's lanes, and heads below 1023 (float64's dk/dv limit) always get one.
	for _, kind := range []attnKind{attnForward, attnDQ, attnDKDV} {
		for _, size := range []int{4, 8} {
			for dh := 1; dh <= 2048; dh += 37 {
				for _, n := range []int{1, 5, 33, 197, 4096} {
					br, bc, shared, ok := attnPlan(kind, dh, n, n+3, size)
					if !ok {
						if dh < 1023 {
							t.Errorf("attnPlan(%d, %d, %d, %d, %d): no plan", kind, dh, n, n+3, size)
						}
						continue
					}
					if shared > 48<<10 || shared != attnShared(kind, dh, br, bc, size) || br&(br-1) != 0 || bc&(bc-1) != 0 ||
						br > attnWarps*attnRowsPerWarp || bc > 32 || br >= 2*n || bc >= 2*(n+3) {
						t.Errorf("attnPlan(%d, %d, %d, %d, %d) = %d, %d, %d", kind, dh, n, n+3, size, br, bc, shared)
					}
				}
			}
		}
	}
}
