package autograd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"math/rand/v2"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

type T64 = *tensor.Tensor[float64]
type V64 = *Var[float64]

// gradCase is one gradient check: inputs and the function of them.
type gradCase struct {
	name   string
	inputs func(r *rand.Rand) []T64
	f      func(xs []V64) V64
}

// uni is a tensor of shape drawn uniformly from [−1, 1].
func uni(r *rand.Rand, shape ...int) T64 { return tensor.RandUniform[float64](r, -1, 1, shape...) }

// in makes a case's inputs, one from each maker.
func in(ts ...func(*rand.Rand) T64) func(*rand.Rand) []T64 {
	return func(r *rand.Rand) []T64 {
		out := make([]T64, len(ts))
		for i, t := range ts {
			out[i] = t(r)
		}
		return out
	}
}

// uniform draws an input of shape uniformly from [−1, 1].
func uniform(shape ...int) func(*rand.Rand) T64 {
	return func(r *rand.Rand) T64 { return uni(r, shape...) }
}

// positive draws an input of shape uniformly from [0.5, 2] (for logarithms,
// roots and divisors).
func positive(shape ...int) func(*rand.Rand) T64 {
	return func(r *rand.Rand) T64 { return tensor.RandUniform[float64](r, 0.5, 2, shape...) }
}

// transposed is a non-contiguous input of shape: the transpose of a dense
// tensor with the last two dimensions swapped.
func transposed(shape ...int) func(*rand.Rand) T64 {
	return func(r *rand.Rand) T64 {
		n := len(shape)
		sw := append([]int(nil), shape...)
		sw[n-1], sw[n-2] = sw[n-2], sw[n-1]
		return tensor.Transpose(uni(r, sw...), -1, -2)
	}
}

// narrowed is a non-contiguous input of shape: a tensor three columns
// wider, narrowed.
func narrowed(shape ...int) func(*rand.Rand) T64 {
	return func(r *rand.Rand) T64 {
		big := append([]int(nil), shape...)
		big[len(big)-1] += 3
		return tensor.Narrow(uni(r, big...), -1, 1, shape[len(shape)-1])
	}
}

func unary(f func(V64) V64) func([]V64) V64       { return func(x []V64) V64 { return f(x[0]) } }
func binary(f func(V64, V64) V64) func([]V64) V64 { return func(x []V64) V64 { return f(x[0], x[1]) } }

// mask is a fixed 0/1 tensor.
func mask(shape ...int) T64 {
	r := rand.New(rand.NewPCG(7, 7))
	return tensor.Step(tensor.RandUniform[float64](r, -1, 1, shape...))
}

