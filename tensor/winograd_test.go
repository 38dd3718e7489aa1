package tensor

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// useConvPath makes every 3×3 stride-1 convolution take path for the rest
// of t.
func useConvPath(t *testing.T, path string) {
	t.Helper()
	if err := SetConvPath(path); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { SetConvPath("") })
}

// winogradCases are 3×3 stride-1 convolutions: an empty batch, 1×1 maps,
// single channels, odd sizes and channel counts, paddings 0, 1 and 2
// (whose input gradient is the flipped convolution padded by 2, 1 and 0),
// and a batch whose tiles span several blocks over cores.
var winogradCases = []Conv2DParams{
	{N: 0, C: 2, H: 5, W: 5, O: 3},
	{N: 1, C: 1, H: 1, W: 1, O: 1, PadH: 1, PadW: 1},
	{N: 2, C: 1, H: 7, W: 5, O: 1, PadH: 1, PadW: 1},
	{N: 3, C: 3, H: 9, W: 7, O: 5},
	{N: 2, C: 5, H: 6, W: 11, O: 3, PadH: 1, PadW: 0},
	{N: 1, C: 3, H: 5, W: 4, O: 7, PadH: 2, PadW: 2},
	{N: 3, C: 1, H: 3, W: 3, O: 2},
	{N: 5, C: 17, H: 13, W: 15, O: 9, PadH: 1, PadW: 1},
	{N: 7, C: 8, H: 16, W: 16, O: 8, PadH: 1, PadW: 1},
}

func stride3x3(p Conv2DParams) Conv2DParams {
	p.KH, p.KW, p.StrideH, p.StrideW, p.DilH, p.DilW = 3, 3, 1, 1, 1, 1
	return p
}

// TestWinogradMatchesDirect compares both Winograd paths in float64, in
// all three passes and with each epilogue, with the direct loops.
func TestWinogradMatchesDirect(t *testing.T) {
	withProcs(t, 4)
	r := newRNG(3)
	for _, path := range []string{"winograd4", "winograd2"} {
		useConvPath(t, path)
		for _, p := range winogradCases {
			p = stride3x3(p)
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
			name := fmt.Sprintf("%s %+v", path, p)
			checkAgainstDirect(t, name, r, p, 1e-12)
		}
	}
}

// checkAgainstDirect compares the three passes of p, forward with a bias
// and with an affine epilogue and residual, on the current path with the
// direct loops.
func checkAgainstDirect(t *testing.T, name string, r *rand.Rand, p Conv2DParams, tol float64) {
	t.Helper()
	ohw := p.OutH() * p.OutW()
	x, x64 := randOf[float64](r, p.N*p.C*p.H*p.W)
	w, w64 := randOf[float64](r, p.O*p.C*9)
	dy, dy64 := randOf[float64](r, p.N*p.O*ohw)
	b, _ := randOf[float64](r, p.O)
	scale, _ := randOf[float64](r, p.O)
	shift, _ := randOf[float64](r, p.O)
	res, _ := randOf[float64](r, len(dy))
	wantY, wantDx, wantDw := refConv(x64, w64, dy64, p)
	wantB, wantA := make([]float64, len(wantY)), make([]float64, len(wantY))
	for i, v := range wantY {
		o := i / ohw % p.O
		wantB[i] = v + b[o]
		wantA[i] = max(v*scale[o]+shift[o]+res[i], 0)
	}
	y, yb, ya := nans[float64](len(dy)), nans[float64](len(dy)), nans[float64](len(dy))
	dx, dw := nans[float64](len(x)), nans[float64](len(w))
	dx2, dw2 := nans[float64](len(x)), nans[float64](len(w))
	conv2dForward(y, x, w, nil, p)
	conv2dForward(yb, x, w, biasEpilogue(b), p)
	conv2dForward(ya, x, w, &epilogue[float64]{scale: scale, shift: shift, r: res, relu: true}, p)
	conv2dBackwardInput(dx, dy, w, p)
	conv2dBackwardWeight(dw, x, dy, p)
	conv2dGrads(dx2, dw2, x, dy, w, p)
	for _, c := range []struct {
		name      string
		got, want []float64
	}{{"forward", y, wantY}, {"forward with bias", yb, wantB}, {"forward with affine, residual and ReLU", ya, wantA},
		{"input gradient", dx, wantDx}, {"weight gradient", dw, wantDw},
		{"both gradients' input", dx2, wantDx}, {"both gradients' weight", dw2, wantDw}} {
		if e := relErr(c.got, c.want); e > tol {
			t.Errorf("%s: %s differs from the direct loops by %g", name, c.name, e)
		}
	}
}

