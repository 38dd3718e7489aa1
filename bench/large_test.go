package bench

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
)

// TestLargeStep runs LargeStep's code path (224×224 inputs, the batch
// sizes, evaluation mode, Adam) on small networks of the same families,
// registered for the test: inference leaves the weights as they are, a
// training step moves them; ProfileLarge writes a gzipped profile.
func TestLargeStep(t *testing.T) {
	tiny := map[string]func(r *rand.Rand) nn.Module[float32]{
		"tiny-resnet": func(r *rand.Rand) nn.Module[float32] {
			return nn.NewResNet(nn.NewVars[float32](), r, nn.ResNetConfig{Blocks: [4]int{1, 1, 1, 1}, Stem: 2, WidthPerGroup: 32, Classes: 1000})
		},
		"tiny-vit": func(r *rand.Rand) nn.Module[float32] {
			return nn.NewViT(nn.NewVars[float32](), r, nn.ViTConfig{Image: 224, Patch: 16, Layers: 1, Heads: 2, Hidden: 8, MLP: 16, Classes: 1000})
		},
	}
	for name, build := range tiny {
		LargeNets[name] = build
		defer delete(LargeNets, name)
		var prof bytes.Buffer
		if err := ProfileLarge(name, true, OnCPU, 1, &prof); err != nil {
			t.Fatalf("%s: ProfileLarge: %v", name, err)
		}
		if b := prof.Bytes(); len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Errorf("%s: ProfileLarge wrote %d bytes, not a gzipped profile", name, len(b))
		}
		for _, train := range []bool{false, true} {
			step, m := LargeStep(name, train, tensor.CPU[float32]{})
			var before [][]float32
			for _, p := range m.Params() {
				before = append(before, slices.Clone(p.Value.Data()))
			}
			step()
			moved := false
			for i, p := range m.Params() {
				moved = moved || !slices.Equal(p.Value.Data(), before[i])
			}
			if moved != train {
				t.Errorf("%s, train %v: weights moved: %v", name, train, moved)
			}
		}
	}
}

// BenchmarkLargeStep times LargeStep for each large network, inference and
// training step, a warm-up call untimed: the rows to profile, e.g.
// go test -run '^$' -bench 'LargeStep/resnet50/infer' -benchtime 10x
// -cpuprofile cpu.prof ./bench.
func BenchmarkLargeStep(b *testing.B) {
	for _, name := range LargeOrder {
		for _, mode := range []string{"infer", "train"} {
			b.Run(name+"/"+mode, func(b *testing.B) {
				run, _ := LargeStep(name, mode == "train", tensor.CPU[float32]{})
				loop(b, run)
			})
		}
	}
}
