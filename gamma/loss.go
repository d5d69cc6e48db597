package gamma

import (
	"fmt"
	"github.com/gammae/gammae/qe"
	"math"
	"math/rand/v2"
)

// Group is the part of a training batch with one structure.
type Group struct {
	Program *Program
	IDs     []int32 // rows × Program.Slots(), in query.Slots order
}

// Batch is a training batch. Rows are numbered through the groups in order:
// the first group's rows, then the second's, and so on.
type Batch struct {
	Groups    []Group
	Positive  []int32 // one answer per row
	Negative  []int32 // rows × Negatives non-answers (none for Objective "shared")
	Negatives int     // n ≥ 1
	// Shared are negatives common to every row (Objective "shared" only).
	Shared []int32
	// Exclude, when not nil, holds each row's known answers, which the
	// dense objectives ("all", "shared") leave out of the row's
	// candidates (its positive stays): other answers are not scored as
	// negatives, as the sampled objectives' negatives are drawn outside
	// the answers. With Objective.AnswerTargets they stay among the
	// candidates and share the positive's target instead.
	Exclude [][]int32
	Weight  []float64 // loss weight per row: the reference's √(1/(4+|answers|)), or 1 (train's uniform query weights)
	// Objective is the loss of a row's logits; the zero value is the
	// reference's (SPEC section 4).
	Objective Objective
}

// Objective is how a row's logits (positive first, then the negatives)
// become its loss. Every kind is weighted by the row's subsampling weight
// and averaged over the batch as the reference loss is.
type Objective struct {
	// Kind is "" or "sigmoid" (the reference: −logσ(pos) and the mean of
	// −logσ(−neg), halved), "adversarial" (the same with the negatives
	// weighted by softmax(T·neg), held constant: self-adversarial
	// sampling), "softmax" (cross-entropy of the positive against the
	// row's candidates, logits divided by T), "all" (cross-entropy of
	// the positive against every entity, logits divided by T: 1-vs-all
	// scoring, the batch's negatives unused; dense.go) or "shared" (the
	// same against the candidates the batch shares: its positives and
	// Batch.Shared; dense.go).
	Kind string `json:"kind,omitempty"`
	// Temperature is T: the adversarial inverse temperature or the
	// softmax temperature; 0 means 1.
	Temperature float64 `json:"temperature,omitempty"`
	// Sigmoid, with the dense kinds, adds that multiple of the
	// reference's sigmoid loss over the same candidates (the positive,
	// and the mean over the row's other candidates): the cross-entropy
	// is blind to a row's level (it shifts every logit alike), so alone
	// it leaves σ(logit) no probability, which answer-count estimates
	// and the unions that compare branches' logits (DNF) assume.
	Sigmoid float64 `json:"sigmoid,omitempty"`
	// Smoothing, with the dense kinds, is label smoothing ε: the
	// cross-entropy's target is 1−ε on the positive and ε spread evenly
	// over the row's candidates (its excluded answers out), a regulariser
	// for a loss that otherwise drives the positive's margin up without
	// bound.
	Smoothing float64 `json:"smoothing,omitempty"`
	// AnswerTargets, with the dense kinds, makes the target the row's
	// answer set rather than its one positive: the positive and its other
	// answers among the candidates (Batch.Exclude) share the target 1−ε
	// evenly, so that a query with hundreds of answers is trained to rank
	// all of them first, none of them counted as a negative.
	AnswerTargets bool `json:"answer_targets,omitempty"`
}

// Validate reports an unknown kind or a negative temperature.
func (o Objective) Validate() error {
	switch o.Kind {
	case "", "sigmoid", "adversarial", "softmax", "all", "shared":
	default:
		return fmt.Errorf("loss must be sigmoid, adversarial, softmax, all or shared, got %q", o.Kind)
	}
	if !(o.Temperature >= 0) || math.IsInf(o.Temperature, 0) {
		return fmt.Errorf("loss temperature must be a finite number ≥ 0 (0: 1), got %g", o.Temperature)
	}
	if !(o.Sigmoid >= 0) || math.IsInf(o.Sigmoid, 0) {
		return fmt.Errorf("loss sigmoid weight must be a finite number ≥ 0, got %g", o.Sigmoid)
	}
	if o.Sigmoid > 0 && !o.dense() {
		return fmt.Errorf("a loss sigmoid term is for the losses all and shared, not %q", o.Kind)
	}
	if !(o.Smoothing >= 0 && o.Smoothing < 1) {
		return fmt.Errorf("label smoothing must be a number in [0, 1), got %g", o.Smoothing)
	}
	if o.Smoothing > 0 && !o.dense() {
		return fmt.Errorf("label smoothing is for the losses all and shared, not %q", o.Kind)
	}
	if o.AnswerTargets && !o.dense() {
		return fmt.Errorf("answer targets are for the losses all and shared, not %q", o.Kind)
	}
	return nil
}

// dense reports whether the objective scores by products with the
// features of a candidate set common to the batch (dense.go).
func (o Objective) dense() bool { return o.Kind == "all" || o.Kind == "shared" }

