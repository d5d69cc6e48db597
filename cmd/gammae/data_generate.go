package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/sample"
)

func init() {
	register(&command{
		Name:    "data generate",
		Args:    "",
		Summary: "Sample train/valid/test query sets with easy and hard answers from a graph, by the benchmark's protocol.",
		Examples: `  # The benchmark's sizes for FB15k-237 (plus 2u/up training queries from the train graph):
  gammae data generate --graph ../shared/data/FB15k-237-betae --out /tmp/fb237.gqd
  # A small graph in seconds (preset "small" is picked for graphs under 1,000 entities):
  gammae data generate --graph ../shared/data/nations --out nations.gqd
  # Only valid and test, 1,000 queries of each structure, another seed:
  gammae data generate --graph ../shared/data/NELL-betae --out nell-eval.gqd --splits valid,test --eval-count 1000 --seed 7
  # Any structure, by name or shape, with an optional count:
  gammae data generate --graph ../shared/data/umls --out umls.gqd \
      --train-structures '1p,2p,3p,2i,2in,2u,up,ip:2000,((e,(r,r)),(e,(r,r)),(u,)):500'`,
		Setup: func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error {
			graph := fs.String("graph", "", "graph `DIR`: benchmark id triples (FB15k-237-betae, ...), named triples, or a .gqd file (required)")
			out := fs.String("out", "", "dataset `FILE` to write (.gqd; required)")
			format := fs.String("format", "auto", "format of --graph: auto, benchmark, triples or file")
			seed := fs.Uint64("seed", 1, "random seed; the output depends only on it, the graph and the sizes")
			workers := fs.Int("workers", 0, "goroutines answering queries (0: one per CPU); does not change the output")
			preset := fs.String("preset", "auto", "sizes: fb15k-237, fb15k, nell, small, or auto (from the directory name; small under 1,000 entities)")
			trainCount := fs.Int("train-count", -1, "queries per positive training structure (-1: preset)")
			negCount := fs.Int("neg-train-count", -1, "queries per training structure with negation or union (-1: preset)")
			evalCount := fs.Int("eval-count", -1, "queries per valid/test structure (-1: preset)")
			maxAnswers := fs.Int("max-answers", -1, "valid/test cap on hard answers and on answers a negation loses (-1: preset; 0: none)")
			maxTrain := fs.Int("max-train-answers", 0, "cap on training answers (0: none, as the benchmark)")
			maxTries := fs.Int("max-tries", 0, "rejections in a row before a structure counts as exhausted (0: preset)")
			splits := fs.String("splits", "train,valid,test", "splits to generate")
			trainStructs := fs.String("train-structures", strings.Join(sample.DefaultTrainStructures, ","), "training structures: names or shapes, each optionally NAME:COUNT")
			evalStructs := fs.String("eval-structures", strings.Join(sample.DefaultEvalStructures, ","), "valid/test structures: names or shapes, each optionally NAME:COUNT")
			quiet := fs.Bool("quiet", false, "no progress output")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 0 || *graph == "" || *out == "" {
					return errUsage
				}
				if err := checkOutDir("--out", *out); err != nil {
					return err
				}
				want := map[string]bool{}
				for _, s := range sample.SplitList(*splits) {
					if s != "train" && s != "valid" && s != "test" {
						return fmt.Errorf("--splits: unknown split %q (want train, valid, test)", s)
					}
					want[s] = true
				}
				start := time.Now()
				k, err := loadGraph(*graph, *format, e.stderr)
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stderr, "graph %s: %d entities, %d relations, %d/%d/%d edges (train/valid/test), read in %.1fs\n",
					*graph, k.Train.N, k.Train.R, k.Train.NumEdges(), k.Valid.NumEdges(), k.Test.NumEdges(), time.Since(start).Seconds())

				name := *preset
				if name == "auto" {
					name = sample.PresetFor(filepath.Base(filepath.Clean(*graph)), k.Train.N)
				}
				sz, ok := sample.Presets[name]
				if !ok {
					return fmt.Errorf("--preset: unknown preset %q (want auto, fb15k-237, fb15k, nell or small)", *preset)
				}
				for _, o := range []struct {
					flag int
					dst  *int
				}{{*trainCount, &sz.Train}, {*negCount, &sz.NegTrain}, {*evalCount, &sz.Eval}, {*maxAnswers, &sz.MaxAnswers}} {
					if o.flag >= 0 {
						*o.dst = o.flag
					}
				}
				if *maxTries > 0 {
					sz.MaxTries = *maxTries
				}
				opt := sample.Options{Seed: *seed, Workers: *workers, MaxAnswers: sz.MaxAnswers, MaxTrainAnswers: *maxTrain, MaxTries: sz.MaxTries}
				for _, s := range []struct {
					name  string
					split kg.Split
					list  string
					dst   *[]sample.Spec
				}{{"train", kg.TrainSplit, *trainStructs, &opt.Train}, {"valid", kg.ValidSplit, *evalStructs, &opt.Valid}, {"test", kg.TestSplit, *evalStructs, &opt.Test}} {
					if !want[s.name] {
						continue
					}
					if *s.dst, err = sz.Specs(s.split, sample.SplitList(s.list)); err != nil {
						flagName := "--eval-structures"
						if s.split == kg.TrainSplit {
							flagName = "--train-structures"
						}
						return fmt.Errorf("%s: %w", flagName, err)
					}
				}
				if !*quiet {
					opt.Progress = sample.NewReporter(e.stderr, isTerminal(e.stderr))
				}
				fmt.Fprintf(e.stderr, "preset %s: %d per positive training structure, %d per negation/union one, %d per valid/test one; cap %d; seed %d\n",
					name, sz.Train, sz.NegTrain, sz.Eval, sz.MaxAnswers, *seed)
				genStart := time.Now()
				d, stats, err := sample.Generate(ctx, k, opt)
				if err != nil {
					return err
				}
				genTime := time.Since(genStart)
				writeStats(e.stdout, stats)
				short := 0
				for _, s := range stats {
					if s.Exhausted {
						short++
					}
				}
				if short > 0 {
					fmt.Fprintf(e.stderr, "warning: %d structures stopped short of their count: the graph has too few distinct queries passing the rules (see --max-tries)\n", short)
				}
				fmt.Fprintf(e.stdout, "generated in %.1fs\n", genTime.Seconds())
				saveStart := time.Now()
				if err := dataset.Save(*out, d); err != nil {
					return err
				}
				size := int64(0)
				if fi, err := os.Stat(*out); err == nil {
					size = fi.Size()
				}
				fmt.Fprintf(e.stdout, "wrote %s (%.1f MB) in %.1fs\n", *out, float64(size)/1e6, time.Since(saveStart).Seconds())
				return nil
			}
		},
	})
}

