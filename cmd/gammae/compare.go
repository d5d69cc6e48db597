package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/compare"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/plot"
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
		Args:    "RUN|COMPARISON.json...",
		Summary: "Evaluate several runs (any model kinds) on the same test queries and print the paper's tables with a row per model; rows of earlier comparisons (--json files) are added as they are.",
		Examples: `  # GammaE against the four baselines trained on the same data, with the paper's rows:
  gammae compare --paper fb15k-237 runs/gammae runs/gqe runs/q2b runs/betae runs/cone
  # Files for a paper or a spreadsheet:
  gammae compare --json cmp.json --csv cmp.csv runs/gammae runs/betae
  # Add a new run to an earlier table without evaluating its runs again:
  gammae compare --json all.json cmp.json runs/cone
  # A quick look on 500 validation queries per structure:
  gammae compare --split valid --per-structure 500 runs/*`,
		Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			c := &compareOptions{}
			fs.StringVar(&c.data, "data", "", "dataset `PATH` whose queries all runs answer (default: the first run's)")
			fs.StringVar(&c.split, "split", "test", splitUsage)
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

func runCompare(ctx context.Context, e *env, c *compareOptions, args []string) error {
	var paper []compare.Row
	if c.paper != "" {
		var err error
		if paper, err = compare.Paper(c.paper); err != nil {
			return fmt.Errorf("--paper: %v", err)
		}
	}
	// Arguments are runs (or model files) to evaluate and earlier
	// comparisons (--json files) whose rows are taken as they are.
	models := make([]*loadedModel, len(args))
	earlier := make([]*compare.Comparison, len(args))
	var first *loadedModel
	for i, a := range args {
		var err error
		if isComparisonFile(a) {
			earlier[i], err = compare.ReadFile(a)
		} else {
			models[i], err = openModel(a, !c.last, e.stderr)
			first = cmp.Or(first, models[i])
		}
		if err != nil {
			return err
		}
	}
	cmpn := &compare.Comparison{Split: c.split, PerStructure: c.o.PerStructure}
	if c.o.PerStructure > 0 {
		cmpn.Seed = c.o.Seed
	}
	var split *dataset.Split
	if first != nil {
		dataPath, err := first.dataPath(c.data, "the first model")
		if err != nil {
			return err
		}
		d, _, err := dataset.Open(ctx, dataPath, dataset.SourceAuto, dataset.ImportOptions{Log: e.stderr, Mapped: true})
		if err != nil {
			return err
		}
		if split, err = splitOf(d, c.split, dataPath); err != nil {
			return err
		}
		cmpn.Dataset = filepath.Base(filepath.Clean(dataPath))
		for i, lm := range models {
			if lm != nil {
				if err := lm.checkGraph(d.KG, dataPath); err != nil {
					return fmt.Errorf("%s: %v", args[i], err)
				}
			}
		}
	}
	for i, lm := range models {
		if lm == nil {
			if first == nil && cmpn.Dataset == "" { // files only: the first one's queries
				cmpn.Dataset, cmpn.PerStructure, cmpn.Seed = earlier[i].Dataset, earlier[i].PerStructure, earlier[i].Seed
			}
			if err := cmpn.Merge(earlier[i], args[i]); err != nil {
				return err
			}
			continue
		}
		row, err := c.evaluate(ctx, e, lm, split, args[i])
		if err != nil {
			return err
		}
		cmpn.Rows = append(cmpn.Rows, row)
	}
	cmpn.Rows = append(cmpn.Rows, paper...)
	if err := cmpn.WriteMarkdown(e.stdout); err != nil {
		return err
	}
	if c.jsonPath != "" {
		if err := writeJSON(c.jsonPath, cmpn); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", c.jsonPath)
	}
	if c.csvPath != "" {
		if err := writeCSVFile(c.csvPath, cmpn.WriteCSV); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "wrote %s\n", c.csvPath)
	}
	return nil
}

// evaluate scores one model on split: its row, with the training behind
// its parameters where the run recorded it.
func (c *compareOptions) evaluate(ctx context.Context, e *env, lm *loadedModel, split *dataset.Split, arg string) (compare.Row, error) {
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
		return compare.Row{}, fmt.Errorf("%s: %v", arg, err)
	}
	row := compare.FromReport(fmt.Sprintf("%s %s", lm.title, arg), lm.kind, measureOf(lm.kind), r)
	row.Iterations = int(lm.steps)
	if lm.meta != nil {
		row.Hosts = lm.meta.Hosts
		row.CPUSeconds = cpuAt(filepath.Dir(lm.file), row.Iterations)
		var tc struct{ Loss string }
		if json.Unmarshal(lm.meta.Train, &tc) == nil {
			row.Loss = cmp.Or(tc.Loss, "sigmoid")
		}
	}
	return row, nil
}

// cpuAt is the training CPU-seconds a run's log records at iteration it, 0
// when it records none.
func cpuAt(run string, it int) float64 {
	l, err := plot.ReadLogFile(filepath.Join(run, checkpoint.LogFile))
	if err != nil || it <= 0 {
		return 0
	}
	s := l.Get("cpu")
	if s == nil {
		return 0
	}
	for i, x := range s.X {
		if int(x) == it {
			return s.Y[i]
		}
	}
	return 0
}

// isComparisonFile reports whether a compare argument is an earlier
// comparison (a .json file) rather than a run or model file.
func isComparisonFile(path string) bool {
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && strings.EqualFold(filepath.Ext(path), ".json")
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
