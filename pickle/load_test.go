package pickle

import (
	"errors"
	"github.com/nlpodyssey/gopickle/types"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/gammae/gammae/query"
)

type tup = query.Tuple

// Pickles written by CPython 3.11 (pickle.dumps(v, protocol=p)).
var pythonPickles = []struct {
	name string
	data string
	want any
}{
	{"int", "\x80\x02K\x05.", 5},
	{"ints", "\x80\x02]q\x00(K\x00K\xffM\x00\x01M\xff\xffJ\x00\x00\x01\x00J\xff\xff\xff\xffJ\x00\x00\x00\x80J\xff\xff\xff\x7f\x8a\x05\x00\x00\x00\x80\x00\x8a\x08\x00\x00\x00\x00\x00\x00\x00@\x8a\x08\x00\x00\x00\x00\x00\x00\x00\x80e.",
		[]any{0, 255, 256, 65535, 65536, -1, -1 << 31, 1<<31 - 1, 1 << 31, 1 << 62, -1 << 63}},
	{"scalars-proto0", "(I1\x0aVa\x0ap0\x0aF2.5\x0aNI01\x0aI00\x0aI-7\x0aL1099511627776L\x0atp1\x0a.",
		tup{1, "a", 2.5, nil, true, false, -7, 1 << 40}},
	{"scalars-proto4", "\x80\x04\x95(\x00\x00\x00\x00\x00\x00\x00(K\x01\x8c\x06h\xc3\xa9llo\x94G@\x04\x00\x00\x00\x00\x00\x00N\x88\x89J\xf9\xff\xff\xff\x8a\x06\x00\x00\x00\x00\x00\x01t\x94.",
		tup{1, "héllo", 2.5, nil, true, false, -7, 1 << 40}},
	{"set-proto2", "\x80\x02c__builtin__\x0aset\x0aq\x00]q\x01(K\x01K\x02K\x03e\x85q\x02Rq\x03.", Set{1, 2, 3}},
	{"set-proto3", "\x80\x03cbuiltins\x0aset\x0aq\x00]q\x01(K\x05K\x03\x85q\x02\x86q\x03K\x04K\x01\x85q\x04\x86q\x05e\x85q\x06Rq\x07.",
		Set{tup{4, tup{1}}, tup{5, tup{3}}}},
	{"set-proto4", "\x80\x04\x95\x0f\x00\x00\x00\x00\x00\x00\x00\x8f\x94(Jp\x11\x01\x00M,\x01K\x07\x90.", Set{7, 300, 70000}},
	{"frozenset-proto2", "\x80\x02c__builtin__\x0afrozenset\x0aq\x00]q\x01(K\x01K\x02e\x85q\x02Rq\x03.", Set{1, 2}},
	{"frozenset-proto4", "\x80\x04\x95\x08\x00\x00\x00\x00\x00\x00\x00(K\x01K\x02\x91\x94.", Set{1, 2}},
	{"dict-proto1", "}q\x00(K\x01X\x01\x00\x00\x00aq\x01K\x02X\x01\x00\x00\x00bq\x02u.", &Dict{Items: []Item{{1, "a"}, {2, "b"}}}},
	{"empty", "\x80\x04\x95\x08\x00\x00\x00\x00\x00\x00\x00)]\x94}\x94\x87\x94.", tup{tup{}, []any{}, &Dict{Items: []Item{}}}},
	{"long-tuple", "\x80\x02(K\x01K\x02K\x03K\x04K\x05tq\x00.", tup{1, 2, 3, 4, 5}},
	{"defaultdict-set-proto2", "\x80\x02ccollections\x0adefaultdict\x0aq\x00c__builtin__\x0aset\x0aq\x01\x85q\x02Rq\x03(X\x01\x00\x00\x00eq\x04X\x01\x00\x00\x00rq\x05\x85q\x06\x86q\x07h\x01]q\x08(K\x07K\x00\x85q\x09\x86q\x0aK\x02K\x01\x85q\x0b\x86q\x0ce\x85q\x0dRq\x0eh\x07h\x04h\x05X\x01\x00\x00\x00nq\x0f\x86q\x10\x86q\x11\x86q\x12h\x01]q\x13K\x01K\x02\x85q\x14\x86q\x15K\x03K\x04J\xfe\xff\xff\xff\x86q\x16\x86q\x17\x86q\x18a\x85q\x19Rq\x1au.",
		queryDict},
	{"defaultdict-set-proto3", "\x80\x03ccollections\x0adefaultdict\x0aq\x00cbuiltins\x0aset\x0aq\x01\x85q\x02Rq\x03(X\x01\x00\x00\x00eq\x04X\x01\x00\x00\x00rq\x05\x85q\x06\x86q\x07h\x01]q\x08(K\x07K\x00\x85q\x09\x86q\x0aK\x02K\x01\x85q\x0b\x86q\x0ce\x85q\x0dRq\x0eh\x07h\x04h\x05X\x01\x00\x00\x00nq\x0f\x86q\x10\x86q\x11\x86q\x12h\x01]q\x13K\x01K\x02\x85q\x14\x86q\x15K\x03K\x04J\xfe\xff\xff\xff\x86q\x16\x86q\x17\x86q\x18a\x85q\x19Rq\x1au.",
		queryDict},
	{"defaultdict-set-proto4", "\x80\x04\x95\x83\x00\x00\x00\x00\x00\x00\x00\x8c\x0bcollections\x94\x8c\x0bdefaultdict\x94\x93\x94\x8c\x08builtins\x94\x8c\x03set\x94\x93\x94\x85\x94R\x94(\x8c\x01e\x94\x8c\x01r\x94\x85\x94\x86\x94\x8f\x94(K\x07K\x00\x85\x94\x86\x94K\x02K\x01\x85\x94\x86\x94\x90h\x0bh\x08h\x09\x8c\x01n\x94\x86\x94\x86\x94\x86\x94\x8f\x94(K\x01K\x02\x85\x94\x86\x94K\x03K\x04J\xfe\xff\xff\xff\x86\x94\x86\x94\x86\x94\x90u.",
		queryDict},
	{"defaultdict-list", "\x80\x04\x95A\x00\x00\x00\x00\x00\x00\x00\x8c\x0bcollections\x94\x8c\x0bdefaultdict\x94\x93\x94\x8c\x08builtins\x94\x8c\x04list\x94\x93\x94\x85\x94R\x94\x8c\x01k\x94]\x94K\x01as.",
		&Dict{Items: []Item{{"k", []any{1}}}, Factory: "list"}},
	{"ordereddict", "\x80\x02ccollections\x0aOrderedDict\x0aq\x00)Rq\x01(X\x01\x00\x00\x00bq\x02K\x01X\x01\x00\x00\x00aq\x03K\x02u.",
		&Dict{Items: []Item{{"b", 1}, {"a", 2}}}},
	{"shared", "\x80\x04\x95\x0c\x00\x00\x00\x00\x00\x00\x00]\x94(]\x94K\x01ah\x01e.", []any{[]any{1}, []any{1}}},
	{"trailing-bytes-ignored", "\x80\x02K\x05.garbage", 5},
}

