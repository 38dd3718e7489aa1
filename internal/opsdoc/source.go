package opsdoc

import (
	"fmt"
	"go/ast"
	"go/build/constraint"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strings"
)

// tags are the build tags under which the sources are read: the CUDA
// backend's device files (not its stub or its emulator) on amd64.
var tags = map[string]bool{"cuda": true, "amd64": true, "linux": true, "gc": true}

// pkg is one package's parsed files.
type pkg struct {
	dir   string           // relative to the module root, slash-separated
	funcs map[string]*fn   // by name, methods as Recv.Name
	files []*ast.File      // non-test files
	names []string         // their base names
	tests map[string]*fn   // test files' functions, by name
	tvars map[string]*spec // test files' package-level values, by name
	specs map[string]*spec // package-level var and const specs, by name
	own   []test           // ownTests, once computed
}

// fn is one function declaration.
type fn struct {
	name string // Name or Recv.Name
	file string // base name
	decl *ast.FuncDecl
}

// spec is one package-level name's value and file.
type spec struct {
	file  string
	value ast.Expr
}

// load parses the .go files of dir (relative to root) that the build tags
// select, test files included.
func load(root, dir string) (*pkg, error) {
	p := &pkg{dir: dir, funcs: map[string]*fn{}, tests: map[string]*fn{}, tvars: map[string]*spec{}, specs: map[string]*spec{}}
	names, err := filepath.Glob(filepath.Join(root, filepath.FromSlash(dir), "*.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	for _, name := range names {
		f, err := parser.ParseFile(fset, name, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return nil, err
		}
		base := filepath.Base(name)
		if !selected(f, base) {
			continue
		}
		test := strings.HasSuffix(base, "_test.go")
		if !test {
			p.files, p.names = append(p.files, f), append(p.names, base)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				n := funcName(d)
				if test {
					p.tests[n] = &fn{n, base, d}
				} else if _, dup := p.funcs[n]; !dup {
					p.funcs[n] = &fn{n, base, d}
				}
			case *ast.GenDecl:
				specs := p.specs
				if test {
					specs = p.tvars
				}
				for _, s := range d.Specs {
					vs, ok := s.(*ast.ValueSpec)
					if !ok {
						continue
					}
					for i, id := range vs.Names {
						var v ast.Expr
						if i < len(vs.Values) {
							v = vs.Values[i]
						}
						specs[id.Name] = &spec{base, v}
					}
				}
			}
		}
	}
	if len(p.funcs) == 0 {
		return nil, fmt.Errorf("opsdoc: no Go functions in %s", filepath.Join(root, dir))
	}
	return p, nil
}

// selected reports whether the build tags select f, named base.
func selected(f *ast.File, base string) bool {
	stem := strings.TrimSuffix(strings.TrimSuffix(base, ".go"), "_test")
	for _, arch := range []string{"_arm64", "_386", "_arm", "_wasm", "_riscv64", "_ppc64le", "_s390x"} {
		if strings.HasSuffix(stem, arch) {
			return false
		}
	}
	for _, g := range f.Comments {
		if g.Pos() > f.Package {
			break
		}
		for _, c := range g.List {
			if !constraint.IsGoBuild(c.Text) {
				continue
			}
			e, err := constraint.Parse(c.Text)
			if err == nil && !e.Eval(func(tag string) bool { return tags[tag] }) {
				return false
			}
		}
	}
	return true
}

// funcName is d's name, Recv.Name for a method.
func funcName(d *ast.FuncDecl) string {
	if d.Recv == nil || len(d.Recv.List) == 0 {
		return d.Name.Name
	}
	t := d.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch r := t.(type) {
	case *ast.IndexExpr:
		t = r.X
	case *ast.IndexListExpr:
		t = r.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name + "." + d.Name.Name
	}
	return d.Name.Name
}

// ref is a name a function body mentions: pkg "" for its own package,
// else the import's last path element (tensor, autograd); a method call
// x.M is recorded as ".M".
type ref struct{ pkg, name string }

// refs lists the names that n mentions, each once, in order.
func refs(n ast.Node) []ref {
	if b, ok := n.(*ast.BlockStmt); ok && b == nil { // an assembly function
		return nil
	}
	var out []ref
	seen := map[ref]bool{}
	add := func(r ref) {
		if !seen[r] {
			seen[r] = true
			out = append(out, r)
		}
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			if id, ok := n.X.(*ast.Ident); ok && (id.Name == "tensor" || id.Name == "autograd" || id.Name == "gradcase") {
				add(ref{id.Name, n.Sel.Name})
				return false
			}
			add(ref{"", "." + n.Sel.Name})
		case *ast.Ident:
			add(ref{"", n.Name})
		}
		return true
	})
	return out
}

// reach lists the functions of p reached from the named ones through
// calls and mentions of p's other functions for which follow is true,
// the named ones first.
func (p *pkg) reach(follow func(name string) bool, from ...string) []*fn {
	var out []*fn
	seen := map[string]bool{}
	var visit func(name string)
	visit = func(name string) {
		f, ok := p.funcs[name]
		if !ok || seen[name] {
			return
		}
		seen[name] = true
		out = append(out, f)
		for _, r := range refs(f.decl.Body) {
			if r.pkg == "" && follow(r.name) {
				visit(r.name)
			}
		}
	}
	for _, n := range from {
		visit(n)
	}
	return out
}

// unexported reports whether name starts with a lower-case letter.
func unexported(name string) bool { return name != "" && name[0] >= 'a' && name[0] <= 'z' }

// loc is a function's place, dir/file:name.
func (p *pkg) loc(f *fn) string { return p.dir + "/" + f.file + ":" + f.name }
