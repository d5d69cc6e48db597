package train

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/internal/cputime"
	"github.com/gammae/gammae/optim"
	"github.com/gammae/gammae/progress"
	"github.com/gammae/gammae/qe"
)

// ValidateFunc measures a model on validation queries: the mean filtered
// MRR and its value per structure.
type ValidateFunc func(ctx context.Context, m *gamma.Model[float32]) (mrr float64, per map[string]float64, err error)

// Options are the run's surroundings, as opposed to its hyperparameters.
type Options struct {
	Dir         string // run directory; "" writes nothing (benchmarks)
	DatasetPath string // recorded in the run's config.json
	Resume      bool   // continue the run in Dir
	// Host names this machine (processor and kernels), added to the
	// run's config.json hosts when new.
	Host       string
	Progress   io.Writer
	IsTerminal bool
	Validate   ValidateFunc // nil: no periodic validation
	// Confirm scores on Config.ConfirmQueries validation queries a
	// structure, for the end-of-run check of the best checkpoint (nil: no
	// check); ConfirmModel is its baselines' twin.
	Confirm      ValidateFunc
	ConfirmModel ModelValidateFunc
	// ValidateModel and NewModel serve RunModel (baselines): the periodic
	// validation, and the registry's constructor for --resume.
	ValidateModel ModelValidateFunc
	NewModel      checkpoint.NewFunc
	// MaxIterations stops after this many iterations of this invocation
	// (0: no limit); used by benchmarks and tests.
	MaxIterations int
	// OnIteration, when set, is called after every iteration with its loss.
	OnIteration func(iteration int, loss float64)

	refitMin time.Duration // least time between schedule refits; 0: 30 s (tests shorten it)
	// gradFault, when set (tests), names a parameter to treat as having a
	// non-finite gradient at the optimiser step it is called for ("": none).
	gradFault func() string
}

// Summary describes a finished (or interrupted) run.
type Summary struct {
	Iterations   int     // completed, in total
	Ran          int     // completed by this invocation
	Seconds      float64 // wall time of this invocation's iterations
	SecondsPerIt float64
	TotalSeconds float64 // wall time of the run's iterations, in total
	CPUSeconds   float64 // CPU time of the run's iterations, in total
	LastLoss     float64
	BestMRR      float64
	BestIter     int
	Interrupted  bool
}

// maxSkipped consecutive updates with non-finite gradients stop training.
const maxSkipped = 50

// ErrNonFinite is returned when the loss or the parameters stop being
// finite numbers.
var ErrNonFinite = errors.New("training diverged")

type trainer struct {
	cfg   Config
	opts  Options
	ds    *dataset.Dataset
	model *gamma.Model[float32]
	// avg is the running mean of the parameters (Config.Average), of avgN
	// iterations.
	avg  [][]float32
	avgN int
	ws   *gamma.Workspace[float32]
	opt  *optim.Adam[float32]
	// gradsZero: the last Adam step zeroed every gradient but the entity
	// table's, which Backward overwrites (gamma.Model.EntityGradStale), so
	// the next step needs no zero_grad pass.
	gradsZero bool
	pcg       *rand.PCG
	rng       *rand.Rand
	path      *Stream
	other     *Stream
	progs     map[*dataset.Group]*gamma.Program
	st        State
	logFile   *os.File
	// skippedRun counts consecutive skipped updates.
	skippedRun int
	// decayW are the entities' decay weights of a frequency-weighted
	// entity decay (Config.EntityDecayPower), nil when every entity decays
	// alike.
	decayW []float64
	// q is set when the run trains a baseline (RunModel) instead of GammaE.
	q *qeRun
	// validIter and validMRR are the last periodic validation's iteration
	// and score in this invocation.
	validIter int
	validMRR  float64
	// bud is the time budget of the running loop (nil before it).
	bud *budget
}