// TestConvPathsMatchDirect runs the non-Winograd paths through the same
// comparison, as the table may pick any of them for any pass.
func TestConvPathsMatchDirect(t *testing.T) {
	withProcs(t, 4)
	r := newRNG(4)
	for _, path := range []string{"direct", "im2col", "rule"} {
		useConvPath(t, path)
		for _, p := range winogradCases {
			p = stride3x3(p)
			checkAgainstDirect(t, fmt.Sprintf("%s %+v", path, p), r, p, 1e-12)
		}
	}
}

// TestWinogradNumericGradient checks the Winograd gradients of
// L = Σ y·dy against central differences of L computed by the Winograd
// forward pass, in float64. L is linear in each variable, so the
// difference quotient is exact up to rounding.
func TestWinogradNumericGradient(t *testing.T) {
	r := newRNG(5)
	p := stride3x3(Conv2DParams{N: 2, C: 3, H: 7, W: 6, O: 4, PadH: 1, PadW: 1})
	for _, path := range []string{"winograd4", "winograd2"} {
		useConvPath(t, path)
		x, _ := randOf[float64](r, p.N*p.C*p.H*p.W)
		w, _ := randOf[float64](r, p.O*p.C*9)
		dy, _ := randOf[float64](r, p.N*p.O*p.OutH()*p.OutW())
		loss := func() float64 {
			y := make([]float64, len(dy))
			conv2dForward(y, x, w, nil, p)
			s := 0.0
			for i, v := range y {
				s += v * dy[i]
			}
			return s
		}
		dx, dw := make([]float64, len(x)), make([]float64, len(w))
		conv2dGrads(dx, dw, x, dy, w, p)
		const h = 1e-3
		for _, v := range []struct {
			name       string
			vals, grad []float64
		}{{"x", x, dx}, {"w", w, dw}} {
			for i := range v.vals {
				old := v.vals[i]
				v.vals[i] = old + h
				up := loss()
				v.vals[i] = old - h
				down := loss()
				v.vals[i] = old
				if num := (up - down) / (2 * h); !near(v.grad[i], num, 1e-9) {
					t.Errorf("%s: ∂L/∂%s[%d] = %g, central difference %g", path, v.name, i, v.grad[i], num)
				}
			}
		}
	}
}

// winogradLayers are the 3×3 stride-1 layers of ResNet-20, ResNet-50,
// Wide ResNet-50-2, DenseNet-40 and DenseNet-121, as bench.ConvLayers
// lists them (which tensor cannot import): C, O and the map size, padding
// 1.
func winogradLayers() (ls []struct {
	net        string
	c, o, size int
}) {
	add := func(net string, c, o, size int) {
		ls = append(ls, struct {
			net        string
			c, o, size int
		}{net, c, o, size})
	}
	add("ResNet-20", 3, 16, 32)
	for i, c := range []int{16, 32, 64} {
		add("ResNet-20", c, c, 32>>i)
	}
	for i, size := range []int{56, 28, 14, 7} {
		add("ResNet-50", 64<<i, 64<<i, size)
		add("Wide ResNet-50-2", 128<<i, 128<<i, size)
		add("DenseNet-121", 128, 32, size)
	}
	for block, size := range []int{32, 16, 8} {
		for k := range 12 {
			add("DenseNet-40", 16+144*block+12*k, 12, size)
		}
	}
	return ls
}

