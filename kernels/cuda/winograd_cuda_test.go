//go:build cuda

package cuda_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd/gradcase"
	"github.com/ecl-go/ecl/kernels/cuda"
	"github.com/ecl-go/ecl/tensor"
)

// The Winograd path (winograd.go, src/winograd.cu) against tensor's direct
// convolution on the CPU in float64.

// winogradCases: no images, a 1×1 map, odd maps without and with padding,
// unequal padding (the input gradient's flipped convolution padded by 0
// and 2), padding 3 (the input gradient keeps the implicit GEMM: its
// flipped convolution would need negative padding), and a larger layer.
var winogradCases = []struct {
	x, w []int
	o    tensor.ConvOptions
}{
	{[]int{0, 2, 5, 5}, []int{3, 2, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{[]int{1, 1, 1, 1}, []int{1, 1, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{[]int{2, 3, 7, 9}, []int{5, 3, 3, 3}, tensor.ConvOptions{}},
	{[]int{2, 3, 7, 9}, []int{5, 3, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
	{[]int{1, 2, 6, 5}, []int{3, 2, 3, 3}, tensor.ConvOptions{PadH: 2}},
	{[]int{2, 2, 5, 6}, []int{3, 2, 3, 3}, tensor.ConvOptions{PadH: 3, PadW: 1}},
	{[]int{4, 16, 20, 18}, []int{24, 16, 3, 3}, tensor.ConvOptions{PadH: 1, PadW: 1}},
}

// winogradBound is the float32 error allowed per unit of the largest S
// over the output, S being the sum of the magnitudes of an output's
// products (|x|·|w| convolved): docs/conv.md's accuracy section measures
// at most 4.4e-6·S for F(4×4, 3×3) and 2.9e-7·S for F(2×2, 3×3) on the
// networks' layers; the bounds leave a factor of about four. The bound is
// on the largest S, not each output's own: an output whose window lies in
// the padding (S = 0) still gets the roundings of its tile's other inputs
// through the transforms. float64 is held to 1e-10.
func winogradBound[T tensor.Float](m int) float64 {
	if tensor.DType[T]() == "float64" {
		return 1e-10
	}
	return map[int]float64{4: 2e-5, 2: 1.2e-6}[m]
}

// withConvPath runs f with every 3×3, stride-1 convolution on path
// (tensor.SetConvPath), then follows the table again.
func withConvPath(t testing.TB, path string, f func()) {
	t.Helper()
	if err := tensor.SetConvPath(path); err != nil {
		t.Fatal(err)
	}
	defer tensor.SetConvPath("")
	f()
}

// within fails unless got is within bound·max(s) + 4u·|want| of want at
// every element (u the unit roundoff of T), want and s being float64 on
// the CPU.
func within[T tensor.Float](t *testing.T, what string, got *tensor.Tensor[T], want, s *tensor.Tensor[float64], bound float64) {
	t.Helper()
	if fmt.Sprint(got.Shape()) != fmt.Sprint(want.Shape()) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape(), want.Shape())
	}
	u := 0x1p-53
	if tensor.DType[T]() == "float32" {
		u = 0x1p-24
	}
	var smax float64
	for _, v := range s.Data() {
		smax = max(smax, v)
	}
	g, w := got.Data(), want.Data()
	for i := range w {
		diff := math.Abs(float64(g[i]) - w[i])
		if lim := bound*smax + 4*u*math.Abs(w[i]); !(diff <= lim) {
			t.Fatalf("%s [%s %v]: element %d = %v, want %v (|diff| %.3g > %.3g, max S %.3g)", what, tensor.DType[T](), want.Shape(), i, g[i], w[i], diff, lim, smax)
		}
	}
}

// launched fails unless the device's last kernel launch starts with want.
func launched(t *testing.T, what, want string) {
	t.Helper()
	if got := cuda.LastLaunch(); !strings.HasPrefix(got, want) {
		t.Fatalf("%s: last launch %s, want %s…", what, got, want)
	}
}

// TestWinograd: the three passes by F(4×4, 3×3) and F(2×2, 3×3), and the
// convolution with a bias (added by the output transform) and with its
// evaluation-mode batch norm, residual and ReLU, on dense inputs in one
// chunk of tiles and on narrowed views of x and dy in chunks of three
// (F(4×4)) or six (F(2×2)) tiles.
func TestWinograd(t *testing.T) { both(t, winogradPasses[float32], winogradPasses[float64]) }

func winogradPasses[T tensor.Float](t *testing.T) {
	dev := gpu[T](t)
	r := rand.New(rand.NewPCG(42, 42))
	size := 4
	if tensor.DType[T]() == "float64" {
		size = 8
	}
	sfx := map[string]string{"float32": "_f32", "float64": "_f64"}[tensor.DType[T]()]
	abs := func(x *tensor.Tensor[T]) *tensor.Tensor[float64] { return tensor.Abs(tensor.Convert[float64](x)) }
	wide := func(x *tensor.Tensor[T]) *tensor.Tensor[float64] { return tensor.Convert[float64](x) }
	for _, c := range winogradCases {
		p, err := tensor.NewConv2DParams(c.x, c.w, c.o)
		if err != nil {
			t.Fatal(err)
		}
		yShape := []int{p.N, p.O, p.OutH(), p.OutW()}
		for _, l := range []layout{dense, narrowed} {
			x, xg := pair[T](r, dev, l, c.x, -1, 1)
			w, wg := pair[T](r, dev, dense, c.w, -1, 1)
			dy, dyg := pair[T](r, dev, l, yShape, -1, 1)
			b, bg := pair[T](r, dev, dense, []int{p.O}, -1, 1)
			scale, scaleG := pair[T](r, dev, dense, []int{p.O}, -1, 1)
			res, resG := pair[T](r, dev, dense, yShape, -1, 1)

			// The references and the sums of magnitudes, in float64 by
			// the direct path.
			var y, yb, ya, dx, dw, sy, syb, sya, sdx, sdw *tensor.Tensor[float64]
			withConvPath(t, "direct", func() {
				y = tensor.Conv2D(wide(x), wide(w), c.o)
				yb = tensor.Conv2DBias(wide(x), wide(w), wide(b), c.o)
				ya = tensor.Conv2DAffine(wide(x), wide(w), wide(scale), wide(b), wide(res), c.o, true)
				dx = tensor.Conv2DBackwardInput(wide(dy), wide(w), p)
				dw = tensor.Conv2DBackwardWeight(wide(x), wide(dy), p)
				sy = tensor.Conv2D(abs(x), abs(w), c.o)
				syb = tensor.Conv2DBias(abs(x), abs(w), abs(b), c.o)
				sya = tensor.Conv2DAffine(abs(x), abs(w), abs(scale), abs(b), abs(res), c.o, false)
				sdx = tensor.Conv2DBackwardInput(abs(dy), abs(w), p)
				sdw = tensor.Conv2DBackwardWeight(abs(x), abs(dy), p)
			})

			for _, m := range []int{4, 2} {
				name := fmt.Sprintf("F(%d×%d) x %v w %v %+v %s", m, m, c.x, c.w, c.o, l)
				bound := winogradBound[T](m)
				th, tw := (p.OutH()+m-1)/m, (p.OutW()+m-1)/m
				tiles, chunk := p.N*th*tw, p.N*th*tw
				restore := func() {}
				if l == narrowed {
					// Three F(4×4) tiles' transformed inputs and products.
					restore = cuda.SetWinogradBudget(3 * 36 * (p.C + p.O) * size)
					chunk = min(tiles, 3*36/((m+2)*(m+2)))
				}
				// The forward pass ends with the output transform of its
				// last chunk.
				last := fmt.Sprintf("winograd_outputs%s(m=%d th=%d tw=%d t0=%d ", sfx, m, th, tw, (tiles-1)/max(chunk, 1)*chunk)
				withConvPath(t, fmt.Sprintf("winograd%d", m), func() {
					within(t, "Conv2D "+name, tensor.Conv2D(xg, wg, c.o), y, sy, bound)
					if tiles > 0 {
						launched(t, "Conv2D "+name, last)
					}
					within(t, "Conv2DBias "+name, tensor.Conv2DBias(xg, wg, bg, c.o), yb, syb, bound)
					within(t, "Conv2DAffine "+name, tensor.Conv2DAffine(xg, wg, scaleG, bg, resG, c.o, true), ya, sya, bound)
					within(t, "Conv2DBackwardInput "+name, tensor.Conv2DBackwardInput(dyg, wg, p), dx, sdx, bound)
					if tiles > 0 && c.o.PadH <= 2 && c.o.PadW <= 2 {
						launched(t, "Conv2DBackwardInput "+name, fmt.Sprintf("winograd_outputs%s(m=%d ", sfx, m))
					}
					within(t, "Conv2DBackwardWeight "+name, tensor.Conv2DBackwardWeight(xg, dyg, p), dw, sdw, bound)
					if tiles > 0 {
						launched(t, "Conv2DBackwardWeight "+name, fmt.Sprintf("winograd_filter_grads%s(m=%d ", sfx, m))
					}
				})
				restore()
			}
		}
	}
}

// TestWinogradIsOptIn: without the override the device's convolutions
// keep the implicit GEMM.
func TestWinogradIsOptIn(t *testing.T) {
	dev := gpu[float32](t)
	r := rand.New(rand.NewPCG(43, 43))
	_, xg := pair[float32](r, dev, dense, []int{2, 3, 7, 9}, -1, 1)
	_, wg := pair[float32](r, dev, dense, []int{5, 3, 3, 3}, -1, 1)
	withConvPath(t, "", func() {
		tensor.Conv2D(xg, wg, tensor.ConvOptions{PadH: 1, PadW: 1})
		launched(t, "Conv2D", "conv2d_m16_f32(")
	})
}

// TestWinogradGradientsOnDevice runs autograd/gradcase's convolution cases
// (float64, central differences against the backward kernels) with every
// 3×3, stride-1 convolution on each Winograd path.
func TestWinogradGradientsOnDevice(t *testing.T) {
	dev := gpu[float64](t)
	for _, path := range []string{"winograd4", "winograd2"} {
		withConvPath(t, path, func() {
			for i, c := range gradcaseConvCases() {
				rep, err := c.Check(uint64(i), dev)
				if err != nil {
					t.Errorf("%s, case %d: %v", path, i, err)
					continue
				}
				t.Logf("%s %-14s worst error %.2e", path, c.Name, rep.Err)
			}
		})
	}
}

// gradcaseConvCases are autograd/gradcase's cases of the convolutions.
func gradcaseConvCases() []gradcase.Case {
	var cs []gradcase.Case
	for _, c := range gradcase.Cases() {
		if strings.HasPrefix(c.Name, "Conv2D") {
			cs = append(cs, c)
		}
	}
	return cs
}
