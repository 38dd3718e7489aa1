package nn

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ecl-go/ecl/tensor"
)

// readerSpec is reader.json, written by make_fixtures.py: the names,
// shapes and dtypes of reader.pth's state_dict, in order, and the index T
// of fixtureValue that gives each tensor's values.
type readerSpec []readerTensor

type readerTensor struct {
	Name  string
	Shape []int
	DType string
	T     int
}

func loadReaderSpec(t testing.TB) readerSpec {
	b, err := os.ReadFile("testdata/reader.json")
	if err != nil {
		t.Fatal(err)
	}
	var s readerSpec
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatal(err)
	}
	return s
}

// fixtureValue is make_fixtures.py's value j of tensor t.
func fixtureValue(t, j int) float64 { return float64((37*j+101*t)%255-127) / 1024 }

// readerModel is a model with the float tensors of spec (all but the
// integer counter), every value 7.
func readerModel[T tensor.Float](spec readerSpec) stateList[T] {
	var m stateList[T]
	for _, s := range spec {
		if s.DType != "I64" {
			m = append(m, named(s.Name, tensor.Full(T(7), s.Shape...)))
		}
	}
	return m
}

// reader.pth, a checkpoint written by torch.save with the state_dict
// under "state_dict" beside an argparse Namespace, an optimizer's state
// and other values, loads with every value as written: float32, float16,
// bfloat16 and float64 storages, a transposed view, a slice at a storage
// offset, rows sharing a storage, a channels-last convolution weight, a
// 0-d tensor; the int64 counter skipped.
func TestLoadPyTorchReader(t *testing.T) {
	spec := loadReaderSpec(t)
	check := func(name string, st []Named[float64]) {
		for _, n := range st {
			ti := spec[slices.IndexFunc(spec, func(s readerTensor) bool { return s.Name == n.Name })].T
			for j, v := range n.Value().Data() {
				if w := fixtureValue(ti, j); v != w {
					t.Fatalf("%s: %s[%d] = %v, written %v", name, n.Name, j, v, w)
				}
			}
		}
	}
	m64 := readerModel[float64](spec)
	if err := LoadPyTorch("testdata/reader.pth", m64, nil); err != nil {
		t.Fatal(err)
	}
	check("float64", m64)
	m32 := readerModel[float32](spec)
	if err := LoadPyTorch("testdata/reader.pth", m32, nil); err != nil {
		t.Fatal(err)
	}
	as64 := make([]Named[float64], len(m32))
	for i, n := range m32 {
		as64[i] = named(n.Name, tensor.Convert[float64](n.Value()))
	}
	check("float32", as64)

	// {"model": state_dict} with DataParallel's "module." prefix.
	m := readerModel[float64](spec[:2])
	if err := LoadPyTorch("testdata/reader_model.pth", m, nil); err != nil {
		t.Fatal(err)
	}
	check("reader_model.pth", m)
}

// A model that differs from the file is named tensor by tensor; Skip
// leaves a head out of the match.
func TestLoadPyTorchNames(t *testing.T) {
	spec := loadReaderSpec(t)
	m := readerModel[float64](spec[:1])
	m = append(m, named("head.weight", tensor.Full(7.0, 7)), named("head.bias", tensor.Full(7.0, 7)))
	err := LoadPyTorch("testdata/reader_model.pth", m, nil)
	if err == nil || !strings.Contains(err.Error(), "a different model: missing from the file: head.weight, head.bias; not in the model: a.bias") {
		t.Errorf("error %v", err)
	}
	if err := LoadPyTorch("testdata/reader_model.pth", m, &PyTorchOptions{Skip: []string{"head", "a.bias"}}); err != nil {
		t.Fatal(err)
	}
	if m[0].Value().Data()[0] != fixtureValue(0, 0) || m[1].Value().Data()[0] != 7 {
		t.Errorf("a.weight %v, head.weight %v", m[0].Value().Data()[:1], m[1].Value().Data())
	}
	renamed := stateList[float64]{named("x.weight", tensor.Full(7.0, 3, 4)), named("a.bias", tensor.Full(7.0, 4))}
	rename := func(n string) string { return strings.Replace(n, "a.weight", "x.weight", 1) }
	if err := LoadPyTorch("testdata/reader_model.pth", renamed, &PyTorchOptions{Rename: rename}); err != nil || renamed[0].Value().Data()[1] != fixtureValue(0, 1) {
		t.Errorf("renamed: error %v, x.weight %v", err, renamed[0].Value().Data())
	}
	for in, want := range map[string]string{
		"features.denseblock1.denselayer1.norm.1.weight":       "features.denseblock1.denselayer1.norm1.weight",
		"features.denseblock4.denselayer16.conv.2.weight":      "features.denseblock4.denselayer16.conv2.weight",
		"features.denseblock2.denselayer3.norm.2.running_mean": "features.denseblock2.denselayer3.norm2.running_mean",
		"features.denseblock1.denselayer1.norm1.weight":        "features.denseblock1.denselayer1.norm1.weight",
		"features.transition1.norm.weight":                     "features.transition1.norm.weight",
	} {
		if got := TorchvisionDenseNetName(in); got != want {
			t.Errorf("TorchvisionDenseNetName(%q) = %q, want %q", in, got, want)
		}
	}
	merge := func(n string) string { return "a.weight" }
	if err := LoadPyTorch("testdata/reader_model.pth", renamed, &PyTorchOptions{Rename: merge}); err == nil || !strings.Contains(err.Error(), `the file has two tensors named "a.weight"`) {
		t.Errorf("two names renamed to one: error %v", err)
	}
	wrong := stateList[float64]{named("a.weight", tensor.Full(7.0, 4, 3)), named("a.bias", tensor.Full(7.0, 4))}
	if err := LoadPyTorch("testdata/reader_model.pth", wrong, nil); err == nil || !strings.Contains(err.Error(), `tensor "a.weight": file has shape [3 4], the model [4 3]`) {
		t.Errorf("transposed shape: error %v", err)
	}
}

