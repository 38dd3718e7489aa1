package opsdoc

import (
	"fmt"
	"go/ast"
	"go/token"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Row is one op across the layers.
type Row struct {
	// Op is the op's name: autograd's primitive (def in
	// autograd/gradients.go) or, for a kernel no primitive reaches, the
	// kernel's (tensor.NewKernel).
	Op string
	// Autograd are the exported autograd functions that record the op.
	Autograd []string
	// Rule is its backward rule, file:func.
	Rule string
	// Kernels are the tensor kernels its forward pass and its rule reach.
	Kernels []string
	// CPU are the CPU bodies: each kernel's registered body, or, for an op
	// without kernels, the CPU device's methods its forward pass calls and
	// the op codes it passes them.
	CPU []string
	// CUDA are the CUDA backend's Go bodies (the same way) and, after
	// "→", the src/*.cu kernels they launch.
	CUDA []string
	// GradCases is the number of gradcase cases named for each of
	// Autograd's functions.
	GradCases int
	// CPUTests are package tensor's tests of the kernels' CPU bodies
	// against their composed references (tensor's xComposed).
	CPUTests []string
	// CUDATests are kernels/cuda's tests that call the op's tensor
	// functions on the device against the CPU.
	CUDATests []string
}

// Table is every op, in the gradient table's order, then the kernels no
// primitive reaches.
type Table struct {
	Rows []Row
	// Mismatches are the names that break the rule of one name per op
	// (see Check).
	Mismatches []string
}

// source is the module's parsed packages.
type source struct {
	tensor, autograd, gradcase, optim, cuda *pkg
	kernelVars                              map[string]string   // tensor's XKernel → its name
	cpuBodies, cudaBodies                   map[string][]string // XKernel → body function names
	launchers                               map[string][]string // kernels/cuda's kX → src/m.cu:name
	deviceMethods                           map[string]bool     // tensor.Device's methods
}

// Build reads the module at root and makes the table.
func Build(root string) (*Table, error) {
	s := &source{}
	for _, l := range []struct {
		p   **pkg
		dir string
	}{{&s.tensor, "tensor"}, {&s.autograd, "autograd"}, {&s.gradcase, "autograd/gradcase"}, {&s.optim, "optim"}, {&s.cuda, "kernels/cuda"}} {
		p, err := load(root, l.dir)
		if err != nil {
			return nil, err
		}
		*l.p = p
	}
	s.index()
	t := &Table{}
	ops, err := s.primitives()
	if err != nil {
		return nil, err
	}
	reached := map[string]bool{}
	for _, op := range ops {
		r := s.row(op)
		for _, k := range r.Kernels {
			reached[k] = true
		}
		t.Rows = append(t.Rows, r)
	}
	for _, kv := range sortedKeys(s.kernelVars) {
		name := s.kernelVars[kv]
		if reached[name] {
			continue
		}
		t.Rows = append(t.Rows, s.kernelRow(kv))
	}
	t.Mismatches = s.check(ops)
	return t, nil
}

// index finds the kernels, their bodies, the CUDA launchers and the
// Device interface's methods.
func (s *source) index() {
	s.kernelVars = map[string]string{}
	for name, sp := range s.tensor.specs {
		if call, ok := sp.value.(*ast.CallExpr); ok && identOf(call.Fun) == "NewKernel" && len(call.Args) == 1 {
			s.kernelVars[name] = stringLit(call.Args[0])
		}
	}
	s.cpuBodies, s.cudaBodies = map[string][]string{}, map[string][]string{}
	for _, p := range []*pkg{s.tensor, s.optim, s.cuda} {
		for _, f := range p.files {
			ast.Inspect(f, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) < 2 {
					return true
				}
				k := identOf(call.Args[0])
				switch fun := identOf(call.Fun); {
				case fun == "registerCPU":
					s.cpuBodies[k] = appendNew(s.cpuBodies[k], identOf(call.Args[1]))
				case fun == "Register" && len(call.Args) == 3 && p == s.cuda:
					s.cudaBodies[k] = appendNew(s.cudaBodies[k], identOf(call.Args[2]))
				case fun == "Register" && len(call.Args) == 3 && strings.Contains(exprString(call.Args[1]), "CPU"):
					s.cpuBodies[k] = appendNew(s.cpuBodies[k], identOf(call.Args[2]))
				}
				return true
			})
		}
	}
	s.launchers = map[string][]string{}
	for name, sp := range s.cuda.specs {
		if sp.value == nil {
			continue
		}
		ast.Inspect(sp.value, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok && identOf(call.Fun) == "def" && len(call.Args) == 3 {
				s.launchers[name] = append(s.launchers[name], "src/"+stringLit(call.Args[0])+".cu:"+stringLit(call.Args[1]))
			}
			return true
		})
	}
	s.deviceMethods = map[string]bool{}
	for _, f := range s.tensor.files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "Device" {
				return true
			}
			if it, ok := ts.Type.(*ast.InterfaceType); ok {
				for _, m := range it.Methods.List {
					for _, id := range m.Names {
						s.deviceMethods[id.Name] = true
					}
				}
			}
			return false
		})
	}
}

