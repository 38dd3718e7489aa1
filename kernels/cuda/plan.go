package cuda

import (
	"fmt"
	"math"
	"strings"

	"github.com/ecl-go/ecl/tensor"
)

// The pure parts of the launcher: argument encoding, strided layouts, launch
// and chunk sizes, allocation size classes. They need no device and are
// tested in every build.

// f64 encodes a scalar kernel argument declared double.
func f64(v float64) uint64 { return math.Float64bits(v) }

// describe names a launch for error messages: the kernel and its scalar
// arguments.
func describe(k kernel, sfx string, args []uint64) string {
	var b strings.Builder
	b.WriteString(k.name + sfx + "(")
	sep := ""
	for i, p := range k.params {
		if strings.HasPrefix(p, "*") || i >= len(args) {
			continue
		}
		if name, ok := strings.CutSuffix(p, "."); ok {
			fmt.Fprintf(&b, "%s%s=%g", sep, name, math.Float64frombits(args[i]))
		} else {
			fmt.Fprintf(&b, "%s%s=%d", sep, p, int64(args[i]))
		}
		sep = " "
	}
	return b.String() + ")"
}

// blockSize is the number of threads per block of the one-dimensional
// kernels.
const blockSize = 256

// gridCap is the most blocks a launch uses along a grid dimension; the
// kernels loop beyond it. The emulator build lowers it so that the tests run
// those loops.
var gridCap = 65535

// blocks is the grid size of a grid-stride loop over n elements with
// per threads per block: 0 for n = 0 (no launch), capped at gridCap.
func blocks(n, per int) int {
	return min((n+per-1)/per, gridCap)
}

// coalesce simplifies the common shape of several strided views for the
// elementwise kernels: dimensions of size 1 are dropped and a dimension is
// merged into the one before it when every operand steps through the pair as
// through one. strides[o] are operand o's strides; the result's st[o] are its
// strides over the returned sizes.
func coalesce(shape []int, strides [][]int) (sizes []int, st [][]int) {
	st = make([][]int, len(strides))
	for d, n := range shape {
		if n == 1 {
			continue
		}
		if last := len(sizes) - 1; last >= 0 {
			merge := true
			for o := range strides {
				if st[o][last] != strides[o][d]*n {
					merge = false
					break
				}
			}
			if merge {
				sizes[last] *= n
				for o := range strides {
					st[o][last] = strides[o][d]
				}
				continue
			}
		}
		sizes = append(sizes, n)
		for o := range strides {
			st[o] = append(st[o], strides[o][d])
		}
	}
	return sizes, st
}

// stridedMeta is the kernels' layout array for coalesced views: the sizes,
// then each operand's strides. It is nil when every operand is dense (one
// unit-stride dimension, or none), which the kernels take as "offset =
// position".
func stridedMeta(sizes []int, st [][]int) []int64 {
	dense := len(sizes) <= 1
	for o := range st {
		if len(sizes) == 1 && st[o][0] != 1 {
			dense = false
		}
	}
	if dense {
		return nil
	}
	meta := make([]int64, 0, len(sizes)*(1+len(st)))
	for _, s := range sizes {
		meta = append(meta, int64(s))
	}
	for o := range st {
		for _, s := range st[o] {
			meta = append(meta, int64(s))
		}
	}
	return meta
}

// sizeClass rounds an allocation up to the size the caching allocator keeps
// blocks in: powers of two up to 1 MiB, then multiples of 1 MiB, so that a
// freed block is reused by any request of its class and wastes at most half
// of a small block or 1 MiB of a large one.
func sizeClass(bytes int64) int64 {
	const mib = 1 << 20
	if bytes <= 0 {
		return 0
	}
	if bytes > mib {
		return (bytes + mib - 1) / mib * mib
	}
	c := int64(256)
	for c < bytes {
		c *= 2
	}
	return c
}

// reduceSplit chooses how Reduce splits a long axis when the outputs alone
// would leave most of the GPU idle: chunks of the axis reduced by a first
// pass, then the chunks by a second. chunks = 1 means a single pass.
func reduceSplit(outputs, n int) (chunks, chunk int) {
	const enough = 1 << 16 // threads worth keeping busy
	if outputs >= enough/8 || n <= 512 {
		return 1, n
	}
	chunks = min((n+255)/256, (enough+outputs-1)/outputs)
	chunk = (n + chunks - 1) / chunks
	return (n + chunk - 1) / chunk, chunk
}

// rowsPerChunk splits n rows into at most 1024 chunks of at least 64 rows
// for the per-bin sums (one block per chunk).
func rowsPerChunk(n int) int {
	return max(64, (n+1023)/1024)
}

