package dataset

import (
	"encoding/binary"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"

	"github.com/gammae/gammae/kg"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	d := tinyDataset(t, 1)
	d.KG.Entities.Labels = make([]string, d.KG.Entities.Len())
	for i := range d.KG.Entities.Labels {
		d.KG.Entities.Labels[i] = "Entity " + d.KG.Entities.Names[i]
	}
	path := filepath.Join(t.TempDir(), "tiny.gqd")
	if err := Save(path, d); err != nil {
		t.Fatal(err)
	}
	got, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := diff(d, got); s != "" {
		t.Fatal(s)
	}
	if got.KG.Entities.Label(0) != "Entity ann" {
		t.Errorf("label %q", got.KG.Entities.Label(0))
	}
	if id, ok := got.KG.Entities.ID("eve"); !ok || got.KG.Entities.Name(id) != "eve" {
		t.Errorf("dictionary index not rebuilt")
	}
	// Every split got queries, valid/test with easy answers.
	for i, s := range got.splits() {
		if len(s.Groups) == 0 {
			t.Errorf("%s split is empty", splitNames[i])
		}
	}
	if g := got.Test.Group("2u"); g == nil || len(g.Easy) == 0 || len(g.Ans) == 0 {
		t.Errorf("test 2u group missing or without answers")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("Save left temporary files: %v", entries)
	}
}

// fixCRC rewrites the header checksum so that a corrupted payload reaches
// the decoder.
func fixCRC(b []byte) {
	if len(b) >= headerSize {
		binary.LittleEndian.PutUint32(b[12:], crc32.ChecksumIEEE(b[headerSize:]))
		binary.LittleEndian.PutUint64(b[16:], uint64(len(b)-headerSize))
	}
}

func tinyFile(t testing.TB) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "tiny.gqd")
	if err := Save(path, tinyDataset(t, 1)); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestLoadErrors(t *testing.T) {
	good := tinyFile(t)
	mod := func(f func(b []byte) []byte) []byte { return f(append([]byte(nil), good...)) }
	for _, c := range []struct {
		name string
		b    []byte
		want string
	}{
		{"empty", nil, "truncated at byte 0 reading the 24-byte header"},
		{"bad magic", mod(func(b []byte) []byte { b[0] = 'X'; return b }), "bad magic"},
		{"short bad magic", []byte("NOTADATASET"), "bad magic"},
		{"version", mod(func(b []byte) []byte { b[8] = 9; return b }), "format version 9"},
		{"crc", mod(func(b []byte) []byte { b[len(b)-1] ^= 1; return b }), "checksum mismatch"},
		{"truncated file", good[:len(good)-10], "truncated at byte"},
		{"trailing bytes", append(append([]byte(nil), good...), 0), "unexpected bytes"},
		{"truncated payload", mod(func(b []byte) []byte { b = b[:len(b)-3]; fixCRC(b); return b }), "truncated at byte"},
		{"huge name count", mod(func(b []byte) []byte { binary.LittleEndian.PutUint32(b[24:], 1<<30); fixCRC(b); return b }), "truncated at byte 28 reading entity names lengths"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := decode("x.gqd", c.b)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), "dataset x.gqd: ") {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
		})
	}
}

func FuzzLoad(f *testing.F) {
	good := tinyFile(f)
	f.Add(good, false)
	f.Add(good[:100], true)
	f.Add([]byte(magic), false)
	f.Fuzz(func(t *testing.T, b []byte, fix bool) {
		if fix {
			// Mutations of the payload mostly break the checksum; fix it
			// up to reach the structural checks.
			b = append([]byte(nil), b...)
			fixCRC(b)
		}
		d, err := decode("fuzz", b)
		if err != nil {
			return
		}
		// Whatever decodes must be consistent enough to encode again.
		if err := encode(&writer{w: io.Discard}, d); err != nil {
			t.Fatalf("decoded dataset does not encode: %v", err)
		}
	})
}

