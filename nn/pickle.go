package nn

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// This file is the subset of Python's pickle format that torch.save writes
// for a state_dict or a checkpoint dictionary (protocols 2 to 5): an
// unpickler that builds inert Go values and calls nothing. Globals are
// names; the handful that torch uses to rebuild tensors and ordered
// dictionaries are interpreted, any other call is kept as an opaque object
// (so that a checkpoint's extra entries, an argparse Namespace or an
// optimizer's state, do not stop the reading of its state_dict).

// pyGlobal is a global named by GLOBAL or STACK_GLOBAL: module.name.
type pyGlobal struct{ module, name string }

func (g pyGlobal) String() string { return g.module + "." + g.name }

// pyTuple is a Python tuple.
type pyTuple []any

// pyList is a Python list or set, shared by reference as in Python.
type pyList struct{ items []any }

// pyDict is a Python dict or OrderedDict, in insertion order; a string key
// set twice keeps its first place and its last value, as in Python.
type pyDict struct {
	keys, vals []any
	str        map[string]int
}

func newPyDict() *pyDict { return &pyDict{str: map[string]int{}} }

func (d *pyDict) set(k, v any) {
	if s, ok := k.(string); ok {
		if i, ok := d.str[s]; ok {
			d.vals[i] = v
			return
		}
		d.str[s] = len(d.keys)
	}
	d.keys, d.vals = append(d.keys, k), append(d.vals, v)
}

// get is the value of the string key k.
func (d *pyDict) get(k string) (any, bool) {
	i, ok := d.str[k]
	if !ok {
		return nil, false
	}
	return d.vals[i], true
}

// pyObject is the result of calling a global this reader does not
// interpret: its callable, arguments, the state BUILD gave it and the items
// that SETITEMS or APPENDS added (a dict or list subclass).
type pyObject struct {
	callable any
	args     pyTuple
	state    any
	items    *pyDict
	list     []any
}

// pyBigInt is an integer beyond int64 (LONG1, LONG4), kept as its bytes.
type pyBigInt []byte

// pyStorage is a tensor storage named by a persistent id: ('storage',
// torch.FloatStorage, key, location, numel); its bytes are the archive's
// entry data/key.
type pyStorage struct {
	dtype    string // safetensors' names: F32, F16, BF16, F64, I64, …
	key      string
	location string
	numel    int64
}

// torchStorageTypes maps torch's storage classes to a dtype name and the
// size of an element.
var torchStorageTypes = map[string]struct {
	dtype string
	size  int64
}{
	"DoubleStorage": {"F64", 8}, "FloatStorage": {"F32", 4}, "HalfStorage": {"F16", 2},
	"BFloat16Storage": {"BF16", 2}, "LongStorage": {"I64", 8}, "IntStorage": {"I32", 4},
	"ShortStorage": {"I16", 2}, "CharStorage": {"I8", 1}, "ByteStorage": {"U8", 1},
	"BoolStorage": {"BOOL", 1}, "ComplexFloatStorage": {"C64", 8}, "ComplexDoubleStorage": {"C128", 16},
}

// pyTensor is a tensor rebuilt by torch._utils._rebuild_tensor_v2: a view
// of a storage with an offset and strides, in elements.
type pyTensor struct {
	storage       *pyStorage
	offset        int64
	shape, stride []int64
}

// maxTensorElems bounds the number of elements of a tensor described by a
// file, so that no product of sizes overflows.
const maxTensorElems = 1 << 40

// pickleError is an error at byte offset at of a pickle.
type pickleError struct {
	at  int64
	err error
}

func (e *pickleError) Error() string { return fmt.Sprintf("offset %d: %v", e.at, e.err) }
func (e *pickleError) Unwrap() error { return e.err }

// unpickler holds the state of one run over a pickle.
type unpickler struct {
	b        []byte
	pos      int
	stack    []any
	marks    []int
	memo     map[uint32]any
	storages map[string]*pyStorage
}

// unpickle runs the pickle b and returns the value STOP leaves on the stack
// and the storages its persistent ids named, by key.
func unpickle(b []byte) (any, map[string]*pyStorage, error) {
	u := &unpickler{b: b, memo: map[uint32]any{}, storages: map[string]*pyStorage{}}
	for {
		at := u.pos
		done, err := u.step()
		if err != nil {
			return nil, nil, &pickleError{int64(at), err}
		}
		if done {
			if len(u.stack) != 1 {
				return nil, nil, &pickleError{int64(at), fmt.Errorf("STOP with %d values on the stack, want 1", len(u.stack))}
			}
			return u.stack[0], u.storages, nil
		}
	}
}

