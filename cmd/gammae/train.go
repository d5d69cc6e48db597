package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/internal/cputime"
	"github.com/gammae/gammae/internal/kernel"
	"github.com/gammae/gammae/progress"
	"github.com/gammae/gammae/registry"
	"github.com/gammae/gammae/train"
)

type trainOptions struct {
	data, out, preset   string
	resume, force       bool
	bench               int
	jsonPath            string // --bench's report as JSON
	cpuProfile          string
	kind                string // --model-kind
	structures, lrDrops string
	weights             string       // --structure-weights
	cfg                 train.Config // flag values; applied when set
}

func init() {
	register(&command{
		Name:    "train",
		Summary: "Train a GammaE model on a dataset's training queries.",
		Examples: `  # The paper's FB15k-237 configuration, for an hour:
  gammae train --data fb237.gqd --out runs/fb237 --preset fb15k-237 --minutes 60
  # The configuration that learns most in that hour here (d=200, 60 minutes):
  gammae train --data fb237.gqd --out runs/fb237-hour --preset fb15k-237-hour
  # The recipe that learns fastest per CPU-second (docs/evaluation.md):
  gammae train --data fb237.gqd --out runs/fb237-fast --preset fast-hard
  # The same with bfloat16 products, on a CPU with AVX512-BF16 or AMX:
  gammae train --data fb237.gqd --out runs/fb237-fast --preset fast-hard --precision bf16
  # 150 minutes of two threads, on a dataset with pi and ip training queries
  # (docs/evaluation.md, "150 minutes of FB15k-237"):
  gammae train --data fb237x5pi.gqd --out runs/fb237-long --preset fast-long --precision bf16
  # Continue an interrupted run exactly where it stopped:
  gammae train --data fb237.gqd --out runs/fb237 --resume
  # Reproduce the reference code's use of validation unions for training:
  gammae train --data fb237.gqd --out runs/ref --union-train valid
  # Seconds per iteration (3 steps) of a configuration, writing nothing:
  gammae train --data fb237.gqd --preset fb15k-237 --bench 5
  # The same as JSON, for scripts comparing builds:
  gammae train --data fb237.gqd --preset fb15k-237 --bench 5 --json bench.json
  # A baseline of the paper's comparison, with its authors' settings:
  gammae train --data fb237.gqd --out runs/betae --model-kind betae --minutes 60

Presets (a flag left unset takes its preset's value; auto is small below
5000 entities, else fb15k-237):
` + presetTable(),
		Setup: func(fs *flag.FlagSet) func(context.Context, *env, []string) error {
			o := &trainOptions{}
			c := &o.cfg
			fs.StringVar(&o.data, "data", "", "dataset `FILE` (.gqd) with training queries (required)")
			fs.StringVar(&o.out, "out", "", "run `DIR` for checkpoints and logs (required unless --bench)")
			fs.StringVar(&o.preset, "preset", "auto", "hyperparameter preset: fb15k-237, fb15k-237-hour, fast, fast-shared, fast-smoothed, fast-hard, fast-long, nell, fb15k, small, or auto (by graph size)")
			fs.BoolVar(&o.resume, "resume", false, "continue the run in --out from its last checkpoint")
			fs.BoolVar(&o.force, "force", false, "start over in an --out that holds a run, deleting that run's files")
			fs.IntVar(&o.bench, "bench", 0, "time `N` iterations after one warm-up and report seconds per iteration; writes nothing but --json")
			fs.StringVar(&o.jsonPath, "json", "", "with --bench, also write its report as JSON to `FILE`")
			fs.StringVar(&o.kind, "model-kind", registry.GammaE, "model to train: "+strings.Join(registry.Names(), ", ")+" (baselines take their authors' run-script settings for the preset's dataset; --dim, --hidden, --layers, --gamma and --lr override them)")
			fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the training (or --bench) to `FILE`, for go tool pprof")
			fs.StringVar(&o.structures, "structures", "", "training structures, comma-separated (default: 1p,2p,3p,2i,3i,2in,3in,inp,pin,pni,2u,up)")
			fs.StringVar(&o.weights, "structure-weights", "", "`WEIGHTS` of training structures, e.g. 2in=10,3in=10: a structure of weight w is drawn w times as often per epoch (default 1 each: shares proportional to the query counts, as the reference)")
			fs.IntVar(&c.Dim, "dim", 0, "embedding dimension d")
			fs.IntVar(&c.Hidden, "hidden", 0, "projection MLP width h")
			fs.IntVar(&c.Layers, "layers", 0, "projection MLP depth L")
			fs.Float64Var(&c.Gamma, "gamma", 0, "margin γ")
			fs.Float64Var(&c.Epsilon, "epsilon", 0, "negation elasticity ε")
			fs.StringVar(&c.Union, "union", "", "union operator: moment (reference), mixture (paper), dnf, dm")
			fs.Float64Var(&c.UnionDropout, "union-dropout", 0, "dropout on the union attention logits")
			fs.Float64Var(&c.ProjectionDropout, "projection-dropout", 0, "dropout `P` on the projection nets' hidden activations in training, a regulariser the reference lacks; GammaE only")
			fs.BoolVar(&c.ProjectionDropoutRoot, "projection-dropout-root", false, "the projection dropout only on the projections whose output is the query's embedding (its last), not on the inputs of intersections, negations and further projections")
			fs.Float64Var(&c.LR, "lr", 0, "learning rate")
			fs.IntVar(&c.Batch, "batch", 0, "queries per batch")
			fs.IntVar(&c.Negatives, "negatives", 0, "negative samples per query (with --loss shared: per batch, shared by its queries)")
			fs.StringVar(&c.Loss, "loss", "", "objective of a query's logits: sigmoid (reference), adversarial (self-adversarial negatives), softmax (cross-entropy over the candidates), all (cross-entropy against every entity), shared (cross-entropy against the batch's positives and --negatives entities it shares); the baselines take sigmoid and softmax")
			fs.Float64Var(&c.LossTemperature, "loss-temperature", 0, "the loss's T: adversarial inverse temperature, softmax temperature (default 1)")
			fs.Float64Var(&c.LossSigmoid, "loss-sigmoid", 0, "with --loss all or shared: add `W` times the reference's sigmoid loss over the same candidates (it fixes the logits' level, which the cross-entropy leaves free: σ(logit) becomes a probability, and queries estimate their answer counts)")
			fs.Float64Var(&c.LabelSmoothing, "label-smoothing", 0, "with --loss all or shared: label smoothing `EPS` (the target 1−EPS on the positive, EPS spread over the candidates)")
			fs.IntVar(&c.HardNegatives, "hard-negatives", 0, "each negation query draws `K` of its negatives from the entities its negations must remove (the answers on the train graph of the query without its negated branches, less its own); with --loss shared they join the batch's --negatives first")
			fs.IntVar(&c.HardIntersections, "hard-intersections", 0, "each intersection query without a negation draws `K` of its negatives from the entities its intersections must remove (the answers on the train graph of the query with each intersection made the union of its branches, less its own); with --loss shared they are added to the batch's --negatives")
			fs.StringVar(&c.QueryWeights, "query-weights", "", "each query's loss weight: `answers` (the reference's sqrt(1/(4+|answers|)), default) or uniform")
			fs.BoolVar(&c.AnswerTargets, "answer-targets", false, "with --loss all or shared: a query's other training answers among its candidates share its positive's target (the cross-entropy of its answer set) instead of counting as negatives")
			fs.BoolVar(&c.ExcludeAnswers, "exclude-answers", false, "with --loss all or shared: a query's other training answers are not among its candidates (the sampled losses' negatives exclude them already)")
			fs.StringVar((*string)(&c.Precision), "precision", "", "products of the MLPs (and of the dense losses' distances): fp32 (default) or bf16 (bfloat16 operands, float32 sums: twice the rate where the CPU has AVX512-BF16 or AMX, emulated and slower elsewhere); GammaE only")
			fs.Float64Var(&c.AdamBeta2, "adam-beta2", 0, "Adam's β₂ (default 0.999)")
			fs.Float64Var(&c.AdamEps, "adam-eps", 0, "Adam's ε (default 1e-8)")
			fs.Float64Var(&c.EntityDecay, "entity-decay", 0, "decoupled weight decay `W` on the entity table alone (AdamW's: each step scales it by 1 − lr·W, pulling candidates towards α = β = 1), a regulariser the reference lacks; GammaE only")
			fs.Float64Var(&c.EntityDecayPower, "entity-decay-power", 0, "with --entity-decay: weight each entity's decay by (its train-graph degree + 1)^`P`, scaled to a mean of 1 (0: every entity alike; > 0 holds the frequent entities closer to the prior); GammaE only")
			fs.Float64Var(&c.WeightDecay, "weight-decay", 0, "the same decoupled decay `W` on every other weight (relation tables, the projection, intersection and union nets; not biases), a regulariser the reference lacks; GammaE only")
			fs.Float64Var(&c.Average, "average", 0, "average the parameters of the schedule's last `FRACTION` into RUN/average.safetensors (evaluate it with --model RUN/average.safetensors); GammaE only")
			fs.IntVar(&c.Steps, "steps", 0, "iterations the schedule is laid out for (each is 3 optimiser steps)")
			fs.Float64Var(&c.Minutes, "minutes", 0, "time budget; with no --steps the schedule is fitted to it")
			fs.Float64Var(&c.CPUMinutes, "cpu-minutes", 0, "time budget in CPU-minutes of the process (all threads), instead of --minutes: runs sharing a machine, or on hosts of different speeds, get equal work")
			fs.StringVar(&c.LRSchedule, "lr-schedule", "", "shape of the learning rate: step (÷5 and an Adam reset at each --lr-drops point; the reference's) or cosine (decaying to 0 at the schedule's end)")
			fs.StringVar(&o.lrDrops, "lr-drops", "", "`FRACTIONS` of the schedule where the lr is divided by 5 and Adam reset, e.g. 0.15,0.85 (default: the reference's 0.5, then each 1.5× later)")
			fs.StringVar(&c.UnionTrain, "union-train", "", "where union training queries come from: train (sampled from the train graph), valid (the reference code's behaviour), none")
			fs.BoolVar(&c.RefNegatives, "ref-negatives", false, "reproduce the reference's negative sampling, which can draw answers")
			fs.Uint64Var(&c.Seed, "seed", 0, "random seed")
			fs.IntVar(&c.Threads, "threads", 0, "worker threads (default: all cores)")
			fs.IntVar(&c.CheckpointEvery, "checkpoint-every", 0, "iterations between checkpoints")
			fs.IntVar(&c.ValidEvery, "valid-every", 0, "iterations between validations (negative: never)")
			fs.IntVar(&c.ValidQueries, "valid-queries", 0, "validation queries sampled per structure")
			fs.IntVar(&c.ConfirmQueries, "confirm-queries", 0, "at the end, score the best validation checkpoint and the last parameters again on `N` other validation queries per structure and keep the better as the best (0: off; with --resume and no budget left, checks a finished run)")
			return func(ctx context.Context, e *env, args []string) error {
				if len(args) != 0 {
					return errUsage
				}
				set := map[string]bool{}
				fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
				return runTrain(ctx, e, o, set)
			}
		},
	})
}

