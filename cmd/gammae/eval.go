package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/progress"
	"github.com/gammae/gammae/query"
	"github.com/gammae/gammae/registry"
	"github.com/gammae/gammae/sample"
)

type evalOptions struct {
	model, data, format, split string
	union, structures          string
	precision                  string
	jsonPath, csvPath          string
	cpuProfile                 string
	last, quiet, uncalibrated  bool
	o                          evaluate.Options
}

func init() {
	register(&command{
		Name:    "eval",
		Args:    "[RUN_OR_MODEL]",
		Summary: "Evaluate a model on test, valid or train queries: filtered MRR and Hits@1/3/10 per structure, the paper's averages, uncertainty correlations.",
		Examples: `  # The paper's table for a run's best validation checkpoint (the default;
  # --last takes the latest) on its dataset's test queries, any model kind:
  gammae eval --model runs/fb237
  gammae eval --model runs/fb237-betae
  # Also the entropy/answer-count correlations (paper tables 3 and A4), and files:
  gammae eval --model runs/fb237 --uncertainty --json fb237.json --csv fb237.csv
  # How far the answer counts gammae query and the server estimate are from the truth:
  gammae eval --model runs/fb237 --estimates
  # Union ablation (paper table 6) from one model: the same unions embedded three ways
  # (a mixture needs a model trained with --union mixture):
  gammae eval --model runs/fb237 --union moment --structures 2u,up
  gammae eval --model runs/fb237 --union dnf --structures 2u,up
  gammae eval --model runs/fb237 --union dm --structures 2u,up
  # Elasticity ablation (paper table 7) at inference; the paper's version retrains with --epsilon 0:
  gammae eval --model runs/fb237 --no-elasticity --structures 2in,3in,inp,pin,pni
  # The official NELL test queries (answers computed from the triples):
  gammae eval --model runs/nell/best.safetensors --data ../shared/data/NELL-betae
  # A checkpoint of the reference PyTorch code (see 'gammae import-torch'):
  gammae eval --model ref-run/checkpoint --data fb237.gqd
  # Quick look: 500 queries per structure of the validation split:
  gammae eval --model runs/fb237 --split valid --per-structure 500
  # Over- or underfitting: the same on the queries the model trains on:
  gammae eval --model runs/fb237 --split train --per-structure 500`,
		Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			v := &evalOptions{}
			fs.StringVar(&v.model, "model", "", "run `DIR`, model file (.safetensors) or reference PyTorch checkpoint")
			fs.StringVar(&v.data, "data", "", "dataset `PATH`: .gqd file, benchmark directory or named triples (default: the run's dataset)")
			fs.StringVar(&v.format, "format", "auto", "format of --data: auto, file (.gqd), benchmark or triples")
			fs.StringVar(&v.split, "split", "test", splitUsage)
			fs.StringVar(&v.union, "union", "", "embed union queries as `MODE`: moment, dnf, dm or mixture (default: the model's)")
			fs.BoolVar(&v.o.NoElasticity, "no-elasticity", false, "negate without elasticity (ε = 0): the paper's table 7 ablation at inference")
			fs.IntVar(&v.o.PerStructure, "per-structure", 0, "evaluate a sample of at most `N` queries per structure (0 = all)")
			fs.Uint64Var(&v.o.Seed, "seed", 1, "seed of the --per-structure sample")
			fs.StringVar(&v.structures, "structures", "", "comma-separated structures to evaluate (1p,2u,up-DM,2in,... or shapes); default all")
			fs.StringVar(&v.jsonPath, "json", "", "also write the report as JSON to `FILE`")
			fs.StringVar(&v.csvPath, "csv", "", "also write the table as CSV to `FILE` (uncertainty to FILE-uncertainty.csv, estimates to FILE-estimates.csv)")
			fs.BoolVar(&v.o.Uncertainty, "uncertainty", false, "correlate query entropy with number of answers per structure (Spearman, Pearson)")
			fs.BoolVar(&v.o.Estimates, "estimates", false, "compare each query's estimated answer count Σσ(logit) with its number of answers (easy and hard), per structure")
			fs.BoolVar(&v.uncalibrated, "uncalibrated", false, "with --estimates, leave out the run's calibration (gammae calibrate): the raw Σσ(logit)")
			fs.StringVar(&v.precision, "precision", "fp32", precisionUsage)
			fs.StringVar(&v.cpuProfile, "cpuprofile", "", "write a CPU profile of the evaluation to `FILE`, for go tool pprof")
			fs.BoolVar(&v.last, "last", false, "for a run directory, its latest checkpoint instead of its best validation one (the default, as for query and serve)")
			fs.Bool("best", true, "accepted for older scripts: the best validation checkpoint is the default")
			fs.IntVar(&v.o.Block, "block", 512, "queries per scoring block")
			fs.IntVar(&v.o.Workers, "workers", 0, "ranking goroutines (0 = one per two CPUs)")
			fs.BoolVar(&v.quiet, "quiet", false, "no progress line")
			return func(ctx context.Context, e *env, args []string) error {
				if err := modelArg(&v.model, args); err != nil {
					return err
				}
				return runEval(ctx, e, v)
			}
		},
	})
}

