package pickle

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
)

// Argument layouts of the pickle opcodes (Python's pickletools).
const (
	argNone  = iota
	argFixed // n bytes
	argLine  // up to and including '\n'
	argLines // two lines
	argLen1  // 1-byte length, then data
	argLen4  // 4-byte little-endian length, then data
	argLen4s // signed 4-byte length, then data
	argLen8  // 8-byte little-endian length, then data
)

type opInfo struct {
	name string
	arg  int
	n    int // argFixed size
}

var opcodes = [256]opInfo{
	'(': {"MARK", argNone, 0}, '.': {"STOP", argNone, 0}, '0': {"POP", argNone, 0},
	'1': {"POP_MARK", argNone, 0}, '2': {"DUP", argNone, 0}, 'F': {"FLOAT", argLine, 0},
	'I': {"INT", argLine, 0}, 'J': {"BININT", argFixed, 4}, 'K': {"BININT1", argFixed, 1},
	'L': {"LONG", argLine, 0}, 'M': {"BININT2", argFixed, 2}, 'N': {"NONE", argNone, 0},
	'P': {"PERSID", argLine, 0}, 'Q': {"BINPERSID", argNone, 0}, 'R': {"REDUCE", argNone, 0},
	'S': {"STRING", argLine, 0}, 'T': {"BINSTRING", argLen4s, 0}, 'U': {"SHORT_BINSTRING", argLen1, 0},
	'V': {"UNICODE", argLine, 0}, 'X': {"BINUNICODE", argLen4, 0}, 'a': {"APPEND", argNone, 0},
	'b': {"BUILD", argNone, 0}, 'c': {"GLOBAL", argLines, 0}, 'd': {"DICT", argNone, 0},
	'}': {"EMPTY_DICT", argNone, 0}, 'e': {"APPENDS", argNone, 0}, 'g': {"GET", argLine, 0},
	'h': {"BINGET", argFixed, 1}, 'i': {"INST", argLines, 0}, 'j': {"LONG_BINGET", argFixed, 4},
	'l': {"LIST", argNone, 0}, ']': {"EMPTY_LIST", argNone, 0}, 'o': {"OBJ", argNone, 0},
	'p': {"PUT", argLine, 0}, 'q': {"BINPUT", argFixed, 1}, 'r': {"LONG_BINPUT", argFixed, 4},
	's': {"SETITEM", argNone, 0}, 't': {"TUPLE", argNone, 0}, ')': {"EMPTY_TUPLE", argNone, 0},
	'u': {"SETITEMS", argNone, 0}, 'G': {"BINFLOAT", argFixed, 8},
	0x80: {"PROTO", argFixed, 1}, 0x81: {"NEWOBJ", argNone, 0}, 0x82: {"EXT1", argFixed, 1},
	0x83: {"EXT2", argFixed, 2}, 0x84: {"EXT4", argFixed, 4}, 0x85: {"TUPLE1", argNone, 0},
	0x86: {"TUPLE2", argNone, 0}, 0x87: {"TUPLE3", argNone, 0}, 0x88: {"NEWTRUE", argNone, 0},
	0x89: {"NEWFALSE", argNone, 0}, 0x8a: {"LONG1", argLen1, 0}, 0x8b: {"LONG4", argLen4s, 0},
	'B': {"BINBYTES", argLen4, 0}, 'C': {"SHORT_BINBYTES", argLen1, 0},
	0x8c: {"SHORT_BINUNICODE", argLen1, 0}, 0x8d: {"BINUNICODE8", argLen8, 0},
	0x8e: {"BINBYTES8", argLen8, 0}, 0x8f: {"EMPTY_SET", argNone, 0}, 0x90: {"ADDITEMS", argNone, 0},
	0x91: {"FROZENSET", argNone, 0}, 0x92: {"NEWOBJ_EX", argNone, 0}, 0x93: {"STACK_GLOBAL", argNone, 0},
	0x94: {"MEMOIZE", argNone, 0}, 0x95: {"FRAME", argFixed, 8},
	0x96: {"BYTEARRAY8", argLen8, 0}, 0x97: {"NEXT_BUFFER", argNone, 0}, 0x98: {"READONLY_BUFFER", argNone, 0},
}

const (
	opStop  = '.'
	opFrame = 0x95
	opProto = 0x80
)

// maxProtocol is the highest pickle protocol understood.
const maxProtocol = 5