// pk writes pickles for the bad-file cases, as torch.save's pickler does.
type pk struct{ bytes.Buffer }

func (p *pk) op(b ...byte) *pk { p.Write(b); return p }

func (p *pk) str(s string) *pk {
	p.op('X').Write(binary.LittleEndian.AppendUint32(nil, uint32(len(s))))
	p.WriteString(s)
	return p
}

func (p *pk) global(mod, name string) *pk {
	p.WriteString("c" + mod + "\n" + name + "\n")
	return p
}

// int is BININT, or LONG1 of 8 bytes beyond int32, as Python pickles ints.
func (p *pk) int(v int) *pk {
	if v != int(int32(v)) {
		p.op(0x8a, 8).Write(binary.LittleEndian.AppendUint64(nil, uint64(v)))
		return p
	}
	p.op('J').Write(binary.LittleEndian.AppendUint32(nil, uint32(int32(v))))
	return p
}

func (p *pk) ints(vs ...int) *pk {
	p.op('(')
	for _, v := range vs {
		p.int(v)
	}
	return p.op('t')
}

// tensor is _rebuild_tensor_v2(storage, offset, shape, stride, False,
// OrderedDict()) of the storage ('storage', torch.typ, key, 'cpu', numel).
func (p *pk) tensor(typ, key string, numel, offset int, shape, stride []int) *pk {
	p.global("torch._utils", "_rebuild_tensor_v2").op('(')
	p.op('(').str("storage").global("torch", typ).str(key).str("cpu").int(numel).op('t', 'Q')
	p.int(offset).ints(shape...).ints(stride...).op(0x89)
	p.global("collections", "OrderedDict").op(')', 'R')
	return p.op('t', 'R')
}

// stateDict is the pickle of an OrderedDict of the given entries.
func stateDict(entries ...func(*pk)) []byte {
	p := &pk{}
	p.op(0x80, 2).global("collections", "OrderedDict").op(')', 'R', 'q', 0, '(')
	for _, e := range entries {
		e(p)
	}
	p.op('u', '.')
	return p.Bytes()
}

// torchZip is a torch.save archive of the pickle pkl and the storages.
func torchZip(pkl []byte, storages map[string][]byte) []byte {
	return torchZipMethod(zip.Store, pkl, storages)
}

// torchZipMethod is torchZip with its entries compressed by method.
func torchZipMethod(method uint16, pkl []byte, storages map[string][]byte) []byte {
	var b bytes.Buffer
	w := zip.NewWriter(&b)
	add := func(name string, data []byte) {
		f, err := w.CreateHeader(&zip.FileHeader{Name: "archive/" + name, Method: method})
		if err != nil {
			panic(err)
		}
		f.Write(data)
	}
	add("data.pkl", pkl)
	keys := make([]string, 0, len(storages))
	for k := range storages {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		add("data/"+k, storages[k])
	}
	add("version", []byte("3\n"))
	if err := w.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// f32s is the little-endian float32 bytes of 0, 1, …, n−1.
func f32s(n int) []byte {
	var b []byte
	for i := range n {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(i)))
	}
	return b
}

// abModel is the model of the bad-file cases: a [2, 3] and b [2].
func abModel() stateList[float64] {
	return stateList[float64]{named("a", tensor.Full(7.0, 2, 3)), named("b", tensor.Full(7.0, 2))}
}