// queryDict is defaultdict(set) {(e,(r,)): {(7,(0,)), (2,(1,))}, 2in: {((1,(2,)),(3,(4,-2)))}}.
var queryDict = &Dict{Factory: "set", Items: []Item{
	{tup{"e", tup{"r"}}, Set{tup{2, tup{1}}, tup{7, tup{0}}}},
	{tup{tup{"e", tup{"r"}}, tup{"e", tup{"r", "n"}}}, Set{tup{tup{1, tup{2}}, tup{3, tup{4, -2}}}}},
}}

func TestLoadPython(t *testing.T) {
	for _, tc := range pythonPickles {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Load(strings.NewReader(tc.data))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %#v\nwant %#v", got, tc.want)
			}
		})
	}
}

func TestLoadErrors(t *testing.T) {
	tests := []struct {
		name   string
		data   string
		offset int64
		op     string
		msg    string
	}{
		{"empty", "", 0, "", "without a STOP"},
		{"no stop", "\x80\x02K\x05", 4, "", "without a STOP"},
		{"truncated argument", "\x80\x02K", 2, "BININT1", "past the end"},
		{"unknown opcode", "\x80\x02\xff.", 2, "", "unknown opcode 0xff"},
		{"protocol", "\x80\x09K\x01.", 0, "PROTO", "unsupported protocol 9"},
		{"huge string length", "\x80\x04X\xff\xff\xff\xff.", 2, "BINUNICODE", "past the end"},
		{"huge frame", "\x80\x04\x95\xff\xff\xff\xff\xff\xff\xff\x7fK\x01.", 2, "FRAME", "past the end"},
		{"line without newline", "\x80\x02cos", 2, "GLOBAL", "no newline"},
		{"negative length", "\x80\x02T\xff\xff\xff\xff.", 2, "BINSTRING", "negative length"},
		{"foreign class", "\x80\x02cposix\x0asystem\x0aq\x00.", 2, "GLOBAL", "class posix.system is not supported"},
		{"empty stack", "\x80\x02.", 2, "STOP", "stack is empty"},
		{"unhashable set element", "\x80\x04\x8f(C\x01a\x90.", 7, "ADDITEMS", "malformed pickle"},
		// The same inside a frame: the offset counts the frame header.
		{"unhashable in frame", "\x80\x04\x95\x07\x00\x00\x00\x00\x00\x00\x00\x8f(C\x01a\x90.", 16, "ADDITEMS", "malformed pickle"},
		{"append to tuple", "\x80\x02)K\x01a.", 5, "APPEND", "APPEND"},
		{"big int", "\x80\x02\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x00\x01.", -1, "", "18446744073709551616 does not fit"},
		{"bytes", "\x80\x03C\x01a.", -1, "", "unsupported Python value of type bytes"},
		{"list in set", "\x80\x04\x8f(]\x90.", -1, "", "set element: unhashable list"},
		{"dict as key", "\x80\x04}}K\x01s.", -1, "", "dict key: unhashable dict"},
		{"cyclic list", "\x80\x04\x95\x06\x00\x00\x00\x00\x00\x00\x00]\x94h\x00a.", -1, "", "cyclic"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			v, err := Load(strings.NewReader(tc.data))
			if err == nil {
				t.Fatalf("got %#v, want an error", v)
			}
			var pe *Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v is not a *pickle.Error", err)
			}
			if pe.Offset != tc.offset || pe.Op != tc.op || !strings.Contains(err.Error(), tc.msg) {
				t.Errorf("got %q (offset %d, op %q), want offset %d, op %q, containing %q", err, pe.Offset, pe.Op, tc.offset, tc.op, tc.msg)
			}
		})
	}
}

