package checkpoint

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	gpickle "github.com/gammae/gammae/pickle"
	"github.com/nlpodyssey/gopickle/pickle"
	"github.com/nlpodyssey/gopickle/types"
)

// The two torch.save layouts:
//
//   - zip (PyTorch ≥ 1.6): PREFIX/data.pkl is a pickle whose tensors refer
//     by persistent id ("storage", class, key, location, numel) to the raw
//     little-endian records PREFIX/data/KEY.
//   - legacy: five pickles in a row (magic number, protocol 1001, system
//     info, the object, the list of storage keys), then each storage as an
//     8-byte element count and its raw bytes, in key order.
//
// Tensors are rebuilt by torch._utils._rebuild_tensor_v2(storage, offset,
// size, stride, requires_grad, hooks[, metadata]). gopickle's own pytorch
// package reads both, but allocates whatever sizes a corrupt file declares
// and loops forever on some inputs, so this reader checks every length
// against the file before allocating.

// storageClass is a torch.*Storage type.
type storageClass struct {
	name  string
	size  int  // bytes per element
	float bool // converted to float32
	conv  func(b []byte) float32
}

var storageClasses = map[string]*storageClass{
	"FloatStorage": {"FloatStorage", 4, true, func(b []byte) float32 {
		return math.Float32frombits(binary.LittleEndian.Uint32(b))
	}},
	"DoubleStorage": {"DoubleStorage", 8, true, func(b []byte) float32 {
		return float32(math.Float64frombits(binary.LittleEndian.Uint64(b)))
	}},
	"HalfStorage": {"HalfStorage", 2, true, func(b []byte) float32 { return half(binary.LittleEndian.Uint16(b)) }},
	"BFloat16Storage": {"BFloat16Storage", 2, true, func(b []byte) float32 {
		return math.Float32frombits(uint32(binary.LittleEndian.Uint16(b)) << 16)
	}},
	"LongStorage":  {name: "LongStorage", size: 8},
	"IntStorage":   {name: "IntStorage", size: 4},
	"ShortStorage": {name: "ShortStorage", size: 2},
	"CharStorage":  {name: "CharStorage", size: 1},
	"ByteStorage":  {name: "ByteStorage", size: 1},
	"BoolStorage":  {name: "BoolStorage", size: 1},
}

// half converts an IEEE binary16 value.
func half(h uint16) float32 {
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, frac := int(h>>10&0x1f), float32(h&0x3ff)
	switch exp {
	case 0:
		return sign * frac * float32(math.Pow(2, -24))
	case 0x1f:
		if frac != 0 {
			return float32(math.NaN())
		}
		return sign * float32(math.Inf(1))
	}
	return sign * (1 + frac/1024) * float32(math.Pow(2, float64(exp-15)))
}

// torchStorage is a storage referred to by the pickle; its bytes are read
// only for the tensors that are used.
type torchStorage struct {
	class *storageClass
	key   string
	numel int
	data  []byte // legacy: the storage's bytes within the file
}

// torchTensor is a rebuilt tensor: a strided view of a storage.
type torchTensor struct {
	storage      *torchStorage
	offset       int
	size, stride []int
	requiresGrad bool
}

// torchSource is an unpickled file with access to its storages' bytes.
type torchSource struct {
	root    any
	zip     *zip.Reader
	records map[string]*zip.File // zip: storage key → record
}

// storageFits checks a storage's element count against the bytes there
// are for it (no product that could overflow).
func storageFits(key string, numel int, cls *storageClass, avail uint64) error {
	if numel < 0 || uint64(numel) > avail/uint64(cls.size) {
		return fmt.Errorf("storage %s of %d × %s does not fit in %d bytes", key, numel, cls.name, avail)
	}
	return nil
}

func openZipTorch(z *zip.Reader) (*torchSource, error) {
	src := &torchSource{zip: z, records: map[string]*zip.File{}}
	var pkl *zip.File
	for _, f := range z.File {
		_, base, _ := strings.Cut(f.Name, "/")
		switch {
		case base == "data.pkl":
			pkl = f
		case strings.HasPrefix(base, "data/"):
			src.records[strings.TrimPrefix(base, "data/")] = f
		case base == "constants.pkl":
			return nil, errors.New("a TorchScript archive, not a torch.save checkpoint")
		}
	}
	if pkl == nil {
		return nil, errNotTorch
	}
	b, err := readRecord(pkl, 1<<30)
	if err != nil {
		return nil, fmt.Errorf("data.pkl: %v", err)
	}
	storages := map[string]*torchStorage{}
	src.root, err = unpickleTorch(b, func(cls *storageClass, key string, numel int) (*torchStorage, error) {
		if s, ok := storages[key]; ok {
			return s, nil
		}
		rec, ok := src.records[key]
		if !ok {
			return nil, fmt.Errorf("storage %s: no record data/%s in the archive", key, key)
		}
		if err := storageFits(key, numel, cls, rec.UncompressedSize64); err != nil {
			return nil, err
		}
		if want := uint64(numel) * uint64(cls.size); rec.UncompressedSize64 != want {
			return nil, fmt.Errorf("storage %s: record of %d bytes, want %d (%d × %s)", key, rec.UncompressedSize64, want, numel, cls.name)
		}
		s := &torchStorage{class: cls, key: key, numel: numel}
		storages[key] = s
		return s, nil
	})
	if err != nil {
		return nil, fmt.Errorf("data.pkl: %v", err)
	}
	return src, nil
}

