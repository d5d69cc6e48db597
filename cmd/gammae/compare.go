package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"path/filepath"

	"github.com/gammae/gammae/compare"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/progress"
	"github.com/gammae/gammae/registry"
)

type compareOptions struct {
	data, split, paper string
	jsonPath, csvPath  string
	last, quiet        bool
	o                  evaluate.Options
}

func init() {
	register(&command{
		Name:    "compare",
		Args:    "RUN...",
		Summary: "Evaluate several runs (any model kinds) on the same test queries and print the paper's tables with a row per model.",
		Examples: `  # GammaE against the four baselines trained on the same data, with the paper's rows:
  gammae compare --paper fb15k-237 runs/gammae runs/gqe runs/q2b runs/betae runs/cone
  # Files for a paper or a spreadsheet:
  gammae compare --json cmp.json --csv cmp.csv runs/gammae runs/betae
  # A quick look on 500 validation queries per structure:
  gammae compare --split valid --per-structure 500 runs/*`,
		Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			c := &compareOptions{}
			fs.StringVar(&c.data, "data", "", "dataset `PATH` whose queries all runs answer (default: the first run's)")
			fs.StringVar(&c.split, "split", "test", "split to evaluate: test or valid")
			fs.StringVar(&c.paper, "paper", "", "also list the paper's published rows for `DATASET`: fb15k-237, fb15k or nell")
			fs.IntVar(&c.o.PerStructure, "per-structure", 0, "evaluate a sample of at most `N` queries per structure (0 = all), the same for every run")
			fs.Uint64Var(&c.o.Seed, "seed", 1, "seed of the --per-structure sample")
			fs.StringVar(&c.jsonPath, "json", "", "also write the comparison as JSON to `FILE`")
			fs.StringVar(&c.csvPath, "csv", "", "also write it as CSV (one value per line) to `FILE`")
			fs.BoolVar(&c.last, "last", false, "take each run's latest checkpoint instead of its best validation one")
			fs.BoolVar(&c.quiet, "quiet", false, "no progress lines")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 {
					return errUsage
				}
				return runCompare(ctx, e, c, args)
			}
		},
	})
}

func runCompare(ctx context.Context, e *env, c *compareOptions, runs []string) error {
	var paper []compare.Row
	if c.paper != "" {
		var err error
		if paper, err = compare.Paper(c.paper); err != nil {
			return fmt.Errorf("--paper: %v", err)
		}
	}
	models := make([]*loadedModel, len(runs))
	for i, r := range runs {
		lm, err := openModel(r, !c.last, e.stderr)
		if err != nil {
			return err
		}
		models[i] = lm
	}
	dataPath := c.data
	if dataPath == "" {
		if models[0].meta == nil || models[0].meta.Dataset == "" {
			return errors.New("no --data given, and the first model is not a run directory that names its dataset")
		}
		dataPath = models[0].meta.Dataset
	}
	d, _, err := dataset.Open(ctx, dataPath, dataset.SourceAuto, dataset.ImportOptions{Log: e.stderr})
	if err != nil {
		return err
	}
	split := &d.Test
	switch c.split {
	case "test":
	case "valid":
		split = &d.Valid
	default:
		return fmt.Errorf("--split %q: want test or valid", c.split)
	}
	if len(split.Groups) == 0 {
		return fmt.Errorf("%s has no %s queries", dataPath, c.split)
	}
	cmp := &compare.Comparison{Dataset: filepath.Base(filepath.Clean(dataPath)), Split: c.split}
	for i, lm := range models {
		if err := lm.checkGraph(d.KG, dataPath); err != nil {
			return err
		}
		o := c.o
		o.Uncertainty = true
		var rep *progress.Reporter
		if !c.quiet {
			o.Progress = func(done, total int) {
				if rep == nil {
					rep = progress.New(progress.Config{Out: e.stderr, IsTerminal: isTerminal(e.stderr), Label: lm.title, Unit: "queries", Total: int64(total)})
				}
				rep.Set(int64(done))
			}
		}
		r, err := evaluateModel(ctx, lm, split, o)
		if rep != nil {
			rep.Close()
		}
		if err != nil {
			return fmt.Errorf("%s: %v", runs[i], err)
		}
		cmp.Rows = append(cmp.Rows, compare.FromReport(fmt.Sprintf("%s %s", lm.title, runs[i]), lm.kind, measureOf(lm.kind), r))
	}
	cmp.Rows = append(cmp.Rows, paper...)
	if err := cmp.WriteMarkdown(e.stdout); err != nil {
		return err
	}
	if c.jsonPath != "" {
		if err := writeJSON(c.jsonPath, cmp); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", c.jsonPath)
	}
	if c.csvPath != "" {
		if err := writeCSVFile(c.csvPath, cmp.WriteCSV); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", c.csvPath)
	}
	return nil
}

// measureOf names a kind's uncertainty measure.
func measureOf(kind string) string {
	if kind == registry.GammaE {
		return "differential entropy"
	}
	k, err := registry.Lookup(kind)
	if err != nil {
		return ""
	}
	return k.Uncertainty
}