func (o Objective) temperature() float64 {
	return qe.Objective{Kind: o.Kind, Temperature: o.Temperature}.Tau()
}

// Loss is the training objective of a batch (SPEC section 4):
// Loss = (Positive + Negative)/2 with
// Positive = −Σ w·logσ(pos)/Σw and Negative = −Σ w·mean_j logσ(−neg_j)/Σw.
type Loss struct{ Loss, Positive, Negative float64 }

// Forward runs a training forward pass over b (union and projection
// dropout drawn from rng, which may be nil when both are 0) and returns the
// loss. The activations, and the loss's gradient with respect to each
// query–candidate distance (cheap, per row), stay in the workspace for
// Backward; b must not change until then. Groups may be empty, and a
// program may serve several groups.
func (w *Workspace[T]) Forward(b *Batch, rng *rand.Rand) (Loss, error) {
	m := w.m
	rows, err := w.checkBatch(b)
	if err != nil {
		return Loss{}, err
	}
	if m.cfg.UnionDropout > 0 && rng == nil {
		return Loss{}, fmt.Errorf("gamma: union dropout %v needs a random source", m.cfg.UnionDropout)
	}
	if m.cfg.ProjectionDropout > 0 && rng == nil {
		return Loss{}, fmt.Errorf("gamma: projection dropout %v needs a random source", m.cfg.ProjectionDropout)
	}
	w.reset()
	t := &w.train
	t.runs = t.runs[:0]
	t.rowRun = grow(t.rowRun, rows)
	row0 := 0
	for _, g := range b.Groups {
		r := w.acquire(g.Program, g.IDs, len(g.IDs)/g.Program.slots, true)
		r.score.row0 = row0
		for i := row0; i < row0+r.rows; i++ {
			t.rowRun[i] = int32(len(t.runs))
		}
		row0 += r.rows
		t.runs = append(t.runs, r)
	}
	w.forward(t.runs, true, rng)
	t.rows, t.cols, t.weight, t.objective = rows, b.Negatives+1, b.Weight, b.Objective
	if b.Objective.dense() {
		w.denseCandidates(b)
	}
	d := m.cfg.Dim
	k := 0
	t.crows = 0
	for _, r := range t.runs {
		k = max(k, len(r.prog.outputs))
		r.score.crow0 = t.crows
		t.crows += len(r.prog.outputs) * r.rows
	}
	parts(&t.part, max(featureScratch(d), 2*d, (k+2)*t.cols+2*k)) // scoreRow's mixture rows: mixtureRow
	if b.Objective.dense() {
		w.queryTerms()
		w.denseForward()
	} else {
		w.candidates(b)
		t.feat = grow(t.feat, len(t.uniq)*2*d)
		t.ent = grow(t.ent, len(t.uniq))
		w.queryTerms()
		if t.dists == nil {
			t.dists = w.pairDists
		}
		m.features(t.uniq, t.feat, t.ent, &t.part, t.dists)
	}
	t.logits, t.dlogits = grow(t.logits, rows*t.cols), grow(t.dlogits, rows*t.cols)
	if b.Objective.Sigmoid > 0 {
		t.sig = grow(t.sig, rows*t.cols)
	}
	t.pos, t.neg = grow(t.pos, rows), grow(t.neg, rows)
	t.sw = 0
	for _, v := range t.weight {
		t.sw += v
	}
	w.scores()
	return t.loss(), nil
}

