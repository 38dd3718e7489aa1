package nn

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/autograd"
	"github.com/ecl-go/ecl/tensor"
)

// stateList is a parameter-free module whose state is the given list.
type stateList[T tensor.Float] []Named[T]

func (s stateList[T]) Forward(x *autograd.Var[T]) *autograd.Var[T] { return x }
func (s stateList[T]) Params() []*autograd.Var[T]                  { return nil }
func (s stateList[T]) SetTraining(bool)                            {}
func (s stateList[T]) State() []Named[T]                           { return s }

// named is t under name, held by a variable of its own.
func named[T tensor.Float](name string, t *tensor.Tensor[T]) Named[T] { return Named[T]{name, &t} }

// filled is a stateList with the names and shapes of s, every value v.
func filled[T tensor.Float](s stateList[T], v T) stateList[T] {
	out := make(stateList[T], len(s))
	for i, n := range s {
		out[i] = named(n.Name, tensor.Full(v, n.Value().Shape()...))
	}
	return out
}

func TestStateRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	m := withHead(r, ResNet20[float32], 10)
	x := tensor.RandUniform[float32](r, 0, 1, 2, 3, 8, 8)
	// A training pass moves the running statistics off their initial 0 and 1.
	autograd.NoGrad(func() { m.Forward(autograd.Const(x)) })
	path := filepath.Join(t.TempDir(), "resnet20.ecl")
	if err := Save(path, m); err != nil {
		t.Fatal(err)
	}
	got := withHead(rand.New(rand.NewPCG(2, 2)), ResNet20[float32], 10)
	if err := Load(path, got); err != nil {
		t.Fatal(err)
	}
	want := m.State()
	if !slices.EqualFunc(snapshot(want), snapshot(got.State()), slices.Equal) {
		t.Fatal("state differs after the round trip")
	}
	// 19 batch normalisations add two buffers each.
	if len(want) != len(m.Params())+2*19 || want[len(want)-1].Name != "main.bias" || want[3].Name != "backbone.1.running_mean" {
		t.Errorf("%d state tensors for %d parameters: %s, %s", len(want), len(m.Params()), want[3].Name, want[len(want)-1].Name)
	}
	if a, b := Predict[float32](m, x).Data(), Predict[float32](got, x).Data(); !slices.Equal(a, b) {
		t.Errorf("output after loading %v, saved model %v", b, a)
	}
	// The same file loads into float64, exactly.
	wide := withHead(rand.New(rand.NewPCG(2, 2)), ResNet20[float64], 10)
	if err := Load(path, wide); err != nil {
		t.Fatal(err)
	}
	for i, n := range wide.State() {
		if !slices.Equal(n.Value().Data(), tensor.Convert[float64](want[i].Value()).Data()) {
			t.Fatalf("tensor %d (%s) differs in float64", i, n.Name)
		}
	}
}

func TestStateNarrowing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.ecl")
	vals := []float64{1.0 / 3, -2e-50, 1e300}
	if err := Save(path, stateList[float64]{named("w", tensor.FromSlice(vals, 3))}); err != nil {
		t.Fatal(err)
	}
	dst := stateList[float32]{named("w", tensor.Zeros[float32](3))}
	if err := Load(path, dst); err != nil {
		t.Fatal(err)
	}
	// Rounded to nearest: 1/3 to float32, an underflow to −0, an overflow to +Inf.
	got := dst[0].Value().Data()
	if got[0] != float32(vals[0]) || got[1] != 0 || !math.Signbit(float64(got[1])) || !math.IsInf(float64(got[2]), 1) {
		t.Errorf("float64 → float32 gave %v", got)
	}
}

func TestLoadWrongArchitecture(t *testing.T) {
	path := filepath.Join(t.TempDir(), "lenet.ecl")
	if err := Save(path, withHead(rand.New(rand.NewPCG(1, 1)), LeNet5[float32], 10)); err != nil {
		t.Fatal(err)
	}
	m := withHead(rand.New(rand.NewPCG(2, 2)), ResNet20[float32], 10)
	before := snapshot(m.State())
	err := Load(path, m)
	if err == nil || !strings.Contains(err.Error(), path) ||
		!strings.Contains(err.Error(), `tensor 0 (backbone.0.weight): file has "conv1.weight" here: a different architecture`) {
		t.Errorf("error %v", err)
	}
	if !slices.EqualFunc(before, snapshot(m.State()), slices.Equal) {
		t.Error("a failed load changed the model")
	}
	// A prefix of the right tensors is still the wrong architecture.
	lin := NewLinear(NewVars[float32](), rand.New(rand.NewPCG(3, 3)), 2, 3)
	if err := Save(path, Sequential[float32]{lin}); err != nil {
		t.Fatal(err)
	}
	err = Load(path, Sequential[float32]{lin, NewLinear(NewVars[float32](), rand.New(rand.NewPCG(3, 3)), 3, 1)})
	if err == nil || !strings.Contains(err.Error(), "2 tensors, the model has 4") {
		t.Errorf("error %v", err)
	}
}

