package qe

import (
	"fmt"
	"math"
)

// BatchLoss is the loss of SPEC section 4 over rows of logits: pos[r] is the
// positive answer's logit of row r, neg[r] its negatives', w[r] its
// subsampling weight:
//
//	loss = ½( −Σ w·lnσ(pos)/Σw − Σ w·mean_j lnσ(−neg_j)/Σw ).
//
// It returns the loss and its gradient with respect to every logit.
func BatchLoss(pos []float64, neg [][]float64, w []float64) (l Loss, dpos []float64, dneg [][]float64, err error) {
	sw, err := checkBatch(pos, neg, w)
	if err != nil {
		return Loss{}, nil, nil, err
	}
	dpos = make([]float64, len(pos))
	dneg = make([][]float64, len(neg))
	for r := range pos {
		wr := w[r] / sw
		l.Positive -= wr * LogSigmoid(pos[r])
		dpos[r] = -0.5 * wr * Sigmoid(-pos[r])
		n := len(neg[r])
		dneg[r] = make([]float64, n)
		mean := 0.0
		for j, x := range neg[r] {
			mean += LogSigmoid(-x)
			dneg[r][j] = 0.5 * wr / float64(n) * Sigmoid(x)
		}
		l.Negative -= wr * mean / float64(n)
	}
	l.Loss = (l.Positive + l.Negative) / 2
	return l, dpos, dneg, nil
}

// SoftmaxLoss is BatchLoss's alternative of the same weighting: each row's
// cross-entropy of its positive against its candidates (the positive and
// its negatives), logits divided by the temperature tau,
//
//	loss = −Σ w·ln softmax(l/τ)₀ / Σw,
//
// GammaE's "softmax" objective (gamma.Objective). Positive and Negative
// both hold the loss, so that their mean is it, as in GammaE's logs.
func SoftmaxLoss(pos []float64, neg [][]float64, w []float64, tau float64) (l Loss, dpos []float64, dneg [][]float64, err error) {
	sw, err := checkBatch(pos, neg, w)
	if err != nil {
		return Loss{}, nil, nil, err
	}
	if !(tau > 0) || math.IsInf(tau, 0) {
		return Loss{}, nil, nil, fmt.Errorf("qe: softmax temperature %v, want finite > 0", tau)
	}
	dpos = make([]float64, len(pos))
	dneg = make([][]float64, len(neg))
	// One row buffer for the batch; the negatives' gradients are cut from
	// one allocation, not one per row.
	widest, total := 0, 0
	for _, n := range neg {
		widest, total = max(widest, len(n)), total+len(n)
	}
	row := make([]float64, 1+widest)
	dflat := make([]float64, total)
	d := make([]float64, 1+widest)
	for r := range pos {
		wr := w[r] / sw
		n := len(neg[r])
		row[0] = pos[r]
		copy(row[1:], neg[r])
		l.Loss -= wr * SoftmaxRow(row[:1+n], d[:1+n], wr, tau)
		dpos[r], dneg[r] = d[0], dflat[:n:n]
		copy(dneg[r], d[1:1+n])
		dflat = dflat[n:]
	}
	l.Positive, l.Negative = l.Loss, l.Loss
	return l, dpos, dneg, nil
}

// SoftmaxRow returns ln softmax(l/τ)₀ of one row of logits, the positive
// first, and sets dl to the gradient of −scale times it in every logit.
// It is the softmax loss's row for GammaE's and the baselines' trainers.
func SoftmaxRow[T ~float32 | ~float64](l, dl []T, scale, tau float64) float64 {
	m := math.Inf(-1)
	for _, v := range l {
		m = math.Max(m, float64(v)/tau)
	}
	z := 0.0
	for _, v := range l {
		z += math.Exp(float64(v)/tau - m)
	}
	lse := m + math.Log(z)
	for j, v := range l {
		p := math.Exp(float64(v)/tau - lse)
		if j == 0 {
			p--
		}
		dl[j] = T(scale * p / tau)
	}
	return float64(l[0])/tau - lse
}

// checkBatch checks a batch's shapes and weights and returns the weights'
// sum.
func checkBatch(pos []float64, neg [][]float64, w []float64) (float64, error) {
	if len(neg) != len(pos) || len(w) != len(pos) || len(pos) == 0 {
		return 0, fmt.Errorf("qe: batch of %d positives, %d negative rows, %d weights", len(pos), len(neg), len(w))
	}
	sw := 0.0
	for r, v := range w {
		if !(v > 0) || math.IsInf(v, 0) {
			return 0, fmt.Errorf("qe: batch weight %d is %v, want finite > 0", r, v)
		}
		if len(neg[r]) == 0 {
			return 0, fmt.Errorf("qe: batch row %d has no negatives", r)
		}
		sw += v
	}
	return sw, nil
}

// LossFunc turns a batch's logits (each row's positive, its negatives)
// and weights into its loss and the loss's gradient in every logit:
// BatchLoss, or SoftmaxLoss at a temperature.
type LossFunc func(pos []float64, neg [][]float64, w []float64) (Loss, []float64, [][]float64, error)

// Objective names the training loss of a baseline's logits: "" or
// "sigmoid" (BatchLoss, the authors'), or "softmax" (SoftmaxLoss) with
// Temperature τ (0: 1).
type Objective struct {
	Kind        string  `json:"kind,omitempty"`
	Temperature float64 `json:"temperature,omitempty"`
}

// Tau is the temperature, 1 when unset.
func (o Objective) Tau() float64 {
	if o.Temperature == 0 {
		return 1
	}
	return o.Temperature
}

// Func returns the objective's loss function, or an error naming the
// kinds a baseline trains with.
func (o Objective) Func() (LossFunc, error) {
	switch o.Kind {
	case "", "sigmoid":
		return BatchLoss, nil
	case "softmax":
		tau := o.Tau()
		return func(pos []float64, neg [][]float64, w []float64) (Loss, []float64, [][]float64, error) {
			return SoftmaxLoss(pos, neg, w, tau)
		}, nil
	}
	return nil, fmt.Errorf("loss %q: the baselines train with sigmoid (their authors') or softmax", o.Kind)
}

// Objectived is a model whose training loss can be chosen (the baselines).
type Objectived interface {
	SetObjective(o Objective) error
}

// LogSigmoid is ln σ(x) without overflow.
func LogSigmoid(x float64) float64 {
	if x >= 0 {
		return -math.Log1p(math.Exp(-x))
	}
	return x - math.Log1p(math.Exp(x))
}

// Sigmoid is σ(x) without overflow.
func Sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// ZeroTensors sets every tensor's data to zero.
func ZeroTensors(ts []Tensor) {
	for _, t := range ts {
		clear(t.Data)
	}
}

// LikeParams returns zeroed tensors shaped as ps, for gradients.
func LikeParams(ps []Tensor) []Tensor {
	g := make([]Tensor, len(ps))
	for i, p := range ps {
		g[i] = Tensor{Name: p.Name, Shape: p.Shape, Data: make([]float64, len(p.Data))}
	}
	return g
}
