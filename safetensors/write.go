package safetensors

import (
	"encoding/binary"
	"fmt"
	"github.com/gammae/gammae/internal/atomicfile"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// metadataKey is the header entry that holds the string-to-string metadata.
const metadataKey = "__metadata__"

// Write encodes tensors and meta in the layout the reference library
// produces byte for byte: tensors ordered by dtype (widest first) then name,
// data packed contiguously, compact JSON header padded with spaces to a
// multiple of 8 bytes. Metadata keys are sorted (the reference library uses
// a hash map, so any order is valid); an empty meta writes no __metadata__.
func Write(w io.Writer, tensors []Tensor, meta map[string]string) error {
	header, order, err := encodeHeader(tensors, meta)
	if err != nil {
		return err
	}
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(header)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	if _, err := w.Write(header); err != nil {
		return err
	}
	for _, i := range order {
		if _, err := w.Write(tensors[i].Data); err != nil {
			return err
		}
	}
	return nil
}

// WriteFile writes the file atomically: a temporary file in the same
// directory, synced, then renamed over path.
func WriteFile(path string, tensors []Tensor, meta map[string]string) error {
	// Validate before touching the file system.
	if _, _, err := encodeHeader(tensors, meta); err != nil {
		return err
	}
	return atomicfile.WriteBuffered(path, func(w io.Writer) error { return Write(w, tensors, meta) })
}

// encodeHeader validates the tensors and returns the padded JSON header and
// the order in which their data follows it.
func encodeHeader(tensors []Tensor, meta map[string]string) ([]byte, []int, error) {
	seen := make(map[string]bool, len(tensors))
	for _, t := range tensors {
		switch {
		case t.Name == metadataKey:
			return nil, nil, fmt.Errorf("safetensors: tensor name %q is reserved", t.Name)
		case !utf8.ValidString(t.Name):
			return nil, nil, fmt.Errorf("safetensors: tensor name %q is not valid UTF-8", t.Name)
		case seen[t.Name]:
			return nil, nil, fmt.Errorf("safetensors: tensor %q given twice", t.Name)
		}
		seen[t.Name] = true
		if err := t.check(); err != nil {
			return nil, nil, fmt.Errorf("safetensors: %w", err)
		}
	}
	for k, v := range meta {
		if !utf8.ValidString(k) || !utf8.ValidString(v) {
			return nil, nil, fmt.Errorf("safetensors: metadata %q: %q is not valid UTF-8", k, v)
		}
	}

	order := make([]int, len(tensors))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		ta, tb := tensors[a], tensors[b]
		if c := tb.DType.rank() - ta.DType.rank(); c != 0 {
			return c
		}
		return strings.Compare(ta.Name, tb.Name)
	})

	var h []byte
	h = append(h, '{')
	if len(meta) > 0 {
		h = appendString(h, metadataKey)
		h = append(h, ":{"...)
		keys := make([]string, 0, len(meta))
		for k := range meta {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for i, k := range keys {
			if i > 0 {
				h = append(h, ',')
			}
			h = appendString(h, k)
			h = append(h, ':')
			h = appendString(h, meta[k])
		}
		h = append(h, '}')
	}
	var offset uint64
	for i, j := range order {
		t := tensors[j]
		if i > 0 || len(meta) > 0 {
			h = append(h, ',')
		}
		h = appendString(h, t.Name)
		h = append(h, `:{"dtype":`...)
		h = appendString(h, string(t.DType))
		h = append(h, `,"shape":[`...)
		for k, d := range t.Shape {
			if k > 0 {
				h = append(h, ',')
			}
			h = strconv.AppendInt(h, int64(d), 10)
		}
		h = append(h, `],"data_offsets":[`...)
		h = strconv.AppendUint(h, offset, 10)
		h = append(h, ',')
		offset += uint64(len(t.Data))
		h = strconv.AppendUint(h, offset, 10)
		h = append(h, "]}"...)
	}
	h = append(h, '}')
	for len(h)%8 != 0 {
		h = append(h, ' ')
	}
	return h, order, nil
}

// appendString quotes s as serde_json does: only '"', '\\' and control
// characters are escaped; everything else, non-ASCII included, is raw.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c == '\b':
			dst = append(dst, '\\', 'b')
		case c == '\f':
			dst = append(dst, '\\', 'f')
		case c == '\n':
			dst = append(dst, '\\', 'n')
		case c == '\r':
			dst = append(dst, '\\', 'r')
		case c == '\t':
			dst = append(dst, '\\', 't')
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}
