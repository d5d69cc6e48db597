// Package train fits a GammaE model to a dataset's training queries with
// the reference implementation's schedule (SPEC section 4).
package train

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/internal/kernel"
	"github.com/gammae/gammae/optim"
)

// Config is every training hyperparameter. It is saved in checkpoints.
type Config struct {
	Preset string `json:"preset,omitempty"`

	// Model.
	Dim          int     `json:"dim"`
	Hidden       int     `json:"hidden"`
	Layers       int     `json:"layers"`
	Gamma        float64 `json:"gamma"`
	Epsilon      float64 `json:"epsilon"`
	Union        string  `json:"union"`
	UnionDropout float64 `json:"union_dropout"`
	// ProjectionDropout is the dropout on the projection nets' hidden
	// activations in training (gamma.Config; GammaE only).
	ProjectionDropout float64 `json:"projection_dropout,omitempty"`
	// ProjectionDropoutRoot limits it to the queries' last projections
	// (gamma.Config).
	ProjectionDropoutRoot bool `json:"projection_dropout_root,omitempty"`

	// Optimisation.
	LR        float64 `json:"lr"`
	Batch     int     `json:"batch"`
	Negatives int     `json:"negatives"`
	// Loss is the objective of a row's logits: "" or "sigmoid" (the
	// reference's), "adversarial", "softmax", "all" or "shared"
	// (gamma.Objective; the baselines take sigmoid and softmax,
	// qe.Objective), with LossTemperature its T (0: 1).
	// With "shared", Negatives is the number of negatives a batch shares.
	Loss            string  `json:"loss,omitempty"`
	LossTemperature float64 `json:"loss_temperature,omitempty"`
	// LossSigmoid, with "all" or "shared", adds that multiple of the
	// reference's sigmoid loss over the same candidates
	// (gamma.Objective.Sigmoid). GammaE only.
	LossSigmoid float64 `json:"loss_sigmoid,omitempty"`
	// LabelSmoothing, with "all" or "shared", is the cross-entropy's label
	// smoothing ε (gamma.Objective.Smoothing). GammaE only.
	LabelSmoothing float64 `json:"label_smoothing,omitempty"`
	// ExcludeAnswers leaves a row's other training answers out of its
	// candidates with the losses "all" and "shared", whose candidates are
	// common to the batch (the sampled losses draw their negatives outside
	// the answers already). GammaE only.
	ExcludeAnswers bool `json:"exclude_answers,omitempty"`
	// AnswerTargets, with "all" or "shared", makes a row's target its
	// answer set: its other training answers among the candidates share
	// the positive's target (gamma.Objective.AnswerTargets) instead of
	// counting as negatives or, with ExcludeAnswers, leaving the row.
	// GammaE only.
	AnswerTargets bool `json:"answer_targets,omitempty"`
	// HardNegatives is how many of each negation query's hard negatives
	// (HardSet: entities its negated branches must remove) are drawn
	// among its negatives: its own first ones, or, with Loss "shared",
	// the batch's, which they fill before uniform draws up to Negatives.
	// 0 is off.
	HardNegatives int `json:"hard_negatives,omitempty"`
	// HardIntersections is how many of each intersection query's hard
	// negatives (HardSet: entities answering its branches' union but not
	// the query; queries with a negation excepted) are drawn among its
	// negatives: its own first ones, or, with Loss "shared", added to the
	// batch's beyond Negatives. 0 is off.
	HardIntersections int `json:"hard_intersections,omitempty"`
	// QueryWeights is how a query's loss term is weighted: "" or "answers"
	// (the reference's subsampling weight sqrt(1/(4+|answers|))) or
	// "uniform" (every query alike).
	QueryWeights string `json:"query_weights,omitempty"`
	// AdamBeta2 and AdamEps replace Adam's β₂ (0.999) and ε (1e-8) when
	// set.
	AdamBeta2 float64 `json:"adam_beta2,omitempty"`
	AdamEps   float64 `json:"adam_eps,omitempty"`
	// EntityDecay is a decoupled weight decay (AdamW's) on the entity
	// table alone: before each optimiser step its raw values are scaled
	// by 1 − lr·EntityDecay, pulling candidates towards α = β = 1 (the
	// regulariser's x + 1). 0 is off. GammaE only.
	EntityDecay float64 `json:"entity_decay,omitempty"`
	// EntityDecayPower weights each entity's decay by its share of the
	// train graph's edges: entity e's rows shrink by 1 − lr·EntityDecay·wₑ
	// with wₑ ∝ (degreeₑ + 1)^EntityDecayPower, scaled to a mean of 1
	// over the entities, so the table's mean decay stays EntityDecay. 0
	// (every entity alike) is AdamW's; > 0 holds the frequent entities
	// closer to the prior, as a regulariser applied per occurrence does
	// (the weighted trace norm of link prediction), < 0 the rare ones.
	EntityDecayPower float64 `json:"entity_decay_power,omitempty"`
	// WeightDecay is the same decoupled decay on every other parameter
	// with more than one dimension: the relation tables and the
	// projection, intersection and union weights, biases left alone
	// (AdamW's usual exclusion). 0 is off. GammaE only.
	WeightDecay float64 `json:"weight_decay,omitempty"`
	// Precision is the products' arithmetic, fp32 (default) or bf16
	// (gamma.Precision: the MLPs' forward and input-gradient products
	// with bfloat16 operands). GammaE only.
	Precision gamma.Precision `json:"precision,omitempty"`
	// Average is the fraction of the schedule, at its end, whose
	// parameters (after each iteration) are averaged into
	// checkpoint.AverageFile when the run ends; 0 is off. GammaE only.
	Average float64 `json:"average,omitempty"`
	// Steps is the number of iterations the lr schedule is laid out for
	// (each iteration is three optimiser steps); 0 with Minutes set means
	// "estimate from the measured speed".
	Steps   int     `json:"steps"`
	Minutes float64 `json:"minutes,omitempty"`
	// CPUMinutes is a budget of the process's CPU time (all threads)
	// instead of the wall clock's: runs that share a machine, or hosts of
	// different speeds, get equal work. At most one of Minutes and
	// CPUMinutes is set.
	CPUMinutes float64 `json:"cpu_minutes,omitempty"`
	// LRDrops are the points of the schedule, as fractions of Steps, where
	// the lr is divided by 5 and Adam is reset. Empty means the reference's
	// rule: the first drop at half the steps, each next one 1.5× later.
	LRDrops []float64 `json:"lr_drops,omitempty"`
	// LRSchedule is the shape of the learning rate over Steps: "" or
	// "step" (LRDrops: ÷5 and an Adam reset at each), or "cosine" (LR ·
	// ½(1 + cos(π·t/Steps)), decaying to 0 at the end, no resets).
	LRSchedule string `json:"lr_schedule,omitempty"`

	// Data.
	Structures []string `json:"structures"` // training structures by name
	// StructureWeights scale a structure's share of its batches: a query
	// of a structure of weight w is visited w times as often per epoch
	// (w < 1: a fixed random fraction w of its queries). Unnamed
	// structures have weight 1, which gives the reference's mix: shares
	// proportional to the structures' query counts.
	StructureWeights map[string]float64 `json:"structure_weights,omitempty"`
	// UnionTrain selects where union training queries come from: "train"
	// (2u/up sampled from the train graph, the default) or "valid" (the
	// reference code's use of validation 2u/up queries and hard answers).
	UnionTrain string `json:"union_train"`
	// RefNegatives reproduces the reference's negative sampling, which can
	// draw answers as negatives.
	RefNegatives bool `json:"ref_negatives,omitempty"`

	// Bookkeeping.
	Seed            uint64 `json:"seed"`
	Threads         int    `json:"threads"`
	CheckpointEvery int    `json:"checkpoint_every"` // iterations
	ValidEvery      int    `json:"valid_every"`      // iterations; 0 = off
	ValidQueries    int    `json:"valid_queries"`    // per structure, sampled
	// ConfirmQueries, when > 0, checks the choice of best checkpoint at
	// the end of the run on this many validation queries a structure (a
	// larger sample than ValidQueries, drawn with another seed): the best
	// checkpoint and the last parameters are scored on it and the better
	// becomes the best. The checkpoint that tops a small sample owes part
	// of its lead to the sample.
	ConfirmQueries int `json:"confirm_queries,omitempty"`
}

