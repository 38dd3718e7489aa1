package opsdoc

import (
	"strings"
	"unicode"
)

// Snake is the op name of the Go name x: its words in lower case joined by
// "_", a word starting at an upper-case letter after a lower-case one, or
// at the last letter of an upper-case run followed by a lower-case letter;
// digits and a letter after them stay in their word (LayerNorm →
// layer_norm, GELUBackward → gelu_backward, Conv2DAffine → conv2d_affine).
func Snake(x string) string {
	r := []rune(x)
	var b strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) {
			prev := r[i-1]
			nextLower := i+1 < len(r) && unicode.IsLower(r[i+1])
			if unicode.IsLower(prev) || (unicode.IsUpper(prev) && nextLower) {
				b.WriteByte('_')
			}
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// camel is the Go name, first letter lower, of the op name: layer_norm →
// layerNorm, conv2d_backward → conv2dBackward.
func camel(op string) string {
	parts := strings.Split(op, "_")
	for i := 1; i < len(parts); i++ {
		if parts[i] != "" {
			parts[i] = strings.ToUpper(parts[i][:1]) + parts[i][1:]
		}
	}
	return strings.Join(parts, "")
}

// check lists the breaches of the rule of one name per op: for the Go
// name X, the autograd primitive opX is called Snake(X) and recorded by
// autograd.X; the kernel XKernel is called Snake(X), its CPU body in
// tensor is xCPU and its CUDA body x (x = camel(Snake(X))).
func (s *source) check(ops []primitive) []string {
	var out []string
	for _, op := range ops {
		x := strings.TrimPrefix(op.opVar, "op")
		if Snake(x) != op.name {
			out = append(out, "autograd."+op.opVar+" is def(\""+op.name+"\"), want \""+Snake(x)+"\"")
		}
		if f, ok := s.autograd.funcs[x]; !ok || !mentions(f.decl.Body, ref{"", op.opVar}) {
			out = append(out, "autograd."+op.opVar+" is not recorded by autograd."+x)
		}
	}
	for _, kv := range sortedKeys(s.kernelVars) {
		name, x := s.kernelVars[kv], strings.TrimSuffix(kv, "Kernel")
		if Snake(x) != name {
			out = append(out, "tensor."+kv+" is NewKernel(\""+name+"\"), want \""+Snake(x)+"\"")
		}
		for _, b := range s.cpuBodies[kv] {
			if _, inTensor := s.tensor.funcs[b]; inTensor && b != camel(name)+"CPU" {
				out = append(out, "tensor."+kv+"'s CPU body is "+b+", want "+camel(name)+"CPU")
			}
		}
		for _, b := range s.cudaBodies[kv] {
			if b != camel(name) {
				out = append(out, "tensor."+kv+"'s CUDA body is "+b+", want "+camel(name))
			}
		}
	}
	return out
}
