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
	if len(neg) != len(pos) || len(w) != len(pos) || len(pos) == 0 {
		return Loss{}, nil, nil, fmt.Errorf("qe: batch of %d positives, %d negative rows, %d weights", len(pos), len(neg), len(w))
	}
	sw := 0.0
	for r, v := range w {
		if !(v > 0) || math.IsInf(v, 0) {
			return Loss{}, nil, nil, fmt.Errorf("qe: batch weight %d is %v, want finite > 0", r, v)
		}
		sw += v
	}
	dpos = make([]float64, len(pos))
	dneg = make([][]float64, len(neg))
	for r := range pos {
		wr := w[r] / sw
		l.Positive -= wr * LogSigmoid(pos[r])
		dpos[r] = -0.5 * wr * Sigmoid(-pos[r])
		n := len(neg[r])
		if n == 0 {
			return Loss{}, nil, nil, fmt.Errorf("qe: batch row %d has no negatives", r)
		}
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