// loadGraph reads the knowledge graph of a benchmark directory, a directory
// of named triples or a saved dataset (whose queries are dropped).
func loadGraph(path, format string, log io.Writer) (*kg.KG, error) {
	kind, err := sourceKind(format)
	if err != nil {
		return nil, err
	}
	if kind == dataset.SourceAuto {
		if kind, err = dataset.Detect(path); err != nil {
			return nil, err
		}
	}
	switch kind {
	case dataset.SourceBenchmark:
		return kg.LoadBenchmark(path)
	case dataset.SourceTriples:
		k, rep, err := kg.LoadTriples(path, kg.TripleOptions{})
		if err == nil {
			fmt.Fprintf(log, "read %s\n", rep)
		}
		return k, err
	}
	d, err := dataset.Load(path)
	if err != nil {
		return nil, err
	}
	return d.KG, nil
}

func writeStats(w io.Writer, stats []sample.Stats) {
	tw := tabwriter.NewWriter(w, 2, 8, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "split\tstructure\tqueries\ttries\tbroken\tempty\tno hard\tno neg\tover cap\tduplicate\tseconds\t")
	for _, s := range stats {
		got := fmt.Sprint(s.Got)
		if s.Exhausted {
			got = fmt.Sprintf("%d of %d (exhausted)", s.Got, s.Want)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%.2f\t\n", s.Split, s.Structure, got, s.Tries,
			s.Broken, s.Empty, s.NoHard, s.NoNegation, s.TooMany, s.Duplicate, s.Elapsed.Seconds())
	}
	tw.Flush()
}

// isTerminal reports whether w is a character device (progress then
// rewrites one line in place).
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}
