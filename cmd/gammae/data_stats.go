package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"github.com/gammae/gammae/internal/atomicfile"
	"time"

	"github.com/gammae/gammae/dataset"
)

func init() {
	register(&command{
		Name:    "data stats",
		Args:    "DATASET_OR_DIR",
		Summary: "Print graph sizes and, per structure and split, query counts and answers per query.",
		Examples: `  gammae data stats wn18rr.gqd
  # A benchmark directory is imported first (answers computed where missing):
  gammae data stats ../shared/data/NELL-betae
  # Named triples: graph sizes only; also write the numbers as JSON:
  gammae data stats --json umls-stats.json ../shared/data/umls`,
		Setup: func(fs *flag.FlagSet) func(ctx context.Context, e *env, args []string) error {
			jsonPath := fs.String("json", "", "also write the statistics as JSON to `FILE` (- for stdout, instead of the table)")
			kind := fs.String("format", "auto", "format of the argument: auto, file (.gqd), benchmark or triples")
			keepUnseen := fs.Bool("keep-unseen", false, "named triples: keep valid/test triples whose entity or relation does not occur in train")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 1 {
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
				st := dataset.Summarize(d)
				if *jsonPath == "-" {
					enc := json.NewEncoder(e.stdout)
					enc.SetIndent("", "  ")
					return enc.Encode(st)
				}
				if err := st.WriteText(e.stdout); err != nil {
					return err
				}
				if *jsonPath != "" {
					return writeJSON(*jsonPath, st)
				}
				return nil
			}
		},
	})
}

// writeJSON writes v indented to path atomically.
func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteFile(path, append(b, '\n'))
}