var errPickleEnd = errors.New("the pickle ends before STOP")

// read returns the next n bytes.
func (u *unpickler) read(n int) ([]byte, error) {
	if n < 0 || n > len(u.b)-u.pos {
		return nil, errPickleEnd
	}
	s := u.b[u.pos : u.pos+n]
	u.pos += n
	return s, nil
}

// readLen reads a little-endian length of k bytes (1, 4 or 8) and then
// that many bytes.
func (u *unpickler) readLen(k int) ([]byte, error) {
	b, err := u.read(k)
	if err != nil {
		return nil, err
	}
	var n uint64
	switch k {
	case 1:
		n = uint64(b[0])
	case 4:
		n = uint64(binary.LittleEndian.Uint32(b))
	default:
		n = binary.LittleEndian.Uint64(b)
	}
	if n > uint64(len(u.b)-u.pos) {
		return nil, fmt.Errorf("a length of %d bytes, beyond the pickle's end", n)
	}
	return u.read(int(n))
}

// line reads up to a newline, which it drops.
func (u *unpickler) line() (string, error) {
	i := bytes.IndexByte(u.b[u.pos:], '\n')
	if i < 0 {
		return "", errPickleEnd
	}
	s := string(u.b[u.pos : u.pos+i])
	u.pos += i + 1
	return s, nil
}

func (u *unpickler) push(v any) { u.stack = append(u.stack, v) }

func (u *unpickler) pop() (any, error) {
	if len(u.stack) == 0 || len(u.marks) > 0 && len(u.stack) == u.marks[len(u.marks)-1] {
		return nil, errors.New("stack underflow")
	}
	v := u.stack[len(u.stack)-1]
	u.stack = u.stack[:len(u.stack)-1]
	return v, nil
}

func (u *unpickler) top() (any, error) {
	if len(u.stack) == 0 || len(u.marks) > 0 && len(u.stack) == u.marks[len(u.marks)-1] {
		return nil, errors.New("stack underflow")
	}
	return u.stack[len(u.stack)-1], nil
}

// popMark pops the values above the last MARK, and the mark.
func (u *unpickler) popMark() ([]any, error) {
	if len(u.marks) == 0 {
		return nil, errors.New("no MARK to pop to")
	}
	m := u.marks[len(u.marks)-1]
	u.marks = u.marks[:len(u.marks)-1]
	items := append([]any(nil), u.stack[m:]...)
	u.stack = u.stack[:m]
	return items, nil
}

// popN pops n values, returned in stack order.
func (u *unpickler) popN(n int) ([]any, error) {
	vs := make([]any, n)
	for i := n - 1; i >= 0; i-- {
		v, err := u.pop()
		if err != nil {
			return nil, err
		}
		vs[i] = v
	}
	return vs, nil
}

// memoKey reads the memo key of a PUT or GET opcode: a decimal line (op
// 'p' or 'g', protocol 0), one byte ('q', 'h') or four little-endian bytes
// ('r', 'j').
func (u *unpickler) memoKey(op byte) (uint32, error) {
	switch op {
	case 'p', 'g':
		s, err := u.line()
		if err != nil {
			return 0, err
		}
		k, err := strconv.ParseUint(s, 10, 32)
		return uint32(k), err
	case 'q', 'h':
		b, err := u.read(1)
		if err != nil {
			return 0, err
		}
		return uint32(b[0]), nil
	default:
		b, err := u.read(4)
		if err != nil {
			return 0, err
		}
		return binary.LittleEndian.Uint32(b), nil
	}
}

// memoPut stores the top of the stack under k.
func (u *unpickler) memoPut(k uint32) error {
	v, err := u.top()
	if err != nil {
		return err
	}
	u.memo[k] = v
	return nil
}

// memoGet pushes the value stored under k.
func (u *unpickler) memoGet(k uint32) error {
	v, ok := u.memo[k]
	if !ok {
		return fmt.Errorf("memo key %d was never stored", k)
	}
	u.push(v)
	return nil
}