func runTrain(ctx context.Context, e *env, o *trainOptions, set map[string]bool) error {
	if o.data == "" {
		return fmt.Errorf("--data is required")
	}
	if o.out == "" && o.bench == 0 {
		return fmt.Errorf("--out is required (or --bench N)")
	}
	if o.jsonPath != "" && o.bench == 0 {
		return fmt.Errorf("--json needs --bench N (a training run writes its metrics to log.jsonl in --out)")
	}
	if o.resume && set["model-kind"] {
		if k := o.modelKind(); k != o.kind {
			return fmt.Errorf("--resume: %s holds a %s run, not %s (drop --model-kind, or train %s in another --out)", o.out, k, o.kind, o.kind)
		}
	}
	d, err := dataset.Load(o.data)
	if err != nil {
		return err
	}
	cfg, err := trainConfig(o, set, d)
	if err != nil {
		return err
	}
	if cfg.Threads > 0 {
		runtime.GOMAXPROCS(cfg.Threads)
	}
	if o.cpuProfile != "" {
		stop, err := startCPUProfile(o.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}
	tty := progress.IsTerminal(os.Stderr) && e.stderr == os.Stderr
	opts := train.Options{Dir: o.out, DatasetPath: absPath(o.data), Resume: o.resume, Host: hostName(), Progress: e.stderr, IsTerminal: tty}
	run := func(ctx context.Context, cfg train.Config, opts train.Options) (*train.Summary, error) {
		return train.Run(ctx, cfg, d, opts)
	}
	what := fmt.Sprintf("GammaE, preset %s, d=%d h=%d L=%d γ=%g ε=%g union=%s", cfg.Preset, cfg.Dim, cfg.Hidden, cfg.Layers, cfg.Gamma, cfg.Epsilon, cfg.Union)
	if kind := o.modelKind(); kind != registry.GammaE {
		b, err := newBaselineJob(o, set, &cfg, d, kind)
		if err != nil {
			return err
		}
		run, what = b.run, b.describe(&cfg)
		if cfg.ValidEvery > 0 {
			opts.ValidateModel = modelValidator(d, cfg.ValidQueries, cfg.Seed, kind, b.entities)
			opts.ConfirmModel = modelValidator(d, cfg.ConfirmQueries, confirmSeed(cfg.Seed), kind, b.entities)
		}
		opts.NewModel = registry.New
	} else if cfg.ValidEvery > 0 {
		opts.Validate = validator(d, cfg.ValidQueries, cfg.Seed)
		opts.Confirm = validator(d, cfg.ConfirmQueries, confirmSeed(cfg.Seed))
	}
	if o.bench > 0 {
		return benchTrain(ctx, e, cfg, run, o.bench, o.jsonPath)
	}
	if o.out != "" && !o.resume {
		if err := freshRunDir(o.out, o.force); err != nil {
			return err
		}
	}
	fmt.Fprintf(e.stderr, "train: %s, loss %s, lr=%g batch=%d negatives=%d, %d threads\n", what, cmp.Or(cfg.Loss, "sigmoid"), cfg.LR, cfg.Batch, cfg.Negatives, runtime.GOMAXPROCS(0))
	if cfg.Precision == "bf16" && !kernel.NativeBF16() {
		fmt.Fprintf(e.stderr, "train: note: this CPU has neither AVX512-BF16 nor AMX; bf16 products are emulated (%s), slower than --precision fp32 here\n", kernel.Describe())
	}
	sum, err := run(ctx, cfg, opts)
	if err != nil {
		return err
	}
	state := "finished"
	if sum.Interrupted {
		state = "interrupted (resume with --resume)"
	}
	fmt.Fprintf(e.stdout, "%s: %d iterations (%d now, %.3f s each; %.4g s, %.4g CPU-s in all), last loss %.4f", state, sum.Iterations, sum.Ran, sum.SecondsPerIt, sum.TotalSeconds, sum.CPUSeconds, sum.LastLoss)
	if sum.BestIter > 0 {
		fmt.Fprintf(e.stdout, ", best validation MRR %.4f at iteration %d", sum.BestMRR, sum.BestIter)
	}
	fmt.Fprintf(e.stdout, "\nmodel: %s\n", o.out)
	if sum.Interrupted || !cfg.Calibrated() || len(d.Valid.Groups) == 0 {
		return nil
	}
	lm, err := openModel(o.out, true, io.Discard)
	if err != nil {
		return err
	}
	c, err := calibrateRun(ctx, lm, d, o.data, calibrateQueries, cfg.Seed)
	if err != nil {
		return fmt.Errorf("the run is saved; calibrating its estimated answer counts ('gammae calibrate --model %s' retries): %w", o.out, err)
	}
	fmt.Fprintln(e.stdout, calibrationLine(lm, c))
	return nil
}

// trainConfig starts from the preset (or, on --resume, the run's saved
// configuration) and applies the flags that were set.
func trainConfig(o *trainOptions, set map[string]bool, d *dataset.Dataset) (train.Config, error) {
	var cfg train.Config
	if o.resume {
		meta, err := checkpoint.ReadRunMeta(o.out)
		if err != nil {
			return cfg, fmt.Errorf("--resume: %v", err)
		}
		if err := json.Unmarshal(meta.Train, &cfg); err != nil {
			return cfg, fmt.Errorf("--resume: %s: %v", o.out, err)
		}
	} else {
		name := o.preset
		if name == "auto" {
			name = "small"
			if d.KG.Train.N >= 5000 {
				name = "fb15k-237"
			}
		}
		p, err := train.Preset(name)
		if err != nil {
			return cfg, err
		}
		cfg = p
	}
	f := o.cfg
	apply := map[string]func(){
		"dim": func() { cfg.Dim = f.Dim }, "hidden": func() { cfg.Hidden = f.Hidden }, "layers": func() { cfg.Layers = f.Layers },
		"gamma": func() { cfg.Gamma = f.Gamma }, "epsilon": func() { cfg.Epsilon = f.Epsilon }, "union": func() { cfg.Union = f.Union },
		"union-dropout": func() { cfg.UnionDropout = f.UnionDropout }, "projection-dropout": func() { cfg.ProjectionDropout = f.ProjectionDropout },
		"projection-dropout-root": func() { cfg.ProjectionDropoutRoot = f.ProjectionDropoutRoot }, "lr": func() { cfg.LR = f.LR }, "batch": func() { cfg.Batch = f.Batch },
		"negatives": func() { cfg.Negatives = f.Negatives }, "loss": func() { cfg.Loss = f.Loss },
		"loss-temperature": func() { cfg.LossTemperature = f.LossTemperature }, "average": func() { cfg.Average = f.Average },
		"adam-beta2": func() { cfg.AdamBeta2 = f.AdamBeta2 }, "precision": func() { cfg.Precision = f.Precision }, "adam-eps": func() { cfg.AdamEps = f.AdamEps }, "entity-decay": func() { cfg.EntityDecay = f.EntityDecay }, "entity-decay-power": func() { cfg.EntityDecayPower = f.EntityDecayPower }, "weight-decay": func() { cfg.WeightDecay = f.WeightDecay }, "steps": func() { cfg.Steps = f.Steps }, "minutes": func() { cfg.Minutes, cfg.CPUMinutes = f.Minutes, 0 },
		"cpu-minutes": func() { cfg.Minutes, cfg.CPUMinutes = 0, f.CPUMinutes },
		"union-train": func() { cfg.UnionTrain = f.UnionTrain }, "ref-negatives": func() { cfg.RefNegatives = f.RefNegatives }, "exclude-answers": func() { cfg.ExcludeAnswers = f.ExcludeAnswers },
		"query-weights": func() { cfg.QueryWeights = f.QueryWeights }, "answer-targets": func() { cfg.AnswerTargets = f.AnswerTargets },
		"loss-sigmoid": func() { cfg.LossSigmoid = f.LossSigmoid }, "hard-negatives": func() { cfg.HardNegatives = f.HardNegatives }, "hard-intersections": func() { cfg.HardIntersections = f.HardIntersections }, "label-smoothing": func() { cfg.LabelSmoothing = f.LabelSmoothing },
		"seed": func() { cfg.Seed = f.Seed }, "threads": func() { cfg.Threads = f.Threads },
		"checkpoint-every": func() { cfg.CheckpointEvery = f.CheckpointEvery }, "valid-every": func() { cfg.ValidEvery = f.ValidEvery },
		"valid-queries": func() { cfg.ValidQueries = f.ValidQueries }, "confirm-queries": func() { cfg.ConfirmQueries = f.ConfirmQueries },
		"structures": func() { cfg.Structures = splitComma(o.structures) },
	}
	if set["structure-weights"] {
		w, err := train.ParseWeights(o.weights)
		if err != nil {
			return cfg, fmt.Errorf("--structure-weights: %v", err)
		}
		cfg.StructureWeights = w
	}
	if set["lr-schedule"] {
		cfg.LRSchedule = f.LRSchedule
		if cfg.LRSchedule == "cosine" && !set["lr-drops"] {
			cfg.LRDrops = nil // the preset's drops are the step schedule's
		}
	}
	if set["lr-drops"] {
		cfg.LRDrops = nil
		for _, f := range splitComma(o.lrDrops) {
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return cfg, fmt.Errorf("--lr-drops: %q is not a number", f)
			}
			cfg.LRDrops = append(cfg.LRDrops, v)
		}
	}
	for name := range set {
		if fn, ok := apply[name]; ok {
			fn()
		}
	}
	if set["minutes"] && set["cpu-minutes"] {
		return cfg, fmt.Errorf("--minutes and --cpu-minutes are two budgets: give one")
	}
	if (set["minutes"] || set["cpu-minutes"]) && !set["steps"] && !o.resume {
		cfg.Steps = 0 // fit the schedule to the budget
	}
	return cfg, cfg.Validate()
}

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}