func TestLoadCorrupt(t *testing.T) {
	src := stateList[float64]{
		named("a", tensor.RandNormal[float64](rand.New(rand.NewPCG(4, 4)), 0, 1, 2, 3)),
		named("b", tensor.FromSlice([]float64{1, 2, 3, 4}, 4)),
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "s.ecl")
	if err := Save(path, src); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// Layout: header 0–20 (magic, version 8, dtype 12, count 16); tensor a:
	// name length 20, name 24, ndim 25, dims 29 and 37, data 45–93; tensor b:
	// name length 93, name 97, ndim 98, dims 102, data 110–142; checksum 142.
	if len(good) != 146 {
		t.Fatalf("file of %d bytes, want 146", len(good))
	}
	put32 := func(off int, v uint32) []byte {
		b := slices.Clone(good)
		binary.LittleEndian.PutUint32(b[off:], v)
		return b
	}
	forgedDim := slices.Clone(good)
	binary.LittleEndian.PutUint64(forgedDim[29:], 1<<40)
	renamed := slices.Clone(good)
	renamed[24] = 'c'
	flipped := slices.Clone(good)
	flipped[50] ^= 1
	for _, c := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "truncated at offset 0, reading magic"},
		{"cut in the header", good[:14], "truncated at offset 14, reading dtype"},
		{"cut in a name", good[:24], "tensor 0 (a): truncated at offset 24, reading name"},
		{"cut in the data", good[:60], "tensor 0 (a): truncated at offset 60, reading data"},
		{"cut in the checksum", good[:144], "truncated at offset 144, reading checksum"},
		{"magic", append([]byte("XCLSTATE"), good[8:]...), "not a state file"},
		{"version", put32(8, 3), "version 3, this reader knows 2"},
		{"version 1", put32(8, 1), "version 1, whose tensors have the names from before"},
		{"dtype", put32(12, 2), "dtype of 2 bytes"},
		{"huge count", put32(16, 1<<32-1), "4294967295 tensors, the model has 2"},
		{"short count", put32(16, 1), "1 tensors, the model has 2"},
		{"huge name", put32(20, 1<<32-1), "tensor 0 (a): name of 4294967295 bytes at offset 20"},
		{"other name", renamed, `tensor 0 (a): file has "c" here`},
		{"huge ndim", put32(25, 1<<32-1), "tensor 0 (a): 4294967295 dimensions at offset 25"},
		{"fewer dims", put32(25, 1), "tensor 0 (a): file has shape [2], the model [2 3]"},
		{"huge dim", forgedDim, "tensor 0 (a): file has shape [1099511627776 3], the model [2 3]"},
		{"flipped bit", flipped, "(corrupt file)"},
		{"trailing byte", append(slices.Clone(good), 0), "data after the checksum at offset 146"},
	} {
		bad := filepath.Join(dir, "bad.ecl")
		if err := os.WriteFile(bad, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		m := filled(src, 7)
		err := Load(bad, m)
		if err == nil || !strings.Contains(err.Error(), "nn.Load "+bad+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if !slices.EqualFunc(snapshot[float64](m), snapshot[float64](filled(src, 7)), slices.Equal) {
			t.Errorf("%s: a failed load changed the model", c.name)
		}
	}
	if err := Load(filepath.Join(dir, "missing.ecl"), src); err == nil || !strings.Contains(err.Error(), "missing.ecl") {
		t.Errorf("missing file: error %v", err)
	}
}

func TestSaveKeepsFileOnFailure(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.ecl")
	a := named("a", tensor.Ones[float64](3))
	if err := Save(path, stateList[float64]{a}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(path)
	// The second tensor's name is over the format's limit: the save fails
	// after writing the first.
	err := Save(path, stateList[float64]{a, named(strings.Repeat("x", maxName+1), tensor.Ones[float64](1))})
	if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "tensor 1") {
		t.Errorf("error %v", err)
	}
	after, _ := os.ReadFile(path)
	entries, _ := os.ReadDir(dir)
	if !slices.Equal(before, after) || len(entries) != 1 {
		t.Errorf("after a failed save: file changed %v, directory %v", !slices.Equal(before, after), entries)
	}
}
