package mapfile

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// Read gives a file's bytes whether it maps it or reads it.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	want := bytes.Repeat([]byte("gammae"), 50_000)
	path := filepath.Join(dir, "f")
	if err := os.WriteFile(path, want, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, min := range []int64{0, int64(len(want)), int64(len(want)) + 1} {
		b, release, err := Read(path, min)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(b, want) {
			t.Errorf("min %d: the bytes differ", min)
		}
		b[0] = 'X' // copy-on-write: the file keeps its bytes
		release()
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, want) {
		t.Error("a write to the returned bytes reached the file")
	}
	empty := filepath.Join(dir, "empty")
	os.WriteFile(empty, nil, 0o644)
	if b, release, err := Read(empty, 0); err != nil || len(b) != 0 {
		t.Errorf("empty file: %d bytes, %v", len(b), err)
	} else {
		release()
	}
	if _, _, err := Read(filepath.Join(dir, "none"), 0); err == nil {
		t.Error("a missing file read")
	}
}
