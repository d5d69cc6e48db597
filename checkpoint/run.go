package checkpoint

import (
	"encoding/json"
	"fmt"
	"github.com/gammae/gammae/internal/atomicfile"
	"os"
	"path/filepath"

	"github.com/gammae/gammae/gamma"
)

// Files of a run directory.
const (
	ConfigFile    = "config.json"           // RunMeta
	ModelFile     = "model.safetensors"     // latest parameters
	BestFile      = "best.safetensors"      // parameters with the best validation MRR
	AverageFile   = "average.safetensors"   // mean parameters of the run's last part (train --average)
	OptimizerFile = "optimizer.safetensors" // Adam moments
	StateFile     = "state.json"            // step, schedule and random state
	LogFile       = "log.jsonl"             // one JSON object per logged step
)

// RunMeta is a run directory's config.json.
type RunMeta struct {
	Version int    `json:"version"`
	Dataset string `json:"dataset"` // path of the .gqd dataset trained on
	// Kind is the model's registry name; "" (older runs) means GammaE.
	Kind  string          `json:"kind,omitempty"`
	Model gamma.Config    `json:"model"` // GammaE's configuration
	Train json.RawMessage `json:"train"` // the trainer's configuration
	// Config is a baseline's own model configuration (its package's Config).
	Config json.RawMessage `json:"config,omitempty"`
	// Hosts names the machines the run trained on, in order (the CPU and
	// the kernels used; a resumed run may add one), so that its
	// CPU-seconds can be read against the right processor.
	Hosts []string `json:"hosts,omitempty"`
}

// ModelKind is the run's model kind, "gammae" for runs that record none.
func (m *RunMeta) ModelKind() string {
	if m.Kind == "" {
		return "gammae"
	}
	return m.Kind
}

// WriteRunMeta writes dir/config.json atomically.
func WriteRunMeta(dir string, m *RunMeta) error {
	return writeJSON(filepath.Join(dir, ConfigFile), m)
}

// writeJSON writes v as indented JSON to path atomically: the run
// directory's small files.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return WriteFileAtomic(path, append(b, '\n'))
}

// ReadRunMeta reads dir/config.json.
func ReadRunMeta(dir string) (*RunMeta, error) {
	p := filepath.Join(dir, ConfigFile)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	var m RunMeta
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", p, err)
	}
	return &m, nil
}

// Open loads the model of a run: path is a run directory (its best model
// when best is set and one exists, else its latest) or a model file. The
// RunMeta is nil for a bare model file.
func Open(path string, best bool) (*gamma.Model[float32], *RunMeta, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, nil, err
	}
	if !st.IsDir() {
		if IsTorch(path) {
			return nil, nil, fmt.Errorf("%s: a PyTorch checkpoint: convert it first with 'gammae import-torch'", path)
		}
		m, _, err := LoadModel(path)
		return m, nil, err
	}
	meta, err := ReadRunMeta(path)
	if err != nil {
		return nil, nil, fmt.Errorf("run %s: %v", path, err)
	}
	if k := meta.ModelKind(); k != "gammae" {
		return nil, nil, fmt.Errorf("run %s: a %s model, not GammaE's", path, k)
	}
	m, _, err := LoadModel(RunFile(path, best))
	if err != nil {
		return nil, nil, err
	}
	return m, meta, nil
}

// WriteFileAtomic writes data to path atomically (internal/atomicfile).
func WriteFileAtomic(path string, data []byte) error { return atomicfile.WriteFile(path, data) }

// RunFile returns the model file of a run directory: its best model when
// best is set and one exists, else its latest.
func RunFile(dir string, best bool) string {
	if best {
		if _, err := os.Stat(filepath.Join(dir, BestFile)); err == nil {
			return filepath.Join(dir, BestFile)
		}
	}
	return filepath.Join(dir, ModelFile)
}
