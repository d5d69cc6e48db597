package safetensors

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// MapFile parses what ReadFile parses, from a file large enough to be
// mapped and from a small one that is read; its errors name the file.
func TestMapFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{3, 1 << 19} { // 12 bytes, and 2 MiB of floats
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(i) / 7
		}
		path := filepath.Join(dir, "m.safetensors")
		if err := WriteFile(path, []Tensor{NewFloat32("w", []int{n}, v)}, map[string]string{"k": "v"}); err != nil {
			t.Fatal(err)
		}
		want, err := ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, release, err := MapFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(f.Metadata, want.Metadata) || !reflect.DeepEqual(f.Tensors(), want.Tensors()) {
			t.Errorf("%d values: the mapped file parses differently", n)
		}
		release()
		if got := f.Metadata["k"]; got != "v" { // metadata outlives the mapping
			t.Errorf("metadata after release: %q", got)
		}
	}
	bad := filepath.Join(dir, "bad.safetensors")
	os.WriteFile(bad, []byte("junk"), 0o644)
	if _, _, err := MapFile(bad); err == nil || !strings.Contains(err.Error(), bad) {
		t.Errorf("error %v does not name the file", err)
	}
	if _, _, err := MapFile(filepath.Join(dir, "none")); err == nil {
		t.Error("a missing file mapped")
	}
}

func TestDecodeFloats(t *testing.T) {
	f32 := NewFloat32("a", []int{3}, []float32{1.5, -2, float32(math.Pi)})
	f64 := NewFloat64("b", []int{3}, []float64{1.5, -2, math.Pi})
	i32 := NewInt32("c", []int{3}, []int32{1, 2, 3})
	got32 := make([]float32, 3)
	if err := DecodeFloats(f64, got32); err != nil || !reflect.DeepEqual(got32, []float32{1.5, -2, float32(math.Pi)}) {
		t.Errorf("F64 into float32: %v, %v", got32, err)
	}
	got64 := make([]float64, 3)
	if err := DecodeFloats(f32, got64); err != nil || !reflect.DeepEqual(got64, []float64{1.5, -2, float64(float32(math.Pi))}) {
		t.Errorf("F32 into float64: %v, %v", got64, err)
	}
	if err := DecodeFloats(f64, got64); err != nil || got64[2] != math.Pi {
		t.Errorf("F64 into float64: %v, %v", got64, err)
	}
	for _, c := range []struct {
		name string
		t    Tensor
		dst  []float32
		want string
	}{
		{"dtype", i32, make([]float32, 3), "is I32, want F32 or F64"},
		{"short", f32, make([]float32, 2), "holds 3 values, want 2"},
		{"long", f64, make([]float32, 4), "holds 3 values, want 4"},
		{"bytes", Tensor{Name: "d", DType: F32, Shape: []int{3}, Data: f32.Data[:8]}, make([]float32, 3), `"d"`},
	} {
		if err := DecodeFloats(c.t, c.dst); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
}
