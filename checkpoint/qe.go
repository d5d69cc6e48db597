package checkpoint

import (
	"fmt"
	"math"
	"slices"

	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/safetensors"
)

// MetaKind is the metadata key of a model file's kind ("gqe", "q2b",
// "betae", "cone"; absent in GammaE's files). Baseline model files keep
// their parameters as F64 under the authors' names and their own JSON
// configuration under "gammae.config".
const MetaKind = "gammae.kind"

// NewFunc builds an untrained model of a kind from its JSON configuration
// (the registry's New).
type NewFunc func(kind string, config []byte) (qe.Model, error)

// SaveQE writes a baseline model's parameters (F64), kind and configuration
// to path atomically; extra metadata is stored beside them.
func SaveQE(path string, m qe.Model, config []byte, extra map[string]string) error {
	meta := map[string]string{metaFormat: "pt", MetaKind: m.Kind(), metaConfig: string(config)}
	for k, v := range extra {
		meta[k] = v
	}
	var ts []safetensors.Tensor
	for _, p := range m.Params() {
		ts = append(ts, safetensors.NewFloat64(p.Name, p.Shape, p.Data))
	}
	return safetensors.WriteFile(path, ts, withChecksum(meta, ts))
}

// FileKind returns the kind recorded in a model file: "gammae" for GammaE's
// files, which record none.
func FileKind(f *safetensors.File) string {
	if k, ok := f.Metadata[MetaKind]; ok {
		return k
	}
	return "gammae"
}

// LoadQE reads a baseline model file written by SaveQE: the model is built
// by newModel from the recorded kind and configuration, and every parameter
// is read from the file (by name, shape checked, finite values only).
func LoadQE(path string, newModel NewFunc) (qe.Model, []byte, map[string]string, error) {
	f, release, err := safetensors.MapFile(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer release()
	return QEFromFile(path, f, newModel)
}

// QEFromFile builds the baseline model of a parsed model file (path names
// it in errors), as LoadQE. The model keeps nothing that points into f.
func QEFromFile(path string, f *safetensors.File, newModel NewFunc) (qe.Model, []byte, map[string]string, error) {
	if err := verify(path, f); err != nil {
		return nil, nil, nil, err
	}
	kind := FileKind(f)
	if kind == "gammae" {
		return nil, nil, nil, fmt.Errorf("%s: a GammaE model file, not a baseline's", path)
	}
	config := []byte(f.Metadata[metaConfig])
	m, err := newModel(kind, config)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	if err := setParams(m, f); err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	return m, config, f.Metadata, nil
}

// setParams copies the file's tensors into m's parameters.
func setParams(m qe.Model, f *safetensors.File) error {
	params := m.Params()
	if got, want := len(f.Names()), len(params); got != want {
		return fmt.Errorf("%d tensors, a %s model has %d", got, m.Kind(), want)
	}
	for _, p := range params {
		t, err := f.Tensor(p.Name)
		if err != nil {
			return fmt.Errorf("%s model: %v", m.Kind(), err)
		}
		if !slices.Equal(t.Shape, p.Shape) {
			return fmt.Errorf("tensor %s: shape %v, the configuration gives %v", p.Name, t.Shape, p.Shape)
		}
		if err := safetensors.DecodeFloats(t, p.Data); err != nil {
			return fmt.Errorf("tensor %s: %v", p.Name, err)
		}
		for i, x := range p.Data {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return fmt.Errorf("tensor %s: value %d is %v: the file is corrupt or the run diverged", p.Name, i, x)
			}
		}
	}
	m.ParamsChanged()
	return nil
}