// Run trains a model on d's training queries with cfg and returns a summary.
// The run directory gets the model (model.safetensors, best.safetensors),
// the optimiser and sampler state for --resume, config.json and log.jsonl.
// Cancelling ctx checkpoints and returns with Summary.Interrupted set.
func Run(ctx context.Context, cfg Config, d *dataset.Dataset, o Options) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	t := &trainer{cfg: cfg, opts: o, ds: d, progs: map[*dataset.Group]*gamma.Program{}}
	if err := t.setup(); err != nil {
		return nil, err
	}
	if t.logFile != nil {
		defer t.logFile.Close()
	}
	return t.loop(ctx)
}

func (t *trainer) logf(format string, args ...any) {
	if t.opts.Progress != nil {
		fmt.Fprintf(t.opts.Progress, format+"\n", args...)
	}
}

func (t *trainer) modelConfig() gamma.Config {
	c := t.cfg
	return gamma.Config{
		Entities: t.ds.KG.Train.N, Relations: t.ds.KG.Train.R,
		Dim: c.Dim, Hidden: c.Hidden, Layers: c.Layers,
		Gamma: c.Gamma, Epsilon: c.Epsilon,
		Union: gamma.Union(c.Union), UnionDropout: c.UnionDropout,
		ProjectionDropout: c.ProjectionDropout, ProjectionDropoutRoot: c.ProjectionDropoutRoot,
	}
}

func (t *trainer) setup() error {
	sel, err := selectGroups(&t.cfg, t.ds)
	if err != nil {
		return err
	}
	for _, n := range sel.notes {
		t.logf("train: %s", n)
	}
	mc := t.modelConfig()
	if t.q == nil {
		if err := mc.Validate(); err != nil {
			return err
		}
	}
	n := mc.Entities
	if len(sel.path) > 0 {
		t.path = NewStream(sel.path, sel.pathW, n, t.cfg.Negatives, t.cfg.RefNegatives, t.cfg.Seed^0x9a7)
	}
	if len(sel.other) > 0 {
		t.other = NewStream(sel.other, sel.otherW, n, t.cfg.Negatives, t.cfg.RefNegatives, t.cfg.Seed^0x07e)
	}
	for _, s := range []*Stream{t.path, t.other} {
		if s != nil {
			s.SharedNegatives = t.cfg.Loss == "shared"
			s.ExcludeAnswers = t.cfg.ExcludeAnswers || t.cfg.AnswerTargets
			s.UniformWeights = t.cfg.QueryWeights == "uniform"
		}
	}
	if t.cfg.HardNegatives > 0 || t.cfg.HardIntersections > 0 {
		if err := t.setupHard(); err != nil {
			return err
		}
	}
	if err := t.setupDecayWeights(); err != nil {
		return err
	}
	if t.cfg.RefNegatives {
		t.logf("train: reproducing the reference code: negatives may include answers (--ref-negatives)")
	}
	groups := append(append([]*dataset.Group(nil), sel.path...), sel.other...)
	if t.q != nil {
		return t.setupRest(groups, mc)
	}
	for _, g := range groups {
		p, err := gamma.Compile(g.Template, mc.Mode())
		if err != nil {
			return fmt.Errorf("structure %s: %v", g.Name(), err)
		}
		t.progs[g] = p
	}
	return t.setupRest(groups, mc)
}

