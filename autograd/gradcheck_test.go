package autograd_test

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

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/autograd/gradcase"
	"github.com/ecl-go/ecl/tensor"
)

// TestGradients runs every case of gradcase's table on the CPU (the CUDA
// backend's TestGradientsOnDevice runs the same table on the device).
func TestGradients(t *testing.T) {
	worst := map[string]autograd.CheckReport{}
	for i, c := range gradcase.Cases() {
		rep, err := c.Check(uint64(i), tensor.CPU[float64]{})
		if err != nil {
			t.Errorf("case %d: %v", i, err)
		}
		if w, ok := worst[c.Name]; !ok || rep.Err > w.Err {
			worst[c.Name] = rep
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
// case in gradcase's table.
func TestEveryOpHasGradientCase(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range gradcase.Cases() {
		covered[c.Name] = true
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
				t.Errorf("differentiable op %s has no gradient case in autograd/gradcase", fn.Name.Name)
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

// TestPrimitivesAreCovered: every primitive of the gradient table (every Op
// declared with def) is reached by some case of gradcase's table.
func TestPrimitivesAreCovered(t *testing.T) {
	seen := map[string]bool{}
	for i, c := range gradcase.Cases() {
		var xs []*autograd.Var[float64]
		for _, x := range c.Inputs(rand.New(rand.NewPCG(uint64(i), 1)), tensor.CPU[float64]{}) {
			xs = append(xs, autograd.Param(x))
		}
		for _, op := range autograd.GraphOps(c.F(xs)) {
			seen[op] = true
		}
	}
	for _, p := range autograd.Primitives() {
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
	if defs != len(autograd.Primitives()) {
		t.Errorf("gradients.go calls def %d times for %d primitives", defs, len(autograd.Primitives()))
	}
}
