package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	if err := WriteFile(p, []byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := WriteBuffered(p, func(w io.Writer) error {
		_, err := io.WriteString(w, "two")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "two" {
		t.Fatalf("content %q (%v)", b, err)
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	// A failing fill leaves the old file and no temporary one.
	boom := errors.New("boom")
	if err := Write(p, func(f *os.File) error { f.WriteString("partial"); return boom }); !errors.Is(err, boom) || !strings.Contains(err.Error(), p) {
		t.Errorf("error %v, want boom naming %s", err, p)
	}
	if b, _ := os.ReadFile(p); string(b) != "two" {
		t.Errorf("content after a failed write: %q", b)
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".*tmp*")); len(m) > 0 {
		t.Errorf("temporary files left: %v", m)
	}
	// A missing directory is named by the target path.
	missing := filepath.Join(dir, "no", "such", "x.gqd")
	if err := WriteFile(missing, nil); err == nil || !strings.Contains(err.Error(), missing) || strings.Contains(err.Error(), ".tmp") {
		t.Errorf("error %v, want one naming %s and no temporary file", err, missing)
	}
}