// Presets are the paper's hyperparameters (appendix table, SPEC section 4;
// margin 60 as in the reference run scripts), one measured for an hour of
// FB15k-237 on two cores, and a small one for demos.
var Presets = map[string]Config{
	"fb15k-237": paper(1e-4, 0.07),
	// A smaller model learns more in an hour than the paper's: 8,472
	// iterations gave test MRR 12.6 (positive) / 3.8 (negation), against
	// 10.6 / 3.1 at d=400 (docs/performance.md). The margin keeps the
	// paper's per-dimension ratio of d=400, γ=60: at d=200 γ=60 does not
	// learn the multi-hop structures.
	"fb15k-237-hour": hour(""),
	// The hour preset with the softmax cross-entropy over each query's
	// candidates (Loss "softmax"): the lever that learned fastest per
	// CPU-second at equal minutes (docs/evaluation.md), the model and its
	// score unchanged. A budget of --minutes or --cpu-minutes fits it.
	"fast": hour("softmax"),
	// The fast preset with the cross-entropy against candidates the batch
	// shares (Loss "shared"): its queries' positives and 2,048 entities
	// drawn per batch, scored by matrix products at the cost of 128
	// negatives per query (docs/evaluation.md). GammaE only: the
	// baselines train with sigmoid or softmax.
	"fast-shared": fastShared(),
	// The fast-shared preset with label smoothing 0.1 and every query's
	// loss weighted alike (QueryWeights "uniform"): at 120 CPU-minutes of
	// FB15k-237, test MRR 19.7 EPFO / 4.6 negation in bf16, against
	// fast-shared's 18.3 / 4.6 (docs/evaluation.md).
	// The precision stays fp32: bf16 is faster only where the CPU has
	// AVX512-BF16 or AMX.
	"fast-smoothed": fastSmoothed(),
	// The fast-smoothed preset with 16 hard negatives a negation query
	// (HardNegatives: entities its negations must remove, among the
	// batch's 2,048 shared negatives) and twice its label smoothing (0.2):
	// at 120 CPU-minutes of FB15k-237 in bf16, test MRR 20.14–20.40 EPFO
	// / 5.94–6.10 negation over four seeds, against 19.25–19.97 /
	// 5.60–5.79 for the same seeds at smoothing 0.1, and fast-smoothed's
	// 19.7 / 4.6 (docs/evaluation.md); smoothing 0.3 tied 0.2.
	"fast-hard": fastHard(),
	// The fast-hard preset grown for 150 minutes of two threads: projection
	// nets twice as wide (h=800), three times its entity decay (0.15), the
	// 1p queries drawn five times as often, a cosine learning rate, a
	// sigmoid term of weight 0.3 beside the cross-entropy (so that answers
	// estimate their counts too), and the pi and ip structures among the
	// training queries, which the dataset must hold (docs/evaluation.md,
	// "150 minutes of FB15k-237", generates them).
	"fast-long": fastLong(),
	"nell":      paper(1e-4, 0.07),
	"fb15k":     paper(5e-5, 0.05),
	"small": {
		Dim: 64, Hidden: 128, Layers: 2, Gamma: 24, Epsilon: 0.07, Union: "moment",
		LR: 1e-3, Batch: 256, Negatives: 64, Steps: 3000,
		UnionTrain: "train", Seed: 1, CheckpointEvery: 1000, ValidEvery: 500, ValidQueries: 200,
	},
}

