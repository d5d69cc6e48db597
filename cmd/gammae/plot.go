package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gammae/gammae/plot"
)

func init() {
	register(&command{
		Name:    "plot",
		Args:    "RUN...",
		Summary: "draw a run's loss and validation MRR curves from RUN/log.jsonl, or several runs' in one picture",
		Examples: `  gammae plot runs/fb237                 # writes runs/fb237/curves.svg
  gammae plot --png runs/fb237           # and runs/fb237/curves.png
  gammae plot --out /tmp/fb237.png runs/fb237
  # several runs (e.g. GammaE and its baselines) in one picture, one line each:
  gammae plot --out compare.svg runs/gammae runs/betae runs/cone
  # the same against CPU-seconds, for runs of different speeds:
  gammae plot --x cpu --out compare.svg runs/gammae runs/betae runs/cone`,
		Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			out := fs.String("out", "", "output `file`, .svg or .png (default RUN/curves.svg; compare.svg for several runs)")
			withPNG := fs.Bool("png", false, "also write a PNG (lines only, no text) beside the SVG")
			xAxis := fs.String("x", "step", "horizontal axis of several runs' curves: step, cpu (CPU-seconds of training) or time (wall seconds of training)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) == 0 {
					return errUsage
				}
				xlabel, ok := map[string]string{"step": "step", "cpu": "CPU-seconds", "time": "seconds"}[*xAxis]
				if !ok {
					return fmt.Errorf("--x %q: want step, cpu or time", *xAxis)
				}
				var logs []*plot.Log
				var names []string
				for _, run := range args {
					log, err := plot.ReadLogFile(filepath.Join(run, "log.jsonl"))
					if err != nil {
						return err
					}
					if log.Lines == 0 {
						return fmt.Errorf("%s: no records with a step", filepath.Join(run, "log.jsonl"))
					}
					if *xAxis != "step" {
						if log, err = log.Along(*xAxis); err != nil {
							return fmt.Errorf("%s: %v (--x cpu needs a log written by this version)", filepath.Join(run, "log.jsonl"), err)
						}
					}
					logs, names = append(logs, log), append(names, filepath.Base(filepath.Clean(run)))
				}
				run := args[0]
				fig := plot.Curves(logs[0], names[0])
				for i := range fig.Panels {
					fig.Panels[i].XLabel = xlabel
				}
				if len(args) > 1 {
					fig = plot.Compare(logs, names, xlabel)
					if *out == "" {
						*out = "compare.svg"
					}
				}
				path := *out
				if path == "" {
					path = filepath.Join(run, "curves.svg")
				}
				paths := []string{path}
				if *withPNG && strings.ToLower(filepath.Ext(path)) != ".png" {
					paths = append(paths, strings.TrimSuffix(path, filepath.Ext(path))+".png")
				}
				for _, p := range paths {
					if err := plot.WriteFile(p, fig); err != nil {
						return err
					}
					fmt.Fprintf(e.stdout, "wrote %s\n", p)
				}
				return nil
			}
		},
	})
}