// anchorLanes is the number of lanes per row with which
// soft_assign_lanes handles b anchors of dim coordinates (the fewest of
// 4, 8, 16, 32 whose registers hold AL_PER = 2 anchors per lane, src/ecl.cu),
// or 0 when b > 64 or dim > 16.
func anchorLanes(b, dim int) int {
	if b > 64 || dim > 16 {
		return 0
	}
	lanes := 4
	for 2*lanes < b {
		lanes *= 2
	}
	return lanes
}

// binRows reports whether bin_stats_rows handles gb bins of dim weighted
// sums: each of a block's 256 threads takes one bin and holds its count,
// sums and squared norm in registers (dim + 2 ≤ BR_COLS = 18, src/ecl.cu).
func binRows(gb, dim int) bool { return gb <= blockSize && dim < 17 }

// convChunk is the number of images whose column matrix (rows·cols elements
// of size bytes each per image) fits in 256 MiB, at least 1 and at most n.
func convChunk(n, rows, cols, size int) int {
	const budget = 256 << 20
	per := max(rows*cols*size, 1)
	return max(1, min(n, budget/per))
}

// gemmKernel is a GEMM kernel of src/matmul.cu.
type gemmKernel int

const (
	gemmNaive gemmKernel = iota // one thread per output
	gemmTiled                   // 64×64 tiles, 4×4 outputs a thread
	gemmWide                    // 32×128 tiles, 4×4 outputs a thread
	gemmBig                     // 128×128 tiles, 8×8 outputs a thread
)

// tile is the kernel's output tile, rows by columns (1×1 for naive).
func (g gemmKernel) tile() (rows, cols int) {
	t := [...][2]int{{1, 1}, {64, 64}, {32, 128}, {128, 128}}[g]
	return t[0], t[1]
}

// gemmPlan chooses the GEMM kernel and how to split its depth k: 8 to 32
// rows by at least 128 columns (a convolution's output channels by its
// pixels) take the 32×128-tile kernel, other small matrices of shallow
// products one thread per output (naive), matrices of at least 128×128 the
// large-tile kernel, the rest the 64×64 one; k is cut into splits slices of
// kc when the output tiles alone would leave most of the GPU idle (a deep
// product into a small matrix, such as a convolution's weight gradient).
func gemmPlan(batch, m, n, k int) (kern gemmKernel, splits, kc int) {
	switch {
	case m >= 8 && m <= 32 && n >= 128:
		kern = gemmWide
	case (m < 32 || n < 32) && k <= 1024:
		return gemmNaive, 1, k
	case m >= 128 && n >= 128:
		kern = gemmBig
	default:
		kern = gemmTiled
	}
	target := 264 // blocks: two waves of 4096-output tiles on a 132-SM GPU
	if kern == gemmBig {
		target = 132 // one block of 128×128 a SM
	}
	tm, tn := kern.tile()
	tiles := batch * ((m + tm - 1) / tm) * ((n + tn - 1) / tn)
	if tiles >= target || k < 1024 {
		return kern, 1, k
	}
	splits = min((target+tiles-1)/tiles, k/512)
	kc = ((k+splits-1)/splits + 15) / 16 * 16 // whole slices of the kernels' depths (16 and 8)
	return kern, (k + kc - 1) / kc, kc
}

// convTile chooses the implicit-GEMM convolution's tile for a product of m
// rows (src/conv.cu: 16×256, 32×128 or 64×64, index 0, 1, 2; the 64×64
// tiles also cover more rows, side by side).
func convTile(m int) int {
	switch {
	case m <= 16:
		return 0
	case m <= 32:
		return 1
	}
	return 2
}

// convPass names a convolution's pass for implicitConv.
type convPass int

const (
	convForward convPass = iota
	convBackwardInput
	convBackwardWeight
)

// implicitAlways makes implicitConv choose the implicit GEMM wherever the
// pass has one (a benchmark's switch, SetImplicitConv).
var implicitAlways bool

// implicitConv reports whether pass of the convolution p runs as an
// implicit GEMM rather than through the column matrix (x itself for a
// pointwise one) and the GEMM kernels, as BenchmarkConvResNet50 found on
// ResNet-50's layers: every pass up to 64 rows of output (O; C for the
// input gradient, which has an implicit GEMM for unit strides only); the
// forward pass of a larger kernel (3×3, 7×7) at any width; its weight
// gradient up to 128 output channels.
func implicitConv(pass convPass, p tensor.Conv2DParams) bool {
	unit := p.StrideH == 1 && p.StrideW == 1
	if implicitAlways {
		return pass != convBackwardInput || unit
	}
	spatial := p.KH*p.KW > 1
	switch pass {
	case convForward:
		return p.O <= 64 || spatial
	case convBackwardInput:
		return unit && p.C <= 64
	}
	return p.O <= 64 || spatial && p.O <= 128
}