// DefaultStructures are the benchmark's ten training structures plus the
// unions sampled from the train graph.
var DefaultStructures = []string{"1p", "2p", "3p", "2i", "3i", "2in", "3in", "inp", "pin", "pni", "2u-DNF", "up-DNF"}

func hour(loss string) Config {
	return Config{
		Dim: 200, Hidden: 400, Layers: 2, Gamma: 30, Epsilon: 0.07, Union: "moment", UnionDropout: 0.1,
		LR: 1e-3, LRDrops: []float64{0.5, 0.85}, Batch: 512, Negatives: 128, Minutes: 60, Loss: loss,
		UnionTrain: "train", Seed: 1, CheckpointEvery: 500, ValidEvery: 1000, ValidQueries: 200,
		// The best of ~35 checkpoints on 200 queries a structure can trail
		// the last parameters on 5,000 (docs/evaluation.md); the check
		// costs two evaluations after the budget.
		ConfirmQueries: 5000,
	}
}

func fastShared() Config {
	c := hour("shared")
	c.Negatives = 2048
	return c
}

func fastSmoothed() Config {
	c := fastShared()
	c.LabelSmoothing = 0.1
	c.QueryWeights = "uniform"
	return c
}

func fastHard() Config {
	c := fastSmoothed()
	c.HardNegatives = 16
	c.LabelSmoothing = 0.2
	c.EntityDecay = 0.05
	return c
}

