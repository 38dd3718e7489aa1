package tensor

import "fmt"

// Conv2DParams describes a 2-D convolution (cross-correlation, as in PyTorch)
// of an NCHW input with OIHW weights, groups = 1.
type Conv2DParams struct {
	N, C, H, W       int // input batch, channels, height, width
	O, KH, KW        int // output channels, kernel height and width
	StrideH, StrideW int // ≥ 1
	PadH, PadW       int // zero padding on each side, ≥ 0
	DilH, DilW       int // dilation, ≥ 1
}

// OutH is the output height.
func (p Conv2DParams) OutH() int { return (p.H+2*p.PadH-p.DilH*(p.KH-1)-1)/p.StrideH + 1 }

// OutW is the output width.
func (p Conv2DParams) OutW() int { return (p.W+2*p.PadW-p.DilW*(p.KW-1)-1)/p.StrideW + 1 }

// Validate reports a configuration that has no output or a non-positive stride
// or dilation.
func (p Conv2DParams) Validate() error {
	if p.N < 0 || p.C < 1 || p.H < 1 || p.W < 1 || p.O < 1 || p.KH < 1 || p.KW < 1 {
		return fmt.Errorf("conv2d: bad sizes %+v", p)
	}
	if p.StrideH < 1 || p.StrideW < 1 || p.DilH < 1 || p.DilW < 1 || p.PadH < 0 || p.PadW < 0 {
		return fmt.Errorf("conv2d: stride and dilation must be ≥ 1 and padding ≥ 0, got %+v", p)
	}
	if p.OutH() < 1 || p.OutW() < 1 {
		return fmt.Errorf("conv2d: kernel %dx%d (dilation %d,%d) larger than padded input %dx%d", p.KH, p.KW, p.DilH, p.DilW, p.H+2*p.PadH, p.W+2*p.PadW)
	}
	return nil
}

// Pool2DParams describes 2-D max or average pooling over an NCHW input.
type Pool2DParams struct {
	N, C, H, W       int // input batch, channels, height, width
	KH, KW           int // window
	StrideH, StrideW int // ≥ 1
	PadH, PadW       int // implicit padding on each side, at most half the window
}

// OutH is the output height.
func (p Pool2DParams) OutH() int { return (p.H+2*p.PadH-p.KH)/p.StrideH + 1 }

// OutW is the output width.
func (p Pool2DParams) OutW() int { return (p.W+2*p.PadW-p.KW)/p.StrideW + 1 }

// Validate reports a configuration that has no output, a non-positive stride or
// padding over half the window.
func (p Pool2DParams) Validate() error {
	if p.N < 0 || p.C < 1 || p.H < 1 || p.W < 1 || p.KH < 1 || p.KW < 1 || p.StrideH < 1 || p.StrideW < 1 {
		return fmt.Errorf("pool2d: bad sizes %+v", p)
	}
	if p.PadH < 0 || p.PadW < 0 || 2*p.PadH > p.KH || 2*p.PadW > p.KW {
		return fmt.Errorf("pool2d: padding %d,%d must be in [0, window/2] for window %dx%d", p.PadH, p.PadW, p.KH, p.KW)
	}
	if p.OutH() < 1 || p.OutW() < 1 {
		return fmt.Errorf("pool2d: window %dx%d larger than padded input %dx%d", p.KH, p.KW, p.H+2*p.PadH, p.W+2*p.PadW)
	}
	return nil
}