// primitive is one op of autograd's gradient table.
type primitive struct {
	name, opVar string
}

// primitives lists autograd's gradient table (the def calls of
// gradients.go), in order.
func (s *source) primitives() ([]primitive, error) {
	var out []primitive
	for i, f := range s.autograd.files {
		if s.autograd.names[i] != "gradients.go" {
			continue
		}
		for _, d := range f.Decls {
			g, ok := d.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, sp := range g.Specs {
				vs := sp.(*ast.ValueSpec)
				for i, id := range vs.Names {
					if i < len(vs.Values) {
						if call, ok := vs.Values[i].(*ast.CallExpr); ok && identOf(call.Fun) == "def" {
							out = append(out, primitive{stringLit(call.Args[0]), id.Name})
						}
					}
				}
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("opsdoc: no def calls in autograd/gradients.go")
	}
	return out, nil
}

// row assembles op's row.
func (s *source) row(op primitive) Row {
	r := Row{Op: op.name}
	var entries []string // the tensor functions the forward pass and the rule call
	var forward []string
	for _, name := range sortedKeys(s.autograd.funcs) {
		f := s.autograd.funcs[name]
		if unexported(name) || f.decl.Recv != nil || !mentions(f.decl.Body, ref{"", op.opVar}) {
			continue
		}
		r.Autograd = append(r.Autograd, "autograd."+name)
		for _, g := range s.autograd.reach(s.forwardOnly, name) {
			for _, x := range refs(g.decl.Body) {
				if x.pkg == "tensor" {
					forward = appendNew(forward, x.name)
				}
			}
			if rule := recordRule(g.decl.Body); rule != "" && r.Rule == "" {
				if rf, ok := s.autograd.funcs[rule]; ok {
					r.Rule = s.autograd.loc(rf)
					for _, h := range s.autograd.reach(func(n string) bool { return unexported(n) && n != "record" }, rule) {
						for _, x := range refs(h.decl.Body) {
							if x.pkg == "tensor" {
								entries = appendNew(entries, x.name)
							}
						}
					}
				}
			}
		}
	}
	entries = append(forward, entries...)
	var methods, codes []string
	for _, e := range entries {
		ks, ms := s.kernelsOf(e)
		if len(ks) > 0 {
			for _, k := range ks {
				r.Kernels = appendNew(r.Kernels, s.kernelVars[k])
			}
		}
		if slices.Contains(forward, e) && len(ks) == 0 {
			for _, m := range ms {
				methods = appendNew(methods, m)
			}
			if f, ok := s.tensor.funcs[e]; ok {
				for _, x := range refs(f.decl.Body) {
					if strings.HasPrefix(x.name, "Op") && s.tensor.specs[x.name] != nil {
						codes = appendNew(codes, x.name)
					}
				}
			}
		}
	}
	if compute := slices.DeleteFunc(slices.Clone(methods), func(m string) bool { return m == "Copy" || m == "Fill" }); len(compute) > 0 || len(r.Kernels) > 0 {
		methods = compute
	}
	suffix := ""
	if len(codes) > 0 {
		suffix = " (" + strings.Join(codes, ", ") + ")"
	}
	for _, m := range methods {
		if f, ok := s.tensor.funcs["CPU."+m]; ok {
			r.CPU = append(r.CPU, s.tensor.loc(f)+suffix)
		}
		if f, ok := s.cuda.funcs["device."+m]; ok {
			r.CUDA = append(r.CUDA, s.cuda.loc(f)+suffix+s.launched("device."+m))
		}
	}
	for _, k := range r.Kernels {
		s.bodies(&r, s.kernelVar(k))
	}
	for _, a := range r.Autograd {
		r.GradCases += s.gradCases(strings.TrimPrefix(a, "autograd."))
	}
	r.CPUTests = s.cpuTests(r.Kernels)
	r.CUDATests = s.cudaTests(entries, r.Kernels, codes, methods)
	return r
}

// forwardOnly follows autograd's unexported functions but record, whose
// bookkeeping is no op's, and the rules of gradients.go.
func (s *source) forwardOnly(name string) bool {
	f, ok := s.autograd.funcs[name]
	return ok && unexported(name) && name != "record" && f.file != "gradients.go"
}

// kernelRow is the row of the kernel kv that no primitive reaches.
func (s *source) kernelRow(kv string) Row {
	r := Row{Op: s.kernelVars[kv], Kernels: []string{s.kernelVars[kv]}}
	s.bodies(&r, kv)
	r.CPUTests = s.cpuTests(r.Kernels)
	var entries []string
	for _, name := range sortedKeys(s.tensor.funcs) {
		if !unexported(name) && mentions(s.tensor.funcs[name].decl.Body, ref{"", kv}) {
			entries = append(entries, name)
		}
	}
	r.CUDATests = s.cudaTests(entries, r.Kernels, nil, nil)
	return r
}

// bodies appends the kernel kv's CPU and CUDA bodies to r.
func (s *source) bodies(r *Row, kv string) {
	for _, b := range s.cpuBodies[kv] {
		for _, p := range []*pkg{s.tensor, s.optim} {
			if f, ok := p.funcs[b]; ok {
				r.CPU = append(r.CPU, p.loc(f))
			}
		}
	}
	for _, b := range s.cudaBodies[kv] {
		if f, ok := s.cuda.funcs[b]; ok {
			r.CUDA = append(r.CUDA, s.cuda.loc(f)+s.launched(b))
		}
	}
}

// launched is " → " and the src/*.cu kernels that the CUDA function name
// launches, through the package's unexported functions and methods.
func (s *source) launched(name string) string {
	var ks []string
	follow := func(n string) bool { return unexported(n) || strings.HasPrefix(n, ".") }
	for _, f := range s.cuda.reachMethods(follow, name) {
		for _, x := range refs(f.decl.Body) {
			for _, l := range s.launchers[x.name] {
				ks = appendNew(ks, l)
			}
		}
	}
	if len(ks) == 0 {
		return ""
	}
	return " → " + strings.Join(ks, ", ")
}

// reachMethods is reach where a mention .m follows the device's method m.
func (p *pkg) reachMethods(follow func(string) bool, from ...string) []*fn {
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
			switch {
			case r.pkg != "" || !follow(r.name):
			case strings.HasPrefix(r.name, ".") && unexported(r.name[1:]):
				visit("device" + r.name)
			case !strings.HasPrefix(r.name, "."):
				visit(r.name)
			}
		}
	}
	for _, n := range from {
		visit(n)
	}
	return out
}