var gradCases = []gradCase{
	{"Add", in(uniform(3, 4), uniform(3, 4)), binary(Add[float64])},
	{"Add", in(uniform(2, 3, 4), uniform(4)), binary(Add[float64])},
	{"Add", in(uniform(2, 1, 4), narrowed(3, 1)), binary(Add[float64])},
	{"Add", in(transposed(3, 4), uniform(3, 1)), binary(Add[float64])},
	{"Sub", in(uniform(3, 4), uniform(1, 4)), binary(Sub[float64])},
	{"Sub", in(transposed(4, 3), narrowed(4, 3)), binary(Sub[float64])},
	{"Mul", in(uniform(3, 4), uniform(3, 4)), binary(Mul[float64])},
	{"Mul", in(transposed(2, 5), uniform(5)), binary(Mul[float64])},
	{"Div", in(uniform(3, 4), positive(3, 4)), binary(Div[float64])},
	{"Div", in(uniform(2, 3), positive(3)), binary(Div[float64])},
	{"Neg", in(transposed(3, 4)), unary(Neg[float64])},
	{"Affine", in(uniform(3, 4)), unary(func(x V64) V64 { return Affine(x, -1.5, 0.25) })},
	{"Scale", in(narrowed(2, 3)), unary(func(x V64) V64 { return Scale(x, 3) })},
	{"AddScalar", in(uniform(5)), unary(func(x V64) V64 { return AddScalar(x, 2) })},
	{"Pow", in(positive(3, 4), uniform(3, 4)), binary(Pow[float64])},
	{"Pow", in(positive(2, 3), uniform(3)), binary(Pow[float64])},
	{"PowScalar", in(positive(3, 4)), unary(func(x V64) V64 { return PowScalar(x, 2.5) })},
	{"PowScalar", in(transposed(3, 4)), unary(func(x V64) V64 { return PowScalar(x, 3) })},
	{"Exp", in(transposed(3, 4)), unary(Exp[float64])},
	{"Log", in(positive(3, 4)), unary(Log[float64])},
	{"Sqrt", in(positive(3, 4)), unary(Sqrt[float64])},
	{"Abs", in(narrowed(3, 4)), unary(Abs[float64])},
	{"Relu", in(uniform(4, 5)), unary(Relu[float64])},
	{"Sigmoid", in(transposed(3, 4)), unary(Sigmoid[float64])},
	{"Tanh", in(uniform(3, 4)), unary(Tanh[float64])},
	{"Lgamma", in(positive(3, 4)), unary(Lgamma[float64])},
	{"Lgamma", in(transposed(2, 3)), unary(func(x V64) V64 { return Lgamma(AddScalar(Abs(x), 0.1)) })},
	{"Clamp", in(uniform(4, 5)), unary(func(x V64) V64 { return Clamp(x, -0.5, 0.5) })},
	{"Sum", in(uniform(3, 4)), unary(func(x V64) V64 { return Sum(x, 1, false) })},
	{"Sum", in(transposed(2, 3, 4)), unary(func(x V64) V64 { return Sum(x, 0, true) })},
	{"SumAll", in(narrowed(3, 4)), unary(SumAll[float64])},
	{"Mean", in(uniform(3, 4)), unary(func(x V64) V64 { return Mean(x, -1, true) })},
	{"MeanAll", in(transposed(3, 4)), unary(MeanAll[float64])},
	{"Max", in(uniform(3, 5)), unary(func(x V64) V64 { return Max(x, 1, false) })},
	{"Max", in(transposed(2, 4, 3)), unary(func(x V64) V64 { return Max(x, 1, true) })},
	{"Min", in(uniform(4, 3)), unary(func(x V64) V64 { return Min(x, 0, false) })},
	{"LogSumExp", in(uniform(3, 5)), unary(func(x V64) V64 { return LogSumExp(x, 1, false) })},
	{"LogSumExp", in(transposed(3, 4)), unary(func(x V64) V64 { return LogSumExp(x, 0, true) })},
	{"LogSoftmax", in(uniform(3, 5)), unary(func(x V64) V64 { return LogSoftmax(x, 1) })},
	{"Softmax", in(narrowed(3, 5)), unary(func(x V64) V64 { return Softmax(x, -1) })},
	{"Softmax", in(uniform(4, 3)), unary(func(x V64) V64 { return Softmax(x, 0) })},
	{"Reshape", in(transposed(3, 4)), unary(func(x V64) V64 { return Reshape(x, 2, -1) })},
	{"Squeeze", in(uniform(3, 1, 2)), unary(func(x V64) V64 { return Squeeze(x, 1) })},
	{"Unsqueeze", in(uniform(3, 2)), unary(func(x V64) V64 { return Unsqueeze(x, 0) })},
	{"Permute", in(uniform(2, 3, 4)), unary(func(x V64) V64 { return Permute(x, 2, 0, 1) })},
	{"Transpose", in(narrowed(2, 3)), unary(func(x V64) V64 { return Transpose(x, 0, 1) })},
	{"Narrow", in(uniform(3, 6)), unary(func(x V64) V64 { return Narrow(x, 1, 2, 3) })},
	{"Expand", in(uniform(3, 1)), unary(func(x V64) V64 { return Expand(x, 2, 3, 4) })},
	{"Concat", in(uniform(2, 3), transposed(4, 3), uniform(1, 3)), func(x []V64) V64 { return Concat(0, x...) }},
	{"Stack", in(uniform(2, 3), narrowed(2, 3)), func(x []V64) V64 { return Stack(1, x...) }},
	{"Gather", in(uniform(3, 4)), unary(func(x V64) V64 { return Gather(x, 1, []int{0, 3, 3, 1, 2, 2}, 3, 2) })},
	{"Gather", in(transposed(3, 4)), unary(func(x V64) V64 { return Gather(x, 0, []int{2, 0, 1, 2, 2, 2, 0, 1}, 2, 4) })},
	{"IndexSelect", in(uniform(4, 3)), unary(func(x V64) V64 { return IndexSelect(x, 0, []int{3, 1, 3}) })},
	{"Where", in(uniform(3, 4), uniform(4)), binary(func(a, b V64) V64 { return Where(mask(3, 4), a, b) })},
	{"Maximum", in(uniform(3, 4), transposed(3, 4)), binary(Maximum[float64])},
	{"Minimum", in(uniform(3, 4), uniform(4)), binary(Minimum[float64])},
	{"MatMul", in(uniform(3, 4), uniform(4, 5)), binary(MatMul[float64])},
	{"MatMul", in(transposed(3, 4), transposed(4, 2)), binary(MatMul[float64])},
	{"MatMul", in(uniform(2, 3, 4), uniform(4, 2)), binary(MatMul[float64])},
	{"MatMul", in(uniform(2, 1, 3, 4), narrowed(3, 4, 2)), binary(MatMul[float64])},
	{"Conv2D", in(uniform(2, 3, 6, 5), uniform(4, 3, 3, 2)), binary(func(x, w V64) V64 {
		return Conv2D(x, w, tensor.ConvOptions{StrideH: 2, PadH: 1, PadW: 1, DilW: 2})
	})},
	{"Conv2D", in(uniform(1, 2, 4, 4), uniform(3, 2, 1, 1)), binary(func(x, w V64) V64 { return Conv2D(x, w, tensor.ConvOptions{}) })},
	{"Conv2D", in(uniform(2, 3, 5, 4), uniform(2, 3, 3, 3)), binary(func(x, w V64) V64 { return Conv2D(x, w, tensor.ConvOptions{PadH: 1, PadW: 1}) })},
	{"Conv2DBias", in(uniform(2, 3, 5, 6), uniform(4, 3, 3, 3), uniform(4)), func(x []V64) V64 {
		return Conv2DBias(x[0], x[1], x[2], tensor.ConvOptions{PadH: 1, PadW: 2, StrideW: 2})
	}},
	{"Conv2DBias", in(uniform(3, 2, 4, 4), transposed(3, 2), uniform(3)), func(x []V64) V64 {
		return Conv2DBias(x[0], Reshape(x[1], 3, 2, 1, 1), x[2], tensor.ConvOptions{})
	}},
	{"MaxPool2D", in(uniform(2, 2, 5, 6)), unary(func(x V64) V64 { return MaxPool2D(x, 2, 2, tensor.ConvOptions{StrideH: 2, StrideW: 2}) })},
	{"MaxPool2D", in(uniform(1, 2, 5, 5)), unary(func(x V64) V64 {
		return MaxPool2D(x, 3, 3, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
	})},
	{"AvgPool2D", in(uniform(2, 2, 4, 6)), unary(func(x V64) V64 { return AvgPool2D(x, 2, 3, tensor.ConvOptions{StrideH: 2, StrideW: 1}) })},
	{"AvgPool2D", in(uniform(1, 1, 5, 5)), unary(func(x V64) V64 {
		return AvgPool2D(x, 3, 3, tensor.ConvOptions{StrideH: 2, StrideW: 2, PadH: 1, PadW: 1})
	})},
	{"BatchNorm", in(uniform(3, 2, 4, 3), positive(2), uniform(2)), func(x []V64) V64 { return BatchNorm(x[0], x[1], x[2], 1e-5, nil, nil) }},
	{"BatchNorm", in(transposed(6, 3), positive(3), uniform(3)), func(x []V64) V64 { return BatchNorm(x[0], x[1], x[2], 0.1, nil, nil) }},
	{"BatchNormRelu", in(uniform(3, 2, 4, 3), positive(2), uniform(2), uniform(3, 2, 4, 3)), func(x []V64) V64 {
		return BatchNormRelu(x[0], x[1], x[2], x[3], 1e-5, nil, nil)
	}},
	{"BatchNormRelu", in(transposed(6, 3), positive(3), uniform(3)), func(x []V64) V64 { return BatchNormRelu(x[0], x[1], x[2], nil, 0.1, nil, nil) }},
	{"SoftAssign", in(uniform(4, 2, 3)), unary(func(x V64) V64 { return SoftAssign(x, softBins(3, 5)) })},
	{"SoftAssign", in(transposed(3, 2, 1)), unary(func(x V64) V64 { return SoftAssign(x, softBins(1, 4)) })},
	{"BinStats", in(positive(4, 2, 5), uniform(4, 2, 3)), binary(BinStats[float64])},
	{"BinStats", in(transposed(3, 1, 4), narrowed(3, 1, 1)), binary(BinStats[float64])},
	{"SoftBinStats", in(uniform(5, 1, 3), uniform(5, 1, 3)), binary(func(x, p V64) V64 { return SoftBinStats(x, p, softBins(3, 6)) })},
	{"SoftBinStats", in(uniform(4, 3, 1), transposed(4, 3, 2)), binary(func(x, p V64) V64 { return SoftBinStats(x, p, softBins(1, 5)) })},
	{"TopLabelStats", in(uniform(6, 3), uniform(6)), binary(func(s, p V64) V64 { return TopLabelStats(s, p, softBins(1, 5)) })},
	{"TopLabelStats", in(transposed(5, 4), narrowed(5)), binary(func(s, p V64) V64 { return TopLabelStats(s, p, softBins(1, 4)) })},
	{"LayerNorm", in(uniform(2, 3, 5), positive(5), uniform(5)), func(x []V64) V64 { return LayerNorm(x[0], x[1], x[2], 1e-6) }},
	{"LayerNorm", in(transposed(4, 3), uniform(3), uniform(3)), func(x []V64) V64 { return LayerNorm(x[0], x[1], x[2], 1e-5) }},
	{"GELU", in(uniform(3, 4)), unary(GELU[float64])},
	{"GELU", in(transposed(2, 5)), unary(func(x V64) V64 { return GELU(Scale(x, 3)) })},
	{"Attention", in(uniform(2, 2, 3, 4), uniform(2, 2, 5, 4), uniform(2, 2, 5, 4)), func(x []V64) V64 { return Attention(x[0], x[1], x[2], 0.5) }},
	{"Attention", in(uniform(1, 3, 2), transposed(1, 70, 2), narrowed(1, 70, 2)), func(x []V64) V64 { return Attention(x[0], x[1], x[2], 1.5) }},
	{"DenseBlock", in(uniform(2, 1, 4, 3), positive(1), uniform(1), uniform(1, 1, 3, 3), positive(2), uniform(2), uniform(2, 2, 1, 1)), func(x []V64) V64 {
		return DenseBlock(x[0], []DenseUnit[float64]{{x[1], x[2], x[3], false}, {x[4], x[5], x[6], true}}, 1e-5, nil)
	}},
	{"DenseBlock", in(uniform(2, 1, 3, 3), positive(1), uniform(1), uniform(1, 1, 1, 1), positive(2), uniform(2), uniform(1, 2, 3, 3)), func(x []V64) V64 {
		return DenseBlock(x[0], []DenseUnit[float64]{{x[1], x[2], x[3], false}, {x[4], x[5], x[6], false}}, 1e-5, nil)
	}},
}

// softBins are b fixed anchors of dimension e in [−1, 1]^e, temperature 0.5.
func softBins(e, b int) tensor.SoftBins {
	r := rand.New(rand.NewPCG(uint64(e), uint64(b)))
	a := make([]float64, e*b)
	for i := range a {
		a[i] = 2*r.Float64() - 1
	}
	return tensor.SoftBins{Anchors: a, Dim: e, Tau: 0.5}
}

func TestGradients(t *testing.T) {
	worst := map[string]CheckReport{}
	for i, c := range gradCases {
		r := rand.New(rand.NewPCG(uint64(i), 1))
		rep, err := Check(c.name, c.f, c.inputs(r), CheckOptions{Seed: uint64(i)})
		if err != nil {
			t.Errorf("case %d: %v", i, err)
		}
		if w, ok := worst[c.name]; !ok || rep.Err > w.Err {
			worst[c.name] = rep
		}
	}
	names := make([]string, 0, len(worst))
	for n := range worst {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t.Logf("%-12s worst error %.2e", n, worst[n].Err)
	}
}

// TestEveryOpHasGradientCase walks this package's source: every exported
// function that returns a *Var, apart from the leaf constructors, must have a
// case in gradCases.
func TestEveryOpHasGradientCase(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range gradCases {
		covered[c.name] = true
	}
	leaves := map[string]bool{"Param": true, "Const": true}
	_, files := sources(t)
	n := 0
	for _, file := range files {
		for _, d := range file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Recv != nil || !fn.Name.IsExported() || leaves[fn.Name.Name] || !returnsVar(fn) {
				continue
			}
			n++
			if !covered[fn.Name.Name] {
				t.Errorf("differentiable op %s has no gradient case in gradCases", fn.Name.Name)
			}
		}
	}
	if n < 40 {
		t.Fatalf("found only %d differentiable ops; the source walk is broken", n)
	}
}

