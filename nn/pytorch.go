package nn

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"

	"github.com/ecl-go/ecl/tensor"
)

// A torch.save file (PyTorch ≥ 1.6, _use_new_zipfile_serialization) is a
// zip archive whose entries share one folder, the stem (archive/ or the
// file's name):
//
//	stem/data.pkl    a pickle of the saved object; each tensor in it is
//	                 torch._utils._rebuild_tensor_v2(storage, offset,
//	                 size, stride, …), the storage a persistent id
//	                 ('storage', torch.FloatStorage, key, location, numel)
//	stem/data/key    the storage's numel elements, little-endian, stored
//	                 uncompressed
//	stem/byteorder   "little" (absent before PyTorch 1.10: little)
//	stem/version     the format's version
//
// A tensor is a view: a state_dict entry that is a slice or a transpose of
// a larger tensor stores that tensor's whole storage, and its offset and
// strides (in elements) say where its values are. pickle.go reads the
// pickle without running it.

// PyTorchError is an error in a torch.save file: the file, the archive's
// entry (empty for the archive itself) and, when known, the byte offset
// in that entry (in data.pkl, the opcode's) at which reading failed.
type PyTorchError struct {
	File   string
	Entry  string
	Offset int64 // -1 when no offset applies
	Err    error
}

func (e *PyTorchError) Error() string {
	s := "nn.LoadPyTorch " + e.File
	if e.Entry != "" {
		s += ": entry " + e.Entry
	}
	if e.Offset >= 0 {
		s += fmt.Sprintf(" at offset %d", e.Offset)
	}
	return s + ": " + e.Err.Error()
}

func (e *PyTorchError) Unwrap() error { return e.Err }

// PyTorchOptions changes what LoadPyTorch requires of a file.
type PyTorchOptions struct {
	// Skip names modules ("fc", "heads.head") or tensors whose tensors
	// are left out of the match: the model's keep their values and the
	// file's are ignored. It loads a backbone with a head of another
	// size, or without one, such as an ImageNet model (fc of 1000
	// classes) into a 7-class model.
	Skip []string
	// Rename, if set, maps each of the file's names to the model's
	// before matching, such as TorchvisionDenseNetName for torchvision's
	// published DenseNet weights.
	Rename func(name string) string
}

// denseNetLegacy is the pattern of the names in torchvision's published
// DenseNet weights, saved before its layers were renamed
// ("denselayer1.norm.1.weight" for "denselayer1.norm1.weight").
var denseNetLegacy = regexp.MustCompile(`^(.*denselayer\d+\.(?:norm|relu|conv))\.((?:[12])\.(?:weight|bias|running_mean|running_var))$`)

// TorchvisionDenseNetName maps a name of torchvision's published DenseNet
// weight files (densenet121-a639ec97.pth, densenet161-8d451a50.pth) to
// the name its DenseNet has, as torchvision's own loader does
// ("features.denseblock1.denselayer1.norm.1.weight" →
// "features.denseblock1.denselayer1.norm1.weight"); other names are kept.
func TorchvisionDenseNetName(name string) string {
	if m := denseNetLegacy.FindStringSubmatch(name); m != nil {
		return m[1] + m[2]
	}
	return name
}

// skips reports whether name lies under one of the skipped paths.
func (o *PyTorchOptions) skips(name string) bool {
	if o == nil {
		return false
	}
	for _, s := range o.Skip {
		if name == s || strings.HasPrefix(name, s+".") {
			return true
		}
	}
	return false
}

// LoadPyTorch restores the State of m from a torch.save file holding a
// state_dict (torch.save(model.state_dict(), path)) or a checkpoint
// dictionary with the state_dict under "state_dict" or "model"; a prefix
// "module." on every name (torch.nn.DataParallel's) is dropped. Tensors
// are matched by name, as LoadSafetensors matches them: the file must hold
// each of m's tensors, of its shape and of dtype float16, bfloat16,
// float32 or float64 (converted to T; any strides and storage offset),
// and no other tensor than the num_batches_tracked counters of
// BatchNorm layers, which are skipped; opt (nil for none) may skip a head
// or rename the file's tensors.
// Python is not needed: the pickle is read, not run.
//
// The whole file is checked and every value read before m changes. A bad
// file gives a *PyTorchError naming the file, the entry and the offset; a
// legacy (pre-1.6, non-zip) file, a TorchScript archive or a whole pickled
// module are recognised and named. Nothing is allocated from the file's
// sizes beyond the file's own size, except the values of the model's
// tensors.
func LoadPyTorch[T tensor.Float](path string, m Module[T], opt *PyTorchOptions) error {
	f, size, err := openSized(path, "nn.LoadPyTorch")
	if err != nil {
		return err
	}
	defer f.Close()
	return loadPyTorch(path, f, size, m, opt)
}