// step runs one opcode and reports STOP.
func (u *unpickler) step() (bool, error) {
	ops, err := u.read(1)
	if err != nil {
		return false, err
	}
	op := ops[0]
	switch op {
	case 0x80: // PROTO
		p, err := u.read(1)
		if err != nil {
			return false, err
		}
		if p[0] > 5 {
			return false, fmt.Errorf("pickle protocol %d, beyond 5", p[0])
		}
	case 0x95: // FRAME: a length hint
		_, err = u.read(8)
	case '.': // STOP
		return true, nil
	case '(': // MARK
		u.marks = append(u.marks, len(u.stack))
	case ')':
		u.push(pyTuple{})
	case ']':
		u.push(&pyList{})
	case '}':
		u.push(newPyDict())
	case 0x8f: // EMPTY_SET
		u.push(&pyList{})
	case 'N':
		u.push(nil)
	case 0x88:
		u.push(true)
	case 0x89:
		u.push(false)
	case 'J': // BININT
		var b []byte
		if b, err = u.read(4); err == nil {
			u.push(int64(int32(binary.LittleEndian.Uint32(b))))
		}
	case 'K': // BININT1
		var b []byte
		if b, err = u.read(1); err == nil {
			u.push(int64(b[0]))
		}
	case 'M': // BININT2
		var b []byte
		if b, err = u.read(2); err == nil {
			u.push(int64(binary.LittleEndian.Uint16(b)))
		}
	case 0x8a: // LONG1
		var b []byte
		if b, err = u.readLen(1); err == nil {
			u.push(pyLong(b))
		}
	case 0x8b: // LONG4
		var b []byte
		if b, err = u.readLen(4); err == nil {
			u.push(pyLong(b))
		}
	case 'I': // INT, protocol 0: a decimal line, 01 and 00 for booleans
		var s string
		if s, err = u.line(); err == nil {
			err = u.pushInt(s)
		}
	case 'L': // LONG, protocol 0: a decimal line ending in L
		var s string
		if s, err = u.line(); err == nil {
			if len(s) > 0 && s[len(s)-1] == 'L' {
				s = s[:len(s)-1]
			}
			err = u.pushInt(s)
		}
	case 'G': // BINFLOAT, big-endian
		var b []byte
		if b, err = u.read(8); err == nil {
			u.push(math.Float64frombits(binary.BigEndian.Uint64(b)))
		}
	case 'X', 0x8c, 0x8d: // BINUNICODE, SHORT_BINUNICODE, BINUNICODE8
		var b []byte
		if b, err = u.readLen(map[byte]int{'X': 4, 0x8c: 1, 0x8d: 8}[op]); err == nil {
			u.push(string(b))
		}
	case 'T', 'U', 'B', 'C', 0x8e, 0x96: // BINSTRING, SHORT_BINSTRING, BINBYTES, SHORT_BINBYTES, BINBYTES8, BYTEARRAY8
		var b []byte
		if b, err = u.readLen(map[byte]int{'T': 4, 'U': 1, 'B': 4, 'C': 1, 0x8e: 8, 0x96: 8}[op]); err == nil {
			u.push(append([]byte(nil), b...))
		}
	case 't', 'l', 'd', 0x91: // TUPLE, LIST, DICT, FROZENSET
		var items []any
		if items, err = u.popMark(); err != nil {
			break
		}
		switch op {
		case 't':
			u.push(pyTuple(items))
		case 'd':
			if len(items)%2 != 0 {
				return false, fmt.Errorf("DICT of %d items, not pairs", len(items))
			}
			d := newPyDict()
			for i := 0; i < len(items); i += 2 {
				d.set(items[i], items[i+1])
			}
			u.push(d)
		default:
			u.push(&pyList{items})
		}
	case 0x85, 0x86, 0x87: // TUPLE1, TUPLE2, TUPLE3
		var items []any
		if items, err = u.popN(int(op - 0x84)); err == nil {
			u.push(pyTuple(items))
		}
	case 'a', 'e', 0x90: // APPEND, APPENDS, ADDITEMS
		err = u.appends(op)
	case 's', 'u': // SETITEM, SETITEMS
		err = u.setitems(op)
	case '0': // POP
		if _, err = u.pop(); err != nil && len(u.marks) > 0 && len(u.stack) == u.marks[len(u.marks)-1] {
			u.marks, err = u.marks[:len(u.marks)-1], nil // POP of a MARK
		}
	case '1': // POP_MARK
		_, err = u.popMark()
	case '2': // DUP
		var v any
		if v, err = u.top(); err == nil {
			u.push(v)
		}
	case 'p', 'q', 'r': // PUT, BINPUT, LONG_BINPUT
		var k uint32
		if k, err = u.memoKey(op); err == nil {
			err = u.memoPut(k)
		}
	case 0x94: // MEMOIZE
		err = u.memoPut(uint32(len(u.memo)))
	case 'g', 'h', 'j': // GET, BINGET, LONG_BINGET
		var k uint32
		if k, err = u.memoKey(op); err == nil {
			err = u.memoGet(k)
		}
	case 'c': // GLOBAL module\nname\n
		var mod, name string
		if mod, err = u.line(); err == nil {
			if name, err = u.line(); err == nil {
				u.push(pyGlobal{mod, name})
			}
		}
	case 0x93: // STACK_GLOBAL
		var vs []any
		if vs, err = u.popN(2); err == nil {
			mod, ok1 := vs[0].(string)
			name, ok2 := vs[1].(string)
			if !ok1 || !ok2 {
				return false, errors.New("STACK_GLOBAL of values that are not strings")
			}
			u.push(pyGlobal{mod, name})
		}
	case 'R': // REDUCE
		var vs []any
		if vs, err = u.popN(2); err == nil {
			args, ok := vs[1].(pyTuple)
			if !ok {
				return false, fmt.Errorf("REDUCE with arguments of type %s, not a tuple", typeName(vs[1]))
			}
			var v any
			if v, err = call(vs[0], args, 0); err == nil {
				u.push(v)
			}
		}
	case 0x81: // NEWOBJ cls args
		var vs []any
		if vs, err = u.popN(2); err == nil {
			args, _ := vs[1].(pyTuple)
			u.push(newObject(vs[0], args))
		}
	case 0x92: // NEWOBJ_EX cls args kwargs
		var vs []any
		if vs, err = u.popN(3); err == nil {
			args, _ := vs[1].(pyTuple)
			u.push(newObject(vs[0], args))
		}
	case 'b': // BUILD: set the state of the object below
		var state, obj any
		if state, err = u.pop(); err == nil {
			if obj, err = u.top(); err == nil {
				if o, ok := obj.(*pyObject); ok {
					o.state = state
				} // a dict's attributes (a state_dict's _metadata) or a tensor's are not needed
			}
		}
	case 'Q': // BINPERSID
		var pid any
		if pid, err = u.pop(); err == nil {
			var s *pyStorage
			if s, err = u.persistent(pid); err == nil {
				u.push(s)
			}
		}
	default:
		return false, fmt.Errorf("opcode 0x%02x is not one torch.save writes", op)
	}
	return false, err
}

