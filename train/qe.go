package train

import (
	"context"
	"fmt"
	"math"
	"path/filepath"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/optim"
	"github.com/gammae/gammae/qe"
)

// ModelValidateFunc is ValidateFunc for a baseline model.
type ModelValidateFunc func(ctx context.Context, m qe.Model) (mrr float64, per map[string]float64, err error)

// qeRun is the state of a run that trains a baseline (any qe.Model) rather
// than GammaE: the schedule, sampling, checkpoints and logs are the
// trainer's; the model computes its gradient and a float64 Adam updates it.
type qeRun struct {
	model   qe.Model
	config  []byte // the model's JSON configuration, saved with it
	grads   []qe.Tensor
	opt     *optim.Adam[float64]
	reached []bool // parameters a gradient has reached (Adam updates them from then on)
	batch   []qe.Example
}

// RunModel trains the baseline m (built from its JSON configuration
// modelConfig) on d's training queries with cfg's schedule, as Run does for
// GammaE. o.NewModel rebuilds the model on --resume; o.ValidateModel
// replaces o.Validate.
func RunModel(ctx context.Context, cfg Config, m qe.Model, modelConfig []byte, d *dataset.Dataset, o Options) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := setObjective(m, &cfg); err != nil {
		return nil, err
	}
	if cfg.Precision == "bf16" {
		return nil, fmt.Errorf("precision bf16: %s trains in float32 products only", m.Kind())
	}
	if cfg.Average > 0 {
		return nil, fmt.Errorf("average %g: parameter averaging is GammaE's only", cfg.Average)
	}
	if cfg.ProjectionDropout > 0 {
		return nil, fmt.Errorf("projection dropout %g: GammaE's only", cfg.ProjectionDropout)
	}
	if cfg.EntityDecay > 0 {
		return nil, fmt.Errorf("entity decay %g: GammaE's only", cfg.EntityDecay)
	}
	if cfg.WeightDecay > 0 {
		return nil, fmt.Errorf("weight decay %g: GammaE's only", cfg.WeightDecay)
	}
	t := &trainer{cfg: cfg, opts: o, ds: d, q: &qeRun{model: m, config: modelConfig}}
	if err := t.setup(); err != nil {
		return nil, err
	}
	if t.logFile != nil {
		defer t.logFile.Close()
	}
	return t.loop(ctx)
}

// setObjective gives the baseline cfg's loss: its authors' (sigmoid) or
// softmax.
func setObjective(m qe.Model, cfg *Config) error {
	o := qe.Objective{Kind: cfg.Loss, Temperature: cfg.LossTemperature}
	if o.Kind == "" || o.Kind == "sigmoid" {
		return nil
	}
	s, ok := m.(qe.Objectived)
	if !ok {
		return fmt.Errorf("loss %q: %s trains with its authors' loss only (sigmoid)", cfg.Loss, m.Kind())
	}
	if err := s.SetObjective(o); err != nil {
		return fmt.Errorf("%s: %v", m.Kind(), err)
	}
	return nil
}

// setupQE prepares the optimiser and checks that the model can answer
// every training structure.
func (t *trainer) setupQE(groups []*dataset.Group) error {
	q := t.q
	scratch := make([]float64, t.ds.KG.Train.N)
	for _, g := range groups {
		if err := q.model.Scores(g.Query(0), scratch); err != nil {
			return fmt.Errorf("training structure %s: %v", g.Name(), err)
		}
	}
	q.opt = adam[float64](&t.cfg)
	q.grads = qe.LikeParams(q.model.Params())
	q.reached = make([]bool, len(q.grads))
	return nil
}

// resumeQE loads the saved model and optimiser of a baseline run.
func (t *trainer) resumeQE(dir string, st *State) error {
	if t.opts.NewModel == nil {
		return fmt.Errorf("resuming a %s run needs the model registry (Options.NewModel)", t.q.model.Kind())
	}
	m, _, meta, err := checkpoint.LoadQE(filepath.Join(dir, checkpoint.ModelFile), t.opts.NewModel)
	if err != nil {
		return err
	}
	if it := meta["gammae.iteration"]; it != fmt.Sprint(st.Iteration) {
		return fmt.Errorf("%s is from iteration %s but %s from iteration %d: the run was stopped while saving; delete the run or restore a backup", checkpoint.ModelFile, it, checkpoint.StateFile, st.Iteration)
	}
	if m.Kind() != t.q.model.Kind() {
		return fmt.Errorf("the run holds a %s model, this run trains %s", m.Kind(), t.q.model.Kind())
	}
	if err := setObjective(m, &t.cfg); err != nil {
		return err
	}
	t.q.model = m
	if s, ok := m.(qe.Stateful); ok {
		if err := s.SetRNGState(st.ModelRNG); err != nil {
			return fmt.Errorf("%s: model random state: %v", checkpoint.StateFile, err)
		}
	}
	if len(st.Reached) == len(t.q.reached) {
		copy(t.q.reached, st.Reached)
	}
	return loadOptimizer(filepath.Join(dir, checkpoint.OptimizerFile), qeParams(m), t.q.opt)
}

func qeParams(m qe.Model) []paramInfo {
	var out []paramInfo
	for _, p := range m.Params() {
		out = append(out, paramInfo{p.Name, p.Shape, len(p.Data)})
	}
	return out
}

// stepQE runs one optimiser step of a baseline on b.
func (t *trainer) stepQE(b *Batch, next *Stream) (float64, *draw, error) {
	q := t.q
	q.batch = q.batch[:0]
	n := t.cfg.Negatives
	row := 0
	for _, p := range b.Parts {
		for _, r := range p.Rows {
			q.batch = append(q.batch, qe.Example{Query: p.Group.Query(r), Positive: b.Positive[row],
				Negatives: b.Negative[row*n : (row+1)*n], Weight: b.Weight[row]})
			row++
		}
	}
	var pre *draw
	if next != nil {
		pre = t.drawAsync(next)
	}
	loss, err := q.model.Gradient(q.batch, q.grads)
	if err != nil {
		return 0, pre, err
	}
	if math.IsNaN(loss.Loss) || math.IsInf(loss.Loss, 0) {
		return loss.Loss, pre, fmt.Errorf("%w: loss is %v", ErrNonFinite, loss.Loss)
	}
	params := q.model.Params()
	ps, gs := make([][]float64, len(params)), make([][]float64, len(params))
	for i, g := range q.grads {
		for _, v := range g.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return loss.Loss, pre, fmt.Errorf("%w: gradient of %s is %v", ErrNonFinite, g.Name, v)
			}
			if v != 0 {
				q.reached[i] = true
			}
		}
		if q.reached[i] {
			ps[i], gs[i] = params[i].Data, g.Data
		}
	}
	if err := q.opt.Step(ps, gs); err != nil {
		return 0, pre, err
	}
	q.model.ParamsChanged()
	return loss.Loss, pre, nil
}

// nonFiniteQE names a parameter of the baseline that is not finite.
func (t *trainer) nonFiniteQE() string {
	for _, p := range t.q.model.Params() {
		for _, v := range p.Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return p.Name
			}
		}
	}
	return ""
}