// winogradBound returns, for each output of p, Q = |Aᵀ|·(Σ_c |G||g_c||Gᵀ|
// ⊙ |Bᵀ||d_c||B|)·|A|: the sum of the magnitudes of every term the
// F(m×m, 3×3) algorithm adds, to which its rounding error is proportional.
// The tiling is this test's own.
func winogradBound(x, w []float64, p Conv2DParams, m int) []float64 {
	var bt, g, at []float64
	for _, mat := range []struct {
		dst *[]float64
		src []float64
	}{
		{&bt, winogradCoefficients[m].bt}, {&g, winogradCoefficients[m].g}, {&at, winogradCoefficients[m].at}} {
		for _, v := range mat.src {
			*mat.dst = append(*mat.dst, math.Abs(v))
		}
	}
	a, oh, ow := m+2, p.OutH(), p.OutW()
	u := make([]float64, p.O*p.C*a*a)
	var tmp [36]float64
	for i := range p.O * p.C {
		var wk [9]float64
		for j := range wk {
			wk[j] = math.Abs(w[i*9+j])
		}
		sandwich(u[i*a*a:(i+1)*a*a], g, wk[:], tmp[:], a, 3)
	}
	q := make([]float64, p.N*p.O*oh*ow)
	v := make([]float64, p.C*a*a)
	for n := range p.N {
		for ty := 0; ty < oh; ty += m {
			for tx := 0; tx < ow; tx += m {
				for c := range p.C {
					var d [36]float64
					for i := range a {
						for j := range a {
							if y, xx := ty+i-p.PadH, tx+j-p.PadW; y >= 0 && y < p.H && xx >= 0 && xx < p.W {
								d[i*a+j] = math.Abs(x[((n*p.C+c)*p.H+y)*p.W+xx])
							}
						}
					}
					sandwich(v[c*a*a:(c+1)*a*a], bt, d[:a*a], tmp[:], a, a)
				}
				for o := range p.O {
					var s, out [36]float64
					for c := range p.C {
						for xi := range a * a {
							s[xi] += u[(o*p.C+c)*a*a+xi] * v[c*a*a+xi]
						}
					}
					sandwich(out[:m*m], at, s[:a*a], tmp[:], m, a)
					for i := range min(m, oh-ty) {
						for j := range min(m, ow-tx) {
							q[((n*p.O+o)*oh+ty+i)*ow+tx+j] = out[i*m+j]
						}
					}
				}
			}
		}
	}
	return q
}

// TestWinogradAccuracyFloat32 bounds the float32 error of both Winograd
// paths on every 3×3 layer shape of the five networks, one image with
// the map cut to at most 16×16 and at most 64 output channels (the error
// of an output depends on its C·9 products, not on O): against a float64
// direct convolution, |ŷ − y| ≤ (C + 4a + 9)·u·Q at every output, u =
// 2⁻²⁴, a = m+2 and Q the magnitudes winogradBound sums: the first-order
// bound of the roundings of the input transform (2a terms deep), the
// filter transform (its coefficients rounded, 8), the products (1), the
// sum over channels (C) and the output transform (2a). With -v it prints
// the rows of docs/conv.md's table: the largest error relative to Q, to
// the sum S of |x·w| over the output's products, and the direct float32
// path's error relative to S for comparison.
func TestWinogradAccuracyFloat32(t *testing.T) {
	r := newRNG(6)
	const u = 0x1p-24
	for _, l := range winogradLayers() {
		size := min(l.size, 16)
		p := stride3x3(Conv2DParams{N: 1, C: l.c, H: size, W: size, O: min(l.o, 64), PadH: 1, PadW: 1})
		x, x64 := randOf[float32](r, p.C*p.H*p.W)
		w, w64 := randOf[float32](r, p.O*p.C*9)
		want, sums := make([]float64, p.O*size*size), make([]float64, p.O*size*size)
		convTaps(p, func(xi, wi, yi int) {
			want[yi] += x64[xi] * w64[wi]
			sums[yi] += math.Abs(x64[xi] * w64[wi])
		})
		row := fmt.Sprintf("| %s | %d→%d | %d×%d |", l.net, l.c, l.o, l.size, l.size)
		for _, path := range []string{"direct", "winograd4", "winograd2"} {
			useConvPath(t, path)
			y := make([]float32, len(want))
			conv2dForward(y, x, w, nil, p)
			errS := 0.0
			for i, v := range y {
				errS = max(errS, math.Abs(float64(v)-want[i])/sums[i])
			}
			if path == "direct" {
				row += fmt.Sprintf(" %.1e |", errS)
				continue
			}
			m := map[string]int{"winograd4": 4, "winograd2": 2}[path]
			q := winogradBound(x64, w64, p, m)
			limit := float64(p.C+4*(m+2)+9) * u
			errQ := 0.0
			for i, v := range y {
				e := math.Abs(float64(v)-want[i]) / q[i]
				errQ = max(errQ, e)
				if e > limit {
					t.Fatalf("%s %s %+v: output %d = %g, want %g: error %g·Q over the bound %g·Q", l.net, path, p, i, v, want[i], e, limit)
				}
			}
			row += fmt.Sprintf(" %.1e | %.1e |", errS, errQ)
		}
		t.Log(row)
	}
}