// setupRest creates (or resumes) the model and opens the run directory.
func (t *trainer) setupRest(groups []*dataset.Group, mc gamma.Config) error {
	t.pcg = rand.NewPCG(t.cfg.Seed, 0x5eed)
	t.rng = rand.New(t.pcg)
	t.st = State{LR: t.cfg.LR, Steps: t.cfg.Steps, NextDrop: t.cfg.DropAt(t.cfg.Steps, 0), LastGood: -1}
	if t.q != nil {
		if err := t.setupQE(groups); err != nil {
			return err
		}
		if t.opts.Resume {
			if err := t.resume(); err != nil {
				return fmt.Errorf("resume %s: %w", t.opts.Dir, err)
			}
		}
		return t.openDir(&checkpoint.RunMeta{Version: 1, Dataset: t.opts.DatasetPath, Kind: t.q.model.Kind(), Config: t.q.config})
	}
	t.opt = adam[float32](&t.cfg)
	t.opt.ZeroGrads = true

	if t.opts.Resume {
		if err := t.resume(); err != nil {
			return fmt.Errorf("resume %s: %w", t.opts.Dir, err)
		}
	} else {
		m, err := gamma.New[float32](mc, rand.New(rand.NewPCG(t.cfg.Seed, 1)))
		if err != nil {
			return err
		}
		t.model = m
	}
	if err := t.model.SetPrecision(t.cfg.Precision); err != nil {
		return err
	}
	// Backward overwrites the entity table's gradient (after
	// EntityGradStale), so Adam need not zero it.
	t.opt.KeepGrads = make([]bool, len(t.model.Params()))
	t.opt.KeepGrads[t.model.EntityParam()] = true
	t.ws = t.model.NewWorkspace()
	return t.openDir(&checkpoint.RunMeta{Version: 1, Dataset: t.opts.DatasetPath, Model: mc})
}

// openDir writes the run's config.json and opens its log.
func (t *trainer) openDir(meta *checkpoint.RunMeta) error {
	if t.opts.Dir != "" {
		if err := os.MkdirAll(t.opts.Dir, 0o755); err != nil {
			return err
		}
		meta.Train, _ = json.Marshal(t.cfg)
		if t.opts.Resume {
			if old, err := checkpoint.ReadRunMeta(t.opts.Dir); err == nil {
				meta.Hosts = old.Hosts
			}
		}
		if t.opts.Host != "" && !slices.Contains(meta.Hosts, t.opts.Host) {
			meta.Hosts = append(meta.Hosts, t.opts.Host)
		}
		if err := checkpoint.WriteRunMeta(t.opts.Dir, meta); err != nil {
			return err
		}
		flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
		logPath := filepath.Join(t.opts.Dir, checkpoint.LogFile)
		if !t.opts.Resume {
			flags |= os.O_TRUNC
		} else if err := dropPartialLine(logPath); err != nil {
			return err
		}
		f, err := os.OpenFile(logPath, flags, 0o644)
		if err != nil {
			return err
		}
		t.logFile = f
	}
	return nil
}

func (t *trainer) resume() error {
	dir := t.opts.Dir
	if _, err := resolveSet(dir); err != nil {
		return err
	}
	st, err := loadState(dir)
	if err != nil {
		return err
	}
	if t.q != nil {
		if err := t.resumeQE(dir, st); err != nil {
			return err
		}
		return t.resumeSampling(st)
	}
	m, meta, err := checkpoint.LoadModel(filepath.Join(dir, checkpoint.ModelFile))
	if err != nil {
		return err
	}
	if it := meta["gammae.iteration"]; it != fmt.Sprint(st.Iteration) {
		return fmt.Errorf("%s is from iteration %s but %s from iteration %d: the run was stopped while saving; delete the run or restore a backup", checkpoint.ModelFile, it, checkpoint.StateFile, st.Iteration)
	}
	if m.Config() != t.modelConfig() {
		return fmt.Errorf("the saved model's configuration %+v differs from this run's %+v", m.Config(), t.modelConfig())
	}
	t.model = m
	if err := m.SetReached(st.Reached); err != nil {
		return err
	}
	if err := loadOptimizer(filepath.Join(dir, checkpoint.OptimizerFile), gammaParams(m), t.opt); err != nil {
		return err
	}
	return t.resumeSampling(st)
}

// resumeSampling restores the schedule and the samplers' state.
func (t *trainer) resumeSampling(st *State) error {
	t.setLR(st.LR)
	if err := t.pcg.UnmarshalBinary(st.RNG); err != nil {
		return fmt.Errorf("random state: %v", err)
	}
	if t.path != nil {
		if err := t.path.SetState(st.Path); err != nil {
			return err
		}
	}
	if t.other != nil {
		if err := t.other.SetState(st.Other); err != nil {
			return err
		}
	}
	if t.cfg.Steps > 0 {
		st.Steps = t.cfg.Steps
	}
	t.st = *st
	t.logf("train: resuming at iteration %d (lr %g)", st.Iteration, st.LR)
	return nil
}