// pyLong is the value of a two's-complement little-endian integer: int64
// if it fits, else a pyBigInt.
func pyLong(b []byte) any {
	if len(b) > 8 {
		return pyBigInt(append([]byte(nil), b...))
	}
	var v uint64
	for i := len(b) - 1; i >= 0; i-- {
		v = v<<8 | uint64(b[i])
	}
	if n := uint(len(b)) * 8; n > 0 && n < 64 && v>>(n-1)&1 == 1 {
		v |= ^uint64(0) << n // sign-extend
	}
	return int64(v)
}

// pushInt pushes the integer of a protocol-0 line.
func (u *unpickler) pushInt(s string) error {
	switch s {
	case "00":
		u.push(false)
		return nil
	case "01":
		u.push(true)
		return nil
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return fmt.Errorf("integer %q: %w", s, err)
	}
	u.push(v)
	return nil
}

// popItems pops the n values of a one-item opcode (one), or else the
// values above the mark.
func (u *unpickler) popItems(one bool, n int) ([]any, error) {
	if one {
		return u.popN(n)
	}
	return u.popMark()
}

// appends runs APPEND (one value), APPENDS or ADDITEMS (the values above
// the mark) onto the list, set or list-like object below them.
func (u *unpickler) appends(op byte) error {
	items, err := u.popItems(op == 'a', 1)
	if err != nil {
		return err
	}
	target, err := u.top()
	if err != nil {
		return err
	}
	switch l := target.(type) {
	case *pyList:
		l.items = append(l.items, items...)
	case *pyObject:
		l.list = append(l.list, items...)
	default:
		return fmt.Errorf("appending to a %s", typeName(target))
	}
	return nil
}