// sources parses this package's non-test files, by file name.
func sources(t *testing.T) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]*ast.File{}
	for _, pkg := range pkgs {
		for name, f := range pkg.Files {
			files[name] = f
		}
	}
	return fset, files
}

func returnsVar(fn *ast.FuncDecl) bool {
	res := fn.Type.Results
	if res == nil || len(res.List) != 1 {
		return false
	}
	star, ok := res.List[0].Type.(*ast.StarExpr)
	if !ok {
		return false
	}
	idx, ok := star.X.(*ast.IndexExpr)
	if !ok {
		return false
	}
	id, ok := idx.X.(*ast.Ident)
	return ok && id.Name == "Var"
}

// TestPrimitivesHaveCases: every Op registered with def is reached by some case.
func TestPrimitivesAreCovered(t *testing.T) {
	seen := map[string]bool{}
	for i, c := range gradCases {
		r := rand.New(rand.NewPCG(uint64(i), 1))
		xs := make([]V64, 0)
		for _, x := range c.inputs(r) {
			xs = append(xs, Param(x))
		}
		for _, v := range topo(c.f(xs)) {
			if v.op != nil {
				seen[v.op.name] = true
			}
		}
	}
	for _, p := range Primitives() {
		if !seen[p] {
			t.Errorf("primitive %q is not exercised by any gradient case", p)
		}
	}
}

// TestRulesLiveInTheTable walks this package's source: def is called only in
// gradients.go, and no forward function passes record a rule written in
// place, so every backward rule is in the gradient table.
func TestRulesLiveInTheTable(t *testing.T) {
	fset, files := sources(t)
	defs := 0
	for name, file := range files {
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			id, ok := call.Fun.(*ast.Ident)
			if !ok {
				if ix, isIndex := call.Fun.(*ast.IndexExpr); isIndex {
					id, ok = ix.X.(*ast.Ident)
				}
			}
			if !ok {
				return true
			}
			switch {
			case id.Name == "def" && filepath.Base(name) == "gradients.go":
				defs++
			case id.Name == "def":
				t.Errorf("%s: def outside gradients.go", fset.Position(call.Pos()))
			case id.Name == "record" && len(call.Args) > 2:
				if _, lit := call.Args[2].(*ast.FuncLit); lit {
					t.Errorf("%s: a backward rule written in place; put it in gradients.go", fset.Position(call.Pos()))
				}
			}
			return true
		})
	}
	if defs != len(Primitives()) {
		t.Errorf("gradients.go calls def %d times for %d primitives", defs, len(Primitives()))
	}
}
