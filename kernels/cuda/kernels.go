package cuda

import (
	"embed"
	"strings"
)

// ptxFiles holds ptx/<module>.ptx, compiled from src/<module>.cu by gen.sh
// for compute_80, and ptx/sm_90/<module>.ptx, the same source compiled for
// compute_90, for the modules with a Hopper path.
//
//go:embed ptx/*.ptx ptx/sm_90/*.ptx
var ptxFiles embed.FS

// kernel is one __global__ function of src/<module>.cu, instantiated as
// <name>_f32 and <name>_f64. params names its parameters, every one 8 bytes
// wide (gorgonia.org/cu copies each argument as 8 bytes): "*x" is a device
// pointer, "x." a double, any other a long long. TestKernelTable checks the
// table against the PTX.
type kernel struct {
	module, name string
	params       []string
}

func def(module, name, params string) kernel {
	return kernel{module, name, strings.Fields(params)}
}

const (
	gemmParams = "batch m n k *a sa0 sa1 sa2 *b sb0 sb1 sb2 *c sc0 sc1 sc2 beta. kc splits"
	convParams = "c h w kh kw sh sw ph pw dh dw oh ow"
	cgParams   = "n k *a *b *c gc gh gw gkh gkw gsh gsw gph gpw gdh gdw goh gow go kc splits"
	poolParams = "planes h w kh kw sh sw ph pw oh ow"
	wgParams   = "m th tw t0 nt"
)

var (
	kFill   = def("elementwise", "fill", "n nd *meta *dst v.")
	kCopy   = def("elementwise", "copy", "n nd *meta *dst *src")
	kUnary  = def("elementwise", "unary", "n nd *meta *dst *x op a. b.")
	kBinary = def("elementwise", "binary", "n nd *meta *dst *x *y op")
	kWhere  = def("elementwise", "where", "n nd *meta *dst *cond *x *y")

	kReduceStrip        = def("reduce", "reduce_strip", "op outer n inner chunk *x *dst")
	kReduceRow          = def("reduce", "reduce_row", "op rows n *x *dst")
	kSoftmax            = def("reduce", "softmax_rows", "rows k *x *dst logs")
	kLogSoftmaxBackward = def("reduce", "log_softmax_backward_rows", "rows k *g *x *dx")
	kSoftmaxBackward    = def("reduce", "softmax_backward_rows", "rows k *g *y *dx")

	kGemmNaive = def("matmul", "matmul_naive", gemmParams)
	kGemmTiled = def("matmul", "matmul_tiled", gemmParams)
	kGemmWide  = def("matmul", "matmul_wide", gemmParams)
	kGemmBig   = def("matmul", "matmul_big", gemmParams)

	kIm2col     = def("conv", "im2col", "nb *x *col "+convParams)
	kCol2im     = def("conv", "col2im", "nb *col *dx "+convParams)
	kMaxPoolFwd = def("conv", "maxpool_fwd", poolParams+" *x *y")

	// The implicit-GEMM convolutions by tile (src/conv.cu, convTile).
	kConv2D              = [3]kernel{def("conv", "conv2d_m16", cgParams), def("conv", "conv2d_m32", cgParams), def("conv", "conv2d_m64", cgParams)}
	kConv2DBackwardInput = [3]kernel{def("conv", "conv2d_backward_input_m16", cgParams), def("conv", "conv2d_backward_input_m32", cgParams),
		def("conv", "conv2d_backward_input_m64", cgParams)}
	kConv2DBackwardWeight = [3]kernel{def("conv", "conv2d_backward_weight_m16", cgParams), def("conv", "conv2d_backward_weight_m32", cgParams),
		def("conv", "conv2d_backward_weight_m64", cgParams)}
	kMaxPoolBwd = def("conv", "maxpool_bwd", poolParams+" *x *dy *dx")
	kAvgPoolFwd = def("conv", "avgpool_fwd", poolParams+" *x *y")
	kAvgPoolBwd = def("conv", "avgpool_bwd", poolParams+" *dy *dx")

	// The Winograd convolution's transforms (src/winograd.cu, winograd.go).
	kWinogradInputs      = def("winograd", "winograd_inputs", wgParams+" c h w ph pw *x *v")
	kWinogradOutputs     = def("winograd", "winograd_outputs", wgParams+" o oh ow *mm *bias *y")
	kWinogradOutputGrads = def("winograd", "winograd_output_grads", wgParams+" o oh ow *dy *dm")
	kWinogradFilters     = def("winograd", "winograd_filters", "m o c flip *w *u")
	kWinogradFilterGrads = def("winograd", "winograd_filter_grads", "m o c *du *dw")

	kGather     = def("index", "gather", "n nd axis *meta *idx *x *dst")
	kScatterAdd = def("index", "scatter_add", "n nd axis *meta *idx *src *dst")

	kSoftAssign         = def("ecl", "soft_assign", "rows d b *x *anchors *out scale. shared")
	kSoftAssignD4       = def("ecl", "soft_assign_d4", "rows d b lanes *x *anchors *out scale.")
	kSoftAssignD10      = def("ecl", "soft_assign_d10", "rows d b lanes *x *anchors *out scale.")
	kSoftAssignD16      = def("ecl", "soft_assign_d16", "rows d b lanes *x *anchors *out scale.")
	kBinStatsPart       = def("ecl", "bin_stats_part", "n g b d *w *p *part rpc")
	kBinStatsRows       = def("ecl", "bin_stats_rows", "n g b d *w *p *part rpc")
	kSoftAssignBackward = def("ecl", "soft_assign_backward", "rows e b *dw *w *x *anchors *dx scale. rpb")
	kBinStatsBackward   = def("ecl", "bin_stats_backward", "rows g b d *ds *w *p *dw *dp rpb")
	kHardBinPart        = def("ecl", "hard_bin_part", "n g b d *bin *v *part rpc")

	kBNStats        = def("batchnorm", "bn_stats", "n c s chunks *x *part")
	kBNForward      = def("batchnorm", "bn_forward", "n c s chunks *part *x *gamma *beta *r relu *y *mean *var eps.")
	kBNBackwardSums = def("batchnorm", "bn_backward_sums", "n c s chunks *gy *y *x *mean *dr *part")
	kBNBackward     = def("batchnorm", "bn_backward", "n c s chunks *part *gy *y *x *gamma *mean *var *dx *dgamma *dbeta eps.")
	kChannelAffine  = def("batchnorm", "channel_affine", "total c s *x *scale *shift *r relu *y")

	kLayerNorm         = def("transformer", "layer_norm", "rows d *x *gamma *beta *y *mean *rstd eps.")
	kLayerNormBackward = def("transformer", "layer_norm_backward", "rows d chunks *dy *x *gamma *mean *rstd *dx *part")
	kLayerNormSums     = def("transformer", "layer_norm_backward_sums", "d chunks *part *dgamma *dbeta")
	kGELU              = def("transformer", "gelu", "n *x *y")
	kGELUBackward      = def("transformer", "gelu_backward", "n *dy *x *dx")
	kAttention         = def("transformer", "attention", "bh n m dh br bc *q *k *v *o *lse scale.")
	// attention's backward pass is three kernels: rowsum(do·o), dq by
	// tiles of queries, dk and dv by tiles of keys (src's
	// attention_backward, which computes dk and dv only).
	kAttentionDot        = def("transformer", "attention_backward_dot", "rows dh *do *o *dd")
	kAttentionDQ         = def("transformer", "attention_backward_dq", "bh n m dh br bc *do *q *k *v *lse *dd *dq scale.")
	kAttentionBackwardKV = def("transformer", "attention_backward", "bh n m dh br bc *do *q *k *v *lse *dd *dk *dv scale.")
	// The same for head size 64, on register tiles (attn64Rows).
	kAttention64           = def("transformer", "attention64", "bh n m *q *k *v *o *lse scale.")
	kAttention64DQ         = def("transformer", "attention64_backward_dq", "bh n m *do *q *k *v *lse *dd *dq scale.")
	kAttention64BackwardKV = def("transformer", "attention64_backward", "bh n m *do *q *k *v *lse *dd *dk *dv scale.")

	kAdam = def("adam", "adam", "n *p *g *m *v b1. c1. b2. c2. vscale. eps. step. decay.")
)

