package q2b

import (
	"math"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
)

// ScoreAll writes γ − ‖relu(|e−c| − o)‖₁ − cen·‖min(|e−c|, o)‖₁ for every
// entity e.
func (n *Net) ScoreAll(t *ad.Tape, q baseline.Emb, dst []float64) {
	c, o, d := t.Val(q[0]), t.Val(q[1]), n.cfg.Dim
	for e := range dst {
		row := n.entity.Data[e*d : (e+1)*d]
		out, in := 0.0, 0.0
		for i, v := range row {
			delta := math.Abs(v - c[i])
			out += math.Max(delta-o[i], 0)
			in += math.Min(delta, o[i])
		}
		dst[e] = n.cfg.Gamma - out - n.cfg.CenterReg*in
	}
}

// ParamsChanged: Query2Box caches nothing.
func (n *Net) ParamsChanged() {}