// readRecord reads a zip record of at most limit bytes.
func readRecord(f *zip.File, limit uint64) ([]byte, error) {
	if f.UncompressedSize64 > limit {
		return nil, fmt.Errorf("record %s of %d bytes exceeds %d", f.Name, f.UncompressedSize64, limit)
	}
	r, err := f.Open()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	b := make([]byte, f.UncompressedSize64)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, fmt.Errorf("record %s: %v", f.Name, err)
	}
	return b, nil
}

func openLegacyTorch(b []byte) (*torchSource, error) {
	pos := 0
	next := func(what string) ([]byte, error) {
		end, err := pickleEnd(b, pos)
		if err != nil {
			return nil, fmt.Errorf("%s pickle at byte %d: %v", what, pos, err)
		}
		p := b[pos:end]
		pos = end
		return p, nil
	}
	noStorage := func(*storageClass, string, int) (*torchStorage, error) {
		return nil, errors.New("unexpected storage")
	}
	for _, want := range []string{"magic number", "protocol version", "system info"} {
		p, err := next(want)
		if err != nil {
			return nil, err
		}
		v, err := unpickleTorch(p, noStorage)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", want, err)
		}
		if want == "protocol version" && v != 1001 {
			return nil, fmt.Errorf("legacy protocol version %v, want 1001", v)
		}
	}
	p, err := next("object")
	if err != nil {
		return nil, err
	}
	storages := map[string]*torchStorage{}
	src := &torchSource{}
	src.root, err = unpickleTorch(p, func(cls *storageClass, key string, numel int) (*torchStorage, error) {
		if s, ok := storages[key]; ok {
			return s, nil
		}
		if err := storageFits(key, numel, cls, uint64(len(b))); err != nil {
			return nil, err
		}
		s := &torchStorage{class: cls, key: key, numel: numel}
		storages[key] = s
		return s, nil
	})
	if err != nil {
		return nil, fmt.Errorf("object pickle: %v", err)
	}
	p, err = next("storage keys")
	if err != nil {
		return nil, err
	}
	keys, err := unpickleTorch(p, noStorage)
	if err != nil {
		return nil, fmt.Errorf("storage keys: %v", err)
	}
	list, ok := keys.(*types.List)
	if !ok {
		return nil, fmt.Errorf("storage keys are a %s, want a list", pyType(keys))
	}
	for _, k := range *list {
		key, ok := k.(string)
		if !ok {
			return nil, fmt.Errorf("storage key %v is a %s, want a string", k, pyType(k))
		}
		s, ok := storages[key]
		if !ok {
			return nil, fmt.Errorf("storage key %s not referred to by the object", key)
		}
		if len(b)-pos < 8 {
			return nil, fmt.Errorf("storage %s: file ends at byte %d before its size", key, len(b))
		}
		n := binary.LittleEndian.Uint64(b[pos:])
		pos += 8
		if n != uint64(s.numel) {
			return nil, fmt.Errorf("storage %s at byte %d holds %d elements, the object says %d", key, pos-8, n, s.numel)
		}
		size := s.numel * s.class.size
		if len(b)-pos < size {
			return nil, fmt.Errorf("storage %s: file ends at byte %d within its %d bytes", key, len(b), size)
		}
		s.data = b[pos : pos+size]
		pos += size
	}
	for key, s := range storages {
		if s.data == nil && s.numel > 0 {
			return nil, fmt.Errorf("storage %s has no data", key)
		}
	}
	return src, nil
}

// storageBytes returns the raw bytes of a storage.
func (src *torchSource) storageBytes(s *torchStorage) ([]byte, error) {
	if src.zip == nil {
		return s.data, nil
	}
	if s.data == nil {
		b, err := readRecord(src.records[s.key], uint64(s.numel)*uint64(s.class.size))
		if err != nil {
			return nil, err
		}
		s.data = b
	}
	return s.data, nil
}