func fastLong() Config {
	c := fastHard()
	c.Hidden, c.EntityDecay, c.LossSigmoid, c.Minutes = 800, 0.15, 0.3, 150
	c.LRSchedule, c.LRDrops = "cosine", nil
	c.StructureWeights = map[string]float64{"1p": 5}
	c.Structures = append(slices.Clone(DefaultStructures), "pi", "ip")
	return c
}

func paper(lr, eps float64) Config {
	return Config{
		Dim: 800, Hidden: 1600, Layers: 4, Gamma: 60, Epsilon: eps, Union: "moment", UnionDropout: 0.1,
		LR: lr, Batch: 512, Negatives: 128, Steps: 450001,
		UnionTrain: "train", Seed: 1, CheckpointEvery: 1000, ValidEvery: 30000, ValidQueries: 500,
	}
}

// adam returns Adam with the configuration's settings.
func adam[T kernel.Float](c *Config) *optim.Adam[T] {
	a := optim.NewAdam[T](c.LR)
	if c.AdamBeta2 > 0 {
		a.Beta2 = c.AdamBeta2
	}
	if c.AdamEps > 0 {
		a.Eps = c.AdamEps
	}
	return a
}

// Objective is the loss as the model takes it.
func (c *Config) Objective() gamma.Objective {
	return gamma.Objective{Kind: c.Loss, Temperature: c.LossTemperature, Sigmoid: c.LossSigmoid, Smoothing: c.LabelSmoothing, AnswerTargets: c.AnswerTargets}
}

// Calibrated reports whether the loss trains σ(logit) to be the
// probability that an entity answers (the reference's sigmoid loss, the
// adversarial one, or a dense loss with a sigmoid term), so that Σ σ(logit)
// estimates a query's answer count. The softmax family ranks but leaves
// each row's level free.
func (c *Config) Calibrated() bool {
	switch c.Loss {
	case "", "sigmoid", "adversarial":
		return true
	case "all", "shared":
		return c.LossSigmoid > 0
	}
	return false
}

// LossName is Loss, "sigmoid" for the reference's (Loss "").
func (c *Config) LossName() string {
	if c.Loss == "" {
		return "sigmoid"
	}
	return c.Loss
}

// Preset returns a copy of the named preset.
func Preset(name string) (Config, error) {
	c, ok := Presets[strings.ToLower(name)]
	if !ok {
		names := make([]string, 0, len(Presets))
		for n := range Presets {
			names = append(names, n)
		}
		slices.Sort(names)
		return Config{}, fmt.Errorf("unknown preset %q (have %s)", name, strings.Join(names, ", "))
	}
	c.Preset = strings.ToLower(name)
	c.LRDrops = slices.Clone(c.LRDrops)
	c.StructureWeights = maps.Clone(c.StructureWeights)
	if c.Structures == nil {
		c.Structures = append([]string(nil), DefaultStructures...)
	}
	return c, nil
}

