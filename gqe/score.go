package gqe

import (
	"github.com/gammae/gammae/internal/kernel"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
)

// ScoreAll writes γ − ‖e − q‖₁ for every entity e.
func (n *Net) ScoreAll(t *ad.Tape, q baseline.Emb, dst []float64) {
	N, d, qv := n.cfg.Entities, n.cfg.Dim, t.Val(q[0])
	baseline.Blocks(N, len(dst)/N, func(r, e0, e1 int) {
		kernel.L1Rows(dst[r*N+e0:r*N+e1], n.entity.Data[e0*d:e1*d], qv[r*d:(r+1)*d], n.cfg.Gamma)
	})
}

// ParamsChanged: GQE caches nothing.
func (n *Net) ParamsChanged() {}
