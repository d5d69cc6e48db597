package gqe

import (
	"math"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
)

// ScoreAll writes γ − ‖e − q‖₁ for every entity e.
func (n *Net) ScoreAll(t *ad.Tape, q baseline.Emb, dst []float64) {
	qv, d := t.Val(q[0]), n.cfg.Dim
	for e := range dst {
		row := n.entity.Data[e*d : (e+1)*d]
		s := 0.0
		for i, v := range row {
			s += math.Abs(v - qv[i])
		}
		dst[e] = n.cfg.Gamma - s
	}
}

// ParamsChanged: GQE caches nothing.
func (n *Net) ParamsChanged() {}
