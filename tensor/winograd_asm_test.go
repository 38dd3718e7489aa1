package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// winogradAsmCases are maps whose tile rows hold 1, 2, 8 (fewer than the
// AVX-512 assembly's 16 lanes, as many as AVX2's 8), exactly 16, 17, 19
// and 35 tiles, maps that are not multiples of 4, paddings 0, 1 and 2, in
// batches of more than one image.
var winogradAsmCases = []Conv2DParams{
	{N: 2, C: 1, H: 1, W: 1, O: 2, PadH: 1, PadW: 1},
	{N: 3, C: 2, H: 7, W: 7, O: 3, PadH: 1, PadW: 1},
	{N: 2, C: 3, H: 5, W: 4, O: 2, PadH: 2, PadW: 2},
	{N: 2, C: 3, H: 9, W: 30, O: 2, PadH: 1, PadW: 1},
	{N: 2, C: 2, H: 6, W: 66, O: 3},
	{N: 2, C: 3, H: 8, W: 64, O: 2, PadH: 1, PadW: 1},
	{N: 3, C: 1, H: 10, W: 70, O: 1},
	{N: 2, C: 4, H: 11, W: 75, O: 5, PadH: 1, PadW: 1},
	{N: 2, C: 2, H: 7, W: 139, O: 3, PadH: 1, PadW: 1},
}

// winogradBlocks are the blocks (first tile, count) of tiles tiles in
// blocks of tb, as winogradForward takes them.
func winogradBlocks(tiles, tb int) [][2]int {
	var bs [][2]int
	for t0 := 0; t0 < tiles; t0 += tb {
		bs = append(bs, [2]int{t0, min(tb, tiles-t0)})
	}
	return bs
}

// atISA runs f with gemmISA set to l, then restores it.
func atISA(l isa, f func()) {
	defer func(old isa) { gemmISA = old }(gemmISA)
	gemmISA = l
	f()
}

// sameAsGo reports where the assembly's values got differ from the Go
// transforms' want by more than float32 rounding (1e-6 of the largest),
// and logs whether they agree bit for bit, as they do where the Go
// compiler fuses no multiply-add.
func sameAsGo(t *testing.T, name string, got, want []float32) {
	t.Helper()
	scale, worst, same := 0.0, 0.0, true
	for _, v := range want {
		scale = max(scale, math.Abs(float64(v)))
	}
	for i, g := range got {
		same = same && math.Float32bits(g) == math.Float32bits(want[i])
		d := math.Abs(float64(g) - float64(want[i]))
		if math.IsNaN(d) {
			d = math.Inf(1)
		}
		worst = max(worst, d)
	}
	if worst > 1e-6*scale {
		t.Errorf("%s: the assembly differs from the Go transforms by %g (largest value %g)", name, worst, scale)
	} else if !same {
		t.Logf("%s: within %g of the Go transforms, not bit for bit", name, worst)
	}
}

// TestWinogradAsmTransforms checks F(4×4, 3×3)'s assembly input and
// output transforms, each set this CPU runs (with no epilogue, a bias,
// and the affine epilogue with and without residual), against the Go
// transforms, over blocks that start and end inside tile rows.
func TestWinogradAsmTransforms(t *testing.T) {
	for _, l := range winogradLevels(t) {
		atISA(l, func() { checkWinogradAsm(t, l) })
	}
}

// winogradLevels are the levels at which this CPU runs assembly Winograd
// transforms (each set of them), best first; without any it skips t.
func winogradLevels(t *testing.T) []isa {
	var ls []isa
	for _, l := range []isa{isaAVX512, isaAVX2} {
		atISA(l, func() {
			if _, ok := asmWinograd4[float32](); ok && l <= cpuISA {
				ls = append(ls, l)
			}
		})
	}
	if len(ls) == 0 {
		t.Skip("no assembly Winograd transforms on this CPU or build")
	}
	return ls
}

