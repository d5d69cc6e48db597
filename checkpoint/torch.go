package checkpoint

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"

	"github.com/nlpodyssey/gopickle/types"

	"github.com/gammae/gammae/gamma"
)

// A reference checkpoint is what the authors' PyTorch code writes with
// torch.save: a dict of step counters, "model_state_dict" (the module's
// parameters by name) and "optimizer_state_dict". A bare state dict (the
// module's parameters alone) is read too. Both the zip format of PyTorch ≥
// 1.6 and the legacy format load.

// TorchState is what a torch.save file holds that a model needs.
type TorchState struct {
	// Params are the floating-point tensors of the state dict, in file
	// order, converted to float32 (the reference trains in float32).
	Params []gamma.Param[float32]
	// Info holds the scalar entries beside the state dict (step,
	// current_learning_rate, ...), formatted as Python would print them.
	Info map[string]string
}

// legacyMagic starts a legacy torch.save file: pickle protocol 2, then the
// LONG1 of the magic number 0x1950a86a20f9469cfc6c.
var legacyMagic = []byte{0x80, 0x02, 0x8a, 0x0a, 0x6c, 0xfc, 0x9c, 0x46, 0xf9, 0x20, 0x6a, 0xa8, 0x50, 0x19}

// IsTorch reports whether path holds a torch.save file (either format),
// by its content: reference checkpoints are often named just "checkpoint".
func IsTorch(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(legacyMagic))
	n, _ := io.ReadFull(f, head)
	head = head[:n]
	if bytes.Equal(head, legacyMagic) {
		return true
	}
	if !bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return false
	}
	st, err := f.Stat()
	if err != nil {
		return false
	}
	z, err := zip.NewReader(f, st.Size())
	if err != nil {
		return false
	}
	for _, e := range z.File {
		if e.Name == "data.pkl" || len(e.Name) > 9 && e.Name[len(e.Name)-9:] == "/data.pkl" {
			return true
		}
	}
	return false
}

// ReadTorch reads a torch.save file: the tensors of its "model_state_dict"
// (or "state_dict", or of the file itself when it is a bare state dict).
// Errors name the file.
func ReadTorch(path string) (*TorchState, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	st, err := readTorch(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	return st, nil
}

var errNotTorch = errors.New("not a torch.save file (neither a zip archive with data.pkl nor the legacy magic number)")

// readTorch is ReadTorch of size bytes read from r.
func readTorch(r io.ReaderAt, size int64) (*TorchState, error) {
	head := make([]byte, len(legacyMagic))
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	var src *torchSource
	switch {
	case bytes.Equal(head, legacyMagic):
		b := make([]byte, size)
		if _, err := r.ReadAt(b, 0); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		s, err := openLegacyTorch(b)
		if err != nil {
			return nil, err
		}
		src = s
	case bytes.HasPrefix(head, []byte("PK\x03\x04")):
		z, err := zip.NewReader(r, size)
		if err != nil {
			return nil, errNotTorch
		}
		if src, err = openZipTorch(z); err != nil {
			return nil, err
		}
	default:
		return nil, errNotTorch
	}
	return src.state()
}

// state picks the state dict out of the unpickled file and loads the data
// of its floating-point tensors.
func (src *torchSource) state() (*TorchState, error) {
	top, ok := entries(src.root)
	if !ok {
		return nil, fmt.Errorf("holds a %s, want a dict with model_state_dict or a state dict", pyType(src.root))
	}
	st := &TorchState{Info: map[string]string{}}
	stateDict := top
	for _, key := range []string{"model_state_dict", "state_dict"} {
		if i := slices.IndexFunc(top, func(e types.DictEntry) bool { return e.Key == key }); i >= 0 {
			sd, ok := entries(top[i].Value)
			if !ok {
				return nil, fmt.Errorf("%s is a %s, want a dict of tensors", key, pyType(top[i].Value))
			}
			stateDict = sd
			for _, e := range top {
				if s, ok := scalar(e.Value); ok {
					st.Info[fmt.Sprint(e.Key)] = s
				}
			}
			break
		}
	}
	for _, e := range stateDict {
		name, ok := e.Key.(string)
		if !ok {
			return nil, fmt.Errorf("state dict key %v is a %s, want a string", e.Key, pyType(e.Key))
		}
		t, ok := e.Value.(*torchTensor)
		if !ok || !t.storage.class.float {
			continue // the _metadata of a module's state dict, integer buffers
		}
		data, err := src.tensorData(t)
		if err != nil {
			return nil, fmt.Errorf("tensor %s: %v", name, err)
		}
		st.Params = append(st.Params, gamma.Param[float32]{Name: name, Shape: slices.Clone(t.size), Data: data})
	}
	if len(st.Params) == 0 {
		return nil, errors.New("no floating-point tensors in the state dict")
	}
	return st, nil
}

// entries returns the items of a pickled dict or OrderedDict in order.
func entries(v any) ([]types.DictEntry, bool) {
	switch d := v.(type) {
	case *types.Dict:
		return *d, true
	case *types.OrderedDict:
		out := make([]types.DictEntry, 0, d.Len())
		for el := d.List.Front(); el != nil; el = el.Next() {
			e := el.Value.(*types.OrderedDictEntry)
			out = append(out, types.DictEntry{Key: e.Key, Value: e.Value})
		}
		return out, true
	}
	return nil, false
}

func scalar(v any) (string, bool) {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x), true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case bool:
		if x {
			return "True", true
		}
		return "False", true
	case string:
		return x, true
	}
	return "", false
}

// unusedTorch are tensors of the reference's state dict that no GammaE
// operator reads: γ and the embedding range are copied into the
// configuration instead.
var unusedTorch = []string{"gamma", "embedding_range", "relation_embedding", "modulus"}

// param returns the named parameter of st.
func (st *TorchState) param(name string) (gamma.Param[float32], bool) {
	for _, p := range st.Params {
		if p.Name == name {
			return p, true
		}
	}
	return gamma.Param[float32]{}, false
}

// scalarParam returns the single value of a one-element tensor.
func (st *TorchState) scalarParam(name string) (float64, bool) {
	p, ok := st.param(name)
	if !ok || len(p.Data) != 1 || math.IsNaN(float64(p.Data[0])) {
		return 0, false
	}
	return float64(p.Data[0]), true
}
