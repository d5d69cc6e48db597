package dataset

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"unsafe"
)

// writer writes little-endian primitives and arrays, keeping the first
// error and the byte count.
type writer struct {
	w   io.Writer
	n   int64
	err error
	buf []byte
}

func (w *writer) write(b []byte) {
	if w.err != nil {
		return
	}
	n, err := w.w.Write(b)
	w.n += int64(n)
	w.err = err
}

func (w *writer) u32(v uint32) { w.write(binary.LittleEndian.AppendUint32(w.scratch(), v)) }
func (w *writer) u64(v uint64) { w.write(binary.LittleEndian.AppendUint64(w.scratch(), v)) }

func (w *writer) scratch() []byte {
	if w.buf == nil {
		w.buf = make([]byte, 0, 1<<16)
	}
	return w.buf[:0]
}

func (w *writer) str(s string) {
	w.u32(uint32(len(s)))
	w.write([]byte(s))
	w.pad()
}

// pad writes zero bytes up to a multiple of 4 (format version 2): every
// array of 4-byte values then starts 4-aligned, so that a reader can use
// the bytes in place.
func (w *writer) pad() {
	if k := -w.n & 3; k != 0 {
		w.write(make([]byte, k))
	}
}

// strs writes a list of strings as count, lengths, bytes.
func (w *writer) strs(ss []string) {
	w.u32(uint32(len(ss)))
	lens := make([]uint32, len(ss))
	for i, s := range ss {
		lens[i] = uint32(len(s))
	}
	w.u32s(lens)
	for _, s := range ss {
		w.write([]byte(s))
	}
	w.pad()
}

// u32s writes the array in chunks through the scratch buffer.
func (w *writer) u32s(v []uint32) {
	for len(v) > 0 {
		n := min(len(v), 1<<14)
		b := w.scratch()
		for _, x := range v[:n] {
			b = binary.LittleEndian.AppendUint32(b, x)
		}
		w.write(b)
		v = v[n:]
	}
}

func (w *writer) i32s(v []int32) {
	for len(v) > 0 {
		n := min(len(v), 1<<14)
		b := w.scratch()
		for _, x := range v[:n] {
			b = binary.LittleEndian.AppendUint32(b, uint32(x))
		}
		w.write(b)
		v = v[n:]
	}
}

// reader decodes the in-memory payload; base is the payload's offset in the
// file, for error messages. aligned says the format pads strings and byte
// arrays to 4 bytes (version 2).
type reader struct {
	b       []byte
	off     int
	base    int
	aligned bool
}

// pad skips version 2's zero padding up to a multiple of 4.
func (r *reader) pad(what string) error {
	if !r.aligned {
		return nil
	}
	b, err := r.take(uint64(-r.off&3), what+" padding")
	if err != nil {
		return err
	}
	for _, c := range b {
		if c != 0 {
			return fmt.Errorf("at byte %d: nonzero padding after %s", r.base+r.off-len(b), what)
		}
	}
	return nil
}

func (r *reader) truncated(what string, need uint64) error {
	return fmt.Errorf("truncated at byte %d reading %s (%d bytes needed, %d left)", r.base+r.off, what, need, len(r.b)-r.off)
}

// take returns the next n bytes.
func (r *reader) take(n uint64, what string) ([]byte, error) {
	if n > uint64(len(r.b)-r.off) {
		return nil, r.truncated(what, n)
	}
	s := r.b[r.off : r.off+int(n)]
	r.off += int(n)
	return s, nil
}

func (r *reader) u32(what string) (uint32, error) {
	b, err := r.take(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *reader) u64(what string) (uint64, error) {
	b, err := r.take(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// count reads a uint64 element count and checks that count elements of
// size bytes can fit in what is left, so corrupt counts never allocate.
func (r *reader) count(size uint64, what string) (int, error) {
	n, err := r.u64(what)
	if err != nil {
		return 0, err
	}
	if n > math.MaxInt32 || n*size > uint64(len(r.b)-r.off) {
		return 0, fmt.Errorf("at byte %d: %s = %d does not fit in the %d bytes left", r.base+r.off-8, what, n, len(r.b)-r.off)
	}
	return int(n), nil
}

func (r *reader) str(what string) (string, error) {
	n, err := r.u32(what + " length")
	if err != nil {
		return "", err
	}
	b, err := r.take(uint64(n), what)
	if err != nil {
		return "", err
	}
	return string(b), r.pad(what)
}

func (r *reader) strs(what string) ([]string, error) {
	n, err := r.u32(what + " count")
	if err != nil {
		return nil, err
	}
	lens, err := r.u32s(uint64(n), what+" lengths")
	if err != nil {
		return nil, err
	}
	total := uint64(0)
	for _, l := range lens {
		total += uint64(l)
	}
	b, err := r.take(total, what)
	if err != nil {
		return nil, err
	}
	all := string(b) // one allocation; the names are substrings of it
	out := make([]string, n)
	p := 0
	for i, l := range lens {
		out[i] = all[p : p+int(l)]
		p += int(l)
	}
	return out, r.pad(what)
}

func (r *reader) u32s(n uint64, what string) ([]uint32, error) {
	b, err := r.take(4*n, what)
	if err != nil {
		return nil, err
	}
	if v, ok := inPlace[uint32](b); ok {
		return v, nil
	}
	out := make([]uint32, n)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out, nil
}

func (r *reader) i32s(n uint64, what string) ([]int32, error) {
	b, err := r.take(4*n, what)
	if err != nil {
		return nil, err
	}
	if v, ok := inPlace[int32](b); ok {
		return v, nil
	}
	out := make([]int32, n)
	for i := range out {
		out[i] = int32(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

// littleEndian says the host stores integers as the file does.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// inPlace returns the little-endian 4-byte values b holds as a slice over
// b itself, when the host is little-endian and b is 4-aligned: a dataset's
// arrays are then the file's bytes, not copies (a copy of FB15k-237's
// 600 MB allocated and faulted in cost seconds). Its capacity is its
// length, so appending copies instead of writing past it.
func inPlace[T int32 | uint32](b []byte) ([]T, bool) {
	if len(b) == 0 || !littleEndian || uintptr(unsafe.Pointer(&b[0]))%4 != 0 {
		return nil, false
	}
	return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), len(b)/4), true
}