// kernelsOf lists the kernels that tensor's function name reaches through
// unexported functions, and the Device methods it calls.
func (s *source) kernelsOf(name string) (kernels, methods []string) {
	for _, f := range s.tensor.reach(unexported, name) {
		for _, x := range refs(f.decl.Body) {
			if _, ok := s.kernelVars[x.name]; ok && x.pkg == "" {
				kernels = appendNew(kernels, x.name)
			}
			if m := strings.TrimPrefix(x.name, "."); m != x.name && s.deviceMethods[m] && !storage[m] {
				methods = appendNew(methods, m)
			}
		}
	}
	return kernels, methods
}

// storage are the Device methods that allocate, move or describe data
// rather than compute an op.
var storage = map[string]bool{"String": true, "Alloc": true, "Empty": true, "Upload": true, "Download": true}

// kernelVar is the variable of the kernel called name.
func (s *source) kernelVar(name string) string {
	for kv, n := range s.kernelVars {
		if n == name {
			return kv
		}
	}
	return ""
}

// gradCases counts gradcase's cases named name.
func (s *source) gradCases(name string) int {
	n := 0
	for _, sp := range s.gradcase.specs {
		lit, ok := sp.value.(*ast.CompositeLit)
		if !ok {
			continue
		}
		for _, e := range lit.Elts {
			if c, ok := e.(*ast.CompositeLit); ok && len(c.Elts) > 0 && stringLit(c.Elts[0]) == name {
				n++
			}
		}
	}
	return n
}

// cpuTests are tensor's tests that compare a CPU body of kernels with its
// composed reference (the function xComposed for the kernel X).
func (s *source) cpuTests(kernels []string) []string {
	var composed []string
	for _, k := range kernels {
		want := strings.TrimSuffix(s.kernelVar(k), "Kernel") + "Composed"
		for name := range s.tensor.funcs {
			if strings.EqualFold(name, want) {
				composed = append(composed, name)
			}
		}
	}
	var out []string
	for _, t := range s.tensor.ownTests() {
		for _, c := range composed {
			if t.mentions[ref{"", c}] {
				out = appendNew(out, t.name)
			}
		}
	}
	return out
}