// benchReport is --bench's result, as --json writes it.
type benchReport struct {
	Dim        int `json:"dim"`
	Hidden     int `json:"hidden"`
	Layers     int `json:"layers"`
	Batch      int `json:"batch"`
	Negatives  int `json:"negatives"`
	Threads    int `json:"threads"`
	Iterations int `json:"iterations"` // timed, after one warm-up
	// Seconds is the mean wall time per iteration (3 optimiser steps),
	// CPUSeconds all cores' CPU time per iteration (0 where unknown).
	Seconds    float64   `json:"seconds_per_iteration"`
	CPUSeconds float64   `json:"cpu_seconds_per_iteration"`
	Median     float64   `json:"median_seconds"`
	Each       []float64 `json:"iteration_seconds"` // in order
	// Steal is the share of the machine's CPU time given to other guests
	// during the timing, or −1 where unknown (not Linux).
	Steal float64 `json:"steal"`
	// Kernels names the instruction-set level and bf16 engine in use.
	Kernels string `json:"kernels"`
	Host    string `json:"host,omitempty"` // the processor, from /proc/cpuinfo
}

// hostName names this machine for a run's record: its processor and the
// kernels gammae runs on it.
func hostName() string {
	if cpu := cputime.CPUModel(); cpu != "" {
		return cpu + "; " + kernel.Describe()
	}
	return kernel.Describe()
}