func TestSaveRejects(t *testing.T) {
	k := tinyKG(t)
	notNested := *k
	notNested.Valid = k.Train
	notNested.Train = k.Test // train has edges valid lacks
	badGroup, _ := NewGroup("(e,(r,))")
	badGroup.Append([]int32{0, 0}, []int32{1}, nil)
	badGroup.IDs = badGroup.IDs[:1]
	for _, c := range []struct {
		name string
		d    *Dataset
		want string
	}{
		{"no graph", &Dataset{}, "no knowledge graph"},
		{"not nested", &Dataset{KG: &notNested}, "train graph is not part of the valid graph: entity"},
		{"names", &Dataset{KG: &kg.KG{Entities: kg.NewDict([]string{"a"}), Relations: k.Relations, Train: k.Train, Valid: k.Valid, Test: k.Test}}, "1 entity names for 10 entities"},
		{"group", &Dataset{KG: k, Test: Split{Groups: []*Group{badGroup}}}, "test split: group (e,(r,)): 1 ids for 1 queries of 2 slots"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			err := Save(filepath.Join(dir, "x.gqd"), c.d)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("got %v, want an error containing %q", err, c.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("failed Save left %v", entries)
			}
		})
	}
}

// TestLoadVersion1: files written before the padding (format version 1,
// testdata/tiny-v1.gqd) still load, and hold what a version 2 file of the
// same dataset holds.
func TestLoadVersion1(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "tiny-v1.gqd"))
	if err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != 1 {
		t.Fatalf("testdata/tiny-v1.gqd has version %d", v)
	}
	d1, err := Load(filepath.Join("testdata", "tiny-v1.gqd"))
	if err != nil {
		t.Fatal(err)
	}
	if d1.KG.Entities.Len() == 0 || d1.Test.Group("2u") == nil {
		t.Fatalf("version 1 file decoded empty")
	}
	path := filepath.Join(t.TempDir(), "v2.gqd")
	if err := Save(path, d1); err != nil {
		t.Fatal(err)
	}
	d2, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := diff(d1, d2); s != "" {
		t.Fatal(s)
	}
}

// TestLoadInPlace: a mapped file's arrays are its bytes (no copies), with
// their capacity clipped, and writing to one changes neither the file nor
// a second load of it (the mapping is copy-on-write).
func TestLoadInPlace(t *testing.T) {
	defer func(m int64) { mapMin = m }(mapMin)
	mapMin = 0
	want := tinyDataset(t, 1)
	path := filepath.Join(t.TempDir(), "tiny.gqd")
	if err := Save(path, want); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got, err := LoadMapped(path)
	if err != nil {
		t.Fatal(err)
	}
	if s := diff(want, got); s != "" {
		t.Fatal(s)
	}
	g := got.Train.Groups[0]
	if cap(g.IDs) != len(g.IDs) || cap(g.Ans) != len(g.Ans) {
		t.Errorf("in-place arrays not clipped: len %d cap %d, len %d cap %d", len(g.IDs), cap(g.IDs), len(g.Ans), cap(g.Ans))
	}
	old := g.IDs[0]
	g.IDs[0] = old + 1
	after, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(after) != string(before) {
		t.Fatal("writing to a loaded array changed the file")
	}
	again, err := LoadMapped(path)
	if err != nil {
		t.Fatal(err)
	}
	if again.Train.Groups[0].IDs[0] != old {
		t.Fatal("writing to a loaded array changed a second load")
	}
}

// TestDecodeInPlace: on a little-endian host, decoding a 4-aligned buffer
// uses its bytes for the arrays; an unaligned one gets copies with the
// same values.
func TestDecodeInPlace(t *testing.T) {
	if !littleEndian {
		t.Skip("big-endian host: arrays are always copied")
	}
	good := tinyFile(t)
	buf := make([]byte, len(good)+4) // a fresh allocation is 8-aligned
	for _, shift := range []int{0, 1} {
		b := buf[shift : shift+len(good)]
		copy(b, good)
		d, err := decode("x.gqd", b)
		if err != nil {
			t.Fatal(err)
		}
		ids := d.Train.Groups[0].IDs
		p := uintptr(unsafe.Pointer(&ids[0]))
		inside := p >= uintptr(unsafe.Pointer(&b[0])) && p < uintptr(unsafe.Pointer(&b[0]))+uintptr(len(b))
		if inside != (shift == 0) {
			t.Errorf("shift %d: arrays in the buffer: %v", shift, inside)
		}
		if s := diff(tinyDataset(t, 1), d); s != "" {
			t.Fatalf("shift %d: %s", shift, s)
		}
	}
}