// loadPyTorch is LoadPyTorch of the file r of size bytes, named path.
func loadPyTorch[T tensor.Float](path string, r io.ReaderAt, size int64, m Module[T], opt *PyTorchOptions) error {
	a, err := openTorchArchive(path, r, size)
	if err != nil {
		return err
	}
	names, tensors, err := a.stateDict()
	if err != nil {
		return err
	}
	st := m.State()
	file := make([]fileTensor, len(names))
	for i, n := range names {
		if opt != nil && opt.Rename != nil {
			n = opt.Rename(n)
		}
		t := tensors[i]
		file[i] = fileTensor{n, t.shape, t.storage.dtype}
	}
	found, err := matchState(file, st, opt)
	if err != nil {
		return fmt.Errorf("nn.LoadPyTorch %s: %w", path, err)
	}
	vals := make([][]T, len(st))
	for i, j := range found {
		if j < 0 {
			continue
		}
		if vals[i], err = readTorchTensor[T](a, tensors[j]); err != nil {
			if pe, ok := err.(*PyTorchError); ok {
				pe.Err = fmt.Errorf("tensor %q: %w", names[j], pe.Err)
				return pe
			}
			return fmt.Errorf("nn.LoadPyTorch %s: tensor %q: %w", path, names[j], err)
		}
	}
	for i, n := range st {
		if vals[i] != nil {
			tensor.CopyInto(n.Value(), tensor.FromSliceOn(n.Value().Device(), vals[i], n.Value().Shape()...))
		}
	}
	return nil
}

// torchArchive is an opened torch.save file.
type torchArchive struct {
	path    string
	r       io.ReaderAt
	size    int64
	stem    string // the entries' folder, with its slash
	entries map[string]*zip.File
}

// legacyMagic is how a torch.save file of the legacy format (pickled with
// protocol 2) starts: PROTO 2, then LONG1 of torch's magic number.
var legacyMagic = []byte{0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19}

// openTorchArchive opens the zip archive r and finds its data.pkl.
func openTorchArchive(path string, r io.ReaderAt, size int64) (*torchArchive, error) {
	fail := func(entry string, err error) error { return &PyTorchError{path, entry, -1, err} }
	head := make([]byte, min(size, 512))
	if _, err := r.ReadAt(head, 0); err != nil && err != io.EOF {
		return nil, fail("", err)
	}
	if !bytes.HasPrefix(head, []byte("PK")) {
		return nil, fail("", notZip(head))
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fail("", fmt.Errorf("not a readable zip archive: %w", err))
	}
	a := &torchArchive{path: path, r: r, size: size, entries: map[string]*zip.File{}}
	var pkls []string
	for _, f := range zr.File {
		a.entries[f.Name] = f
		if f.Name == "data.pkl" || strings.HasSuffix(f.Name, "/data.pkl") {
			pkls = append(pkls, f.Name)
		}
	}
	for name := range a.entries {
		if name == "constants.pkl" || strings.HasSuffix(name, "/constants.pkl") {
			return nil, fail(name, errors.New("a TorchScript archive (torch.jit.save), not a torch.save file: load it in PyTorch and torch.save(model.state_dict(), path)"))
		}
	}
	switch len(pkls) {
	case 0:
		return nil, fail("", fmt.Errorf("a zip archive of %d entries without data.pkl, not a torch.save file", len(zr.File)))
	case 1:
	default:
		slices.Sort(pkls)
		return nil, fail("", fmt.Errorf("several data.pkl entries: %s", strings.Join(pkls, ", ")))
	}
	a.stem = strings.TrimSuffix(pkls[0], "data.pkl")
	if f, ok := a.entries[a.stem+"byteorder"]; ok {
		b, err := a.readEntry(f)
		if err != nil {
			return nil, err
		}
		if s := string(b); s != "little" {
			return nil, fail(f.Name, fmt.Errorf("byte order %q; only little-endian files are read", s))
		}
	}
	return a, nil
}

// notZip says what a file that is not a zip archive seems to be.
func notZip(head []byte) error {
	switch {
	case bytes.HasPrefix(head, legacyMagic):
		return errors.New("a legacy torch.save file (PyTorch < 1.6, or _use_new_zipfile_serialization=False), which is not read: re-save it in PyTorch ≥ 1.6 with torch.save(torch.load(path), new_path)")
	case len(head) >= 262 && string(head[257:262]) == "ustar":
		return errors.New("a tar archive: the oldest torch.save format (PyTorch < 0.4), which is not read: re-save it in PyTorch ≥ 1.6 with torch.save(torch.load(path), new_path)")
	case len(head) > 0 && head[0] == 0x80:
		return errors.New("a bare pickle, not a torch.save zip archive (a legacy torch.save file or pickle.dump output)")
	case len(head) >= 9 && head[8] == '{' && binary.LittleEndian.Uint64(head) < 1<<32:
		return errors.New("a safetensors file, not a torch.save archive: use nn.LoadSafetensors")
	}
	return errors.New("not a torch.save file: it is not a zip archive")
}