func TestParseConvTable(t *testing.T) {
	good := "# comment\n\nfloat32 16 16 32 32 1 1 1 winograd4 direct im2col # trailing\nfloat32 16 16 32 32 2 1 1 im2col rule rule\n"
	table, err := parseConvTable(good)
	if err != nil {
		t.Fatal(err)
	}
	key, key2 := convKey{"float32", 16, 16, 32, 32, 1, 1, 1}, convKey{"float32", 16, 16, 32, 32, 2, 1, 1}
	if got, want := table[key], [3]convPath{pathWinograd4, pathDirect, pathIm2col}; got != want || len(table) != 2 {
		t.Errorf("table %v, want %v: %v and a stride-2 line", table, key, want)
	}
	if got, want := table[key2], [3]convPath{pathIm2col, pathRule, pathRule}; got != want {
		t.Errorf("stride 2: %v, want %v", got, want)
	}
	line := ConvChoice{"float64", 3, 16, 32, 32, 1, 1, 1, "rule", "winograd2", "direct"}.String()
	if table, err := parseConvTable(line); err != nil || table[convKey{"float64", 3, 16, 32, 32, 1, 1, 1}] != [3]convPath{pathRule, pathWinograd2, pathDirect} {
		t.Errorf("ConvChoice.String %q reads back as %v, %v", line, table, err)
	}
	for _, bad := range []string{
		"float32 16 16 32 32 1 1 1 winograd4 direct",
		"float32 16 16 32 32 1 1 winograd4 direct im2col", // no stride
		"float16 16 16 32 32 1 1 1 winograd4 direct im2col",
		"float32 16 x 32 32 1 1 1 winograd4 direct im2col",
		"float32 16 16 32 32 1 1 1 winograd3 direct im2col",
		"float32 16 16 32 32 1 1 1 direct direct direct\nfloat32 16 16 32 32 1 1 1 im2col im2col im2col",
		"float32 16 16 32 32 3 1 1 direct rule rule",
		"float32 16 16 32 32 2 1 1 winograd4 rule rule",
		"float32 16 16 32 32 2 1 1 direct im2col rule",
		"float32 16 16 32 32 2 1 1 direct rule direct",
	} {
		if _, err := parseConvTable(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
	want := map[isa][2]string{isaGo: {"convchoice_avx2.txt", convChoiceAVX2}, isaAVX2: {"convchoice_avx2.txt", convChoiceAVX2}, isaAVX512: {"convchoice.txt", convChoiceAVX512}}
	for level, w := range want {
		file, text := convTableFor(level)
		if _, err := parseConvTable(text); err != nil {
			t.Errorf("%s: %v", file, err)
		}
		if file != w[0] || text != w[1] {
			t.Errorf("CPU level %v takes %s, want %s", level, file, w[0])
		}
	}
	if err := SetConvPath("fast"); err == nil {
		t.Error(`SetConvPath("fast"): no error`)
	}
}

// TestConvPathFor checks the table's reach: 3×3 undilated convolutions,
// all passes at stride 1 and the forward pass at stride 2 (direct or
// im2col), overridden by SetConvPath, which ConvPathOverride reports
// for the Winograd shapes.
func TestConvPathFor(t *testing.T) {
	p := stride3x3(Conv2DParams{N: 1, C: 4, H: 8, W: 8, O: 4, PadH: 1, PadW: 1})
	strided, uneven := p, p
	strided.StrideH, strided.StrideW = 2, 2
	uneven.StrideH = 2
	useConvPath(t, "winograd2")
	if got := convPathFor[float32](p, passWeight); got != pathWinograd2 {
		t.Errorf("overridden: %v, want winograd2", got)
	}
	if got := convPathFor[float32](strided, passForward); got != pathRule {
		t.Errorf("stride 2 under winograd2: %v, want the rule", got)
	}
	if got, gotStrided := ConvPathOverride(p), ConvPathOverride(strided); got != "winograd2" || gotStrided != "" {
		t.Errorf("ConvPathOverride = %q, stride 2 %q; want winograd2 and none", got, gotStrided)
	}
	useConvPath(t, "im2col")
	for _, c := range []struct {
		p    Conv2DParams
		pass convPass
		want convPath
	}{{strided, passForward, pathIm2col}, {strided, passInput, pathRule}, {strided, passWeight, pathRule}, {uneven, passForward, pathRule}} {
		if got := convPathFor[float32](c.p, c.pass); got != c.want {
			t.Errorf("im2col forced, stride %d×%d, pass %d: %v, want %v", c.p.StrideH, c.p.StrideW, c.pass, got, c.want)
		}
	}
	SetConvPath("")
	if got := convPathFor[float64](p, passInput); got != pathRule {
		t.Errorf("unlisted shape: %v, want the rule", got)
	}
	if got := ConvPathOverride(p); got != "" {
		t.Errorf("ConvPathOverride without an override = %q, want none", got)
	}
}

// TestECLConv checks ECL_CONV's reading: empty follows the table, a path
// name forces it, anything else stops with a message naming the variable.
func TestECLConv(t *testing.T) {
	if c, forced := mustEnvPath(""); forced || c != pathRule {
		t.Errorf(`"": %v, %v; want the table`, c, forced)
	}
	if c, forced := mustEnvPath("winograd2"); !forced || c != pathWinograd2 {
		t.Errorf(`"winograd2": %v, %v`, c, forced)
	}
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, "ECL_CONV") || !strings.Contains(msg, "winograd8") {
			t.Errorf("recovered %q, want a message naming ECL_CONV and the value", msg)
		}
	}()
	mustEnvPath("winograd8")
}

