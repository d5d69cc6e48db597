package checkpoint

import (
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gammae/gammae/gamma"
)

func smallModel(t *testing.T) *gamma.Model[float32] {
	t.Helper()
	m, err := gamma.New[float32](gamma.Config{Entities: 50, Relations: 4, Dim: 8, Hidden: 16, Layers: 2, Gamma: 12, Epsilon: 0.07, Union: gamma.UnionMoment},
		rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestCorruptModelRefused writes a model, damages it in the ways the
// issue found (a run of 0xFF bytes in the tensor data; a NaN saved by a
// diverged run) and checks that loading refuses it with a clear error.
func TestCorruptModelRefused(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.safetensors")
	m := smallModel(t)
	if err := SaveModel(path, m, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadModel(path); err != nil {
		t.Fatalf("intact file: %v", err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := len(b) / 2; i < len(b)/2+64; i++ {
		b[i] = 0xFF
	}
	bad := filepath.Join(dir, "bad.safetensors")
	if err := os.WriteFile(bad, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadModel(bad); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("damaged file: error %v, want a checksum error", err)
	}

	m.Params()[0].Data[3] = float32(math.NaN())
	nan := filepath.Join(dir, "nan.safetensors")
	if err := SaveModel(nan, m, nil); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadModel(nan); err == nil || !strings.Contains(err.Error(), "NaN at index 3") {
		t.Errorf("NaN parameter: error %v, want it named", err)
	}
}
