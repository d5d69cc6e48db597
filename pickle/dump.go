package pickle

import (
	"encoding/binary"
	"fmt"
	"github.com/gammae/gammae/internal/atomicfile"
	"io"
	"math"
	"unicode/utf8"

	"github.com/gammae/gammae/query"
)

// Dump writes v as a protocol 4 pickle that plain Python (3.4+) loads with
// pickle.load and no extra modules. v is built from the package's value
// model: nil, bool, int (also int32, int64), float64, string, query.Tuple,
// []any, Set, *Dict. A *Dict with a Factory is written as a
// collections.defaultdict with that builtin factory, as the benchmark's query
// and answer files are. Set elements and dict keys must be hashable (no
// lists, sets or dicts).
func Dump(w io.Writer, v any) error {
	e := encoder{w: w}
	if _, err := w.Write([]byte{opProto, 4}); err != nil { // precedes the first frame
		return err
	}
	if err := e.value(v, 0); err != nil {
		return err
	}
	e.buf = append(e.buf, opStop)
	e.flush(true)
	return e.err
}

// DumpFile writes v to path atomically (internal/atomicfile).
func DumpFile(path string, v any) error {
	return atomicfile.WriteBuffered(path, func(w io.Writer) error {
		if err := Dump(w, v); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	})
}

// frameSize is the size at which the encoder closes a frame, as Python does.
const frameSize = 64 << 10

// Opcodes written by the encoder.
const (
	opMark        = '('
	opNone        = 'N'
	opTrue        = 0x88
	opFalse       = 0x89
	opBinInt      = 'J'
	opBinInt1     = 'K'
	opBinInt2     = 'M'
	opLong1       = 0x8a
	opBinFloat    = 'G'
	opShortBinUni = 0x8c
	opBinUnicode  = 'X'
	opBinUnicode8 = 0x8d
	opEmptyTuple  = ')'
	opTuple       = 't'
	opTuple1      = 0x85
	opEmptyList   = ']'
	opAppends     = 'e'
	opEmptySet    = 0x8f
	opAddItems    = 0x90
	opEmptyDict   = '}'
	opSetItems    = 'u'
	opGlobal      = 'c'
	opReduce      = 'R'
)

// batchSize is the number of items per APPENDS, ADDITEMS or SETITEMS, as
// Python writes them.
const batchSize = 1000

type encoder struct {
	w   io.Writer
	buf []byte
	err error
}

// flush writes the buffered opcodes as one frame once it is large enough
// (or always when final). Frames hold whole opcodes, which holds because
// flush is only called between values.
func (e *encoder) flush(final bool) {
	if e.err != nil {
		e.buf = e.buf[:0]
		return
	}
	if len(e.buf) == 0 || (!final && len(e.buf) < frameSize) {
		return
	}
	var h [9]byte
	h[0] = opFrame
	binary.LittleEndian.PutUint64(h[1:], uint64(len(e.buf)))
	if _, e.err = e.w.Write(h[:]); e.err == nil {
		_, e.err = e.w.Write(e.buf)
	}
	e.buf = e.buf[:0]
}

func (e *encoder) value(v any, depth int) error {
	if depth >= maxDepth {
		return fmt.Errorf("values nested more than %d levels deep (or cyclic)", maxDepth)
	}
	switch x := v.(type) {
	case nil:
		e.buf = append(e.buf, opNone)
	case bool:
		if x {
			e.buf = append(e.buf, opTrue)
		} else {
			e.buf = append(e.buf, opFalse)
		}
	case int:
		e.int(int64(x))
	case int32:
		e.int(int64(x))
	case int64:
		e.int(x)
	case float64:
		e.buf = append(e.buf, opBinFloat)
		e.buf = binary.BigEndian.AppendUint64(e.buf, math.Float64bits(x))
	case string:
		return e.str(x)
	case query.Tuple:
		return e.tuple(x, depth)
	case []any:
		e.buf = append(e.buf, opEmptyList)
		return e.batches(x, opAppends, depth, false)
	case Set:
		e.buf = append(e.buf, opEmptySet)
		return e.batches(x, opAddItems, depth, true)
	case *Dict:
		return e.dict(x, depth)
	default:
		return fmt.Errorf("cannot pickle a value of Go type %T", v)
	}
	return nil
}