// TestWinogradRows checks the unrolled transforms against the matrices
// Bᵀ, Aᵀ and A of winogradCoefficients, column by column (unit vectors).
func TestWinogradRows(t *testing.T) {
	for _, m := range []int{2, 4} {
		wg := newWinograd[float64](m, Conv2DParams{N: 1, H: 4, W: 4, KH: 3, KW: 3, StrideH: 1, StrideW: 1, DilH: 1, DilW: 1})
		a := m + 2
		for _, tr := range []struct {
			name string
			fn   func(out []float64, so int, d []float64, sd int)
			mat  []float64
			rows int
			cols int
		}{{"Bᵀ", wg.bt, winogradCoefficients[m].bt, a, a}, {"Aᵀ", wg.at, winogradCoefficients[m].at, m, a},
			{"A", wg.am, transpose(winogradCoefficients[m].at, m, a), a, m}} {
			for j := range tr.cols {
				d, out := make([]float64, 2*tr.cols), make([]float64, 3*tr.rows)
				d[2*j] = 1
				tr.fn(out, 3, d, 2)
				for i := range tr.rows {
					if want := tr.mat[i*tr.cols+j]; out[3*i] != want {
						t.Errorf("F(%d): %s[%d][%d] = %g, want %g", m, tr.name, i, j, out[3*i], want)
					}
				}
			}
		}
	}
}