// readEntry reads the whole of a small entry, after checking that its
// size is within the file's.
func (a *torchArchive) readEntry(f *zip.File) ([]byte, error) {
	if f.UncompressedSize64 > uint64(a.size) {
		return nil, &PyTorchError{a.path, f.Name, -1, fmt.Errorf("%d bytes, more than the file's %d", f.UncompressedSize64, a.size)}
	}
	rc, err := f.Open()
	if err != nil {
		return nil, &PyTorchError{a.path, f.Name, -1, err}
	}
	defer rc.Close()
	b := make([]byte, f.UncompressedSize64)
	if _, err := io.ReadFull(rc, b); err != nil {
		return nil, &PyTorchError{a.path, f.Name, -1, err}
	}
	// Read to the end, where the reader checks the CRC.
	if n, err := rc.Read(make([]byte, 1)); n > 0 || err != io.EOF {
		if err == nil || err == io.EOF {
			err = errors.New("longer than its recorded size")
		}
		return nil, &PyTorchError{a.path, f.Name, -1, err}
	}
	return b, nil
}

// stateDict unpickles data.pkl and returns the state_dict's names and
// tensors, in the file's order, every tensor's storage checked to be an
// entry of the size it needs.
func (a *torchArchive) stateDict() ([]string, []*pyTensor, error) {
	pkl := a.entries[a.stem+"data.pkl"]
	b, err := a.readEntry(pkl)
	if err != nil {
		return nil, nil, err
	}
	root, storages, err := unpickle(b)
	if err != nil {
		var pe *pickleError
		if errors.As(err, &pe) {
			return nil, nil, &PyTorchError{a.path, pkl.Name, pe.at, pe.err}
		}
		return nil, nil, &PyTorchError{a.path, pkl.Name, -1, err}
	}
	fail := func(err error) error { return &PyTorchError{a.path, pkl.Name, -1, err} }
	for _, s := range storages {
		f, ok := a.entries[a.stem+"data/"+s.key]
		if !ok {
			return nil, nil, fail(fmt.Errorf("storage %q has no entry %sdata/%s", s.key, a.stem, s.key))
		}
		if f.UncompressedSize64 > uint64(a.size) || f.Method == zip.Store && f.CompressedSize64 != f.UncompressedSize64 {
			return nil, nil, &PyTorchError{a.path, f.Name, -1, fmt.Errorf("%d bytes (%d stored), beyond the file's %d or not as stored", f.UncompressedSize64, f.CompressedSize64, a.size)}
		}
		if need := uint64(s.numel) * uint64(torchStorageSize(s.dtype)); f.UncompressedSize64 < need {
			return nil, nil, &PyTorchError{a.path, f.Name, -1, fmt.Errorf("%d bytes, but its storage has %d elements of %s", f.UncompressedSize64, s.numel, s.dtype)}
		}
	}
	d, err := findStateDict(root)
	if err != nil {
		return nil, nil, fail(err)
	}
	names := make([]string, len(d.keys))
	tensors := make([]*pyTensor, len(d.keys))
	for i, k := range d.keys {
		name, ok := k.(string)
		if !ok {
			return nil, nil, fail(fmt.Errorf("the state_dict has a key of type %s", typeName(k)))
		}
		t, ok := d.vals[i].(*pyTensor)
		if !ok {
			return nil, nil, fail(fmt.Errorf("state_dict entry %q is a %s, not a tensor", name, typeName(d.vals[i])))
		}
		names[i], tensors[i] = name, t
	}
	if len(names) > 0 && !slices.ContainsFunc(names, func(n string) bool { return !strings.HasPrefix(n, "module.") }) {
		for i := range names {
			names[i] = strings.TrimPrefix(names[i], "module.")
		}
	}
	return names, tensors, nil
}

// torchStorageSize is the size of an element of dtype.
func torchStorageSize(dtype string) int64 {
	for _, t := range torchStorageTypes {
		if t.dtype == dtype {
			return t.size
		}
	}
	return 1
}