// opEnd returns the offset just past the opcode at b[i] and its arguments,
// checking that every length fits in the input. Checking lengths before the
// unpickler sees them keeps a corrupt length from allocating gigabytes.
func opEnd(b []byte, i int) (int, error) {
	info := opcodes[b[i]]
	if info.name == "" {
		return 0, fmt.Errorf("unknown opcode 0x%02x", b[i])
	}
	p := i + 1
	rest := len(b) - p
	need := func(n uint64) (int, error) {
		if n > uint64(rest) {
			return 0, fmt.Errorf("%s: argument of %d bytes runs past the end of the input (%d left)", info.name, n, rest)
		}
		return p + int(n), nil
	}
	switch info.arg {
	case argNone:
		return p, nil
	case argFixed:
		return need(uint64(info.n))
	case argLine, argLines:
		lines := 1
		if info.arg == argLines {
			lines = 2
		}
		for range lines {
			j := bytes.IndexByte(b[p:], '\n')
			if j < 0 {
				return 0, fmt.Errorf("%s: argument line has no newline", info.name)
			}
			p += j + 1
		}
		return p, nil
	case argLen1:
		if rest < 1 {
			return need(1)
		}
		p++
		rest--
		return need(uint64(b[p-1]))
	case argLen4, argLen4s:
		if rest < 4 {
			return need(4)
		}
		n := binary.LittleEndian.Uint32(b[p:])
		if info.arg == argLen4s && int32(n) < 0 {
			return 0, fmt.Errorf("%s: negative length %d", info.name, int32(n))
		}
		p += 4
		rest -= 4
		return need(uint64(n))
	case argLen8:
		if rest < 8 {
			return need(8)
		}
		n := binary.LittleEndian.Uint64(b[p:])
		p += 8
		rest -= 8
		if n > math.MaxInt32 {
			return 0, fmt.Errorf("%s: length %d too large", info.name, n)
		}
		return need(n)
	}
	panic("unreachable")
}

// unframe validates the opcode stream of b up to its STOP and returns it with
// the FRAME opcodes removed (the unpickler reads a whole frame at once, which
// would hide the position of a failing opcode), and the positions in the
// returned stream where a frame header was removed.
func unframe(b []byte) (out []byte, frames []int, err error) {
	out = b
	for i := 0; ; {
		if i >= len(b) {
			return nil, nil, &Error{Offset: int64(i), Err: fmt.Errorf("input ends without a STOP opcode")}
		}
		end, err := opEnd(b, i)
		if err != nil {
			return nil, nil, &Error{Offset: int64(i), Op: opcodes[b[i]].name, Err: err}
		}
		switch b[i] {
		case opProto:
			if b[i+1] > maxProtocol {
				return nil, nil, &Error{Offset: int64(i), Op: "PROTO", Err: fmt.Errorf("unsupported protocol %d", b[i+1])}
			}
		case opFrame:
			if n := binary.LittleEndian.Uint64(b[i+1:]); n > uint64(len(b)-end) {
				return nil, nil, &Error{Offset: int64(i), Op: "FRAME", Err: fmt.Errorf("frame of %d bytes runs past the end of the input (%d left)", n, len(b)-end)}
			}
			if len(frames) == 0 {
				out = append(make([]byte, 0, len(b)), b[:i]...)
			}
			frames = append(frames, len(out))
			i = end
			continue
		}
		if len(frames) > 0 {
			out = append(out, b[i:end]...)
		}
		if b[i] == opStop {
			return out, frames, nil
		}
		i = end
	}
}

// origOffset maps an offset in the unframed stream back to the input.
func origOffset(pos int, frames []int) int64 {
	n := 0
	for _, f := range frames {
		if f <= pos {
			n++
		}
	}
	return int64(pos + 9*n)
}

// opAt finds the opcode of the unframed stream b that contains byte pos-1,
// i.e. the last one the unpickler read when it stopped at pos.
func opAt(b []byte, pos int) (start int, name string) {
	for i := 0; i < len(b); {
		end, err := opEnd(b, i)
		if err != nil || end >= pos {
			return i, opcodes[b[i]].name
		}
		i = end
	}
	return pos, ""
}

// End returns the offset just past the STOP opcode of the pickle starting
// at b[pos], checking every opcode as Load does: known, with every length
// and frame within b, so that no corrupt length reaches an unpickler.
// Readers of formats that embed pickles (PyTorch checkpoints) use it to
// find and check each one.
func End(b []byte, pos int) (int, error) {
	for i := pos; ; {
		if i >= len(b) {
			return 0, fmt.Errorf("input ends at byte %d without a STOP opcode", len(b))
		}
		p, err := opEnd(b, i)
		if err != nil {
			return 0, fmt.Errorf("byte %d: %w", i, err)
		}
		if b[i] == 0x95 { // FRAME: its argument is the length of the opcodes that follow
			if f := binary.LittleEndian.Uint64(b[i+1:]); f > uint64(len(b)-p) {
				return 0, fmt.Errorf("byte %d: frame of %d bytes runs past the end", i, f)
			}
		}
		if b[i] == '.' {
			return p, nil
		}
		i = p
	}
}