func checkWinogradAsm(t *testing.T, l isa) {
	r := rand.New(rand.NewPCG(4, 4))
	for _, p := range winogradAsmCases {
		p = stride3x3(p)
		wg := newWinograd[float32](4, p)
		oh, ow := p.OutH(), p.OutW()
		x, _ := randOf[float32](r, p.N*p.C*p.H*p.W)
		b, _ := randOf[float32](r, p.O)
		scale, _ := randOf[float32](r, p.O)
		shift, _ := randOf[float32](r, p.O)
		res, _ := randOf[float32](r, p.N*p.O*oh*ow)
		epilogues := []struct {
			name string
			e    *epilogue[float32]
		}{{"none", nil}, {"bias", biasEpilogue(b)},
			{"affine", &epilogue[float32]{scale: scale, shift: shift}},
			{"affine, residual, ReLU", &epilogue[float32]{scale: scale, shift: shift, r: res, relu: true}}}
		for _, tb := range []int{wg.tiles, 37, 16} {
			name := fmt.Sprintf("%v: %dx%dx%dx%d pad %d blocks of %d", l, p.N, p.C, p.H, p.W, p.PadH, tb)
			for _, blk := range winogradBlocks(wg.tiles, tb) {
				t0, nt := blk[0], blk[1]
				v, want := nans[float32](36*p.C*nt), nans[float32](36*p.C*nt)
				wg.inputs(v, x, p, t0, nt, nt)
				atISA(isaGo, func() { wg.inputs(want, x, p, t0, nt, nt) })
				sameAsGo(t, fmt.Sprintf("%s: inputs of block %d", name, t0), v, want)
			}
			mm, _ := randOf[float32](r, 36*p.O*wg.tiles)
			for _, ep := range epilogues {
				y, want := nans[float32](p.N*p.O*oh*ow), nans[float32](p.N*p.O*oh*ow)
				for _, blk := range winogradBlocks(wg.tiles, tb) {
					t0, nt := blk[0], blk[1]
					m := mm[36*p.O*t0:][:36*p.O*nt]
					wg.outputs(y, m, ep.e, p, t0, nt, nt)
					atISA(isaGo, func() { wg.outputs(want, m, ep.e, p, t0, nt, nt) })
				}
				sameAsGo(t, fmt.Sprintf("%s: outputs with epilogue %s", name, ep.name), y, want)
			}
			// The same blocks in one V and M of every tile (columns of
			// stride wg.tiles), as forwardByPosition's cores write them.
			v, want := nans[float32](36*p.C*wg.tiles), nans[float32](36*p.C*wg.tiles)
			for _, blk := range winogradBlocks(wg.tiles, tb) {
				t0, nt := blk[0], blk[1]
				wg.inputs(v[t0:], x, p, t0, nt, wg.tiles)
				atISA(isaGo, func() { wg.inputs(want[t0:], x, p, t0, nt, wg.tiles) })
			}
			sameAsGo(t, name+": inputs of every tile", v, want)
			for _, ep := range epilogues {
				y, want := nans[float32](p.N*p.O*oh*ow), nans[float32](p.N*p.O*oh*ow)
				for _, blk := range winogradBlocks(wg.tiles, tb) {
					t0, nt := blk[0], blk[1]
					wg.outputs(y, mm[t0:], ep.e, p, t0, nt, wg.tiles)
					atISA(isaGo, func() { wg.outputs(want, mm[t0:], ep.e, p, t0, nt, wg.tiles) })
				}
				sameAsGo(t, fmt.Sprintf("%s: outputs of every tile with epilogue %s", name, ep.name), y, want)
			}
		}
	}
}

// TestWinogradAsmMatchesDirect runs float32 F(4×4, 3×3) forward, where
// the assembly takes most tiles, against the direct loops in float64.
func TestWinogradAsmMatchesDirect(t *testing.T) {
	useConvPath(t, "winograd4")
	for _, l := range winogradLevels(t) {
		r := rand.New(rand.NewPCG(5, 5))
		for _, p := range winogradAsmCases {
			p = stride3x3(p)
			x, x64 := randOf[float32](r, p.N*p.C*p.H*p.W)
			w, w64 := randOf[float32](r, p.O*p.C*9)
			b, b64 := randOf[float32](r, p.O)
			ohw := p.OutH() * p.OutW()
			want, _, _ := refConv(x64, w64, make([]float64, p.N*p.O*ohw), p)
			for i := range want {
				want[i] += b64[i/ohw%p.O]
			}
			y := nans[float32](len(want))
			atISA(l, func() { conv2dForward(y, x, w, biasEpilogue(b), p) })
			if e := relErr(y, want); e > 1e-4 {
				t.Errorf("%v %v: float32 forward differs from the direct loops by %g", l, p, e)
			}
		}
	}
}

// TestWinogradByPosition checks that forwardByPosition, the schedule for
// few tiles, writes the same bits as forwardByBlocks, with no epilogue, a
// bias and the affine epilogue with residual and ReLU, in both precisions,
// plain and flipped (the input gradient), on 2 and 3 cores; and that
// winogradForward takes it only on more than one core and for fewer
// tiles than a column panel a core.
func TestWinogradByPosition(t *testing.T) {
	cases := []Conv2DParams{
		{N: 8, C: 40, H: 7, W: 7, O: 48, PadH: 1, PadW: 1}, // 32 tiles, as ResNet-50's 7×7 layers at batch 8; transforms split over the cores
		{N: 3, C: 5, H: 9, W: 6, O: 7, PadH: 1, PadW: 1},   // 18 tiles, tile rows of 2
		{N: 1, C: 2, H: 1, W: 1, O: 3, PadH: 1, PadW: 1},   // one tile
	}
	testByPosition[float32](t, cases)
	testByPosition[float64](t, cases)
}

