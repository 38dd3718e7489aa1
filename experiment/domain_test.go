package experiment

import (
	"errors"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/ecl-go/ecl/datasets"
	"github.com/ecl-go/ecl/ecl"
	"github.com/ecl-go/ecl/nn"
	"github.com/ecl-go/ecl/tensor"
	"github.com/ecl-go/ecl/train"
)

// augmentCase is a small LeNet-5 task for baseAugmented's tests.
func augmentCase(t *testing.T) (func() *ecl.Classifier[float32], datasets.Split[float32], train.Recipe) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 8))
	n := 24
	x := make([]float32, n*3*smallSide*smallSide)
	for i := range x {
		x[i] = float32(rng.NormFloat64())
	}
	y := make([]int, n)
	for i := range y {
		y[i] = i % 3
	}
	net := func() *ecl.Classifier[float32] {
		m, err := NewSmallNet("lenet5", rand.New(rand.NewPCG(1, 2)), 3, 3)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	src := datasets.Split[float32]{Name: "src", X: tensor.FromSlice(x, n, 3, smallSide, smallSide), Y: y}
	return net, src, train.Recipe{Batch: 5, Base: train.Stage{Epochs: 4, LR: 1e-3}}
}

// params is a copy of m's parameters' values.
func params(m *ecl.Classifier[float32]) [][]float32 {
	var out [][]float32
	for _, p := range m.Params() {
		out = append(out, slices.Clone(p.Value.Data()))
	}
	return out
}

func sameParams(a, b [][]float32) bool {
	return slices.EqualFunc(a, b, func(x, y []float32) bool { return slices.Equal(x, y) })
}

// baseAugmented given the same inputs every epoch trains as train.Base
// does, bit for bit, calling the checkpoint after every epoch; with other
// inputs each epoch, killed after epoch 2 and resumed from that
// checkpoint (parameters, stream and stage state restored), it ends
// where the uninterrupted run ends.
func TestBaseAugmentedIsBaseEpochByEpoch(t *testing.T) {
	net, src, r := augmentCase(t)
	cpu := tensor.CPU[float32]{}
	ref := net()
	if err := train.Base(rand.New(rand.NewPCG(5, 6)), r, ref, src); err != nil {
		t.Fatal(err)
	}
	m := net()
	var epochs []int
	checkpoints := 0
	rr := r
	rr.Base.Checkpoint = func(train.StageState) error { checkpoints++; return nil }
	same := func(epoch int) (*tensor.Tensor[float32], error) { epochs = append(epochs, epoch); return src.X, nil }
	if err := baseAugmented(rand.New(rand.NewPCG(5, 6)), rr, m, src, same, cpu); err != nil {
		t.Fatal(err)
	}
	if !sameParams(params(m), params(ref)) || !slices.Equal(epochs, []int{0, 1, 2, 3}) || checkpoints != 4 {
		t.Errorf("differs from train.Base (epochs %v, %d checkpoints)", epochs, checkpoints)
	}

	varying := func(epoch int) (*tensor.Tensor[float32], error) {
		return tensor.Scale(src.X, float32(1+epoch)/2), nil
	}
	whole := net()
	if err := baseAugmented(rand.New(rand.NewPCG(5, 6)), r, whole, src, varying, cpu); err != nil {
		t.Fatal(err)
	}
	if sameParams(params(whole), params(ref)) {
		t.Fatal("other inputs each epoch trained the same network")
	}
	killed := errors.New("killed")
	pcg := rand.NewPCG(5, 6)
	m = net()
	var saved train.StageState
	var stream []byte
	file := filepath.Join(t.TempDir(), "m.state")
	rr = r
	rr.Base.Checkpoint = func(st train.StageState) error {
		if st.Epoch < 2 {
			return nil
		}
		saved = st
		stream, _ = pcg.MarshalBinary()
		if err := nn.Save(file, nn.Module[float32](m)); err != nil {
			t.Fatal(err)
		}
		return killed
	}
	if err := baseAugmented(rand.New(pcg), rr, m, src, varying, cpu); !errors.Is(err, killed) {
		t.Fatalf("killed run: %v", err)
	}
	resumed := net()
	if err := nn.Load(file, nn.Module[float32](resumed)); err != nil {
		t.Fatal(err)
	}
	pcg = rand.NewPCG(0, 0)
	if err := pcg.UnmarshalBinary(stream); err != nil {
		t.Fatal(err)
	}
	rr = r
	rr.Base.Resume = &saved
	epochs = nil
	again := func(epoch int) (*tensor.Tensor[float32], error) {
		epochs = append(epochs, epoch)
		return varying(epoch)
	}
	if err := baseAugmented(rand.New(pcg), rr, resumed, src, again, cpu); err != nil {
		t.Fatal(err)
	}
	if !sameParams(params(resumed), params(whole)) || !slices.Equal(epochs, []int{2, 3}) {
		t.Errorf("resumed after epoch 2 (epochs %v): differs from the uninterrupted run", epochs)
	}
	bad := func(int) (*tensor.Tensor[float32], error) { return tensor.Narrow(src.X, 0, 0, 3), nil }
	if err := baseAugmented(rand.New(rand.NewPCG(5, 6)), r, net(), src, bad, cpu); err == nil {
		t.Error("inputs of 3 rows for 24 accepted")
	}
}
