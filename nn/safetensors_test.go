package nn

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
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

// lenet5 is LeNet-5 with its main head (train.py's LeNet5) and, if aux > 0,
// an auxiliary head, which Forward does not use.
func lenet5[T tensor.Float](rng *rand.Rand, aux int) (model, all Module[T]) {
	return headed(rng, LeNet5[T], 10, aux)
}

// headed is arch with a main head of the given classes and, if aux > 0, an
// auxiliary head: the model, and a module holding both heads' state.
func headed[T tensor.Float](rng *rand.Rand, arch func(Vars[T], *rand.Rand) (Sequential[T], int), classes, aux int) (model, all Module[T]) {
	vb := NewVars[T]()
	b, w := arch(vb, rng)
	m := Sequential[T]{b, NewLinear(vb.Sub("main"), rng, w, classes)}
	if aux == 0 {
		return m, m
	}
	return m, append(slices.Clone(m), NewLinear(vb.Sub("aux"), rng, w, aux))
}

// lenet5Input is gen_lenet5.py's input: x[n, c, h, w] = ((7n + 5c + 3h +
// 11w) mod 17 − 8) / 8.
func lenet5Input[T tensor.Float]() *tensor.Tensor[T] {
	x := tensor.Zeros[T](4, 3, 28, 28)
	d := x.Data()
	for i := range d {
		n, c, h, w := i/(3*28*28), i/(28*28)%3, i/28%28, i%28
		d[i] = T(((7*n+5*c+3*h+11*w)%17 - 8)) / 8
	}
	return tensor.FromSlice(d, 4, 3, 28, 28)
}

// The fixture written by gen_lenet5.py (Python's struct and json, F64, F16,
// BF16 and F32 tensors, header keys not in data order) loads into LeNet-5
// with the values it was written with, and the model gives PyTorch's
// logits.
func TestLoadSafetensorsFromPython(t *testing.T) {
	var want struct{ Logits [][]float64 }
	b, err := os.ReadFile("testdata/lenet5_logits.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &want); err != nil {
		t.Fatal(err)
	}
	m64, _ := lenet5[float64](rand.New(rand.NewPCG(1, 1)), 0)
	if err := LoadSafetensors("testdata/lenet5.safetensors", m64); err != nil {
		t.Fatal(err)
	}
	for ti, n := range m64.State() {
		for j, v := range n.Value().Data() {
			if w := float64((37*j+101*ti)%255-127) / 1024; v != w {
				t.Fatalf("%s[%d] = %v, written %v", n.Name, j, v, w)
			}
		}
	}
	m32, _ := lenet5[float32](rand.New(rand.NewPCG(1, 1)), 0)
	if err := LoadSafetensors("testdata/lenet5.safetensors", m32); err != nil {
		t.Fatal(err)
	}
	got64, got32 := Predict(m64, lenet5Input[float64]()).Data(), Predict(m32, lenet5Input[float32]()).Data()
	for i, row := range want.Logits {
		for k, w := range row {
			if g := got64[i*10+k]; math.Abs(g-w) > 1e-12 {
				t.Errorf("float64 logit [%d, %d] = %v, PyTorch %v", i, k, g, w)
			}
			if g := float64(got32[i*10+k]); math.Abs(g-w) > 1e-5 {
				t.Errorf("float32 logit [%d, %d] = %v, PyTorch %v", i, k, g, w)
			}
		}
	}
}

// The Go models have the state_dict names, order and shapes of train.py's
// PyTorch models (num_batches_tracked, which BatchNorm2d does not keep,
// aside), as gen_lenet5.py listed them.
func TestNamesMatchPyTorch(t *testing.T) {
	b, err := os.ReadFile("testdata/torch_names.json")
	if err != nil {
		t.Fatal(err)
	}
	var torch map[string][][2]json.RawMessage
	if err := json.Unmarshal(b, &torch); err != nil {
		t.Fatal(err)
	}
	for arch, f := range map[string]func(Vars[float32], *rand.Rand) (Sequential[float32], int){
		"lenet5": LeNet5[float32], "resnet20": ResNet20[float32], "densenet40": DenseNet40[float32],
	} {
		var want []string
		for _, e := range torch[arch] {
			if name := strings.Trim(string(e[0]), `"`); !strings.HasSuffix(name, "num_batches_tracked") {
				want = append(want, name+strings.ReplaceAll(string(e[1]), " ", ""))
			}
		}
		_, all := headed(rand.New(rand.NewPCG(1, 1)), f, 10, 2)
		var got []string
		for _, n := range all.State() {
			shape, _ := json.Marshal(n.Value().Shape())
			got = append(got, n.Name+string(shape))
		}
		if len(want) == 0 || !slices.Equal(got, want) {
			t.Errorf("%s: Go state\n%v\nPyTorch\n%v", arch, got, want)
		}
	}
}

func TestSafetensorsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	_, m := headed(r, ResNet20[float32], 10, 3)
	// A training pass moves the running statistics off their initial 0 and 1.
	autograd.NoGrad(func() {
		m.(Sequential[float32])[0].Forward(autograd.Const(tensor.RandUniform[float32](r, 0, 1, 2, 3, 8, 8)))
	})
	path := filepath.Join(t.TempDir(), "resnet20.safetensors")
	if err := SaveSafetensors(path, m, map[string]string{"format": "pt"}); err != nil {
		t.Fatal(err)
	}
	_, got := headed(rand.New(rand.NewPCG(2, 2)), ResNet20[float32], 10, 3)
	if err := LoadSafetensors(path, got); err != nil {
		t.Fatal(err)
	}
	if !slices.EqualFunc(snapshot(m.State()), snapshot(got.State()), slices.Equal) {
		t.Fatal("state differs after the round trip")
	}
	_, wide := headed(rand.New(rand.NewPCG(2, 2)), ResNet20[float64], 10, 3)
	if err := LoadSafetensors(path, wide); err != nil {
		t.Fatal(err)
	}
	for i, n := range wide.State() {
		if !slices.Equal(n.Value().Data(), tensor.Convert[float64](m.State()[i].Value()).Data()) {
			t.Fatalf("%s differs in float64", n.Name)
		}
	}
	b, _ := os.ReadFile(path)
	header, err := parseHeaderOf(b)
	if err != nil {
		t.Fatal(err)
	}
	if (len(header)+8)%8 != 0 || !strings.Contains(header, `"__metadata__":{"format":"pt"}`) || !strings.Contains(header, `"backbone.1.running_var":{"dtype":"F32","shape":[16]`) {
		t.Errorf("file of %d bytes, header %.300s…", len(b), header)
	}
}

// parseHeaderOf is the header of a safetensors file, checked.
func parseHeaderOf(b []byte) (string, error) {
	n := binary.LittleEndian.Uint64(b)
	_, _, err := parseSafetensorsHeader(b[8:8+n], int64(len(b))-8-int64(n))
	return string(b[8 : 8+n]), err
}

// stFile is a safetensors file of the given header and data.
func stFile(header string, data []byte) []byte {
	return append(append(binary.LittleEndian.AppendUint64(nil, uint64(len(header))), header...), data...)
}

// twoTensors is the model of the bad-file cases: a [2, 3] and b [2].
func twoTensors() stateList[float64] {
	return stateList[float64]{named("a", tensor.Full(7.0, 2, 3)), named("b", tensor.Full(7.0, 2))}
}

const goodHeader = `{"a":{"dtype":"F64","shape":[2,3],"data_offsets":[0,48]},"b":{"dtype":"F32","shape":[2],"data_offsets":[48,56]}}`