func runEval(ctx context.Context, e *env, v *evalOptions) error {
	v.o.Union = gamma.Union(v.union)
	if v.structures != "" {
		v.o.Structures = sample.SplitList(v.structures)
	}
	if v.cpuProfile != "" {
		stop, err := startCPUProfile(v.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	kind, err := sourceKind(v.format)
	if err != nil {
		return err
	}
	openData := func(path string) (*dataset.Dataset, error) {
		d, _, err := dataset.Open(ctx, path, kind, dataset.ImportOptions{Log: e.stderr, Mapped: true})
		return d, err
	}
	// With --data given, the dataset opens while the model does: each is
	// a few tenths of a second of one core (checksums, decoding).
	var data func() (*dataset.Dataset, error)
	if v.data != "" {
		data = sync.OnceValues(func() (*dataset.Dataset, error) { return openData(v.data) })
		go data()
	}
	lm, err := openModel(v.model, !v.last, e.stderr)
	if err != nil {
		return err
	}
	if err := lm.setPrecision(v.precision); err != nil {
		return err
	}
	dataPath, err := lm.dataPath(v.data, "the model")
	if err != nil {
		return err
	}
	if v.data == "" {
		data = func() (*dataset.Dataset, error) { return openData(dataPath) }
	}
	d, err := data()
	if err != nil {
		return err
	}
	if err := lm.checkGraph(d.KG, dataPath); err != nil {
		return err
	}
	split, err := splitOf(d, v.split, dataPath)
	if err != nil {
		return err
	}

	var rep *progress.Reporter
	if !v.quiet {
		v.o.Progress = func(done, total int) {
			if rep == nil {
				rep = progress.New(progress.Config{Out: e.stderr, IsTerminal: isTerminal(e.stderr), Label: "eval", Unit: "queries", Total: int64(total)})
			}
			rep.Set(int64(done))
		}
	}
	// The training loss says whether the sums are estimates: read before
	// the evaluation, so that a broken run configuration fails fast.
	loss, calibrated := "", true
	if v.o.Estimates {
		if loss, calibrated, err = lm.loss(); err != nil {
			return err
		}
		if !v.uncalibrated {
			v.o.Calibration = lm.shifts()
		}
	}
	fmt.Fprintf(e.stdout, "model %s (%s, %d entities, dim %d), %s queries of %s\n", v.model, lm.title, lm.entities, lm.dim, v.split, dataPath)
	r, err := evaluateModel(ctx, lm, split, v.o)
	if rep != nil {
		rep.Close()
	}
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout)
	if err := r.WriteText(e.stdout); err != nil {
		return err
	}
	if r.Estimates != nil && !calibrated {
		fmt.Fprintf(e.stdout, "(trained with the %s loss, which leaves each query's level of logits free: the sums are no estimates, and gammae query and the server give none; --loss-sigmoid W fixes the level)\n", loss)
	}
	if v.jsonPath != "" {
		if err := writeJSON(v.jsonPath, r); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", v.jsonPath)
	}
	if v.csvPath != "" {
		if err := writeCSVFile(v.csvPath, r.Table.WriteCSV); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", v.csvPath)
		base := strings.TrimSuffix(v.csvPath, filepath.Ext(v.csvPath))
		for _, extra := range []struct {
			suffix string
			write  func(io.Writer) error
			set    bool
		}{
			{"-uncertainty.csv", r.Uncertainty.WriteCSV, r.Uncertainty != nil},
			{"-estimates.csv", r.Estimates.WriteCSV, r.Estimates != nil},
		} {
			if !extra.set {
				continue
			}
			if err := writeCSVFile(base+extra.suffix, extra.write); err != nil {
				return err
			}
			fmt.Fprintf(e.stderr, "wrote %s\n", base+extra.suffix)
		}
	}
	return nil
}

// evaluateModel runs the evaluation for a model of any kind, on the
// structures it can answer unless some were asked for by name.
func evaluateModel(ctx context.Context, lm *loadedModel, split *dataset.Split, o evaluate.Options) (*evaluate.Report, error) {
	if lm.qm != nil {
		if o.Structures == nil {
			o.Structures = answerable(lm.kind, split)
		}
		return evaluate.RunModel(ctx, lm.qm, lm.entities, split, o)
	}
	return evaluate.Run(ctx, lm.model, split, o)
}

// answerable returns the structures of split a model of kind answers: nil
// (all of them) unless the kind has no negation operator (GQE, Query2Box).
func answerable(kind string, split *dataset.Split) []string {
	k, err := registry.Lookup(kind)
	if err != nil || k.Negation {
		return nil
	}
	out := []string{}
	for _, g := range split.Groups {
		if !query.HasNegation(g.Template) {
			out = append(out, g.Shape)
		}
	}
	return out
}

// writeCSVFile writes what write produces to path atomically.
func writeCSVFile(path string, write func(io.Writer) error) error {
	var b bytes.Buffer
	if err := write(&b); err != nil {
		return err
	}
	return checkpoint.WriteFileAtomic(path, b.Bytes())
}

// splitUsage is the --split flag's help, shared by eval and compare.
const splitUsage = "split to evaluate: test, valid, or train (each training query's answers ranked among all entities, its other training answers filtered: set beside valid, it tells a model that has stopped fitting from one that fits what it cannot generalise)"

// splitOf is the --split a command evaluates: test, valid or train queries
// of d (read from path), an error when it has none.
func splitOf(d *dataset.Dataset, name, path string) (*dataset.Split, error) {
	var split *dataset.Split
	switch name {
	case "test":
		split = &d.Test
	case "valid":
		split = &d.Valid
	case "train":
		split = &d.Train
	default:
		return nil, fmt.Errorf("--split %q: want test, valid or train", name)
	}
	if len(split.Groups) == 0 {
		return nil, fmt.Errorf("%s has no %s queries", path, name)
	}
	return split, nil
}