// setitems runs SETITEM (one pair) or SETITEMS (the pairs above the mark)
// onto the dict or dict-like object below them.
func (u *unpickler) setitems(op byte) error {
	items, err := u.popItems(op == 's', 2)
	if err != nil {
		return err
	}
	if len(items)%2 != 0 {
		return fmt.Errorf("SETITEMS of %d values, not pairs", len(items))
	}
	target, err := u.top()
	if err != nil {
		return err
	}
	var d *pyDict
	switch t := target.(type) {
	case *pyDict:
		d = t
	case *pyObject:
		if t.items == nil {
			t.items = newPyDict()
		}
		d = t.items
	default:
		return fmt.Errorf("setting items of a %s", typeName(target))
	}
	for i := 0; i < len(items); i += 2 {
		d.set(items[i], items[i+1])
	}
	return nil
}

// persistent resolves a persistent id, which torch.save makes for each
// storage: ('storage', torch.FloatStorage, key, location, numel).
func (u *unpickler) persistent(pid any) (*pyStorage, error) {
	t, ok := pid.(pyTuple)
	if !ok || len(t) != 5 || t[0] != "storage" {
		return nil, fmt.Errorf("persistent id %s is not ('storage', type, key, location, numel)", describe(pid))
	}
	g, ok1 := t[1].(pyGlobal)
	key, ok2 := t[2].(string)
	loc, ok3 := t[3].(string)
	numel, ok4 := t[4].(int64)
	if !ok1 || !ok2 || !ok3 || !ok4 || numel < 0 {
		return nil, fmt.Errorf("persistent id %s is not ('storage', type, key, location, numel)", describe(pid))
	}
	st, ok := torchStorageTypes[g.name]
	if g.module != "torch" || !ok {
		return nil, fmt.Errorf("storage type %s is not one of torch's", g)
	}
	if numel > maxTensorElems {
		return nil, fmt.Errorf("storage %q of %d elements", key, numel)
	}
	if s, ok := u.storages[key]; ok {
		if s.dtype != st.dtype || s.numel != numel {
			return nil, fmt.Errorf("storage %q named twice, as %s×%d and %s×%d", key, s.dtype, s.numel, st.dtype, numel)
		}
		return s, nil
	}
	s := &pyStorage{dtype: st.dtype, key: key, location: loc, numel: numel}
	u.storages[key] = s
	return s, nil
}

// newObject is NEWOBJ's object of class cls: an empty dict for
// OrderedDict, else opaque.
func newObject(cls any, args pyTuple) any {
	if g, ok := cls.(pyGlobal); ok && g.module == "collections" && g.name == "OrderedDict" {
		return newPyDict()
	}
	return &pyObject{callable: cls, args: args}
}

// maxRebuildDepth bounds the nesting of torch's _rebuild_from_type_v2,
// which calls another rebuild function.
const maxRebuildDepth = 4

// call is REDUCE: the globals torch uses to rebuild tensors and ordered
// dictionaries are interpreted, any other callable gives an opaque object.
func call(f any, args pyTuple, depth int) (any, error) {
	g, ok := f.(pyGlobal)
	if !ok {
		return &pyObject{callable: f, args: args}, nil
	}
	switch g.String() {
	case "collections.OrderedDict":
		if len(args) != 0 {
			return nil, errors.New("OrderedDict called with arguments")
		}
		return newPyDict(), nil
	case "torch._utils._rebuild_tensor_v2", "torch._utils._rebuild_tensor":
		return rebuildTensor(args)
	case "torch._utils._rebuild_parameter", "torch._utils._rebuild_parameter_with_state":
		if len(args) < 1 {
			return nil, fmt.Errorf("%s without arguments", g)
		}
		if _, ok := args[0].(*pyTensor); !ok {
			return nil, fmt.Errorf("%s of a %s, not a tensor", g, typeName(args[0]))
		}
		return args[0], nil
	case "torch._tensor._rebuild_from_type_v2": // (func, type, args, state)
		if len(args) != 4 {
			return nil, fmt.Errorf("%s with %d arguments, want 4", g, len(args))
		}
		inner, ok := args[2].(pyTuple)
		if !ok {
			return nil, fmt.Errorf("%s with arguments of type %s", g, typeName(args[2]))
		}
		if depth >= maxRebuildDepth {
			return nil, fmt.Errorf("%s nested %d deep", g, depth+1)
		}
		return call(args[0], inner, depth+1)
	}
	return &pyObject{callable: g, args: args}, nil
}