// cudaTests are kernels/cuda's tests of the op on the device: those that
// call a tensor function of entries that looks up one of kernels (or name
// the kernel), those that name one of the op codes and, where there are
// none, those named for one of the Device methods.
func (s *source) cudaTests(entries, kernels, codes, methods []string) []string {
	var want []ref
	for _, k := range kernels {
		kv := s.kernelVar(k)
		want = append(want, ref{"tensor", kv})
		for _, e := range entries {
			if f, ok := s.tensor.funcs[e]; ok && mentions(f.decl.Body, ref{"", kv}) {
				want = append(want, ref{"tensor", e})
			}
		}
	}
	for _, c := range codes {
		want = append(want, ref{"tensor", c})
	}
	var out []string
	for _, t := range s.cuda.ownTests() {
		if !strings.HasSuffix(t.file, "_cuda_test.go") {
			continue
		}
		hit := false
		for _, w := range want {
			hit = hit || t.mentions[w]
		}
		if len(codes) == 0 {
			name := strings.TrimPrefix(t.name, "Test")
			for _, m := range methods {
				hit = hit || strings.HasPrefix(name, m) || strings.HasSuffix(m, name) || strings.HasSuffix(name, m)
			}
		}
		if hit {
			out = append(out, t.name)
		}
	}
	return out
}

// test is one Test function and what it and its own helpers mention.
type test struct {
	name, file string
	mentions   map[ref]bool
}

// ownTests lists p's Test functions, each with the names mentioned by it
// and by the helpers of the test files that no other Test reaches (shared
// helpers, such as comparisons, are left out).
func (p *pkg) ownTests() []test {
	if p.own == nil {
		p.own = p.findOwnTests()
	}
	return p.own
}

// findOwnTests computes ownTests.
func (p *pkg) findOwnTests() []test {
	helper := func(n string) bool { _, ok := p.tests[n]; return ok && !strings.HasPrefix(n, "Test") }
	reach := func(name string, skip func(string) bool) []*fn {
		var out []*fn
		seen := map[string]bool{}
		var visit func(n string)
		visit = func(n string) {
			f, ok := p.tests[n]
			if !ok || seen[n] || (n != name && (!helper(n) || skip(n))) {
				return
			}
			seen[n] = true
			out = append(out, f)
			for _, r := range refs(f.decl.Body) {
				if r.pkg == "" {
					visit(r.name)
				}
			}
		}
		visit(name)
		return out
	}
	users := map[string]int{}
	var names []string
	for n := range p.tests {
		if strings.HasPrefix(n, "Test") {
			names = append(names, n)
			for _, f := range reach(n, func(string) bool { return false }) {
				users[f.name]++
			}
		}
	}
	sort.Strings(names)
	var out []test
	for _, n := range names {
		t := test{name: n, file: p.tests[n].file, mentions: map[ref]bool{}}
		for _, f := range reach(n, func(h string) bool { return users[h] > 1 }) {
			for _, r := range refs(f.decl.Body) {
				t.mentions[r] = true
				if v, ok := p.tvars[r.name]; ok && r.pkg == "" && v.value != nil { // a table of cases
					for _, vr := range refs(v.value) {
						t.mentions[vr] = true
					}
				}
			}
		}
		out = append(out, t)
	}
	return out
}

// recordRule is the rule function passed to the record call in body, if
// any.
func recordRule(body ast.Node) string {
	var rule string
	ast.Inspect(body, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && identOf(call.Fun) == "record" && len(call.Args) > 2 {
			rule = identOf(call.Args[2])
		}
		return rule == ""
	})
	return rule
}

// mentions reports whether n mentions r.
func mentions(n ast.Node, r ref) bool { return slices.Contains(refs(n), r) }

// identOf is the name an expression stands for: x, p.x, x[T], f(…, x) for
// withDevice's last argument.
func identOf(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.Ident:
		return e.Name
	case *ast.SelectorExpr:
		return e.Sel.Name
	case *ast.IndexExpr:
		return identOf(e.X)
	case *ast.IndexListExpr:
		return identOf(e.X)
	case *ast.CallExpr:
		if identOf(e.Fun) == "withDevice" && len(e.Args) == 2 {
			return identOf(e.Args[1])
		}
		return identOf(e.Fun)
	}
	return ""
}

// exprString is a short rendering of e, enough to spot CPU in a device.
func exprString(e ast.Expr) string {
	var b strings.Builder
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok {
			b.WriteString(id.Name + " ")
		}
		return true
	})
	return b.String()
}

// stringLit is the value of a string literal, "" for anything else.
func stringLit(e ast.Expr) string {
	if b, ok := e.(*ast.BasicLit); ok && b.Kind == token.STRING {
		if s, err := strconv.Unquote(b.Value); err == nil {
			return s
		}
	}
	return ""
}

func appendNew(xs []string, x string) []string {
	if x == "" || slices.Contains(xs, x) {
		return xs
	}
	return append(xs, x)
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
