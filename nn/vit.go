package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// LayerNorm normalises the last axis of its input (autograd.LayerNorm,
// fused), scale γ (weight) starting at 1 and shift β (bias) at 0, as
// PyTorch's nn.LayerNorm.
type LayerNorm[T tensor.Float] struct {
	Vars[T]
	Gamma, Beta *autograd.Var[T]
	Eps         T
}

// NewLayerNorm creates in vb the layer over d features with the given ε
// (PyTorch's default 1e-5; torchvision's ViT uses 1e-6).
func NewLayerNorm[T tensor.Float](vb Vars[T], d int, eps T) *LayerNorm[T] {
	return &LayerNorm[T]{Vars: vb, Gamma: vb.Param("weight", tensor.Ones[T](d)), Beta: vb.Param("bias", tensor.Zeros[T](d)), Eps: eps}
}

// Forward normalises x [..., d].
func (l *LayerNorm[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	return autograd.LayerNorm(x, l.Gamma, l.Beta, l.Eps)
}

// GELU is the exact Gaussian error linear unit layer (autograd.GELU).
func GELU[T tensor.Float]() Func[T] { return autograd.GELU[T] }

// EncoderBlock is torchvision's ViT encoder block (EncoderBlock): x +
// attention(ln_1(x)), then that plus mlp(ln_2(·)), with multi-head
// self-attention as PyTorch's nn.MultiheadAttention (one input projection
// in_proj_weight [3D, D] whose rows [0, D) make the queries, [D, 2D) the
// keys and [2D, 3D) the values, in_proj_bias [3D], out_proj) over
// autograd.Attention, and the MLP mlp.0 (D→MLP), exact GELU, mlp.3
// (MLP→D); dropout is 0. Its layers have torchvision's names.
type EncoderBlock[T tensor.Float] struct {
	Vars[T]
	LN1, LN2         *LayerNorm[T]
	InProjW, InProjB *autograd.Var[T]
	OutProj          *Linear[T]
	MLP0, MLP3       *Linear[T]
	Heads            int
}

// NewEncoderBlock creates in vb a block of width d, heads heads (dividing
// d) and MLP width mlp, initialised as torchvision does (Xavier-uniform
// projections and MLP weights, zero projection biases, MLP biases
// N(0, 10⁻⁶)).
func NewEncoderBlock[T tensor.Float](vb Vars[T], rng *rand.Rand, d, heads, mlp int) *EncoderBlock[T] {
	if heads < 1 || d%heads != 0 {
		panic(&tensor.ArgumentError{Op: "nn.NewEncoderBlock", Detail: fmt.Sprintf("%d heads for width %d", heads, d)})
	}
	xavier := func(out, in int) *tensor.Tensor[T] {
		a := T(math.Sqrt(6 / float64(in+out)))
		return tensor.RandUniform(rng, -a, a, out, in)
	}
	sa := vb.Sub("self_attention")
	b := &EncoderBlock[T]{Vars: vb, Heads: heads, LN1: NewLayerNorm(vb.Sub("ln_1"), d, T(1e-6))}
	b.InProjW = sa.Param("in_proj_weight", xavier(3*d, d))
	b.InProjB = sa.Param("in_proj_bias", tensor.Zeros[T](3*d))
	b.OutProj = NewLinear(sa.Sub("out_proj"), rng, d, d)
	tensor.CopyInto(b.OutProj.B.Value, tensor.Zeros[T](d))
	b.LN2 = NewLayerNorm(vb.Sub("ln_2"), d, T(1e-6))
	b.MLP0 = &Linear[T]{Vars: vb.Sub("mlp.0"), W: vb.Sub("mlp.0").Param("weight", xavier(mlp, d)), B: vb.Sub("mlp.0").Param("bias", tensor.RandNormal(rng, 0, T(1e-6), mlp))}
	b.MLP3 = &Linear[T]{Vars: vb.Sub("mlp.3"), W: vb.Sub("mlp.3").Param("weight", xavier(d, mlp)), B: vb.Sub("mlp.3").Param("bias", tensor.RandNormal(rng, 0, T(1e-6), d))}
	return b
}

// Forward applies the block to x [N, S, D].
func (b *EncoderBlock[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	x = autograd.Add(x, b.attention(b.LN1.Forward(x)))
	return autograd.Add(x, b.MLP3.Forward(autograd.GELU(b.MLP0.Forward(b.LN2.Forward(x)))))
}

// attention is the multi-head self-attention of h [N, S, D].
func (b *EncoderBlock[T]) attention(h *autograd.Var[T]) *autograd.Var[T] {
	s := h.Shape()
	n, seq, d := s[0], s[1], s[2]
	dh := d / b.Heads
	qkv := autograd.Add(autograd.MatMul(h, autograd.Transpose(b.InProjW, 0, 1)), b.InProjB) // [N, S, 3D]
	// split is the queries (0), keys (1) or values (2), [N, heads, S, dh].
	split := func(i int) *autograd.Var[T] {
		return autograd.Permute(autograd.Reshape(autograd.Narrow(qkv, 2, i*d, d), n, seq, b.Heads, dh), 0, 2, 1, 3)
	}
	o := autograd.Attention(split(0), split(1), split(2), T(1/math.Sqrt(float64(dh))))
	return b.OutProj.Forward(autograd.Reshape(autograd.Permute(o, 0, 2, 1, 3), n, seq, d))
}

// ViTConfig is a torchvision VisionTransformer.
type ViTConfig struct {
	Image, Patch int // image side (224) and patch side (16), Patch dividing Image
	Layers       int // encoder blocks: 12 (ViT-B), 24 (ViT-L)
	Heads        int // attention heads: 12 (B), 16 (L)
	Hidden       int // width D: 768 (B), 1024 (L)
	MLP          int // MLP width: 3072 (B), 4096 (L)
	Classes      int // heads.head's outputs; 0 leaves it out and Forward returns the class token's features
}

// ViTB16Config is torchvision's vit_b_16.
func ViTB16Config(classes int) ViTConfig {
	return ViTConfig{Image: 224, Patch: 16, Layers: 12, Heads: 12, Hidden: 768, MLP: 3072, Classes: classes}
}

// ViTL16Config is torchvision's vit_l_16.
func ViTL16Config(classes int) ViTConfig {
	return ViTConfig{Image: 224, Patch: 16, Layers: 24, Heads: 16, Hidden: 1024, MLP: 4096, Classes: classes}
}

// ViT is torchvision's VisionTransformer: conv_proj (a Patch×Patch
// convolution of stride Patch, 3→D) cuts the image into (Image/Patch)²
// patch embeddings, class_token [1, 1, D] is put before them,
// encoder.pos_embedding [1, S, D] added, the encoder blocks
// encoder.layers.encoder_layer_0… applied, then encoder.ln (LayerNorm,
// ε 10⁻⁶), and heads.head reads the class token. Its state has
// torchvision's state_dict names, so that LoadPyTorch reads its .pth
// files into it.
type ViT[T tensor.Float] struct {
	Vars[T]
	ConvProj     *Conv2d[T]
	ClassToken   *autograd.Var[T]
	PosEmbedding *autograd.Var[T]
	Layers       []*EncoderBlock[T]
	LN           *LayerNorm[T]
	Head         *Linear[T] // nil without classes
	Cfg          ViTConfig
}

// NewViT creates in vb the ViT of cfg, initialised as torchvision does
// (but for conv_proj's normal weights, not truncated): class token 0,
// position embeddings N(0, 0.02²), conv_proj N(0, 1/fan_in) with bias 0,
// and a zero head.
func NewViT[T tensor.Float](vb Vars[T], rng *rand.Rand, cfg ViTConfig) *ViT[T] {
	if cfg.Patch < 1 || cfg.Image < cfg.Patch || cfg.Image%cfg.Patch != 0 || cfg.Layers < 1 || cfg.Hidden < 1 || cfg.MLP < 1 || cfg.Classes < 0 {
		panic(&tensor.ArgumentError{Op: "nn.NewViT", Detail: fmt.Sprintf("config %+v", cfg)})
	}
	d, p := cfg.Hidden, cfg.Patch
	seq := (cfg.Image/p)*(cfg.Image/p) + 1
	v := &ViT[T]{Vars: vb, Cfg: cfg}
	v.ClassToken = vb.Param("class_token", tensor.Zeros[T](1, 1, d))
	cp := vb.Sub("conv_proj")
	v.ConvProj = &Conv2d[T]{Vars: cp,
		W:   cp.Param("weight", tensor.RandNormal(rng, 0, T(math.Sqrt(1/float64(3*p*p))), d, 3, p, p)),
		B:   cp.Param("bias", tensor.Zeros[T](d)),
		Opt: tensor.ConvOptions{StrideH: p, StrideW: p}}
	enc := vb.Sub("encoder")
	v.PosEmbedding = enc.Param("pos_embedding", tensor.RandNormal(rng, 0, T(0.02), 1, seq, d))
	for i := range cfg.Layers {
		v.Layers = append(v.Layers, NewEncoderBlock(enc.Sub(fmt.Sprintf("layers.encoder_layer_%d", i)), rng, d, cfg.Heads, cfg.MLP))
	}
	v.LN = NewLayerNorm(enc.Sub("ln"), d, T(1e-6))
	if cfg.Classes > 0 {
		h := vb.Sub("heads.head")
		v.Head = &Linear[T]{Vars: h, W: h.Param("weight", tensor.Zeros[T](cfg.Classes, d)), B: h.Param("bias", tensor.Zeros[T](cfg.Classes))}
	}
	return v
}

// ViTB16 is NewViT(vb, rng, ViTB16Config(classes)).
func ViTB16[T tensor.Float](vb Vars[T], rng *rand.Rand, classes int) *ViT[T] {
	return NewViT(vb, rng, ViTB16Config(classes))
}

// ViTL16 is NewViT(vb, rng, ViTL16Config(classes)).
func ViTL16[T tensor.Float](vb Vars[T], rng *rand.Rand, classes int) *ViT[T] {
	return NewViT(vb, rng, ViTL16Config(classes))
}

// Features maps images x [N, 3, Image, Image] to the class token's
// features after encoder.ln, [N, Hidden].
func (v *ViT[T]) Features(x *autograd.Var[T]) *autograd.Var[T] {
	s := x.Shape()
	if len(s) != 4 || s[1] != 3 || s[2] != v.Cfg.Image || s[3] != v.Cfg.Image {
		panic(&tensor.ShapeError{Op: "nn.ViT", Shapes: [][]int{s}, Detail: fmt.Sprintf("input %v, want [N, 3, %d, %d]", s, v.Cfg.Image, v.Cfg.Image)})
	}
	n, d := s[0], v.Cfg.Hidden
	h := v.ConvProj.Forward(x) // [N, D, h, w]
	h = autograd.Transpose(autograd.Reshape(h, n, d, -1), 1, 2)
	h = autograd.Concat(1, autograd.Expand(v.ClassToken, n, 1, d), h)
	h = autograd.Add(h, v.PosEmbedding)
	for _, l := range v.Layers {
		h = l.Forward(h)
	}
	h = v.LN.Forward(h)
	return autograd.Reshape(autograd.Narrow(h, 1, 0, 1), n, d)
}

// Forward is heads.head(Features(x)), or Features(x) without a head.
func (v *ViT[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] {
	return headOn(v.Features(x), v.Head)
}