func (w *Workspace[T]) checkBatch(b *Batch) (int, error) {
	m := w.m
	rows := 0
	for i, g := range b.Groups {
		if g.Program == nil {
			return 0, fmt.Errorf("gamma: batch group %d has no program", i)
		}
		if g.Program.mode != m.cfg.Mode() {
			return 0, fmt.Errorf("gamma: batch group %d compiled for union mode %q, model uses %q", i, g.Program.mode, m.cfg.Mode())
		}
		n, err := m.checkIDs(g.Program, g.IDs)
		if err != nil {
			return 0, fmt.Errorf("batch group %d: %w", i, err)
		}
		rows += n
	}
	switch {
	case rows == 0:
		return 0, fmt.Errorf("gamma: empty batch")
	case len(b.Positive) != rows:
		return 0, fmt.Errorf("gamma: batch has %d positives for %d rows", len(b.Positive), rows)
	case b.Objective.Kind == "shared" && len(b.Shared) == 0:
		return 0, fmt.Errorf("gamma: loss shared needs the batch's shared negatives")
	case b.Objective.Kind == "shared" && len(b.Negative) != 0:
		return 0, fmt.Errorf("gamma: loss shared takes its negatives from Batch.Shared, got %d per row", len(b.Negative)/rows)
	case b.Exclude != nil && !b.Objective.dense():
		return 0, fmt.Errorf("gamma: excluded answers are for the losses all and shared, not %q", b.Objective.Kind)
	case b.Exclude != nil && len(b.Exclude) != rows:
		return 0, fmt.Errorf("gamma: batch has excluded answers for %d rows of %d", len(b.Exclude), rows)
	case b.Objective.Kind == "shared":
	case b.Negatives < 1:
		return 0, fmt.Errorf("gamma: batch has %d negatives per query, want ≥ 1", b.Negatives)
	case len(b.Negative) != rows*b.Negatives:
		return 0, fmt.Errorf("gamma: batch has %d negatives for %d rows × %d", len(b.Negative), rows, b.Negatives)
	case len(b.Weight) != rows:
		return 0, fmt.Errorf("gamma: batch has %d weights for %d rows", len(b.Weight), rows)
	}
	if err := b.Objective.Validate(); err != nil {
		return 0, fmt.Errorf("gamma: %v", err)
	}
	for _, ids := range [][]int32{b.Positive, b.Negative, b.Shared} {
		for i, e := range ids {
			if e < 0 || int(e) >= m.cfg.Entities {
				return 0, fmt.Errorf("gamma: batch candidate %d: entity %d out of range [0, %d)", i, e, m.cfg.Entities)
			}
		}
	}
	for r, ids := range b.Exclude {
		for _, e := range ids {
			if e < 0 || int(e) >= m.cfg.Entities {
				return 0, fmt.Errorf("gamma: batch row %d: excluded answer %d out of range [0, %d)", r, e, m.cfg.Entities)
			}
		}
	}
	for i, v := range b.Weight {
		if !(v > 0) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("gamma: batch weight %d is %v, want finite > 0", i, v)
		}
	}
	return rows, nil
}

// rowLoss sets the loss terms of batch row r from its logits, and the
// logits' gradient.
func (t *trainState[T]) rowLoss(r int) {
	wr := t.weight[r] / t.sw
	n := t.cols - 1
	l := t.logits[r*t.cols : (r+1)*t.cols]
	dl := t.dlogits[r*t.cols : (r+1)*t.cols]
	x := float64(l[0])
	switch t.objective.Kind {
	case "all", "shared":
		t.rowLossAll(wr, l, dl, r)
		return
	case "softmax":
		// pos and neg both hold the row's log probability, so that
		// (Positive + Negative)/2 is the loss.
		t.pos[r] = wr * qe.SoftmaxRow(l, dl, wr, t.objective.temperature())
		t.neg[r] = t.pos[r]
		return
	case "adversarial":
		// The negatives' weights softmax(T·neg), constants of the
		// gradient (RotatE's self-adversarial sampling).
		alpha := t.objective.temperature()
		m := math.Inf(-1)
		for _, v := range l[1:] {
			m = math.Max(m, alpha*float64(v))
		}
		z := 0.0
		for _, v := range l[1:] {
			z += math.Exp(alpha*float64(v) - m)
		}
		t.pos[r] = wr * qe.LogSigmoid(x)
		dl[0] = T(-0.5 * wr * qe.Sigmoid(-x))
		sum := 0.0
		for j := 1; j <= n; j++ {
			x := float64(l[j])
			p := math.Exp(alpha*x-m) / z
			sum += p * qe.LogSigmoid(-x)
			dl[j] = T(0.5 * wr * p * qe.Sigmoid(x))
		}
		t.neg[r] = wr * sum
		return
	}
	t.pos[r] = wr * qe.LogSigmoid(x)
	dl[0] = T(-0.5 * wr * qe.Sigmoid(-x))
	mean := 0.0
	for j := 1; j <= n; j++ {
		x := float64(l[j])
		mean += qe.LogSigmoid(-x)
		dl[j] = T(0.5 * wr / float64(n) * qe.Sigmoid(x))
	}
	t.neg[r] = wr * mean / float64(n)
}

// loss sums the rows' loss terms in row order.
func (t *trainState[T]) loss() Loss {
	var pos, neg float64
	for r := 0; r < t.rows; r++ {
		pos -= t.pos[r]
		neg -= t.neg[r]
	}
	t.pending = true
	return Loss{Loss: (pos + neg) / 2, Positive: pos, Negative: neg}
}

// Backward accumulates into the model's gradients the gradient of the loss
// of the last Forward. Call Model.ZeroGrad first unless accumulating.
func (w *Workspace[T]) Backward() error {
	t := &w.train
	if !t.pending {
		return errNoForward
	}
	t.pending = false
	eachHalf(t.rows*w.m.cfg.Dim, func(beta bool) {
		for _, r := range t.runs {
			for i := range r.vals {
				if beta {
					clear(r.vals[i].db)
				} else {
					clear(r.vals[i].da)
				}
			}
		}
	})
	overwrite, stale := w.m.zeroGrads || w.m.staleEntity, w.m.staleEntity
	w.m.zeroGrads, w.m.staleEntity = false, false
	if t.objective.dense() {
		w.denseBackward(overwrite, stale)
	} else {
		w.entityBackward(overwrite, stale)
	}
	t.entityChecked = overwrite
	w.queryBackward()
	w.backward(t.runs)
	return nil
}