// convSplit cuts the depth k of an implicit-GEMM convolution whose output
// has tiles tiles into splits slices of kc (a multiple of the kernel's
// 16-deep slices, at least 128 deep) when the tiles alone would leave a
// 132-SM GPU short of four blocks a SM, as a weight gradient's deep product
// into an O×C·KH·KW matrix does.
func convSplit(tiles, k int) (splits, kc int) {
	const target = 528 // blocks: four per SM
	if tiles >= target || k < 256 {
		return 1, k
	}
	splits = min((target+tiles-1)/tiles, k/128)
	kc = ((k+splits-1)/splits + 15) / 16 * 16
	return (k + kc - 1) / kc, kc
}

// bnChunks is the number of chunks the batch-norm kernels cut each of c
// channels' n rows of per values into: enough blocks for four a SM of a
// 132-SM GPU, at least 2048 values a chunk, at most n.
func bnChunks(n, c, per int) int {
	const target, least = 528, 2048
	chunks := (target + c - 1) / max(c, 1)
	chunks = min(chunks, (n*per+least-1)/least, n)
	return max(chunks, 1)
}

// stagedRows sizes a launch of the ECL backward kernels, which stage rows
// of width elements of size bytes in shared memory: rows per block rpb (at
// most 128, within 40 KiB), threads a block (one a row, a multiple of 32)
// and the shared bytes; rpb = 0 (direct access, blocks of 256 threads a
// row each) where one row does not fit.
func stagedRows(width, size int) (rpb, threads, shared int) {
	const budget = 40 << 10
	rpb = min(128, budget/max(width*size, 1))
	if rpb == 0 {
		return 0, blockSize, 0
	}
	return rpb, (rpb + 31) / 32 * 32, rpb * width * size
}

// stagedPer is the rows a block of the ECL backward kernels takes: rpb, or
// one a thread where rows are not staged.
func stagedPer(rpb, threads int) int {
	if rpb == 0 {
		return threads
	}
	return rpb
}

// lnChunks is the number of chunks of rows (a block each) the layer-norm
// backward kernel cuts rows rows into for its column sums: enough blocks
// for four a SM of a 132-SM GPU, at least 16 rows a chunk, at least one.
func lnChunks(rows int) int {
	const target, least = 528, 16
	return max(1, min(target, (rows+least-1)/least))
}

// The attention kernels' blocks: attnWarps warps, each taking up to
// attnRowsPerWarp of the block's rows (src/transformer.cu's TF_WARPS and
// TF_RPW).
const (
	attnWarps       = 4
	attnRowsPerWarp = 8
)

// attn64Rows is the rows a block of a head-size-64 attention kernel owns
// for elements of size bytes (src/transformer.cu's a64<T>: FR, QR, KR).
func attn64Rows(kind attnKind, size int) int {
	rows := [...]int{attnForward: 64, attnDQ: 32, attnDKDV: 32}[kind]
	if size == 8 {
		rows /= 2
	}
	return rows
}

// attnKind names an attention kernel for attnShared.
type attnKind int

const (
	attnForward attnKind = iota // attention: br queries, bc keys a tile
	attnDQ                      // attention_backward_dq: br queries, bc keys a tile
	attnDKDV                    // attention_backward: br keys, bc queries a tile
)

// attnShared is the shared memory (bytes) of an attention kernel whose
// blocks take br rows and stream bc rows a tile, for head size dh and
// elements of size bytes: src/transformer.cu's layouts.
func attnShared(kind attnKind, dh, br, bc, size int) int {
	w := attnWarps
	switch kind {
	case attnForward:
		return size * (2*br*dh + bc*(dh+1) + bc*dh + w*bc)
	case attnDQ:
		return size * (3*br*dh + 2*bc*(dh+1) + w*bc)
	default:
		return size * (4*br*dh + 2*bc*(dh+1) + 2*bc + 2*w*bc)
	}
}

// attnPlan sizes an attention kernel's tiles for rows rows a batch·head
// owned by the blocks and streamed rows streamed through them: bc, the
// streamed tile, up to 32 (a lane a row), br, the rows a block, up to
// attnWarps·attnRowsPerWarp, both powers of two no larger than needed,
// the largest br whose shared memory fits sharedLimit with the largest bc
// that does. ok is false when not even one row of each fits (a very large
// head size).
func attnPlan(kind attnKind, dh, rows, streamed, size int) (br, bc, shared int, ok bool) {
	const budget = 48 << 10
	pow2 := func(n, most int) int {
		p := 1
		for p < n && p < most {
			p *= 2
		}
		return p
	}
	for bc = pow2(streamed, 32); bc >= 1; bc /= 2 {
		for br = pow2(rows, attnWarps*attnRowsPerWarp); br >= 1; br /= 2 {
			if shared = attnShared(kind, dh, br, bc, size); shared <= budget {
				return br, bc, shared, true
			}
		}
	}
	return 0, 0, 0, false
}