// findStateDict is the state_dict in a file's object: the object itself,
// or its "state_dict" or "model" entry.
func findStateDict(root any) (*pyDict, error) {
	d, ok := root.(*pyDict)
	if !ok {
		if o, ok := root.(*pyObject); ok && o.state != nil {
			return nil, fmt.Errorf("the file holds a pickled %s (torch.save(model)), not a state_dict: save model.state_dict() instead", typeName(root))
		}
		return nil, fmt.Errorf("the file holds a %s, not a state_dict", typeName(root))
	}
	for _, k := range []string{"state_dict", "model"} {
		if v, ok := d.get(k); ok {
			if inner, ok := v.(*pyDict); ok {
				return inner, nil
			}
			if o, ok := v.(*pyObject); ok && o.state != nil {
				return nil, fmt.Errorf("entry %q is a pickled %s (torch.save of a model), not a state_dict: save model.state_dict() instead", k, typeName(v))
			}
		}
	}
	for i, v := range d.vals {
		if _, ok := v.(*pyTensor); !ok {
			var keys []string
			for _, k := range d.keys {
				keys = append(keys, describe(k))
			}
			return nil, fmt.Errorf("no state_dict: entry %s is a %s, and no entry \"state_dict\" or \"model\" holds one (entries: %s)",
				describe(d.keys[i]), typeName(v), listed("", keys)[2:])
		}
	}
	return d, nil
}

// readTorchTensor reads t's values from its storage's entry, converted
// to T: the span of the storage its elements lie in (at most the entry's
// size), then each element by its strides.
func readTorchTensor[T tensor.Float](a *torchArchive, t *pyTensor) ([]T, error) {
	f := a.entries[a.stem+"data/"+t.storage.key]
	size := torchStorageSize(t.storage.dtype)
	n, err := t.extent()
	if err != nil {
		return nil, err
	}
	span := make([]byte, n*size)
	at := t.offset * size
	fail := func(err error) error { return &PyTorchError{a.path, f.Name, at, err} }
	if f.Method == zip.Store {
		off, err := f.DataOffset()
		if err != nil {
			return nil, fail(err)
		}
		if _, err := a.r.ReadAt(span, off+at); err != nil {
			return nil, fail(err)
		}
	} else {
		b, err := a.readEntry(f) // within the file's size, checked
		if err != nil {
			return nil, err
		}
		copy(span, b[at:])
	}
	elems := 1
	for _, d := range t.shape {
		elems *= int(d)
	}
	dec := floatDecoder[T](t.storage.dtype)
	vals := make([]T, elems)
	if t.contiguous() {
		for i := range vals {
			vals[i] = dec(span[int64(i)*size:])
		}
		return vals, nil
	}
	idx := make([]int64, len(t.shape))
	var pos int64
	for i := range vals {
		vals[i] = dec(span[pos*size:])
		// Advance the row-major index, the last axis fastest.
		for k := len(idx) - 1; k >= 0; k-- {
			idx[k]++
			pos += t.stride[k]
			if idx[k] < t.shape[k] {
				break
			}
			pos -= idx[k] * t.stride[k]
			idx[k] = 0
		}
	}
	return vals, nil
}

// fileTensor is what matching by name needs of a tensor in a file.
type fileTensor struct {
	name  string
	shape []int64
	dtype string // safetensors' names: F32, F16, BF16, F64, I64, …
}

// matchState returns, for each of want, the index of its tensor in file,
// or -1 for a tensor opt skips. The file must hold exactly want's tensors
// (num_batches_tracked and those opt skips aside), each of want's shape
// and of a float dtype; the error lists the names missing and unexpected.
func matchState[T tensor.Float](file []fileTensor, want []Named[T], opt *PyTorchOptions) ([]int, error) {
	byName := map[string]int{}
	for i, t := range file {
		if _, dup := byName[t.name]; dup {
			return nil, fmt.Errorf("the file has two tensors named %q", t.name)
		}
		byName[t.name] = i
	}
	inModel := map[string]bool{}
	var missing, unexpected []string
	found := make([]int, len(want))
	for i, w := range want {
		if inModel[w.Name] {
			return nil, fmt.Errorf("the model has two tensors named %q", w.Name)
		}
		inModel[w.Name] = true
		found[i] = -1
		if opt.skips(w.Name) {
			continue
		}
		j, ok := byName[w.Name]
		if !ok {
			missing = append(missing, w.Name)
			continue
		}
		t := file[j]
		if !slices.Equal(t.shape, int64s(w.Value().Shape())) {
			return nil, fmt.Errorf("tensor %q: file has shape %v, the model %v", t.name, t.shape, w.Value().Shape())
		}
		if !slices.Contains([]string{"F16", "BF16", "F32", "F64"}, t.dtype) {
			return nil, fmt.Errorf("tensor %q: dtype %s, want F16, BF16, F32 or F64", t.name, t.dtype)
		}
		found[i] = j
	}
	for _, t := range file {
		if !inModel[t.name] && !opt.skips(t.name) && t.name != "num_batches_tracked" && !strings.HasSuffix(t.name, ".num_batches_tracked") {
			unexpected = append(unexpected, t.name)
		}
	}
	if len(missing)+len(unexpected) > 0 {
		return nil, fmt.Errorf("a different model: %s", strings.Join(slices.DeleteFunc([]string{
			listed("missing from the file", missing), listed("not in the model", unexpected)}, func(s string) bool { return s == "" }), "; "))
	}
	return found, nil
}