// step runs one optimiser step on batch b and returns its loss. With next
// not nil it also draws next's following batch, in the background while
// the backward pass and the update run: sampling is serial and took 2 % of
// an iteration's wall time with one core idle. The draws stay in the
// serial order, since the forward pass's union dropout is this step's last
// use of the rng. The caller must wait for the returned draw, if any, even
// when step fails.
func (t *trainer) step(b *Batch, next *Stream) (float64, *draw, error) {
	if t.q != nil {
		return t.stepQE(b, next)
	}
	gb := &gamma.Batch{Negatives: t.cfg.Negatives, Positive: b.Positive, Negative: b.Negative, Shared: b.Shared, Exclude: b.Exclude, Weight: b.Weight, Objective: t.cfg.Objective()}
	for _, p := range b.Parts {
		gb.Groups = append(gb.Groups, gamma.Group{Program: t.progs[p.Group], IDs: p.IDs})
	}
	if !t.gradsZero {
		t.model.ZeroGrad()
	}
	// The gradients stay dirty unless this step's Adam update consumes them.
	t.gradsZero = false
	loss, err := t.ws.Forward(gb, t.rng)
	if err != nil {
		return 0, nil, err
	}
	if math.IsNaN(loss.Loss) || math.IsInf(loss.Loss, 0) {
		return loss.Loss, nil, fmt.Errorf("%w: loss is %v", ErrNonFinite, loss.Loss)
	}
	var pre *draw
	if next != nil {
		pre = t.drawAsync(next)
	}
	if err := t.ws.Backward(); err != nil {
		return 0, pre, err
	}
	name := t.ws.GradNonFinite()
	if name == "" && t.opts.gradFault != nil {
		name = t.opts.gradFault()
	}
	if name != "" {
		// A degenerate query (e.g. a union whose attention weight
		// underflows) can overflow a float32 gradient while the loss is
		// finite. Skip the update, as mixed-precision trainers do, rather
		// than poison the parameters.
		t.st.Skipped++
		t.skippedRun++
		if t.st.Skipped <= 5 || t.st.Skipped%100 == 0 {
			t.logf("train: iteration %d: non-finite gradient of %s: update skipped (%d so far)", t.st.Iteration+1, name, t.st.Skipped)
		}
		if t.skippedRun >= maxSkipped {
			return loss.Loss, pre, fmt.Errorf("%w: %d updates in a row had non-finite gradients", ErrNonFinite, t.skippedRun)
		}
		return loss.Loss, pre, nil
	}
	t.skippedRun = 0
	t.setShrink()
	if t.decayW != nil {
		t.shrinkEntities()
	}
	if err := t.opt.Step(t.model.Tensors()); err != nil {
		return 0, pre, err
	}
	// Adam zeroed every gradient but the entity table's, which the next
	// Backward overwrites.
	t.gradsZero = true
	t.model.EntityGradStale()
	t.model.ParamsChanged()
	return loss.Loss, pre, nil
}

// setShrink sets the optimiser's decoupled decays (AdamW's) for the
// current lr: the entity table's (EntityDecay) and every other
// parameter's with more than one dimension (WeightDecay). The shrink is
// not in the gradient, so Adam's moments never see it; Adam applies it in
// its pass over the values, with the bits of scaling them before the step.
func (t *trainer) setShrink() {
	d, w := t.cfg.EntityDecay, t.cfg.WeightDecay
	if d <= 0 && w <= 0 {
		t.opt.Shrink = nil
		return
	}
	params := t.model.Params()
	if len(t.opt.Shrink) != len(params) {
		t.opt.Shrink = make([]float64, len(params))
	}
	for i, p := range params {
		f := 0.0
		switch {
		case i == t.model.EntityParam():
			// A frequency-weighted decay shrinks the rows itself
			// (shrinkEntities).
			if d > 0 && t.decayW == nil {
				f = float64(float32(1 - t.opt.LR*d))
			}
		case w > 0 && len(p.Shape) > 1:
			f = float64(float32(1 - t.opt.LR*w))
		}
		t.opt.Shrink[i] = f
	}
}

