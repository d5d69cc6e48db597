package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gammae/gammae/calibrate"
	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/registry"
	"github.com/gammae/gammae/safetensors"
	"github.com/gammae/gammae/train"
)

// loadedModel is a trained model of any kind with what was read with it.
type loadedModel struct {
	kind  string                // registry name
	title string                // display name
	model *gamma.Model[float32] // GammaE
	qm    qe.Model              // a baseline
	// entities, relations and dim are the model's sizes.
	entities, relations, dim int

	meta *checkpoint.RunMeta // nil for a bare model file
	run  string              // the run directory, "" for a bare model file
	file string              // model file read
	// calibration is the run's calibration of this model file's estimates
	// (gammae calibrate), nil when it has none.
	calibration *checkpoint.Calibration
	steps       int64  // training iterations, 0 when unknown
	dataset     string // dataset path
	kg          *kg.KG
	labels      string // what --names labelled, for messages
}

// openModel is the one way the commands open a model: path is a run
// directory (its best validation checkpoint when best is set and the run
// has one, else its latest), a model file of any kind (.safetensors; one in
// a run directory knows the run's dataset), or a
// reference PyTorch checkpoint of GammaE (converted as import-torch does,
// with notes to log).
func openModel(path string, best bool, log io.Writer) (*loadedModel, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	lm := &loadedModel{file: path}
	if st.IsDir() {
		if lm.meta, err = checkpoint.ReadRunMeta(path); err != nil {
			return nil, fmt.Errorf("run %s: %w", path, err)
		}
		lm.file, lm.run = checkpoint.RunFile(path, best), path
	} else if checkpoint.IsTorch(path) {
		imp, err := checkpoint.ImportTorch(path, checkpoint.TorchOptions{})
		if err != nil {
			return nil, fmt.Errorf("%v (convert it with 'gammae import-torch', giving what is missing)", err)
		}
		fmt.Fprintf(log, "reference PyTorch checkpoint %s: %s\n", path, strings.Join(imp.Notes, "; "))
		lm.setGamma(imp.Model)
		return lm, nil
	} else if meta, err := checkpoint.ReadRunMeta(filepath.Dir(path)); err == nil {
		lm.meta, lm.run = meta, filepath.Dir(path) // a file of a run directory (e.g. average.safetensors): its dataset
	}
	f, release, err := safetensors.MapFile(lm.file)
	if err != nil {
		return nil, err
	}
	defer release()
	lm.kind = checkpoint.FileKind(f)
	if lm.meta != nil && lm.meta.ModelKind() != lm.kind {
		return nil, fmt.Errorf("run %s records a %s model but %s holds a %s model", path, lm.meta.ModelKind(), lm.file, lm.kind)
	}
	var md map[string]string
	if lm.kind == registry.GammaE {
		var m *gamma.Model[float32]
		if m, md, err = checkpoint.ModelFromFile(lm.file, f); err != nil {
			return nil, err
		}
		lm.setGamma(m)
	} else {
		k, err := registry.Lookup(lm.kind)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", lm.file, err)
		}
		var config []byte
		if lm.qm, config, md, err = checkpoint.QEFromFile(lm.file, f, registry.New); err != nil {
			return nil, err
		}
		lm.title = k.Title
		var sizes struct{ Entities, Relations, Dim int }
		if err := json.Unmarshal(config, &sizes); err != nil {
			return nil, fmt.Errorf("%s: configuration: %v", lm.file, err)
		}
		lm.entities, lm.relations, lm.dim = sizes.Entities, sizes.Relations, sizes.Dim
	}
	if v, ok := md["gammae.iteration"]; ok {
		lm.steps, _ = strconv.ParseInt(v, 10, 64)
	}
	if lm.run != "" {
		c, err := checkpoint.ReadCalibration(lm.run)
		if err != nil {
			return nil, err
		}
		switch {
		case c == nil:
		case c.Model != filepath.Base(lm.file) || c.Iteration != lm.steps:
			fmt.Fprintf(log, "note: %s calibrates %s at iteration %d, not %s at iteration %d: estimates uncalibrated (gammae calibrate fits a model of a run)\n",
				filepath.Join(lm.run, checkpoint.CalibrationFile), c.Model, c.Iteration, filepath.Base(lm.file), lm.steps)
		default:
			lm.calibration = c
		}
	}
	return lm, nil
}

// dataPath is the dataset a command reads: given (--data), else the one
// the model's run names; what names an error when there is neither.
func (lm *loadedModel) dataPath(given, what string) (string, error) {
	if given != "" {
		return given, nil
	}
	if lm.meta == nil || lm.meta.Dataset == "" {
		return "", fmt.Errorf("no --data given, and %s is not a run directory that names its dataset", what)
	}
	return lm.meta.Dataset, nil
}

// modelArg takes the model of a command from --model or its one
// positional argument: exactly one of them.
func modelArg(model *string, args []string) error {
	switch {
	case len(args) == 1 && *model == "":
		*model = args[0]
	case len(args) > 0 || *model == "":
		return errUsage
	}
	return nil
}

// shifts is the calibration of the estimates' logits, none without one.
func (lm *loadedModel) shifts() calibrate.Shifts {
	if lm.calibration == nil {
		return calibrate.Shifts{}
	}
	return lm.calibration.Shifts
}

// precisionUsage is the --precision flag's help.
const precisionUsage = "arithmetic of the entity products when scoring: fp32, or bf16 (bfloat16 operands, float32 sums; twice the rate where the CPU has AVX512-BF16); GammaE only"

// setPrecision sets the scoring precision (--precision).
// loss returns the model's training loss (LossName) and whether it makes
// σ(logit) the probability that an entity answers (train.Config's
// Calibrated); a model without its run's configuration is taken as the
// reference's, trained with the sigmoid loss.
func (lm *loadedModel) loss() (name string, calibrated bool, err error) {
	if lm.meta == nil || len(lm.meta.Train) == 0 {
		return "", true, nil
	}
	var tc train.Config
	if err := json.Unmarshal(lm.meta.Train, &tc); err != nil {
		return "", false, fmt.Errorf("%s: training configuration: %v", lm.file, err)
	}
	return tc.LossName(), tc.Calibrated(), nil
}

func (lm *loadedModel) setPrecision(p string) error {
	if lm.model == nil {
		if p != "" && p != "fp32" {
			return fmt.Errorf("--precision %s: %s scores in float64; bf16 scoring is GammaE's", p, lm.title)
		}
		return nil
	}
	if err := lm.model.SetPrecision(gamma.Precision(p)); err != nil {
		return fmt.Errorf("--precision: %v", err)
	}
	return nil
}

func (lm *loadedModel) setGamma(m *gamma.Model[float32]) {
	c := m.Config()
	lm.kind, lm.title, lm.model = registry.GammaE, "GammaE", m
	lm.entities, lm.relations, lm.dim = c.Entities, c.Relations, c.Dim
}

// checkGraph refuses a graph the model was not trained on.
func (lm *loadedModel) checkGraph(k *kg.KG, path string) error {
	if lm.entities != k.Entities.Len() || lm.relations < k.Relations.Len() {
		return fmt.Errorf("model %s has %d entities and %d relations, dataset %s has %d and %d: not the graph it was trained on",
			lm.file, lm.entities, lm.relations, path, k.Entities.Len(), k.Relations.Len())
	}
	return nil
}