// goodAB is the state_dict of abModel: a the transpose of storage 0's
// first 6 elements (strides (1, 2)), b elements 6 and 7 of the same storage.
func goodAB(key string) []byte {
	return stateDict(
		func(p *pk) { p.str("a").tensor("FloatStorage", "0", 8, 0, []int{2, 3}, []int{1, 2}) },
		func(p *pk) { p.str("b").tensor("FloatStorage", key, 8, 6, []int{2}, []int{1}) },
	)
}

func TestLoadPyTorchBad(t *testing.T) {
	st := map[string][]byte{"0": f32s(8)}
	good := torchZip(goodAB("0"), st)
	legacy, err := os.ReadFile("testdata/legacy.pth")
	if err != nil {
		t.Fatal(err)
	}
	safetensors, err := os.ReadFile("testdata/lenet5.safetensors")
	if err != nil {
		t.Fatal(err)
	}
	reader, err := os.ReadFile("testdata/reader.pth")
	if err != nil {
		t.Fatal(err)
	}
	// A storage entry whose header claims 1 TiB, and a tensor whose strides
	// reach 5·2^30 elements into it: nothing of that size may be allocated.
	forged := rawZip(t, []rawEntry{
		{"data.pkl", stateDict(func(p *pk) { p.str("a").tensor("FloatStorage", "0", 1<<38, 0, []int{2, 3}, []int{1 << 30, 1 << 31}) }), zip.Store, 0},
		{"data/0", f32s(4), zip.Store, 1 << 40},
	})
	// A deflated storage whose stream is garbage.
	garbled := rawZip(t, []rawEntry{
		{"data.pkl", goodAB("0"), zip.Store, 0},
		{"data/0", []byte("not a deflate stream"), zip.Deflate, 32},
	})
	badTensor := func(offset int, shape, stride []int) []byte {
		return torchZip(stateDict(func(p *pk) { p.str("a").tensor("FloatStorage", "0", 8, offset, shape, stride) }), st)
	}
	for _, c := range []struct {
		name  string
		file  []byte
		entry string
		at    int64 // the error's offset, -2 for any
		want  string
	}{
		{"good", good, "", 0, ""},
		{"deflated", torchZipMethod(zip.Deflate, goodAB("0"), st), "", 0, ""},
		{"garbled storage", garbled.Bytes(), "archive/data/0", -1, `tensor "a": flate: corrupt input`},
		{"empty", nil, "", -1, "not a torch.save file: it is not a zip archive"},
		{"legacy", legacy, "", -1, "a legacy torch.save file (PyTorch < 1.6"},
		{"safetensors", safetensors, "", -1, "a safetensors file, not a torch.save archive: use nn.LoadSafetensors"},
		{"cut", reader[:len(reader)/2], "", -1, "not a readable zip archive"},
		{"no data.pkl", torchZip(nil, nil)[:0], "", -1, "not a torch.save file"},
		{"forged storage size", forged.Bytes(), "archive/data/0", -1, "1099511627776 bytes (16 stored), beyond the file's"},
		{"missing storage", torchZip(goodAB("1"), st), "archive/data.pkl", -1, `storage "1" has no entry archive/data/1`},
		{"short storage", torchZip(goodAB("0"), map[string][]byte{"0": f32s(7)}), "archive/data/0", -1, "28 bytes, but its storage has 8 elements of F32"},
		{"offset beyond", badTensor(3, []int{2, 3}, []int{3, 1}), "archive/data.pkl", -2, "size [2 3], stride [3 1] and offset 3 reach beyond the storage's 8 elements"},
		{"stride beyond", badTensor(0, []int{2, 3}, []int{1, 4}), "archive/data.pkl", -2, "reach beyond the storage's 8 elements"},
		{"forged shape", badTensor(0, []int{1 << 30, 1 << 30, 1 << 30}, []int{0, 0, 0}), "archive/data.pkl", -2, "of over 2^40 elements"},
		{"negative", badTensor(0, []int{2, -3}, []int{1, 2}), "archive/data.pkl", -2, "negative"},
		{"unknown opcode", torchZip(append(goodAB("0")[:31], 0xff), st), "archive/data.pkl", 31, "opcode 0xff is not one torch.save writes"},
		{"cut pickle", torchZip(goodAB("0")[:40], st), "archive/data.pkl", -2, "the pickle ends before STOP"},
		{"underflow", torchZip([]byte{0x80, 2, 't'}, st), "archive/data.pkl", 2, "no MARK to pop to"},
		{"a list", torchZip([]byte{0x80, 2, ']', '.'}, st), "archive/data.pkl", -1, "the file holds a list, not a state_dict"},
		{"not tensors", torchZip(stateDict(func(p *pk) { p.str("epoch").int(3) }), st), "archive/data.pkl", -1, `no state_dict: entry "epoch" is a int`},
		{"pickled module", torchZip((&pk{}).op(0x80, 2).global("torchvision.models.resnet", "ResNet").op(')', 0x81, '}', 'b', '.').Bytes(), st),
			"archive/data.pkl", -1, "a pickled torchvision.models.resnet.ResNet object (torch.save(model)), not a state_dict"},
		{"bad storage type", torchZip(stateDict(func(p *pk) { p.str("a").tensor("os", "0", 8, 0, []int{2}, []int{1}) }), st), "archive/data.pkl", -2, "storage type torch.os is not one of torch's"},
		{"integers", torchZip(stateDict(
			func(p *pk) { p.str("a").tensor("LongStorage", "0", 4, 0, []int{2, 3}, []int{0, 0}) },
			func(p *pk) { p.str("b").tensor("FloatStorage", "1", 2, 0, []int{2}, []int{1}) },
		), map[string][]byte{"0": f32s(8), "1": f32s(2)}), "", -1, `tensor "a": dtype I64, want F16, BF16, F32 or F64`},
		{"missing", torchZip(stateDict(func(p *pk) { p.str("a").tensor("FloatStorage", "0", 8, 0, []int{2, 3}, []int{3, 1}) }), st), "", -1, "a different model: missing from the file: b"},
	} {
		path := filepath.Join(t.TempDir(), "bad.pth")
		if err := os.WriteFile(path, c.file, 0o644); err != nil {
			t.Fatal(err)
		}
		m := abModel()
		err := LoadPyTorch(path, m, nil)
		if c.want == "" {
			if err != nil || !slices.Equal(m[0].Value().Data(), []float64{0, 2, 4, 1, 3, 5}) || !slices.Equal(m[1].Value().Data(), []float64{6, 7}) {
				t.Errorf("%s: error %v, state %v %v", c.name, err, m[0].Value().Data(), m[1].Value().Data())
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), "nn.LoadPyTorch "+path) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
			continue
		}
		var pe *PyTorchError
		if c.entry != "" || c.at != -1 {
			if !errors.As(err, &pe) || pe.Entry != c.entry || c.at != -2 && pe.Offset != c.at {
				t.Errorf("%s: error %#v, want entry %q at %d", c.name, pe, c.entry, c.at)
			}
		}
		if !slices.EqualFunc(snapshot[float64](m), snapshot[float64](abModel()), slices.Equal) {
			t.Errorf("%s: a failed load changed the model", c.name)
		}
	}
}

