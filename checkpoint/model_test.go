package checkpoint

import (
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/safetensors"
)

// A model file large enough to be mapped (over 1 MiB) loads back bit for
// bit, and the model keeps nothing of the mapping.
func TestLoadModelMapped(t *testing.T) {
	cfg := gamma.Config{Entities: 4000, Relations: 6, Dim: 64, Hidden: 32, Layers: 2, Gamma: 12, Epsilon: 0.07, Union: gamma.UnionMoment}
	m, err := gamma.New[float32](cfg, rand.New(rand.NewPCG(3, 4)))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "m.safetensors")
	if err := SaveModel(path, m, map[string]string{"gammae.iteration": "7"}); err != nil {
		t.Fatal(err)
	}
	got, meta, err := LoadModel(path) // unmaps before returning
	if err != nil {
		t.Fatal(err)
	}
	if meta["gammae.iteration"] != "7" {
		t.Errorf("metadata %v", meta)
	}
	for i, p := range m.Params() {
		if q := got.Params()[i]; q.Name != p.Name || !slices.Equal(q.Data, p.Data) {
			t.Errorf("%s differs after the round trip", p.Name)
		}
	}
}

func TestModelFromTensorsRejects(t *testing.T) {
	m := smallModel(t)
	var good []safetensors.Tensor
	for _, p := range m.Params() {
		good = append(good, safetensors.NewFloat32(p.Name, p.Shape, p.Data))
	}
	first := good[0].Name
	edit := func(f func(ts []safetensors.Tensor) []safetensors.Tensor) []safetensors.Tensor {
		return f(slices.Clone(good))
	}
	for _, c := range []struct {
		name string
		ts   []safetensors.Tensor
		want string
	}{
		{"missing", edit(func(ts []safetensors.Tensor) []safetensors.Tensor { return ts[1:] }), first + " missing"},
		{"unknown", edit(func(ts []safetensors.Tensor) []safetensors.Tensor {
			return append(ts, safetensors.NewFloat32("extra", []int{1}, []float32{0}))
		}), `unknown parameter "extra"`},
		{"shape", edit(func(ts []safetensors.Tensor) []safetensors.Tensor {
			ts[0] = safetensors.NewFloat32(first, []int{1}, []float32{0})
			return ts
		}), first + " has shape [1]"},
		{"dtype", edit(func(ts []safetensors.Tensor) []safetensors.Tensor {
			ts[0] = safetensors.NewInt32(first, good[0].Shape, make([]int32, good[0].NumElements()))
			return ts
		}), "want F32 or F64"},
	} {
		if _, err := ModelFromTensors(m.Config(), c.ts); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
	}
	// F64 tensors (the reference's) convert.
	var f64 []safetensors.Tensor
	for _, p := range m.Params() {
		v := make([]float64, len(p.Data))
		for i, x := range p.Data {
			v[i] = float64(x)
		}
		f64 = append(f64, safetensors.NewFloat64(p.Name, p.Shape, v))
	}
	got, err := ModelFromTensors(m.Config(), f64)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Params()[0].Data, m.Params()[0].Data) {
		t.Error("F64 tensors load differently")
	}
}
