package tensor

import (
	_ "embed"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// The CPU path of each pass of a 3×3, stride-1 convolution (winogradShape),
// and of the forward pass of a 3×3, stride-2 one (direct or im2col; its
// gradients keep the rule), is looked up by its shape in a table that
// `go run ./bench/convchoice` measures and writes: convchoice.txt on a CPU with AVX-512, where the
// gather path and the Winograd transforms have their assembly kernels,
// convchoice_avx2.txt on the others, where the gather path has its AVX2
// kernel and the transforms are Go loops (ConvTableFile); shapes it does
// not list keep the engine's rule (the gather path where it applies, else
// im2col).
// SetConvPath, or the environment variable ECL_CONV read when the package
// loads, overrides the table for every such convolution's passes that can
// take the path.

// convPath is a way to compute one pass of a convolution.
type convPath uint8

const (
	pathRule      convPath = iota // the engine's rule: gather where it applies, else im2col
	pathDirect                    // the gather path (conv_gather.go) where T has its kernel, else im2col
	pathIm2col                    // im2col and GEMM (col2im for an input gradient that is not "same")
	pathWinograd4                 // F(4×4, 3×3)
	pathWinograd2                 // F(2×2, 3×3)
)

// convPathNames are the paths' names in the table, ECL_CONV and SetConvPath.
var convPathNames = [...]string{"rule", "direct", "im2col", "winograd4", "winograd2"}

func (c convPath) String() string { return convPathNames[c] }

// tile is the output tile of a Winograd path, else 0.
func (c convPath) tile() int {
	switch c {
	case pathWinograd4:
		return 4
	case pathWinograd2:
		return 2
	}
	return 0
}

func parseConvPath(s string) (convPath, error) {
	for i, name := range convPathNames {
		if s == name {
			return convPath(i), nil
		}
	}
	return 0, fmt.Errorf("conv path %q: want one of %s", s, strings.Join(convPathNames[:], ", "))
}

// convPass is one of a convolution's three computations.
type convPass uint8

const (
	passForward convPass = iota
	passInput            // the input gradient
	passWeight           // the weight gradient
)

// ConvChoice is a line of the table of convolution paths: the paths of
// the forward pass, the input gradient and the weight gradient ("direct",
// "im2col", "winograd4", "winograd2" or "rule") of the 3×3, undilated
// convolution of C → O channels on H×W maps at Stride (both ways) padded
// by PadH, PadW, in DType ("float32" or "float64"), whatever the batch.
// At stride 2 the forward pass is "direct", "im2col" or "rule" and the
// gradients "rule" (Winograd and the gather path's gradients need
// stride 1).
type ConvChoice struct {
	DType                  string
	C, O, H, W             int
	Stride                 int
	PadH, PadW             int
	Forward, Input, Weight string
}

// String is c as a line of the table: its fields in order, space-separated.
func (c ConvChoice) String() string {
	return fmt.Sprintf("%s %d %d %d %d %d %d %d %s %s %s", c.DType, c.C, c.O, c.H, c.W, c.Stride, c.PadH, c.PadW, c.Forward, c.Input, c.Weight)
}

// convKey is a table row's shape.
type convKey struct {
	dtype                          string
	c, o, h, w, stride, padH, padW int
}

func keyOf[T Float](p Conv2DParams) convKey {
	return convKey{DType[T](), p.C, p.O, p.H, p.W, p.StrideH, p.PadH, p.PadW}
}

// tableShape reports whether p's paths come from the table: a 3×3,
// undilated convolution at stride 1 (all passes) or 2 (the forward pass,
// direct or im2col), the same both ways.
func tableShape(p Conv2DParams) bool {
	return p.KH == 3 && p.KW == 3 && p.DilH == 1 && p.DilW == 1 && p.StrideH == p.StrideW && (p.StrideH == 1 || p.StrideH == 2)
}

// stridedPath reports whether path can compute pass of a stride-2 table
// shape: the forward pass by direct or im2col (or the rule).
func stridedPath(pass convPass, path convPath) bool {
	return path == pathRule || pass == passForward && (path == pathDirect || path == pathIm2col)
}

var (
	//go:embed convchoice.txt
	convChoiceAVX512 string
	//go:embed convchoice_avx2.txt
	convChoiceAVX2 string
)

// ConvTableFile is the table of convolution paths this CPU follows, as a
// file of the tensor package: convchoice.txt where the CPU runs the
// AVX-512 kernels, convchoice_avx2.txt elsewhere.
func ConvTableFile() string {
	file, _ := convTableFor(gemmISA)
	return file
}

// convTableFor is the table a CPU at level follows: its file and text.
func convTableFor(level isa) (file, text string) {
	if level >= isaAVX512 {
		return "convchoice.txt", convChoiceAVX512
	}
	return "convchoice_avx2.txt", convChoiceAVX2
}

// convTable is ConvTableFile's table; convOverride, where convForced,
// replaces it (ECL_CONV, SetConvPath).
var (
	convTable                = mustConvTable(func() string { _, text := convTableFor(gemmISA); return text }())
	convOverride, convForced = mustEnvPath(os.Getenv("ECL_CONV"))
)

// parseConvTable reads a table of ConvChoice lines; blank lines and lines
// from # on are skipped.
func parseConvTable(text string) (map[convKey][3]convPath, error) {
	table := map[convKey][3]convPath{}
	for i, line := range strings.Split(text, "\n") {
		if at := strings.IndexByte(line, '#'); at >= 0 {
			line = line[:at]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if len(f) != 11 {
			return nil, fmt.Errorf("convchoice line %d: want 11 fields (dtype C O H W stride padH padW forward input weight), got %d", i+1, len(f))
		}
		if f[0] != "float32" && f[0] != "float64" {
			return nil, fmt.Errorf("convchoice line %d: dtype %q: want float32 or float64", i+1, f[0])
		}
		var n [7]int
		for j := range n {
			v, err := strconv.Atoi(f[1+j])
			if err != nil || v < 0 {
				return nil, fmt.Errorf("convchoice line %d: field %d (%q) is not a size", i+1, j+2, f[1+j])
			}
			n[j] = v
		}
		if n[4] != 1 && n[4] != 2 {
			return nil, fmt.Errorf("convchoice line %d: stride %d: want 1 or 2", i+1, n[4])
		}
		var paths [3]convPath
		for j := range paths {
			c, err := parseConvPath(f[8+j])
			if err != nil {
				return nil, fmt.Errorf("convchoice line %d: %v", i+1, err)
			}
			if n[4] == 2 && !stridedPath(convPass(j), c) {
				return nil, fmt.Errorf("convchoice line %d: stride 2 takes %s for its %s pass: want direct, im2col or rule forward, rule for the gradients", i+1, c, []string{"forward", "input", "weight"}[j])
			}
			paths[j] = c
		}
		key := convKey{f[0], n[0], n[1], n[2], n[3], n[4], n[5], n[6]}
		if _, dup := table[key]; dup {
			return nil, fmt.Errorf("convchoice line %d: shape listed twice", i+1)
		}
		table[key] = paths
	}
	return table, nil
}

func mustConvTable(text string) map[convKey][3]convPath {
	t, err := parseConvTable(text)
	if err != nil {
		panic("tensor: embedded " + err.Error())
	}
	return t
}

// mustEnvPath is ECL_CONV's path, and whether it names one.
func mustEnvPath(s string) (convPath, bool) {
	if s == "" {
		return pathRule, false
	}
	c, err := parseConvPath(s)
	if err != nil {
		panic("tensor: ECL_CONV: " + err.Error())
	}
	return c, true
}

// SetConvPath makes every CPU convolution with a 3×3 kernel, stride 1 and
// no dilation take path name, in all three passes: "direct" (the gather
// path where the build has its kernel, else im2col), "im2col",
// "winograd4" (F(4×4, 3×3)), "winograd2" (F(2×2, 3×3)), or "rule" (the
// engine's rule, ignoring the table), or, for "", follow the table again.
// "direct" and "im2col" also take the forward pass of such convolutions
// at stride 2, whose other passes, and whose passes under the other
// names, follow the rule.
// It is for measurements and tests (bench/convchoice), as ECL_CONV is, and
// must not run while a convolution does.
func SetConvPath(name string) error {
	if name == "" {
		convOverride, convForced = pathRule, false
		return nil
	}
	c, err := parseConvPath(name)
	if err != nil {
		return err
	}
	convOverride, convForced = c, true
	return nil
}

// ConvPathOverride is the path SetConvPath or ECL_CONV forces on
// convolution p ("direct", "im2col", "winograd4", "winograd2" or "rule"),
// or "" where none does: no override is set, or p is not a 3×3, stride-1,
// undilated convolution. Devices read it to follow the override (the CUDA
// backend takes its Winograd path for "winograd4" and "winograd2").
func ConvPathOverride(p Conv2DParams) string {
	if !convForced || !winogradShape(p) {
		return ""
	}
	return convOverride.String()
}

// convPathFor is the path of pass of convolution p in T.
func convPathFor[T Float](p Conv2DParams, pass convPass) convPath {
	if !tableShape(p) || p.StrideH == 2 && pass != passForward {
		return pathRule
	}
	path := convTable[keyOf[T](p)][pass]
	if convForced {
		path = convOverride
	}
	if p.StrideH == 2 && !stridedPath(pass, path) {
		return pathRule
	}
	return path
}
