package safetensors

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/gammae/gammae/internal/mapfile"
)

// MaxHeaderSize is the largest JSON header accepted, as in the reference
// library.
const MaxHeaderSize = 100_000_000

// File is a parsed safetensors file.
type File struct {
	Metadata map[string]string // nil when the file has none
	tensors  []Tensor          // in data order
	index    map[string]int
}

// Tensor returns the named tensor; its Data aliases the parsed buffer.
func (f *File) Tensor(name string) (Tensor, error) {
	i, ok := f.index[name]
	if !ok {
		return Tensor{}, fmt.Errorf("safetensors: no tensor %q (have %d tensors)", name, len(f.tensors))
	}
	return f.tensors[i], nil
}

// Tensors returns all tensors in the order their data is stored.
func (f *File) Tensors() []Tensor { return slices.Clone(f.tensors) }

// Names returns the tensor names, sorted.
func (f *File) Names() []string {
	names := make([]string, len(f.tensors))
	for i, t := range f.tensors {
		names[i] = t.Name
	}
	slices.Sort(names)
	return names
}

// ReadFile reads and parses a whole file; errors name the path.
func ReadFile(path string) (*File, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	f, err := Parse(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, nil
}

// MapFile parses the file at path from a copy-on-write mapping of it where
// the system allows one (a file of 1 MiB or more): the tensors' Data alias
// the mapping and are valid until release is called, after which touching
// them faults. For loaders that decode every tensor into memory of their
// own: the file's bytes are then touched once, in the page cache, instead
// of read into fresh memory first (internal/mapfile). A file truncated in
// place while mapped would fault; files replaced by rename, as gammae
// writes them, leave the mapping whole.
func MapFile(path string) (f *File, release func(), err error) {
	b, release, err := mapfile.Read(path, 1<<20)
	if err != nil {
		return nil, nil, err
	}
	if f, err = Parse(b); err != nil {
		release()
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, release, nil
}

// Read reads r to the end and parses it.
func Read(r io.Reader) (*File, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse validates b as a complete safetensors file, with the reference
// library's rules: the header is UTF-8 JSON of at most MaxHeaderSize bytes;
// every tensor has a known dtype, a shape and two offsets; sorted by offset
// the tensors tile the data section exactly, from 0 to its end, without
// gaps or overlaps; each byte range equals dtype size × element count.
// Duplicate keys, which a hash map would silently merge, are rejected.
// The returned tensors alias b.
func Parse(b []byte) (*File, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("safetensors: file is %d bytes, shorter than the 8-byte header length", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > MaxHeaderSize {
		return nil, fmt.Errorf("safetensors: header length %d exceeds the limit %d", n, MaxHeaderSize)
	}
	if n > uint64(len(b)-8) {
		return nil, fmt.Errorf("safetensors: header length %d exceeds the %d bytes after it", n, len(b)-8)
	}
	header, data := b[8:8+n], b[8+n:]
	if !utf8.Valid(header) {
		return nil, errors.New("safetensors: header is not valid UTF-8")
	}
	f, spans, err := parseHeader(header)
	if err != nil {
		return nil, err
	}
	if err := f.bind(data, spans); err != nil {
		return nil, err
	}
	return f, nil
}

// entry is one tensor's header record before validation.
type entry struct {
	DType   *string   `json:"dtype"`
	Shape   *[]uint64 `json:"shape"`
	Offsets *[]uint64 `json:"data_offsets"`
}

type span struct{ begin, end uint64 }

func parseHeader(header []byte) (*File, []span, error) {
	dec := json.NewDecoder(bytes.NewReader(header))
	tok, err := dec.Token()
	if err != nil {
		return nil, nil, fmt.Errorf("safetensors: header: %v", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, nil, fmt.Errorf("safetensors: header: expected a JSON object, found %v", tok)
	}
	f := &File{index: map[string]int{}}
	sawMeta := false
	var spans []span
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil, fmt.Errorf("safetensors: header: %v", err)
		}
		name := tok.(string) // object keys are always strings
		if name == metadataKey {
			if sawMeta {
				return nil, nil, fmt.Errorf("safetensors: header: %s given twice", metadataKey)
			}
			sawMeta = true
			if err := dec.Decode(&f.Metadata); err != nil {
				return nil, nil, fmt.Errorf("safetensors: header: %s: expected an object of strings: %v", metadataKey, err)
			}
			continue
		}
		if _, dup := f.index[name]; dup {
			return nil, nil, fmt.Errorf("safetensors: header: tensor %q given twice", name)
		}
		var e entry
		if err := dec.Decode(&e); err != nil {
			return nil, nil, fmt.Errorf("safetensors: header: tensor %q: %v", name, err)
		}
		t, s, err := e.tensor(name)
		if err != nil {
			return nil, nil, err
		}
		f.index[name] = len(f.tensors)
		f.tensors = append(f.tensors, t)
		spans = append(spans, s)
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, nil, fmt.Errorf("safetensors: header: %v", err)
	}
	rest := header[dec.InputOffset():]
	if len(bytes.TrimLeft(rest, " \t\r\n")) != 0 {
		return nil, nil, fmt.Errorf("safetensors: header: unexpected bytes after the JSON object at offset %d", dec.InputOffset())
	}
	f.sortBySpan(spans)
	return f, spans, nil
}

func (e entry) tensor(name string) (Tensor, span, error) {
	bad := func(format string, a ...any) (Tensor, span, error) {
		return Tensor{}, span{}, fmt.Errorf("safetensors: header: tensor %q: "+format, append([]any{name}, a...)...)
	}
	switch {
	case e.DType == nil:
		return bad("missing dtype")
	case e.Shape == nil:
		return bad("missing shape")
	case e.Offsets == nil:
		return bad("missing data_offsets")
	case len(*e.Offsets) != 2:
		return bad("data_offsets has %d numbers, expected 2", len(*e.Offsets))
	}
	t := Tensor{Name: name, DType: DType(*e.DType), Shape: make([]int, len(*e.Shape))}
	size := t.DType.Size()
	if size == 0 {
		return bad("unsupported dtype %q", *e.DType)
	}
	for i, d := range *e.Shape {
		if d > math.MaxInt {
			return bad("dimension %d is too large", d)
		}
		t.Shape[i] = int(d)
	}
	s := span{(*e.Offsets)[0], (*e.Offsets)[1]}
	if s.end < s.begin {
		return bad("data_offsets [%d, %d] end before they begin", s.begin, s.end)
	}
	elems := t.NumElements()
	if elems < 0 || uint64(elems) > math.MaxInt64/uint64(size) {
		return bad("shape %v overflows", t.Shape)
	}
	if want := uint64(elems) * uint64(size); s.end-s.begin != want {
		return bad("shape %v of %s needs %d bytes, data_offsets [%d, %d] give %d", t.Shape, t.DType, want, s.begin, s.end, s.end-s.begin)
	}
	return t, s, nil
}

// sortBySpan orders the tensors by their offsets, keeping spans in step.
func (f *File) sortBySpan(spans []span) {
	idx := make([]int, len(spans))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		sa, sb := spans[a], spans[b]
		switch {
		case sa.begin != sb.begin:
			return cmpU(sa.begin, sb.begin)
		default:
			return cmpU(sa.end, sb.end)
		}
	})
	ts := make([]Tensor, len(idx))
	ss := make([]span, len(idx))
	for i, j := range idx {
		ts[i], ss[i] = f.tensors[j], spans[j]
		f.index[ts[i].Name] = i
	}
	f.tensors = ts
	copy(spans, ss)
}

func cmpU(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// bind checks that the spans (sorted) tile data exactly and points each
// tensor at its bytes.
func (f *File) bind(data []byte, spans []span) error {
	var at uint64
	for i, s := range spans {
		name := f.tensors[i].Name
		if s.begin != at {
			if s.begin < at {
				return fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] overlap the previous tensor, which ends at %d", name, s.begin, s.end, at)
			}
			return fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] leave a gap after byte %d", name, s.begin, s.end, at)
		}
		if s.end > uint64(len(data)) {
			return fmt.Errorf("safetensors: tensor %q: data_offsets [%d, %d] run past the %d data bytes", name, s.begin, s.end, len(data))
		}
		f.tensors[i].Data = data[s.begin:s.end:s.end]
		at = s.end
	}
	if at != uint64(len(data)) {
		return fmt.Errorf("safetensors: tensors cover %d data bytes but the file has %d", at, len(data))
	}
	return nil
}