// rebuildTensor checks the arguments of _rebuild_tensor_v2 (storage,
// storage_offset, size, stride, …) and returns the tensor: every element
// it addresses must lie in its storage.
func rebuildTensor(args pyTuple) (*pyTensor, error) {
	if len(args) < 4 {
		return nil, fmt.Errorf("_rebuild_tensor_v2 with %d arguments, want at least 4", len(args))
	}
	s, ok := args[0].(*pyStorage)
	if !ok {
		return nil, fmt.Errorf("_rebuild_tensor_v2 of a %s, not a storage", typeName(args[0]))
	}
	off, ok := args[1].(int64)
	if !ok || off < 0 {
		return nil, fmt.Errorf("storage offset %s", describe(args[1]))
	}
	shape, err1 := int64Tuple(args[2])
	stride, err2 := int64Tuple(args[3])
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("size or stride: %w", err)
	}
	if len(shape) != len(stride) {
		return nil, fmt.Errorf("size %v and stride %v of different lengths", shape, stride)
	}
	t := &pyTensor{storage: s, offset: off, shape: shape, stride: stride}
	if _, err := t.extent(); err != nil {
		return nil, err
	}
	return t, nil
}

// extent checks that the tensor's elements lie in its storage and returns
// how many of the storage's elements, from the tensor's offset, hold them
// (0 for an empty tensor).
func (t *pyTensor) extent() (int64, error) {
	for i, d := range t.shape {
		if d < 0 || t.stride[i] < 0 {
			return 0, fmt.Errorf("size %v or stride %v negative", t.shape, t.stride)
		}
		if d == 0 {
			return 0, nil
		}
	}
	elems, last := int64(1), int64(0)
	for i, d := range t.shape {
		st := t.stride[i]
		if elems > maxTensorElems/d {
			return 0, fmt.Errorf("size %v of over 2^40 elements", t.shape)
		}
		elems *= d
		// last + (d−1)·stride stays below the storage's numel ≤ 2^40.
		if st > 0 && d-1 > (t.storage.numel-last)/st {
			return 0, fmt.Errorf("size %v, stride %v and offset %d reach beyond the storage's %d elements", t.shape, t.stride, t.offset, t.storage.numel)
		}
		last += (d - 1) * st
	}
	if t.offset > t.storage.numel-1-last {
		return 0, fmt.Errorf("size %v, stride %v and offset %d reach beyond the storage's %d elements", t.shape, t.stride, t.offset, t.storage.numel)
	}
	return last + 1, nil
}

// contiguous reports whether the tensor's strides are row-major for its
// shape (a dimension of size 1 may have any stride).
func (t *pyTensor) contiguous() bool {
	want := int64(1)
	for i := len(t.shape) - 1; i >= 0; i-- {
		if t.shape[i] != 1 && t.stride[i] != want {
			return false
		}
		want *= t.shape[i]
	}
	return true
}

// int64Tuple is a tuple of integers.
func int64Tuple(v any) ([]int64, error) {
	t, ok := v.(pyTuple)
	if !ok {
		return nil, fmt.Errorf("%s, not a tuple", typeName(v))
	}
	out := make([]int64, len(t))
	for i, e := range t {
		n, ok := e.(int64)
		if !ok {
			return nil, fmt.Errorf("element %d is a %s, not an integer", i, typeName(e))
		}
		out[i] = n
	}
	return out, nil
}

// typeName is the Python type of a value of the unpickler.
func typeName(v any) string {
	switch v := v.(type) {
	case nil:
		return "None"
	case bool:
		return "bool"
	case int64, pyBigInt:
		return "int"
	case float64:
		return "float"
	case string:
		return "str"
	case []byte:
		return "bytes"
	case pyTuple:
		return "tuple"
	case *pyList:
		return "list"
	case *pyDict:
		return "dict"
	case pyGlobal:
		return "global " + v.String()
	case *pyStorage:
		return "storage"
	case *pyTensor:
		return "tensor"
	case *pyObject:
		if g, ok := v.callable.(pyGlobal); ok {
			return g.String() + " object"
		}
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

// describe is a short description of v: small scalars and tuples of them
// as values, anything else by type.
func describe(v any) string {
	switch v := v.(type) {
	case int64, bool, float64:
		return fmt.Sprint(v)
	case string:
		if len(v) > 40 {
			v = v[:40] + "…"
		}
		return strconv.Quote(v)
	case pyTuple:
		if len(v) <= 6 {
			s := "("
			for i, e := range v {
				if i > 0 {
					s += ", "
				}
				if _, nested := e.(pyTuple); nested {
					s += "tuple"
				} else {
					s += describe(e)
				}
			}
			return s + ")"
		}
	}
	return typeName(v)
}