// streams are the streams of an iteration's steps: path, other, path
// (without other when no structure is in it).
func (t *trainer) streams() []*Stream {
	var out []*Stream
	for _, s := range []*Stream{t.path, t.other, t.path} {
		if s != nil {
			out = append(out, s)
		}
	}
	return out
}

// draw is a batch being drawn in the background.
type draw struct {
	done  chan struct{}
	batch *Batch
}

func (t *trainer) drawAsync(s *Stream) *draw {
	d := &draw{done: make(chan struct{})}
	go func() {
		defer close(d.done)
		d.batch = s.Next(t.cfg.Batch, t.rng)
	}()
	return d
}

func (d *draw) wait() *Batch {
	<-d.done
	return d.batch
}

// iteration runs the reference schedule's three steps: path, other, path.
// Each step's batch after the first is drawn during the step before; the
// last step draws nothing, so that between iterations (checkpoints) the
// streams and the rng are where serial sampling leaves them.
func (t *trainer) iteration() (float64, error) {
	streams := t.streams()
	b := streams[0].Next(t.cfg.Batch, t.rng)
	var sum float64
	for i := range streams {
		var next *Stream
		if i+1 < len(streams) {
			next = streams[i+1]
		}
		l, pre, err := t.step(b, next)
		if pre != nil {
			b = pre.wait()
		} else if i+1 < len(streams) {
			b = streams[i+1].Next(t.cfg.Batch, t.rng)
		}
		if err != nil {
			return 0, err
		}
		sum += l
	}
	return sum / float64(len(streams)), nil
}