// FuzzLoadPyTorch reads arbitrary bytes as a torch.save file (input
// starting with "PK") or as the data.pkl of an archive whose storages 0
// and 1 hold 16 float32 each, into a model of a [2, 3] and b [2]: no input
// may panic, allocate beyond the file's size (the model's tensors aside)
// or load values of the wrong sizes.
func FuzzLoadPyTorch(f *testing.F) {
	storages := map[string][]byte{"0": f32s(16), "1": f32s(16)}
	reader, err := os.ReadFile("testdata/reader.pth")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(reader)
	if a, err := openTorchArchive("reader.pth", bytes.NewReader(reader), int64(len(reader))); err == nil {
		if b, err := a.readEntry(a.entries[a.stem+"data.pkl"]); err == nil {
			f.Add(b)
		}
	}
	f.Add(goodAB("0"))
	f.Add(goodAB("1"))
	f.Add(torchZip(goodAB("0"), storages))
	f.Fuzz(func(t *testing.T, b []byte) {
		if !bytes.HasPrefix(b, []byte("PK")) {
			b = torchZip(b, storages)
		}
		m := abModel()
		if err := loadPyTorch("fuzz.pth", bytes.NewReader(b), int64(len(b)), m, nil); err != nil {
			return
		}
		if m[0].Value().Len() != 6 || m[1].Value().Len() != 2 {
			t.Fatalf("loaded tensors of %d and %d values", m[0].Value().Len(), m[1].Value().Len())
		}
	})
}

// rawEntry is an entry of rawZip: its bytes as stored, its method, and the
// uncompressed size its header claims (0: the stored length).
type rawEntry struct {
	name   string
	data   []byte
	method uint16
	size   uint64
}

// rawZip writes a torch.save archive ("archive/" + each name) whose
// headers say what the entries give, true or not.
func rawZip(t *testing.T, entries []rawEntry) *bytes.Buffer {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		h := &zip.FileHeader{Name: "archive/" + e.name, Method: e.method, CompressedSize64: uint64(len(e.data)), UncompressedSize64: uint64(len(e.data))}
		if e.size > 0 {
			h.UncompressedSize64 = e.size
		}
		w, err := zw.CreateRaw(h)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return &b
}