func TestLoadFileNamesFile(t *testing.T) {
	path := t.TempDir() + "/bad.pkl"
	if err := os.WriteFile(path, []byte("\x80\x02K"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := LoadFile(path)
	if err == nil || !strings.HasPrefix(err.Error(), path+": byte 2: BININT1: ") {
		t.Errorf("got %v, want an error starting with %q", err, path+": byte 2: BININT1: ")
	}
}

// TestLoadSharedExponential loads a list of two references to one list, 40
// levels deep: without converting shared containers once this would take
// 2^40 steps.
func TestLoadSharedExponential(t *testing.T) {
	start := time.Now()
	v, err := Load(strings.NewReader(cpythonNested40))
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
	depth := 0
	for l := v.([]any); len(l) == 2; l = l[0].([]any) {
		a, b := l[0].([]any), l[1].([]any)
		if len(a) != len(b) || (len(a) > 0 && &a[0] != &b[0]) {
			t.Fatalf("level %d: the two halves are not shared", depth)
		}
		depth++
	}
	if depth != 40 {
		t.Errorf("depth %d, want 40", depth)
	}
}

// cpythonNested40 is x = []; 40 times x = [x, x]; pickle.dumps(x, 4).
const cpythonNested40 = "\x80\x04\x95\xf3\x00\x00\x00\x00\x00\x00\x00]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94(]\x94h(eh'eh&eh%eh$eh#eh\"eh!eh eh\x1feh\x1eeh\x1deh\x1ceh\x1beh\x1aeh\x19eh\x18eh\x17eh\x16eh\x15eh\x14eh\x13eh\x12eh\x11eh\x10eh\x0feh\x0eeh\x0deh\x0ceh\x0beh\x0aeh\x09eh\x08eh\x07eh\x06eh\x05eh\x04eh\x03eh\x02eh\x01e."

// TestConverterRefusesUnhashable: in its memo mode (pickles with shared
// containers) the converter keyed its memo by any value, and a bytes value
// (an unhashable []byte in Go) panicked the whole program. Every value that
// is not a container is refused before the memo is consulted.
func TestConverterRefusesUnhashable(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
	}{
		{"bytes", []byte("x")},
		{"bytes in a list", &types.List{[]byte("x")}},
		{"bytearray", types.NewByteArray()},
	} {
		for _, memo := range []bool{false, true} {
			c := converter{budget: 100}
			if memo {
				c = converter{budget: -1, seen: map[any]any{}}
			}
			if _, err := c.value(tc.v, 0); err == nil || !strings.Contains(err.Error(), "unsupported Python value") {
				t.Errorf("%s (memo %v): error %v", tc.name, memo, err)
			}
		}
	}
}
