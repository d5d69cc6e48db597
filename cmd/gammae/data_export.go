package main

import (
	"context"
	"flag"
	"fmt"
	"time"

	"github.com/gammae/gammae/dataset"
)

func init() {
	register(&command{
		Name:    "data export",
		Args:    "DATASET",
		Summary: "Write a dataset in the benchmark's format: query/answer pickles, id dictionaries, id triples.",
		Examples: `  # Pickles that the BetaE/GammaE Python code loads unchanged:
  gammae data export --out nell-betae/ nell.gqd
  # Any source that 'data stats' accepts works, e.g. a benchmark directory:
  gammae data export --out /tmp/wn18rr ../shared/data/WN18RR-QA`,
		Setup: func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error {
			out := fs.String("out", "", "output `DIR` (created if needed; files in it are replaced) (required)")
			kind := fs.String("format", "auto", "format of DATASET: auto, file (.gqd), benchmark or triples")
			keepUnseen := fs.Bool("keep-unseen", false, "named triples: keep valid/test triples whose entity or relation does not occur in train")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 1 || *out == "" {
					return errUsage
				}
				k, err := sourceKind(*kind)
				if err != nil {
					return err
				}
				start := time.Now()
				d, _, err := dataset.Open(ctx, args[0], k, dataset.ImportOptions{KeepUnseen: *keepUnseen, Mapped: true})
				if err != nil {
					return err
				}
				fmt.Fprintf(e.stderr, "read %s in %.2fs\n", args[0], time.Since(start).Seconds())
				start = time.Now()
				if err := dataset.ExportBenchmark(*out, d); err != nil {
					return err
				}
				fmt.Fprintf(e.stdout, "exported %s to %s in %.2fs\n", args[0], *out, time.Since(start).Seconds())
				return nil
			}
		},
	})
}
