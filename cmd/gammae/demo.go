package main

import (
	"bufio"
	"context"
	"embed"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/gammae/gammae/answer"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/progress"
	"github.com/gammae/gammae/sample"
	"github.com/gammae/gammae/serve"
	"github.com/gammae/gammae/train"
)

// demoFS is the UMLS graph (135 biomedical concepts, 46 relations), small
// enough to embed and train on in a minute or two.
//
//go:embed demodata/umls/*.txt
var demoFS embed.FS

// demoQuestions are asked of the trained model, in the logic syntax.
var demoQuestions = []struct{ ask, query string }{
	{"What can an antibiotic treat?",
		`?y : treats(antibiotic, ?y)`},
	{"What do both viruses and bacteria cause?",
		`?y : causes(virus, ?y) & causes(bacterium, ?y)`},
	{"What do pharmacologic substances treat that viruses do not cause?",
		`?y : treats(pharmacologic_substance, ?y) & !causes(virus, ?y)`},
}

type demoOptions struct {
	out     string
	minutes float64
	seed    uint64
}

func init() {
	register(&command{
		Name:    "demo",
		Summary: "Sample queries from an embedded graph, train GammaE on them, evaluate, and answer example questions.",
		Examples: `  gammae demo                      # about two minutes; writes ./gammae-demo
  gammae demo --minutes 0.5 --out /tmp/demo
  # afterwards, ask your own questions of the trained model:
  gammae query --model gammae-demo/run '?y : causes(virus, ?y) & !causes(bacterium, ?y)'
  gammae serve --model gammae-demo/run`,
		Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			o := &demoOptions{}
			fs.StringVar(&o.out, "out", "gammae-demo", "`DIR` for the dataset and the trained run")
			fs.Float64Var(&o.minutes, "minutes", 1.5, "training time budget")
			fs.Uint64Var(&o.seed, "seed", 1, "random seed")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 0 {
					return errUsage
				}
				return runDemo(ctx, e, o)
			}
		},
	})
}

func runDemo(ctx context.Context, e *env, o *demoOptions) error {
	if o.minutes <= 0 {
		return fmt.Errorf("--minutes must be positive")
	}
	out := bufio.NewWriter(e.stdout)
	defer out.Flush()
	say := func(format string, args ...any) {
		fmt.Fprintf(out, format+"\n", args...)
		out.Flush()
	}
	tty := progress.IsTerminal(os.Stderr) && e.stderr == os.Stderr

	// 1. The graph.
	k, rep, err := kg.LoadTriplesFS(demoFS, "demodata/umls", kg.TripleOptions{})
	if err != nil {
		return err
	}
	say("== 1. Graph: UMLS, embedded (%d entities, %d relations with inverses; %d train / %d valid / %d test triples)",
		k.Entities.Len(), k.Relations.Len(), rep.Triples[0], rep.Triples[1], rep.Triples[2])

	// 2. Query sets by the benchmark's protocol.
	start := time.Now()
	sizes := sample.Presets["small"]
	opt := sample.Options{Seed: o.seed, MaxAnswers: sizes.MaxAnswers, MaxTries: sizes.MaxTries}
	if opt.Train, err = sizes.Specs(kg.TrainSplit, sample.DefaultTrainStructures); err != nil {
		return err
	}
	if opt.Valid, err = sizes.Specs(kg.ValidSplit, sample.DefaultEvalStructures); err != nil {
		return err
	}
	if opt.Test, err = sizes.Specs(kg.TestSplit, sample.DefaultEvalStructures); err != nil {
		return err
	}
	d, _, err := sample.Generate(ctx, k, opt)
	if err != nil {
		return err
	}
	say("== 2. Sampled %d train, %d valid and %d test queries of 14 structures in %.1fs",
		countQueries(&d.Train), countQueries(&d.Valid), countQueries(&d.Test), time.Since(start).Seconds())
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	dataPath := filepath.Join(o.out, "umls.gqd")
	if err := dataset.Save(dataPath, d); err != nil {
		return err
	}

	// 3. Training.
	cfg, err := train.Preset("small")
	if err != nil {
		return err
	}
	cfg.Steps, cfg.Minutes, cfg.Seed = 0, o.minutes, o.seed
	cfg.ValidEvery = 0
	runDir := filepath.Join(o.out, "run")
	say("== 3. Training GammaE (d=%d, h=%d, L=%d, union=%s) for %g minutes", cfg.Dim, cfg.Hidden, cfg.Layers, cfg.Union, o.minutes)
	sum, err := train.Run(ctx, cfg, d, train.Options{Dir: runDir, DatasetPath: absPath(dataPath), Host: hostName(), Progress: e.stderr, IsTerminal: tty})
	if err != nil {
		return err
	}
	say("   %d iterations (%.0f ms each), final loss %.4f", sum.Iterations, 1000*sum.SecondsPerIt, sum.LastLoss)
	if sum.Interrupted {
		return ctx.Err()
	}

	// 4. Evaluation on the test queries, and the estimates' calibration
	// on the validation ones.
	lm, err := openModel(runDir, false, io.Discard)
	if err != nil {
		return err
	}
	m := lm.model
	c, err := calibrateRun(ctx, lm, d, dataPath, calibrateQueries, o.seed)
	if err != nil {
		return err
	}
	say("== 4. Filtered ranking on the test queries (hard answers only; %%)")
	r, err := evaluate.Run(ctx, m, &d.Test, evaluate.Options{Uncertainty: true})
	if err != nil {
		return err
	}
	if err := r.WriteText(out); err != nil {
		return err
	}
	say("\n%s", calibrationLine(lm, c))

	// 5. Questions by name.
	say("\n== 5. Questions (observed = entailed by the known graph, predicted = inferred by the model)")
	eng := answer.New(k, m, serve.Info{Dataset: "UMLS (demo)", Loss: cfg.LossName(), Estimates: cfg.Calibrated(), Calibration: c.Shifts})
	p := &queryPrinter{e: e, out: out, o: queryOptions{k: 5}}
	for _, q := range demoQuestions {
		parsed, err := eng.Parse(q.query)
		if err != nil {
			return fmt.Errorf("%s: %w", q.query, err)
		}
		r, err := eng.AnswerQuery(ctx, parsed, 5)
		if err != nil {
			return fmt.Errorf("%s: %w", q.query, err)
		}
		say("\n%s\n  %s", q.ask, q.query)
		p.printed = 0 // no extra blank line before the table
		p.printTable(r, nil)
	}
	self := selfCommand()
	say("\nNext: ask your own questions of this model:\n  %s query --model %s '?y : causes(virus, ?y) & !causes(bacterium, ?y)'\n  %s serve --model %s", self, runDir, self, runDir)
	return nil
}

func countQueries(s *dataset.Split) int {
	n := 0
	for _, g := range s.Groups {
		n += g.Len()
	}
	return n
}