func (t *trainer) loop(ctx context.Context) (*Summary, error) {
	sum := &Summary{BestMRR: t.st.BestMRR, BestIter: t.st.BestIter}
	start := time.Now()
	bud := t.newBudget()
	t.bud = bud
	estimate := t.st.Steps <= 0 // lay out the schedule once the speed is known
	// A schedule fitted to the budget from the first iterations is fitted
	// again every 5% of the budget (at least 30 s, for a steady rate) on the
	// wall time per iteration since the last fit (validations, checkpoints
	// and a busy machine included), so that every lr drop still falls
	// inside the budget. A resumed run goes on refitting: its schedule
	// may have been fitted to a rate its earlier invocation did not keep.
	refine := estimate || (bud.on && t.cfg.Steps <= 0)
	refitMin := cmp.Or(t.opts.refitMin, 30*time.Second)
	var refitAt time.Duration
	refitRan := 0
	// The first fit leaves the first iteration out: its first touches of
	// the parameters and workspaces made it 5-13 times the next ones (d=200
	// to 300, FB15k-237), and a fit that counted it put the first lr drop
	// at a quarter of a short budget, before the first refit could move it.
	var warm time.Duration
	var rep *progress.Reporter
	newReporter := func() {
		if t.opts.Progress == nil {
			return
		}
		rep = progress.New(progress.Config{Out: t.opts.Progress, IsTerminal: t.opts.IsTerminal, Label: "train",
			Unit: "iterations", RateUnit: "it", AlsoUnit: "queries", AlsoPer: float64(len(t.streams()) * t.cfg.Batch),
			Total: int64(t.st.Steps), Start: int64(t.st.Iteration)})
	}
	if !estimate {
		newReporter()
	}
	defer func() {
		if rep != nil {
			rep.Close()
		}
	}()
	ran := 0
	// refit lays the schedule out again on the time per iteration since
	// the last fit; it reports whether the schedule grew.
	refit := func() bool {
		per := (bud.used() - refitAt).Seconds() / float64(ran-refitRan)
		refitAt, refitRan = bud.used(), ran
		steps := t.st.Iteration + int(bud.left().Seconds()/per)
		// Changes over 1% are applied, over 5% also logged.
		if 100*abs(steps-t.st.Steps) <= t.st.Steps {
			return false
		}
		if 20*abs(steps-t.st.Steps) > t.st.Steps {
			t.logf("train: %.3g %s per iteration lately: schedule refitted to %d iterations", per, bud.unit(), steps)
		}
		grew := steps > t.st.Steps
		t.st.refit(steps, t.cfg.DropAt(steps, t.st.Drops))
		if rep != nil {
			rep.SetTotal(int64(steps))
		}
		return grew
	}
	for {
		// A fitted schedule's end with budget left over (a faster rate
		// than the last fit's) is refitted rather than the budget's end.
		if t.st.Steps > 0 && t.st.Iteration >= t.st.Steps && !(refine && !estimate && ran > refitRan && refit()) {
			break
		}
		if t.opts.MaxIterations > 0 && ran >= t.opts.MaxIterations {
			break
		}
		if bud.over() {
			t.logf("train: budget of %s reached", bud)
			break
		}
		if ctx.Err() != nil {
			sum.Interrupted = true
			t.logf("train: interrupted at iteration %d; saving a checkpoint", t.st.Iteration)
			break
		}
		if !estimate && float64(t.st.Iteration) >= t.st.NextDrop {
			t.st.LR /= 5
			t.setLR(t.st.LR)
			if t.q != nil {
				t.q.opt.Reset()
			} else {
				t.opt.Reset()
			}
			t.st.Drops++
			t.st.NextDrop = t.cfg.DropAt(t.st.Steps, t.st.Drops)
			t.logf("train: iteration %d: learning rate dropped to %g, optimiser reset", t.st.Iteration, t.st.LR)
		}
		if lr := t.cfg.ScheduledLR(t.st.Progress(t.st.Iteration)); lr > 0 && !estimate && lr != t.st.LR {
			t.st.LR = lr
			t.setLR(lr)
		}
		itStart, itCPU := time.Now(), cputime.Process()
		loss, err := t.iteration()
		if err != nil {
			if errors.Is(err, ErrNonFinite) {
				return sum, fmt.Errorf("iteration %d: %w; %s", t.st.Iteration, err, t.lastGood())
			}
			return sum, err
		}
		t.st.Iteration++
		ran++
		t.st.Seconds += time.Since(itStart).Seconds()
		t.st.CPUSeconds += (cputime.Process() - itCPU).Seconds()
		if !estimate {
			t.average()
		}
		sum.LastLoss = loss
		if t.opts.OnIteration != nil {
			t.opts.OnIteration(t.st.Iteration, loss)
		}
		if estimate && ran == 1 {
			warm = bud.used()
		}
		if estimate && (ran == 4 || time.Since(start) > 30*time.Second) {
			per := bud.used().Seconds() / float64(ran)
			if ran > 1 {
				per = (bud.used() - warm).Seconds() / float64(ran-1)
			}
			t.st.Steps = t.st.Iteration + int(bud.left().Seconds()/per)
			t.st.NextDrop = t.cfg.DropAt(t.st.Steps, 0)
			estimate = false
			refitAt, refitRan = bud.used(), ran
			t.logf("train: %.3g %s per iteration: laying the schedule out for %d iterations in %s", per, bud.unit(), t.st.Steps, bud)
			newReporter()
		} else if refine && !estimate && bud.used()-refitAt > max(bud.limit/20, refitMin) && ran > refitRan {
			refit()
		}
		t.writeLog(map[string]any{"step": t.st.Iteration, "loss": loss, "lr": t.st.LR, "time": t.st.Seconds, "cpu": t.st.CPUSeconds})
		if rep != nil {
			rep.Set(int64(t.st.Iteration), progress.F("loss", loss), progress.F("lr", t.st.LR))
		}
		if t.validating() && t.st.Iteration%t.cfg.ValidEvery == 0 {
			if err := t.validate(ctx, rep, sum); err != nil {
				return sum, err
			}
		}
		if t.cfg.CheckpointEvery > 0 && t.st.Iteration%t.cfg.CheckpointEvery == 0 {
			if err := t.save(); err != nil {
				return sum, err
			}
		}
	}
	bud.stop()
	sum.Iterations, sum.Ran = t.st.Iteration, ran
	sum.TotalSeconds, sum.CPUSeconds = t.st.Seconds, t.st.CPUSeconds
	sum.Seconds = time.Since(start).Seconds()
	if ran > 0 {
		sum.SecondsPerIt = sum.Seconds / float64(ran)
	}
	if t.validating() && ran > 0 && t.st.Iteration%t.cfg.ValidEvery != 0 && !sum.Interrupted {
		if err := t.validate(ctx, rep, sum); err != nil {
			return sum, err
		}
	}
	if !sum.Interrupted && ctx.Err() == nil {
		if err := t.confirm(ctx, sum); err != nil {
			return sum, err
		}
	}
	if err := t.save(); err != nil {
		return sum, err
	}
	if err := t.saveAverage(); err != nil {
		return sum, err
	}
	sum.BestMRR, sum.BestIter = t.st.BestMRR, t.st.BestIter
	return sum, nil
}