// Validate reports the first invalid field.
func (c *Config) Validate() error {
	var errs []error
	pos := func(name string, v int) {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("%s must be positive, got %d", name, v))
		}
	}
	pos("dim", c.Dim)
	pos("hidden", c.Hidden)
	pos("layers", c.Layers)
	pos("batch", c.Batch)
	pos("negatives", c.Negatives)
	if err := c.Objective().Validate(); err != nil {
		errs = append(errs, err)
	}
	if c.ExcludeAnswers && c.Loss != "all" && c.Loss != "shared" {
		errs = append(errs, fmt.Errorf("exclude-answers is for the losses all and shared, whose candidates the batch shares; loss %q draws its negatives outside the answers", c.Loss))
	}
	if c.ExcludeAnswers && c.AnswerTargets {
		errs = append(errs, errors.New("exclude-answers and answer-targets are two uses of a query's other answers: leave them out, or make them targets; set one"))
	}
	if c.HardNegatives < 0 {
		errs = append(errs, fmt.Errorf("hard-negatives must be ≥ 0 (0: off), got %d", c.HardNegatives))
	}
	if c.HardNegatives > 0 && c.Loss == "all" {
		errs = append(errs, errors.New("hard-negatives draws negatives, and loss all has none: every entity is a candidate already"))
	}
	if c.HardIntersections < 0 {
		errs = append(errs, fmt.Errorf("hard-intersections must be ≥ 0 (0: off), got %d", c.HardIntersections))
	}
	if c.HardIntersections > 0 && c.Loss == "all" {
		errs = append(errs, errors.New("hard-intersections draws negatives, and loss all has none: every entity is a candidate already"))
	}
	if c.QueryWeights != "" && c.QueryWeights != "answers" && c.QueryWeights != "uniform" {
		errs = append(errs, fmt.Errorf("query-weights must be answers (the reference's sqrt(1/(4+|answers|))) or uniform, got %q", c.QueryWeights))
	}
	if !(c.AdamBeta2 >= 0 && c.AdamBeta2 < 1) {
		errs = append(errs, fmt.Errorf("adam-beta2 must be in [0, 1) (0: 0.999), got %g", c.AdamBeta2))
	}
	if !(c.AdamEps >= 0) || math.IsInf(c.AdamEps, 0) {
		errs = append(errs, fmt.Errorf("adam-eps must be a finite number ≥ 0 (0: 1e-8), got %g", c.AdamEps))
	}
	if c.Precision != "" && c.Precision != "fp32" && c.Precision != "bf16" {
		errs = append(errs, fmt.Errorf("precision must be fp32 or bf16, got %q", c.Precision))
	}
	if !(c.Average >= 0 && c.Average < 1) {
		errs = append(errs, fmt.Errorf("average must be a fraction in [0, 1), got %g", c.Average))
	}
	if c.Steps <= 0 && c.Minutes <= 0 && c.CPUMinutes <= 0 {
		errs = append(errs, errors.New("steps, minutes or cpu-minutes must be positive"))
	}
	if c.Minutes > 0 && c.CPUMinutes > 0 {
		errs = append(errs, fmt.Errorf("minutes (%g) and cpu-minutes (%g) are two budgets: set one", c.Minutes, c.CPUMinutes))
	}
	if c.CPUMinutes < 0 || math.IsNaN(c.CPUMinutes) || math.IsInf(c.CPUMinutes, 0) {
		errs = append(errs, fmt.Errorf("cpu-minutes must be a finite number ≥ 0, got %g", c.CPUMinutes))
	}
	if c.Steps < 0 {
		errs = append(errs, fmt.Errorf("steps must not be negative, got %d", c.Steps))
	}
	if c.Minutes < 0 || math.IsNaN(c.Minutes) || math.IsInf(c.Minutes, 0) {
		errs = append(errs, fmt.Errorf("minutes must be a finite number ≥ 0, got %g", c.Minutes))
	}
	if c.Threads < 0 {
		errs = append(errs, fmt.Errorf("threads must be ≥ 0 (0: all cores), got %d", c.Threads))
	}
	if c.CheckpointEvery < 0 {
		errs = append(errs, fmt.Errorf("checkpoint-every must be ≥ 0 (0: only at the end), got %d", c.CheckpointEvery))
	}
	if c.ValidQueries < 0 {
		errs = append(errs, fmt.Errorf("valid-queries must be ≥ 0, got %d", c.ValidQueries))
	}
	if c.ConfirmQueries < 0 {
		errs = append(errs, fmt.Errorf("confirm-queries must be ≥ 0 (0: off), got %d", c.ConfirmQueries))
	}
	switch c.LRSchedule {
	case "", "step":
	case "cosine":
		if len(c.LRDrops) > 0 {
			errs = append(errs, fmt.Errorf("lr drops %v belong to the step schedule, not cosine", c.LRDrops))
		}
	default:
		errs = append(errs, fmt.Errorf("lr schedule must be step or cosine, got %q", c.LRSchedule))
	}
	for i, f := range c.LRDrops {
		if f <= 0 || f > 1 || (i > 0 && f <= c.LRDrops[i-1]) {
			errs = append(errs, fmt.Errorf("lr drops must be increasing fractions in (0,1], got %v", c.LRDrops))
			break
		}
	}
	if !(c.LR > 0) || math.IsInf(c.LR, 0) {
		errs = append(errs, fmt.Errorf("lr must be a finite positive number, got %g", c.LR))
	}
	if !(c.Gamma > 0) || math.IsInf(c.Gamma, 0) {
		errs = append(errs, fmt.Errorf("gamma must be positive, got %g", c.Gamma))
	}
	if c.UnionDropout < 0 || c.UnionDropout >= 1 {
		errs = append(errs, fmt.Errorf("union dropout must be in [0,1), got %g", c.UnionDropout))
	}
	if !(c.ProjectionDropout >= 0 && c.ProjectionDropout < 1) {
		errs = append(errs, fmt.Errorf("projection dropout must be in [0,1), got %g", c.ProjectionDropout))
	}
	if !(c.EntityDecay >= 0) || math.IsInf(c.EntityDecay, 0) || c.LR*c.EntityDecay >= 1 {
		errs = append(errs, fmt.Errorf("entity decay must be ≥ 0 with lr·decay < 1 (0: off), got %g at lr %g", c.EntityDecay, c.LR))
	}
	if math.IsNaN(c.EntityDecayPower) || math.Abs(c.EntityDecayPower) > 4 {
		errs = append(errs, fmt.Errorf("entity decay power must be within [-4, 4], got %g", c.EntityDecayPower))
	}
	if c.EntityDecayPower != 0 && c.EntityDecay == 0 {
		errs = append(errs, errors.New("entity decay power needs an entity decay above 0"))
	}
	if !(c.WeightDecay >= 0) || math.IsInf(c.WeightDecay, 0) || c.LR*c.WeightDecay >= 1 {
		errs = append(errs, fmt.Errorf("weight decay must be ≥ 0 with lr·decay < 1 (0: off), got %g at lr %g", c.WeightDecay, c.LR))
	}
	if c.ProjectionDropoutRoot && c.ProjectionDropout == 0 {
		errs = append(errs, errors.New("projection dropout at the roots only needs a projection dropout above 0"))
	}
	switch c.UnionTrain {
	case "train", "valid", "none":
	default:
		errs = append(errs, fmt.Errorf("union-train must be train, valid or none, got %q", c.UnionTrain))
	}
	if len(c.Structures) == 0 {
		errs = append(errs, errors.New("no training structures"))
	}
	errs = append(errs, c.validateWeights()...)
	return errors.Join(errs...)
}

// DropAt is the iteration of drop number done (0 for the first) in a
// schedule of steps iterations; math.MaxFloat64 when there is none (finite:
// the state is saved as JSON).
func (c *Config) DropAt(steps, done int) float64 {
	if c.LRSchedule == "cosine" {
		return math.MaxFloat64
	}
	if len(c.LRDrops) == 0 {
		return float64(steps/2) * math.Pow(1.5, float64(done))
	}
	if done >= len(c.LRDrops) {
		return math.MaxFloat64
	}
	return math.Round(c.LRDrops[done] * float64(steps))
}

// ScheduledLR is the cosine schedule's learning rate at progress f (0 at
// the start, 1 at the end: State.Progress); the step schedule's is kept
// in the state (0 here).
func (c *Config) ScheduledLR(f float64) float64 {
	if c.LRSchedule != "cosine" {
		return 0
	}
	f = min(1, max(0, f))
	return c.LR * 0.5 * (1 + math.Cos(math.Pi*f))
}