func TestLoadSafetensorsBad(t *testing.T) {
	data := make([]byte, 56)
	for i := range 6 {
		binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(float64(i)))
	}
	binary.LittleEndian.PutUint32(data[48:], math.Float32bits(-1))
	binary.LittleEndian.PutUint32(data[52:], math.Float32bits(0.5))
	good := stFile(goodHeader, data)
	dir := t.TempDir()
	entry := func(b string) string {
		return strings.Replace(goodHeader, `"data_offsets":[48,56]}`, `"data_offsets":[48,56]},`+b, 1)
	}
	hugeLen := slices.Clone(good)
	binary.LittleEndian.PutUint64(hugeLen, 1<<62)
	for _, c := range []struct {
		name string
		file []byte
		want string // "" for a file that loads
	}{
		{"good", good, ""},
		{"padded header, metadata first", stFile(`{"__metadata__":{"k":"v"},`+goodHeader[1:]+"   ", data), ""},
		{"PyTorch's counter", stFile(strings.Replace(goodHeader, `[48,56]}`, `[48,56]},"bn.num_batches_tracked":{"dtype":"I64","shape":[],"data_offsets":[56,64]}`, 1), append(slices.Clone(data), make([]byte, 8)...)), ""},
		{"empty", nil, "file of 0 bytes, shorter than the 8-byte header length"},
		{"header beyond the file", hugeLen, "header of 4611686018427387904 bytes, beyond the file's 176"},
		{"header length one too many", stFile(goodHeader, nil)[:8+len(goodHeader)-1], "beyond the file's"},
		{"not an object", stFile(`["a"]`, data), "header does not start with '{'"},
		{"not JSON", stFile(`{"a":`, data), `tensor "a": unexpected EOF`},
		{"cut", stFile(`{"a":{"dtype":"F64","shape":[2,3],"data_offsets":[0,48]}`, data), "header: unexpected EOF"},
		{"not UTF-8", stFile("{\"\xff\":1}", data), "header is not UTF-8"},
		{"after the object", stFile(goodHeader+`{}`, data), "header has more after its object"},
		{"twice", stFile(entry(`"a":{"dtype":"F64","shape":[0],"data_offsets":[56,56]}}`), data), `header names "a" twice`},
		{"metadata of numbers", stFile(`{"__metadata__":{"k":1},`+goodHeader[1:], data), "__metadata__ is not an object of strings"},
		{"no dtype", stFile(strings.Replace(goodHeader, `"dtype":"F64",`, "", 1), data), `tensor "a": want dtype, shape and two data_offsets`},
		{"three offsets", stFile(strings.Replace(goodHeader, `[0,48]`, `[0,48,56]`, 1), data), `tensor "a": want dtype, shape and two data_offsets`},
		{"offset not a number", stFile(strings.Replace(goodHeader, `[0,48]`, `[0,"48"]`, 1), data), `tensor "a": json: cannot unmarshal string`},
		{"huge offset", stFile(strings.Replace(goodHeader, `[0,48]`, `[0,1e30]`, 1), data), `tensor "a": json: cannot unmarshal number 1e30`},
		{"unknown dtype", stFile(strings.Replace(goodHeader, `"F64"`, `"F128"`, 1), data), `tensor "a": unknown dtype "F128"`},
		{"negative size", stFile(strings.Replace(goodHeader, `[2,3]`, `[-2,-3]`, 1), data), `tensor "a": shape [-2 -3] has a negative size`},
		{"forged shape", stFile(strings.Replace(goodHeader, `[2,3]`, `[1099511627776,1099511627776,1099511627776]`, 1), data), `tensor "a": dtype F64 and shape [1099511627776 1099511627776 1099511627776] do not fill data_offsets [0, 48]`},
		{"shape against range", stFile(strings.Replace(goodHeader, `[2,3]`, `[3,3]`, 1), data), `tensor "a": dtype F64 and shape [3 3] do not fill data_offsets [0, 48]`},
		{"beyond the data", stFile(strings.Replace(goodHeader, `[48,56]`, `[48,64]`, 1), data), `tensor "b": data_offsets [48, 64] outside the 56 bytes of data`},
		{"backwards", stFile(strings.Replace(goodHeader, `[0,48]`, `[48,0]`, 1), data), `tensor "a": data_offsets [48, 0] outside`},
		{"overlap", stFile(strings.Replace(strings.Replace(goodHeader, `[48,56]`, `[40,48]`, 1), `"shape":[2,3],"data_offsets":[0,48]`, `"shape":[6],"data_offsets":[0,48]`, 1), data), `tensors "a" and "b" overlap`},
		{"gap", stFile(strings.Replace(goodHeader, `[48,56]`, `[56,64]`, 1), append(slices.Clone(data), make([]byte, 8)...)), "bytes 48 to 56 of the data belong to no tensor"},
		{"trailing data", stFile(goodHeader, append(slices.Clone(data), 0)), "bytes 56 to 57 of the data belong to no tensor"},
		{"missing and unexpected", stFile(strings.Replace(goodHeader, `"b"`, `"c"`, 1), data), "a different model: missing from the file: b; not in the model: c"},
		{"other shape", stFile(strings.Replace(goodHeader, `"shape":[2,3]`, `"shape":[3,2]`, 1), data), `tensor "a": file has shape [3 2], the model [2 3]`},
		{"integers", stFile(strings.Replace(goodHeader, `"F32"`, `"I32"`, 1), data), `tensor "b": dtype I32, want F16, BF16, F32 or F64`},
	} {
		path := filepath.Join(dir, "bad.safetensors")
		if err := os.WriteFile(path, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		m := twoTensors()
		err := LoadSafetensors(path, m)
		if c.want == "" {
			if err != nil || !slices.Equal(m[0].Value().Data(), []float64{0, 1, 2, 3, 4, 5}) || !slices.Equal(m[1].Value().Data(), []float64{-1, 0.5}) {
				t.Errorf("%s: error %v, state %v %v", c.name, err, m[0].Value().Data(), m[1].Value().Data())
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "nn.LoadSafetensors "+path+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if !slices.EqualFunc(snapshot[float64](m), snapshot[float64](twoTensors()), slices.Equal) {
			t.Errorf("%s: a failed load changed the model", c.name)
		}
	}
	if err := LoadSafetensors(filepath.Join(dir, "missing.safetensors"), twoTensors()); err == nil || !strings.Contains(err.Error(), "missing.safetensors") {
		t.Errorf("missing file: error %v", err)
	}
	twice := stateList[float64]{named("a", tensor.Ones[float64](1)), named("a", tensor.Ones[float64](1))}
	if err := SaveSafetensors(filepath.Join(dir, "twice.safetensors"), twice, nil); err == nil || !strings.Contains(err.Error(), `tensor name "a" is empty, reserved or used twice`) {
		t.Errorf("saving two tensors named a: error %v", err)
	}
}

// F16 and BF16 decode exactly, subnormals, infinities and NaN included.
func TestHalfFloats(t *testing.T) {
	for _, c := range []struct {
		bits uint16
		want float32
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x7bff, 65504}, {0x0400, 1.0 / (1 << 14)},
		{0x0001, 1.0 / (1 << 24)}, {0x83ff, -1023.0 / (1 << 24)}, {0x8000, float32(math.Copysign(0, -1))},
		{0x7c00, float32(math.Inf(1))}, {0xfc00, float32(math.Inf(-1))}, {0x3555, 0.333251953125},
	} {
		if got := halfToFloat32(c.bits); math.Float32bits(got) != math.Float32bits(c.want) {
			t.Errorf("F16 %#04x = %v, want %v", c.bits, got, c.want)
		}
	}
	if !math.IsNaN(float64(halfToFloat32(0x7e00))) {
		t.Error("F16 0x7e00 is not NaN")
	}
	if got := decodeFloat[float32]("BF16", []byte{0x80, 0x3f}); got != 1 {
		t.Errorf("BF16 0x3f80 = %v", got)
	}
	if got := decodeFloat[float32]("BF16", []byte{0x49, 0xc0}); got != -3.140625 {
		t.Errorf("BF16 0xc049 = %v", got)
	}
}

// FuzzReadSafetensors reads arbitrary bytes as a safetensors file for a
// model of a [2, 3] and b [2]: no input may panic, allocate beyond the
// file's size or return a state of the wrong sizes.
func FuzzReadSafetensors(f *testing.F) {
	var good bytes.Buffer
	if err := writeSafetensors(&good, twoTensors(), map[string]string{"k": "v"}); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add(stFile(goodHeader, make([]byte, 56)))
	f.Add(stFile(strings.Replace(goodHeader, `"F32"`, `"BF16","x":1`, 1), make([]byte, 52)))
	f.Add(stFile(`{"a":{"dtype":"F16","shape":[2,3],"data_offsets":[0,12]},"b":{"dtype":"F64","shape":[2],"data_offsets":[12,28]}}`, make([]byte, 28)))
	f.Add(stFile(`{"__metadata__":{},"a":{"dtype":"F64","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, make([]byte, 8)))
	f.Add([]byte{255, 255, 255, 255, 255, 255, 255, 255, '{'})
	f.Fuzz(func(t *testing.T, b []byte) {
		want := twoTensors()
		vals, err := readSafetensors(bytes.NewReader(b), int64(len(b)), want)
		if err != nil {
			return
		}
		if len(vals) != 2 || len(vals[0]) != 6 || len(vals[1]) != 2 {
			t.Fatalf("accepted a file into %d tensors", len(vals))
		}
	})
}