// tensorData gathers a float tensor's elements in row-major order.
func (src *torchSource) tensorData(t *torchTensor) ([]float32, error) {
	s := t.storage
	count := 1
	last := t.offset // the largest storage index the view reaches
	for d, n := range t.size {
		if n < 0 || t.stride[d] < 0 {
			return nil, fmt.Errorf("negative size or stride in shape %v, strides %v", t.size, t.stride)
		}
		if n > 0 && count > s.numel/n+1 {
			return nil, fmt.Errorf("shape %v is larger than its storage of %d elements", t.size, s.numel)
		}
		count *= n
		if n > 0 {
			last += (n - 1) * t.stride[d]
		}
	}
	if count == 0 {
		return []float32{}, nil
	}
	if t.offset < 0 || last >= s.numel || count > s.numel {
		return nil, fmt.Errorf("view (offset %d, shape %v, strides %v) outside its storage of %d elements", t.offset, t.size, t.stride, s.numel)
	}
	raw, err := src.storageBytes(s)
	if err != nil {
		return nil, err
	}
	es, conv := s.class.size, s.class.conv
	out := make([]float32, count)
	// Walk the index space with an odometer, so views with any strides work.
	idx := make([]int, len(t.size))
	off := t.offset
	for k := range out {
		out[k] = conv(raw[off*es:])
		for d := len(idx) - 1; d >= 0; d-- {
			idx[d]++
			off += t.stride[d]
			if idx[d] < t.size[d] {
				break
			}
			off -= t.stride[d] * idx[d]
			idx[d] = 0
		}
	}
	return out, nil
}

// newStorageFunc resolves a persistent storage id.
type newStorageFunc func(cls *storageClass, key string, numel int) (*torchStorage, error)

// unpickleTorch unpickles one checked pickle, rebuilding tensors.
func unpickleTorch(b []byte, storage newStorageFunc) (v any, err error) {
	if _, err := pickleEnd(b, 0); err != nil {
		return nil, err
	}
	defer func() {
		// gopickle panics on some malformed input (unhashable keys, ...).
		if r := recover(); r != nil {
			v, err = nil, fmt.Errorf("malformed pickle: %v", r)
		}
	}()
	u := pickle.NewUnpickler(bytes.NewReader(b))
	u.FindClass = findTorchClass
	u.PersistentLoad = func(id any) (any, error) {
		t, ok := id.(*types.Tuple)
		if !ok || t.Len() < 5 || t.Get(0) != "storage" {
			return nil, fmt.Errorf("persistent id %v, want (\"storage\", class, key, location, numel)", id)
		}
		cls, ok := t.Get(1).(*storageClass)
		key, kok := t.Get(2).(string)
		numel, nok := t.Get(4).(int)
		if !ok || !kok || !nok || numel < 0 {
			return nil, fmt.Errorf("persistent id %v, want (\"storage\", class, key, location, numel)", id)
		}
		if t.Len() > 5 && t.Get(5) != nil {
			return nil, errors.New("storage views (legacy view metadata) are not supported")
		}
		return storage(cls, key, numel)
	}
	return u.Load()
}

func findTorchClass(module, name string) (any, error) {
	switch module + "." + name {
	case "torch._utils._rebuild_tensor_v2":
		return rebuildTensor{}, nil
	case "torch._utils._rebuild_parameter":
		return rebuildParameter{}, nil
	}
	if module == "torch" {
		if c, ok := storageClasses[name]; ok {
			return c, nil
		}
	}
	// Anything else (argparse.Namespace, ...) stays an opaque object.
	return types.NewGenericClass(module, name), nil
}

type rebuildTensor struct{}

func (rebuildTensor) Call(args ...any) (any, error) {
	if len(args) < 6 {
		return nil, fmt.Errorf("_rebuild_tensor_v2 with %d arguments, want 6 or 7", len(args))
	}
	s, ok := args[0].(*torchStorage)
	offset, ook := args[1].(int)
	size, sok := ints(args[2])
	stride, tok := ints(args[3])
	if !ok || !ook || !sok || !tok || len(size) != len(stride) {
		return nil, fmt.Errorf("_rebuild_tensor_v2(%v, %v, %v, %v): want a storage, an offset, and size and stride tuples of one length", args[0], args[1], args[2], args[3])
	}
	rg, _ := args[4].(bool)
	return &torchTensor{storage: s, offset: offset, size: size, stride: stride, requiresGrad: rg}, nil
}

type rebuildParameter struct{}

func (rebuildParameter) Call(args ...any) (any, error) {
	if len(args) < 1 {
		return nil, errors.New("_rebuild_parameter without arguments")
	}
	return args[0], nil
}

func ints(v any) ([]int, bool) {
	t, ok := v.(*types.Tuple)
	if !ok {
		return nil, false
	}
	out := make([]int, t.Len())
	for i := range out {
		if out[i], ok = t.Get(i).(int); !ok {
			return nil, false
		}
	}
	return out, true
}

func pyType(v any) string {
	switch v.(type) {
	case nil:
		return "None"
	case *types.Dict, *types.OrderedDict:
		return "dict"
	case *types.List:
		return "list"
	case *types.Tuple:
		return "tuple"
	case *torchTensor:
		return "tensor"
	case string:
		return "str"
	case int:
		return "int"
	case float64:
		return "float"
	}
	return fmt.Sprintf("%T", v)
}

// pickleEnd returns the offset just past the STOP opcode of the pickle
// starting at b[pos] (pickle.End: every opcode checked).
func pickleEnd(b []byte, pos int) (int, error) { return gpickle.End(b, pos) }
