package main

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/registry"
	"github.com/gammae/gammae/train"
)

// trainFunc runs a training job (GammaE's or a baseline's).
type trainFunc func(ctx context.Context, cfg train.Config, opts train.Options) (*train.Summary, error)

// modelKind is the kind to train: the flag, or on --resume the run's.
func (o *trainOptions) modelKind() string {
	if o.resume {
		if meta, err := checkpoint.ReadRunMeta(o.out); err == nil {
			return meta.ModelKind()
		}
	}
	return o.kind
}

// baselineJob is the training of a baseline model.
type baselineJob struct {
	kind     qe.Kind
	model    qe.Model
	config   []byte
	entities int
	d        *dataset.Dataset
}

// datasetPreset maps the trainer's presets to the authors' run scripts.
var datasetPreset = map[string]string{
	"fb15k-237": "fb15k-237", "fb15k-237-hour": "fb15k-237-hour", "fast": "fb15k-237-hour", "fast-shared": "fb15k-237-hour", "fast-smoothed": "fb15k-237-hour", "fast-hard": "fb15k-237-hour", "fast-long": "fb15k-237-hour", "nell": "nell", "fb15k": "fb15k", "small": "fb15k-237",
}

// newBaselineJob builds the model of a baseline run: on --resume from the
// run's saved configuration, else from the authors' preset for the
// dataset with the flags applied; cfg takes the model's lr (unless --lr),
// training structures (unless --structures) and sizes.
func newBaselineJob(o *trainOptions, set map[string]bool, cfg *train.Config, d *dataset.Dataset, name string) (*baselineJob, error) {
	k, err := registry.Lookup(name)
	if err != nil {
		return nil, fmt.Errorf("--model-kind: %v", err)
	}
	b := &baselineJob{kind: k, entities: d.KG.Train.N, d: d}
	if o.resume {
		meta, err := checkpoint.ReadRunMeta(o.out)
		if err != nil {
			return nil, fmt.Errorf("--resume: %v", err)
		}
		b.config = meta.Config
	} else {
		value := map[string]any{"dim": cfg.Dim, "hidden": cfg.Hidden, "layers": cfg.Layers, "gamma": cfg.Gamma, "lr": cfg.LR}
		over, small := map[string]any{}, map[string]any{}
		for key, v := range value {
			if set[key] {
				over[key] = v
			} else if cfg.Preset == "small" && key != "lr" {
				small[key] = v // a small graph: the small preset's sizes
			}
		}
		preset, ok := datasetPreset[cfg.Preset]
		if !ok {
			preset = "fb15k-237"
		}
		if b.config, err = registry.Config(k, preset, d.KG.Train.N, d.KG.Train.R, over, small); err != nil {
			return nil, err
		}
		if !set["structures"] {
			cfg.Structures = append([]string(nil), k.Structures...)
		}
	}
	var sizes struct {
		Dim, Hidden, Layers int
		Gamma, LR           float64
	}
	if err := json.Unmarshal(b.config, &sizes); err != nil {
		return nil, fmt.Errorf("%s configuration: %v", k.Title, err)
	}
	cfg.Dim, cfg.Hidden, cfg.Layers, cfg.Gamma = sizes.Dim, max(sizes.Hidden, 1), max(sizes.Layers, 1), sizes.Gamma
	if !set["lr"] && !o.resume && sizes.LR > 0 {
		cfg.LR = sizes.LR
	}
	if b.model, err = k.New(b.config, cfg.Seed); err != nil {
		return nil, fmt.Errorf("%s: %v", k.Title, err)
	}
	return b, cfg.Validate()
}

func (b *baselineJob) run(ctx context.Context, cfg train.Config, opts train.Options) (*train.Summary, error) {
	return train.RunModel(ctx, cfg, b.model, b.config, b.d, opts)
}

func (b *baselineJob) describe(cfg *train.Config) string {
	return fmt.Sprintf("%s, %s, structures %v", b.kind.Title, b.config, cfg.Structures)
}

// modelValidator is validator for a baseline.
func modelValidator(d *dataset.Dataset, perStructure int, seed uint64, kind string, entities int) train.ModelValidateFunc {
	if len(d.Valid.Groups) == 0 {
		return nil
	}
	structures := answerable(kind, &d.Valid)
	return func(ctx context.Context, m qe.Model) (float64, map[string]float64, error) {
		r, err := evaluate.RunModel(ctx, m, entities, &d.Valid, evaluate.Options{PerStructure: perStructure, Seed: seed, Structures: structures})
		if err != nil {
			return 0, nil, err
		}
		return r.Table.Positive.MRR, r.Table.MRR(), nil
	}
}

// presetTable lists the trainer's presets for --help.
func presetTable() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-15s %4s %5s %2s %5s %-7s %-8s %7s %5s %4s %7s %6s  %s\n", "preset", "dim", "hid", "L", "γ", "union", "loss", "lr", "batch", "neg", "steps", "min", "also")
	names := make([]string, 0, len(train.Presets))
	for n := range train.Presets {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := train.Presets[n]
		var also []string
		if c.LabelSmoothing > 0 {
			also = append(also, fmt.Sprintf("--label-smoothing %g", c.LabelSmoothing))
		}
		if c.QueryWeights != "" {
			also = append(also, "--query-weights "+c.QueryWeights)
		}
		if c.HardNegatives > 0 {
			also = append(also, fmt.Sprintf("--hard-negatives %d", c.HardNegatives))
		}
		if c.HardIntersections > 0 {
			also = append(also, fmt.Sprintf("--hard-intersections %d", c.HardIntersections))
		}
		if c.EntityDecay > 0 {
			also = append(also, fmt.Sprintf("--entity-decay %g", c.EntityDecay))
		}
		if c.WeightDecay > 0 {
			also = append(also, fmt.Sprintf("--weight-decay %g", c.WeightDecay))
		}
		if c.LossSigmoid > 0 {
			also = append(also, fmt.Sprintf("--loss-sigmoid %g", c.LossSigmoid))
		}
		if c.LRSchedule != "" {
			also = append(also, "--lr-schedule "+c.LRSchedule)
		}
		if len(c.StructureWeights) > 0 {
			also = append(also, "--structure-weights "+train.FormatWeights(c.StructureWeights))
		}
		if c.Structures != nil && !slices.Equal(c.Structures, train.DefaultStructures) {
			also = append(also, "--structures "+strings.Join(c.Structures, ","))
		}
		if c.ConfirmQueries > 0 {
			also = append(also, fmt.Sprintf("--confirm-queries %d", c.ConfirmQueries))
		}
		line := fmt.Sprintf("  %-15s %4d %5d %2d %5g %-7s %-8s %7g %5d %4d %7d %6g  %s", n, c.Dim, c.Hidden, c.Layers, c.Gamma, c.Union, cmp.Or(c.Loss, "sigmoid"), c.LR, c.Batch, c.Negatives, c.Steps, c.Minutes, strings.Join(also, " "))
		b.WriteString(strings.TrimRight(line, " ") + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
