package opsdoc

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the module root, two levels up from this package.
const root = "../.."

// TestOpsDocIsCurrent: docs/ops.md is what Build makes of the tree, and no
// name breaks the rule of one name per op.
func TestOpsDocIsCurrent(t *testing.T) {
	tab, err := Build(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range tab.Mismatches {
		t.Error(m)
	}
	got, err := os.ReadFile(filepath.Join(root, Path))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, tab.Markdown()) {
		t.Errorf("%s is stale; run go run ./internal/opsdoc/gen from the module root", Path)
	}
}

// TestRowsFollowTheLayers checks rows against facts read off the sources
// by hand: layer norm's rule, bodies and tests, an elementwise op on the
// devices' Unary, and Adam, a kernel that no primitive reaches.
func TestRowsFollowTheLayers(t *testing.T) {
	tab, err := Build(root)
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]Row{}
	for _, r := range tab.Rows {
		if _, dup := rows[r.Op]; dup {
			t.Errorf("op %s has two rows", r.Op)
		}
		rows[r.Op] = r
	}
	ln := rows["layer_norm"]
	for _, c := range []struct{ what, got, want string }{
		{"autograd", strings.Join(ln.Autograd, " "), "autograd.LayerNorm"},
		{"rule", ln.Rule, "autograd/gradients.go:gradLayerNorm"},
		{"kernels", strings.Join(ln.Kernels, " "), "layer_norm layer_norm_backward"},
		{"CPU", strings.Join(ln.CPU, " "), "tensor/transformer.go:layerNormCPU tensor/transformer.go:layerNormBackwardCPU"},
		{"CUDA", ln.CUDA[0], "kernels/cuda/transformer.go:layerNorm → src/transformer.cu:layer_norm"},
		{"CPU tests", strings.Join(ln.CPUTests, " "), "TestLayerNormFusedMatchesComposed"},
		{"CUDA tests", strings.Join(ln.CUDATests, " "), "TestLayerNorm"},
		{"exp's CPU", strings.Join(rows["exp"].CPU, " "), "tensor/cpu.go:CPU.Unary (OpExp)"},
		{"adam's CPU", strings.Join(rows["adam"].CPU, " "), "optim/adam.go:adamBody"},
	} {
		if c.got != c.want {
			t.Errorf("%s: %q, want %q", c.what, c.got, c.want)
		}
	}
	if ln.GradCases != 2 {
		t.Errorf("layer_norm: %d gradient cases, want 2", ln.GradCases)
	}
}

func TestSnake(t *testing.T) {
	for x, want := range map[string]string{
		"LayerNorm": "layer_norm", "GELUBackward": "gelu_backward", "Conv2D": "conv2d", "Conv2DAffine": "conv2d_affine",
		"MaxPool2D": "max_pool2d", "MatMul": "mat_mul", "PowScalar": "pow_scalar", "Exp": "exp",
	} {
		if got := Snake(x); got != want {
			t.Errorf("Snake(%q) = %q, want %q", x, got, want)
		}
		if got := camel(want); !strings.EqualFold(got, x) || got[0] != strings.ToLower(x[:1])[0] {
			t.Errorf("camel(%q) = %q, want %q with its first letter lowered", want, got, x)
		}
	}
}

// TestBadRootFails: a directory without the packages is an error.
func TestBadRootFails(t *testing.T) {
	if _, err := Build(t.TempDir()); err == nil || !strings.Contains(err.Error(), "no Go functions") {
		t.Errorf("Build of an empty directory: error %v", err)
	}
}
