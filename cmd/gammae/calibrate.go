package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"

	"github.com/gammae/gammae/calibrate"
	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/gamma"
)

type calibrateOptions struct {
	model, data, precision string
	perStructure           int
	seed                   uint64
	last                   bool
}

// calibrateQueries is how many validation queries a structure the fit
// takes, here and at the end of a training run: the fitted shift is a
// median, steady to a few hundredths at this size.
const calibrateQueries = 1000

func init() {
	register(&command{
		Name: "calibrate",
		Args: "[RUN]",
		Summary: "Fit the logit shift that makes a run's estimated answer counts (gammae query, the server) match the validation queries' answer counts, " +
			"and store it with the run; training runs do this at their end.",
		Examples: `  # Calibrate a run's best model (its latest with --last); query, serve and
  # eval --estimates then use the shift:
  gammae calibrate --model runs/fb237
  # How the calibrated estimates fare on the test queries:
  gammae eval --model runs/fb237 --estimates
  # A model file of a run directory, e.g. its averaged parameters:
  gammae calibrate --model runs/fb237/average.safetensors`,
		Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			v := &calibrateOptions{}
			fs.StringVar(&v.model, "model", "", "run `DIR`, or a model file inside one (the calibration is stored in the run)")
			fs.StringVar(&v.data, "data", "", "dataset `PATH` with the validation queries (default: the run's)")
			fs.IntVar(&v.perStructure, "per-structure", calibrateQueries, "fit on a sample of at most `N` validation queries per structure (0 = all)")
			fs.Uint64Var(&v.seed, "seed", 1, "seed of the sample")
			fs.StringVar(&v.precision, "precision", "fp32", precisionUsage)
			fs.BoolVar(&v.last, "last", false, "calibrate the run's latest model instead of its best validation one")
			return func(ctx context.Context, e *env, args []string) error {
				if err := modelArg(&v.model, args); err != nil {
					return err
				}
				return runCalibrate(ctx, e, v)
			}
		},
	})
}

func runCalibrate(ctx context.Context, e *env, v *calibrateOptions) error {
	lm, err := openModel(v.model, !v.last, io.Discard) // an outdated calibration is what this replaces
	if err != nil {
		return err
	}
	if lm.run == "" {
		return fmt.Errorf("%s: not in a run directory, where the calibration is kept (train one with 'gammae train --out RUN')", v.model)
	}
	if err := lm.setPrecision(v.precision); err != nil {
		return err
	}
	path, err := lm.dataPath(v.data, "the model")
	if err != nil {
		return err
	}
	d, _, err := dataset.Open(ctx, path, dataset.SourceAuto, dataset.ImportOptions{Log: e.stderr, Mapped: true})
	if err != nil {
		return err
	}
	if err := lm.checkGraph(d.KG, path); err != nil {
		return err
	}
	c, err := calibrateRun(ctx, lm, d, path, v.perStructure, v.seed)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, calibrationLine(lm, c))
	return nil
}

// minStructureQueries is how many validation queries a structure needs
// for a shift of its own; the others take the pooled one.
const minStructureQueries = 50

// calibrateRun fits lm's logit shifts on perStructure validation queries
// of d a structure (0: all), each the median of its queries' own shifts
// (calibrate.CountShift), a structure's over its queries when it has
// enough, the pooled one over all, and writes them to lm's run directory.
func calibrateRun(ctx context.Context, lm *loadedModel, d *dataset.Dataset, path string, perStructure int, seed uint64) (*checkpoint.Calibration, error) {
	if loss, calibrated, err := lm.loss(); err != nil {
		return nil, err
	} else if !calibrated {
		return nil, fmt.Errorf("%s: trained with the %s loss, which leaves each query's level of logits free: no single shift calibrates it (train with --loss-sigmoid W for estimates)", lm.file, loss)
	}
	split, err := splitOf(d, "valid", path)
	if err != nil {
		return nil, err
	}
	o := evaluate.Options{Estimates: true, PerStructure: perStructure, Seed: seed}
	if lm.model != nil {
		o.Union = gamma.UnionDNF // as query and serve answer unions by default
	}
	before, err := evaluateModel(ctx, lm, split, o)
	if err != nil {
		return nil, err
	}
	s := calibrate.Shifts{Default: float64(before.Estimates.All.Shift), Structures: map[string]float64{}}
	if math.IsNaN(s.Default) {
		return nil, fmt.Errorf("%s: no validation queries to calibrate on", path)
	}
	for _, r := range before.Estimates.Rows {
		if r.Queries >= minStructureQueries {
			s.Structures[r.Structure] = float64(r.Shift)
		}
	}
	o.Calibration = s
	after, err := evaluateModel(ctx, lm, split, o)
	if err != nil {
		return nil, err
	}
	x, y := before.Estimates.All, after.Estimates.All
	c := &checkpoint.Calibration{Model: filepath.Base(lm.file), Iteration: lm.steps, Shifts: s, Split: "valid", Queries: x.Queries,
		RatioBefore: float64(x.Ratio), RatioAfter: float64(y.Ratio), Within2Before: float64(x.Within2), Within2After: float64(y.Within2)}
	if err := checkpoint.WriteCalibration(lm.run, c); err != nil {
		return nil, err
	}
	lm.calibration = c
	return c, nil
}

// calibrationLine says what a calibration changed.
func calibrationLine(lm *loadedModel, c *checkpoint.Calibration) string {
	return fmt.Sprintf("calibrated the estimated answer counts of %s on %d validation queries: logit shift %+.3f pooled, %d structures' own (median estimate/answers %.3g → %.3g; within a factor of 2: %.1f%% → %.1f%%); %s",
		lm.file, c.Queries, c.Default, len(c.Structures), c.RatioBefore, c.RatioAfter, 100*c.Within2Before, 100*c.Within2After, filepath.Join(lm.run, checkpoint.CalibrationFile))
}
