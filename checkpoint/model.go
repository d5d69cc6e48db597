// Package checkpoint reads and writes trained models and training state.
//
// A model file is a safetensors file holding every parameter under the
// reference implementation's names (entity_embedding [N, 2d] with rows
// [α | β], alpha_embedding and beta_embedding [R, d], the nn.Linear weights
// [out, in] and biases of projection_net, center_net and union_net) as
// float32, and in its metadata the model configuration as JSON under
// "gammae.config". It loads in Python with the safetensors library or any
// reader of the format.
package checkpoint

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/safetensors"
)

// Metadata keys of model files.
const (
	metaFormat = "format"
	metaConfig = "gammae.config"
)

// SaveModel writes m's parameters and configuration to path atomically;
// extra metadata (strings) is stored beside them.
func SaveModel(path string, m *gamma.Model[float32], extra map[string]string) error {
	cfg, err := json.Marshal(m.Config())
	if err != nil {
		return err
	}
	meta := map[string]string{metaFormat: "pt", metaConfig: string(cfg)}
	for k, v := range extra {
		meta[k] = v
	}
	var ts []safetensors.Tensor
	for _, p := range m.Params() {
		ts = append(ts, safetensors.NewFloat32(p.Name, p.Shape, p.Data))
	}
	return safetensors.WriteFile(path, ts, withChecksum(meta, ts))
}

// LoadModel reads a model file written by SaveModel.
func LoadModel(path string) (*gamma.Model[float32], map[string]string, error) {
	f, release, err := safetensors.MapFile(path)
	if err != nil {
		return nil, nil, err
	}
	defer release()
	return ModelFromFile(path, f)
}

// ModelFromFile builds the model of a parsed model file (path names it in
// errors). The model keeps nothing that points into f.
func ModelFromFile(path string, f *safetensors.File) (*gamma.Model[float32], map[string]string, error) {
	if err := verify(path, f); err != nil {
		return nil, nil, err
	}
	if k := FileKind(f); k != "gammae" {
		return nil, nil, fmt.Errorf("%s: a %s model file, not GammaE's (open it as its kind: the run directory records it)", path, k)
	}
	raw, ok := f.Metadata[metaConfig]
	if !ok {
		return nil, nil, fmt.Errorf("%s: no %q metadata: not a gammae model file", path, metaConfig)
	}
	var cfg gamma.Config
	if err := json.Unmarshal([]byte(raw), &cfg); err != nil {
		return nil, nil, fmt.Errorf("%s: model configuration: %v", path, err)
	}
	if err := cfg.Validate(); err != nil {
		return nil, nil, fmt.Errorf("%s: model configuration: %v", path, err)
	}
	m, err := ModelFromTensors(cfg, f.Tensors())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	return m, f.Metadata, nil
}

// ModelFromTensors builds a float32 model of configuration cfg from named
// F32 or F64 tensors, decoded straight into the model's parameters.
func ModelFromTensors(cfg gamma.Config, ts []safetensors.Tensor) (*gamma.Model[float32], error) {
	byName := make(map[string]safetensors.Tensor, len(ts))
	for _, t := range ts {
		byName[t.Name] = t
	}
	used := 0
	m, err := gamma.Decode(cfg, func(p gamma.Param[float32]) error {
		t, ok := byName[p.Name]
		if !ok {
			return fmt.Errorf("gamma: parameter %s missing", p.Name)
		}
		if !slices.Equal(t.Shape, p.Shape) {
			return fmt.Errorf("gamma: parameter %s has shape %v, want %v", p.Name, t.Shape, p.Shape)
		}
		used++
		return safetensors.DecodeFloats(t, p.Data)
	})
	if err != nil {
		return nil, err
	}
	if used < len(byName) {
		for _, t := range ts {
			if _, ok := m.Param(t.Name); !ok {
				return nil, fmt.Errorf("gamma: unknown parameter %q", t.Name)
			}
		}
	}
	return m, nil
}
