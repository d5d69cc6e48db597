package train

import (
	"fmt"
	"math"

	"github.com/gammae/gammae/internal/kernel"
	"github.com/gammae/gammae/kg"
)

// decayWeights returns each entity's weight wₑ ∝ (degreeₑ + 1)^power in g
// (edges out and in), scaled to a mean of 1 (Config.EntityDecayPower).
func decayWeights(g *kg.Graph, power float64) []float64 {
	w := make([]float64, g.N)
	sum := 0.0
	for e := range w {
		deg := g.Out.Degree(int32(e)) + g.In.Degree(int32(e))
		w[e] = math.Pow(float64(deg+1), power)
		sum += w[e]
	}
	mean := sum / float64(len(w))
	for e := range w {
		w[e] /= mean
	}
	return w
}

// setupDecayWeights computes the entity weights of a frequency-weighted
// entity decay and checks that no row's shrink reaches zero.
func (t *trainer) setupDecayWeights() error {
	if t.cfg.EntityDecayPower == 0 {
		return nil
	}
	t.decayW = decayWeights(t.ds.KG.Train, t.cfg.EntityDecayPower)
	lo, hi := math.Inf(1), 0.0
	for _, v := range t.decayW {
		lo, hi = min(lo, v), max(hi, v)
	}
	if t.cfg.LR*t.cfg.EntityDecay*hi >= 1 {
		return fmt.Errorf("entity decay %g at power %g: the most connected entity's shrink lr·decay·%.3g reaches 1 at lr %g", t.cfg.EntityDecay, t.cfg.EntityDecayPower, hi, t.cfg.LR)
	}
	t.logf("train: entity decay %g weighted by (degree + 1)^%g: %.3g to %.3g times the mean", t.cfg.EntityDecay, t.cfg.EntityDecayPower, lo, hi)
	return nil
}

// shrinkEntities scales each entity's row by 1 − lr·EntityDecay·wₑ, the
// bits of the per-tensor shrink Adam applies before its step
// (trainer.setShrink), one factor per row.
func (t *trainer) shrinkEntities() {
	p := t.model.Params()[t.model.EntityParam()]
	cols := p.Shape[1]
	ld := t.opt.LR * t.cfg.EntityDecay
	for e, w := range t.decayW {
		kernel.Scale(float32(1-ld*w), p.Data[e*cols:(e+1)*cols])
	}
}