func testByPosition[T Float](t *testing.T, cases []Conv2DParams) {
	r := rand.New(rand.NewPCG(5, 5))
	mk := kernelFor[T]()
	for _, procs := range []int{1, 2, 3} {
		withProcs(t, procs)
		for _, p := range cases {
			p = stride3x3(p)
			wg := newWinograd[T](4, p)
			few := procs > 1 && (wg.tiles+procs-1)/procs < mk.nr // fewer than a panel a core
			if got := wg.byPosition(p, mk); got != few {
				t.Fatalf("%s %+v on %d cores: byPosition %v, want %v", DType[T](), p, procs, got, few)
			}
			big := p
			big.N = procs * mk.nr // a column panel of tiles a core at least
			if newWinograd[T](4, big).byPosition(big, mk) {
				t.Errorf("%s %+v: byPosition for %d tiles on %d cores", DType[T](), big, newWinograd[T](4, big).tiles, procs)
			}
			if !few {
				continue
			}
			oh, ow := p.OutH(), p.OutW()
			x, _ := randOf[T](r, p.N*p.C*p.H*p.W)
			scale, _ := randOf[T](r, p.O)
			shift, _ := randOf[T](r, p.O)
			res, _ := randOf[T](r, p.N*p.O*oh*ow)
			for _, flip := range []bool{false, true} {
				w, _ := randOf[T](r, p.O*p.C*9) // [C, O, 3, 3] with flip
				size, stride := wg.filterLayout(p, mk)
				packed, done := wg.pooledFilters(w, mk, p, flip, 36*stride)
				u := filterSet[T]{packed, size, stride}
				for _, e := range []*epilogue[T]{nil, biasEpilogue(scale), {scale: scale, shift: shift, r: res, relu: true}} {
					got, want := nans[T](p.N*p.O*oh*ow), nans[T](p.N*p.O*oh*ow)
					wg.forwardByPosition(got, x, u, e, p, mk)
					wg.forwardByBlocks(want, x, u, e, p, mk)
					for i := range got {
						if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
							t.Fatalf("%s %+v flip %v on %d cores: y[%d] = %v by position, %v by blocks", DType[T](), p, flip, procs, i, got[i], want[i])
						}
					}
				}
				done()
			}
		}
	}
}

// BenchmarkWinogradInputs times the input transform of ResNet-50's 64→64
// 56×56 layer at batch 8, in blocks of 96 tiles, into V with a column
// stride of the block's tiles (its 36 positions 4 KB multiples apart) and
// with paddedLD's: go test -run '^$' -bench WinogradInputs ./tensor.
func BenchmarkWinogradInputs(b *testing.B) {
	p := stride3x3(Conv2DParams{N: 8, C: 64, H: 56, W: 56, O: 64, PadH: 1, PadW: 1})
	wg := newWinograd[float32](4, p)
	x := make([]float32, p.N*p.C*p.H*p.W)
	const tb = 96
	for _, ld := range []int{tb, paddedLD(tb, p.C, 36, 4)} {
		b.Run(fmt.Sprintf("ld%d", ld), func(b *testing.B) {
			v := make([]float32, 36*p.C*ld)
			for range b.N {
				for t0 := 0; t0 < wg.tiles; t0 += tb {
					wg.inputs(v, x, p, t0, min(tb, wg.tiles-t0), ld)
				}
			}
		})
	}
}

// TestWinogradOutputGrads4 checks that F(4×4)'s output-gradient transform
// written out (outputGrads4) gives outputGradsAny's values bit for bit:
// in both precisions, on the asm cases' maps (tile rows of 1 to 35 tiles,
// maps not multiples of 4, so tiles cut at the edges), in blocks that
// start and end inside tile rows, with columns wider than the block.
func TestWinogradOutputGrads4(t *testing.T) {
	testOutputGrads4[float32](t)
	testOutputGrads4[float64](t)
}

func testOutputGrads4[T Float](t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	for _, p := range winogradAsmCases {
		p = stride3x3(p)
		wg := newWinograd[T](4, p)
		dy, _ := randOf[T](r, p.N*p.O*p.OutH()*p.OutW())
		for _, tb := range []int{wg.tiles, 37, 16} {
			ld := tb + 3
			for _, blk := range winogradBlocks(wg.tiles, tb) {
				t0, nt := blk[0], blk[1]
				got, want := nans[T](36*p.O*ld), nans[T](36*p.O*ld)
				wg.outputGrads4(got, dy, p, t0, nt, ld)
				wg.outputGradsAny(want, dy, p, t0, nt, ld)
				for i := range got {
					if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want[i])) {
						t.Fatalf("%s %+v, block at %d of %d: dm[%d] = %v, want %v", DType[T](), p, t0, nt, i, got[i], want[i])
					}
				}
			}
		}
	}
}