func (e *encoder) int(x int64) {
	switch {
	case x >= 0 && x < 1<<8:
		e.buf = append(e.buf, opBinInt1, byte(x))
	case x >= 0 && x < 1<<16:
		e.buf = append(e.buf, opBinInt2, byte(x), byte(x>>8))
	case x >= math.MinInt32 && x <= math.MaxInt32:
		e.buf = append(e.buf, opBinInt)
		e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(int32(x)))
	default:
		// Minimal two's complement, little-endian: drop high bytes that
		// only repeat the sign of the byte below them.
		var b [8]byte
		binary.LittleEndian.PutUint64(b[:], uint64(x))
		n := 8
		for n > 1 && ((b[n-1] == 0 && b[n-2]&0x80 == 0) || (b[n-1] == 0xff && b[n-2]&0x80 != 0)) {
			n--
		}
		e.buf = append(e.buf, opLong1, byte(n))
		e.buf = append(e.buf, b[:n]...)
	}
}

func (e *encoder) str(s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("string %q is not valid UTF-8", s)
	}
	switch n := len(s); {
	case n < 1<<8:
		e.buf = append(e.buf, opShortBinUni, byte(n))
	case n <= math.MaxUint32:
		e.buf = append(e.buf, opBinUnicode)
		e.buf = binary.LittleEndian.AppendUint32(e.buf, uint32(n))
	default:
		e.buf = append(e.buf, opBinUnicode8)
		e.buf = binary.LittleEndian.AppendUint64(e.buf, uint64(n))
	}
	e.buf = append(e.buf, s...)
	return nil
}

func (e *encoder) tuple(t query.Tuple, depth int) error {
	if len(t) == 0 {
		e.buf = append(e.buf, opEmptyTuple)
		return nil
	}
	if len(t) > 3 {
		e.buf = append(e.buf, opMark)
	}
	for _, x := range t {
		if err := e.value(x, depth+1); err != nil {
			return err
		}
	}
	if len(t) > 3 {
		e.buf = append(e.buf, opTuple)
	} else {
		e.buf = append(e.buf, opTuple1+byte(len(t)-1)) // TUPLE1, TUPLE2, TUPLE3
	}
	return nil
}

// batches writes items in groups of MARK ... op, flushing frames between
// groups; hashable requires every item to be hashable (set elements).
func (e *encoder) batches(items []any, op byte, depth int, hashable bool) error {
	for lo := 0; lo < len(items); lo += batchSize {
		e.buf = append(e.buf, opMark)
		for _, x := range items[lo:min(lo+batchSize, len(items))] {
			if hashable {
				if err := checkHashable(x, 0); err != nil {
					return fmt.Errorf("set element: %w", err)
				}
			}
			if err := e.value(x, depth+1); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, op)
		e.flush(false)
	}
	return nil
}

func (e *encoder) dict(d *Dict, depth int) error {
	switch d.Factory {
	case "":
		e.buf = append(e.buf, opEmptyDict)
	default:
		e.buf = append(e.buf, opGlobal)
		e.buf = append(e.buf, "collections\ndefaultdict\n"...)
		switch f := d.Factory; f {
		case "None":
			e.buf = append(e.buf, opNone)
		case "set", "frozenset", "list", "dict", "int", "str", "tuple", "float", "bool":
			e.buf = append(e.buf, opGlobal)
			e.buf = append(e.buf, "builtins\n"+f+"\n"...)
		default:
			return fmt.Errorf("unsupported defaultdict factory %q", f)
		}
		e.buf = append(e.buf, opTuple1, opReduce)
	}
	for lo := 0; lo < len(d.Items); lo += batchSize {
		e.buf = append(e.buf, opMark)
		for _, it := range d.Items[lo:min(lo+batchSize, len(d.Items))] {
			if err := checkHashable(it.Key, 0); err != nil {
				return fmt.Errorf("dict key: %w", err)
			}
			if err := e.value(it.Key, depth+1); err != nil {
				return err
			}
			if err := e.value(it.Value, depth+1); err != nil {
				return err
			}
		}
		e.buf = append(e.buf, opSetItems)
		e.flush(false)
	}
	return nil
}

// checkHashable reports values Python cannot hash (lists, sets, dicts,
// also inside tuples).
func checkHashable(v any, depth int) error {
	switch x := v.(type) {
	case query.Tuple:
		if depth >= maxDepth {
			return fmt.Errorf("values nested more than %d levels deep (or cyclic)", maxDepth)
		}
		for _, y := range x {
			if err := checkHashable(y, depth+1); err != nil {
				return err
			}
		}
	case []any, Set, *Dict:
		return fmt.Errorf("unhashable %s", valueType(v))
	}
	return nil
}