// validating reports whether the run validates periodically: GammaE's
// through Validate, a baseline's through ValidateModel.
func (t *trainer) validating() bool {
	if t.cfg.ValidEvery <= 0 {
		return false
	}
	if t.q != nil {
		return t.opts.ValidateModel != nil
	}
	return t.opts.Validate != nil
}

func (t *trainer) validate(ctx context.Context, rep *progress.Reporter, sum *Summary) error {
	var mrr float64
	var per map[string]float64
	var err error
	if t.q != nil {
		mrr, per, err = t.opts.ValidateModel(ctx, t.q.model)
	} else {
		mrr, per, err = t.opts.Validate(ctx, t.model)
	}
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("validation at iteration %d: %w", t.st.Iteration, err)
	}
	t.writeLog(map[string]any{"step": t.st.Iteration, "valid_mrr": mrr, "valid": per})
	t.validIter, t.validMRR = t.st.Iteration, mrr
	if rep != nil {
		rep.Set(int64(t.st.Iteration), progress.F("valid_mrr", mrr))
	}
	if mrr > t.st.BestMRR || t.st.BestIter == 0 {
		t.st.BestMRR, t.st.BestIter = mrr, t.st.Iteration
		if t.opts.Dir != "" {
			if err := t.checkFinite(); err != nil {
				return err
			}
			if err := t.saveModel(filepath.Join(t.opts.Dir, checkpoint.BestFile)); err != nil {
				return err
			}
		}
	}
	return nil
}

func (t *trainer) meta() map[string]string {
	return map[string]string{"gammae.iteration": fmt.Sprint(t.st.Iteration)}
}

func (t *trainer) checkFinite() error {
	if t.q != nil {
		if name := t.nonFiniteQE(); name != "" {
			return fmt.Errorf("%w: parameter %s is not finite at iteration %d; %s", ErrNonFinite, name, t.st.Iteration, t.lastGood())
		}
		return nil
	}
	for _, p := range t.model.Params() {
		for _, v := range p.Data {
			if v != v || math.IsInf(float64(v), 0) {
				return fmt.Errorf("%w: parameter %s is not finite at iteration %d; %s", ErrNonFinite, p.Name, t.st.Iteration, t.lastGood())
			}
		}
	}
	return nil
}

