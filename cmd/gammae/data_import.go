package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/gammae/gammae/dataset"
)

func init() {
	register(&command{
		Name:    "data import",
		Args:    "--from DIR --out FILE",
		Summary: "Convert a benchmark directory (query/answer pickles) or named triples into a .gqd dataset file.",
		Examples: `  # The benchmark's pickles; missing answer files are computed from the triples:
  gammae data import --from ../shared/data/WN18RR-QA --out wn18rr.gqd
  gammae data import --from ../shared/data/NELL-betae --out nell.gqd
  # Also check the pickled answers against the exact executor:
  gammae data import --from ../shared/data/WN18RR-QA --out wn18rr.gqd --verify
  # A graph of named triples (train/valid/test.txt), no queries:
  gammae data import --from ../shared/data/umls --out umls.gqd`,
		Setup: func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error {
			from := fs.String("from", "", "source `DIR`: a benchmark directory or one of named triples (required)")
			out := fs.String("out", "", "dataset `FILE` to write, conventionally .gqd (required)")
			kind := fs.String("format", "auto", "source format: auto, benchmark (id2ent.pkl, *-queries.pkl, ...) or triples (named head<TAB>relation<TAB>tail)")
			recompute := fs.Bool("recompute", false, "ignore the answer pickles and compute every answer from the triples")
			verify := fs.Bool("verify", false, "recompute the answers of pickled queries and report any that differ")
			keepUnseen := fs.Bool("keep-unseen", false, "named triples: keep valid/test triples whose entity or relation does not occur in train (dropped by default)")
			workers := fs.Int("workers", 0, "goroutines for reading and answering (0: one per CPU)")
			quiet := fs.Bool("quiet", false, "no progress lines")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 0 || *from == "" || *out == "" {
					return errUsage
				}
				if err := checkOutDir("--out", *out); err != nil {
					return err
				}
				opts := dataset.ImportOptions{Workers: *workers, Recompute: *recompute, Verify: *verify, KeepUnseen: *keepUnseen}
				if !*quiet {
					opts.Log = e.stderr
				}
				k, err := sourceKind(*kind)
				if err != nil {
					return err
				}
				if k == dataset.SourceAuto {
					if k, err = dataset.Detect(*from); err != nil {
						return err
					}
				}
				if k == dataset.SourceFile {
					return fmt.Errorf("--from %s is a file: give a benchmark or named-triples directory", *from)
				}
				d, rep, err := dataset.Open(ctx, *from, k, opts)
				if err != nil {
					return err
				}
				fmt.Fprint(e.stdout, rep)
				if d.KG.Train.NumEdges() == 0 {
					fmt.Fprintf(e.stderr, "warning: %s has no training edges: nothing to train on (is train.txt empty?)\n", *from)
				}
				start := time.Now()
				if err := dataset.Save(*out, d); err != nil {
					return err
				}
				size := int64(0)
				if fi, err := os.Stat(*out); err == nil {
					size = fi.Size()
				}
				fmt.Fprintf(e.stdout, "wrote %s (%.1f MB) in %.2fs\n", *out, float64(size)/1e6, time.Since(start).Seconds())
				return nil
			}
		},
	})
}

// sourceKind maps the --format flag to a dataset source kind.
func sourceKind(s string) (string, error) {
	switch s {
	case "auto", "":
		return dataset.SourceAuto, nil
	case dataset.SourceBenchmark, dataset.SourceTriples, dataset.SourceFile:
		return s, nil
	}
	return "", fmt.Errorf("--format %q: want auto, benchmark, triples or file", s)
}