// kernels lists every kernel, for the table test.
var kernels = []kernel{
	kFill, kCopy, kUnary, kBinary, kWhere,
	kReduceStrip, kReduceRow, kSoftmax, kLogSoftmaxBackward, kSoftmaxBackward,
	kBNStats, kBNForward, kBNBackwardSums, kBNBackward, kChannelAffine,
	kGemmNaive, kGemmTiled, kGemmWide, kGemmBig,
	kIm2col, kCol2im, kMaxPoolFwd, kMaxPoolBwd, kAvgPoolFwd, kAvgPoolBwd,
	kConv2D[0], kConv2D[1], kConv2D[2],
	kConv2DBackwardInput[0], kConv2DBackwardInput[1], kConv2DBackwardInput[2],
	kConv2DBackwardWeight[0], kConv2DBackwardWeight[1], kConv2DBackwardWeight[2],
	kWinogradInputs, kWinogradOutputs, kWinogradOutputGrads, kWinogradFilters, kWinogradFilterGrads,
	kGather, kScatterAdd,
	kSoftAssign, kSoftAssignD4, kSoftAssignD10, kSoftAssignD16, kBinStatsPart, kBinStatsRows, kSoftAssignBackward, kBinStatsBackward, kHardBinPart,
	kLayerNorm, kLayerNormBackward, kLayerNormSums, kGELU, kGELUBackward,
	kAttention, kAttentionDot, kAttentionDQ, kAttentionBackwardKV,
	kAttention64, kAttention64DQ, kAttention64BackwardKV,
	kAdam,
}

// suffixes are the instantiations of every kernel, by element type.
var suffixes = []string{"_f32", "_f64"}