// save writes the model, optimiser and state as one checkpoint (commitSet):
// a kill at any instant leaves a complete one to resume from.
func (t *trainer) save() error {
	if t.opts.Dir == "" {
		return nil
	}
	if err := t.checkFinite(); err != nil {
		return err
	}
	dir := t.opts.Dir
	if err := t.saveModel(filepath.Join(dir, checkpoint.ModelFile+nextSuffix)); err != nil {
		return err
	}
	opt := filepath.Join(dir, checkpoint.OptimizerFile+nextSuffix)
	var err error
	if t.q != nil {
		err = saveOptimizer(opt, qeParams(t.q.model), t.q.opt, t.st.Iteration)
	} else {
		err = saveOptimizer(opt, gammaParams(t.model), t.opt, t.st.Iteration)
	}
	if err != nil {
		return err
	}
	if t.bud != nil {
		t.st.BudgetSeconds, t.st.BudgetCPU = t.bud.spent()
	}
	rng, err := t.pcg.MarshalBinary()
	if err != nil {
		return err
	}
	t.st.RNG = rng
	if t.path != nil {
		t.st.Path = t.path.State()
	}
	if t.other != nil {
		t.st.Other = t.other.State()
	}
	t.st.LastGood = t.st.Iteration
	if t.q != nil {
		t.st.Reached = t.q.reached
		if s, ok := t.q.model.(qe.Stateful); ok {
			var err error
			if t.st.ModelRNG, err = s.RNGState(); err != nil {
				return err
			}
		}
	} else {
		t.st.Reached = t.model.Reached()
	}
	if err := saveState(filepath.Join(dir, checkpoint.StateFile+nextSuffix), &t.st); err != nil {
		return err
	}
	return commitSet(dir)
}

// lastGood says where the last finite checkpoint is, if there is one.
func (t *trainer) lastGood() string {
	switch {
	case t.opts.Dir == "":
		return "nothing was saved"
	case t.st.LastGood < 0:
		return "no checkpoint was saved before (try a smaller --lr)"
	}
	return fmt.Sprintf("the last good checkpoint (iteration %d) is kept in %s", t.st.LastGood, t.opts.Dir)
}

// saveModel writes the model to path with the iteration in its metadata.
func (t *trainer) saveModel(path string) error {
	if t.q != nil {
		return checkpoint.SaveQE(path, t.q.model, t.q.config, t.meta())
	}
	return checkpoint.SaveModel(path, t.model, t.meta())
}

// setLR sets the optimiser's learning rate.
func (t *trainer) setLR(lr float64) {
	if t.q != nil {
		t.q.opt.LR = lr
	} else {
		t.opt.LR = lr
	}
}

func (t *trainer) writeLog(v map[string]any) {
	if t.logFile == nil {
		return
	}
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	t.logFile.Write(append(b, '\n'))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// average adds the parameters to the running mean of the schedule's last
// cfg.Average part (as the schedule is laid out now). A resumed run starts
// its mean afresh.
func (t *trainer) average() {
	if t.cfg.Average <= 0 || t.q != nil || float64(t.st.Iteration) <= (1-t.cfg.Average)*float64(t.st.Steps) {
		return
	}
	ps := t.model.Params()
	if t.avg == nil {
		t.avg = make([][]float32, len(ps))
		for i, p := range ps {
			t.avg[i] = slices.Clone(p.Data)
		}
		t.avgN = 1
		t.logf("train: iteration %d: averaging the parameters from here on", t.st.Iteration)
		return
	}
	t.avgN++
	w := 1 / float32(t.avgN)
	for i, p := range ps {
		a := t.avg[i]
		for j, v := range p.Data {
			a[j] += (v - a[j]) * w
		}
	}
}

// saveAverage writes the averaged parameters to checkpoint.AverageFile:
// the model's own are set aside meanwhile.
func (t *trainer) saveAverage() error {
	if t.avg == nil || t.opts.Dir == "" {
		return nil
	}
	ps := t.model.Params()
	live := make([][]float32, len(ps))
	for i, p := range ps {
		live[i] = slices.Clone(p.Data)
		copy(p.Data, t.avg[i])
	}
	defer func() {
		for i, p := range ps {
			copy(p.Data, live[i])
		}
	}()
	path := filepath.Join(t.opts.Dir, checkpoint.AverageFile)
	if err := t.saveModel(path); err != nil {
		return err
	}
	t.logf("train: the mean of the last %d iterations' parameters is in %s", t.avgN, path)
	return nil
}