// benchTrain times iterations of cfg on d without writing anything but
// the report (jsonPath, unless empty).
func benchTrain(ctx context.Context, e *env, cfg train.Config, run trainFunc, n int, jsonPath string) error {
	// A schedule far longer than the run: an lr drop would reset Adam and
	// time the reallocation of its moments.
	cfg.ValidEvery, cfg.Minutes, cfg.CPUMinutes, cfg.Steps, cfg.LRDrops = 0, 0, 0, 1<<30, nil
	// One run: the first iteration allocates and first-touches every buffer
	// and the optimiser state, so the clock starts when it ends.
	var (
		start, last time.Time
		cpu0        time.Duration
		host0       cputime.Machine
		hostOK      bool
		each        []float64
	)
	opts := train.Options{MaxIterations: n + 1, OnIteration: func(it int, _ float64) {
		now := time.Now()
		if it == 1 {
			start, cpu0 = now, cputime.Process()
			host0, hostOK = cputime.ReadMachine()
		} else {
			each = append(each, now.Sub(last).Seconds())
		}
		last = now
	}}
	if _, err := run(ctx, cfg, opts); err != nil {
		return err
	}
	r := benchReport{Dim: cfg.Dim, Hidden: cfg.Hidden, Layers: cfg.Layers, Batch: cfg.Batch, Negatives: cfg.Negatives,
		Threads: runtime.GOMAXPROCS(0), Iterations: n, Seconds: time.Since(start).Seconds() / float64(n), Each: each, Steal: -1,
		Kernels: kernel.Describe(), Host: cputime.CPUModel()}
	if c := cputime.Process() - cpu0; c > 0 {
		r.CPUSeconds = c.Seconds() / float64(n)
	}
	if host1, ok := cputime.ReadMachine(); ok && hostOK {
		r.Steal = cputime.StealShare(host0, host1)
	}
	sorted := slices.Sorted(slices.Values(each))
	if len(sorted) > 0 {
		r.Median = median(sorted)
	}
	cpu := ""
	if r.CPUSeconds > 0 {
		// CPU time per iteration: all cores' work, idle waits excluded.
		cpu = fmt.Sprintf("; %.3f CPU-s", r.CPUSeconds)
	}
	fmt.Fprintf(e.stdout, "d=%d h=%d L=%d batch=%d negatives=%d threads=%d: %.3f s per iteration (3 steps%s), %d iterations after a warm-up\n",
		r.Dim, r.Hidden, r.Layers, r.Batch, r.Negatives, r.Threads, r.Seconds, cpu, n)
	if len(sorted) > 1 {
		fmt.Fprintf(e.stdout, "  per iteration: fastest %.3f s, median %.3f s, slowest %.3f s\n", sorted[0], r.Median, sorted[len(sorted)-1])
	}
	fmt.Fprintf(e.stdout, "  kernels: %s\n", r.Kernels)
	if r.Host != "" {
		fmt.Fprintf(e.stdout, "  host: %s\n", r.Host)
	}
	if r.Steal >= 0 {
		// On a virtual machine other guests' work shows as steal: time
		// this one wanted the CPUs and the hypervisor ran someone else.
		fmt.Fprintf(e.stdout, "  steal: %.0f %% of the machine's CPU time went to other guests\n", 100*r.Steal)
	}
	if jsonPath != "" {
		if err := writeJSON(jsonPath, r); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s\n", jsonPath)
	}
	return nil
}

// median of sorted values.
func median(v []float64) float64 {
	if n := len(v); n%2 == 0 {
		return (v[n/2-1] + v[n/2]) / 2
	}
	return v[len(v)/2]
}

// absPath records paths in run directories so they resolve from anywhere.
func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}
