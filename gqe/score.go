package gqe

import (
	"github.com/gammae/gammae/internal/kernel"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
)

// ScoreAll writes γ − ‖e − q‖₁ for every entity e.
func (n *Net) ScoreAll(t *ad.Tape, q baseline.Emb, dst []float64) {
	kernel.L1Rows(dst, n.entity.Data[:len(dst)*n.cfg.Dim], t.Val(q[0]), n.cfg.Gamma)
}

// ParamsChanged: GQE caches nothing.
func (n *Net) ParamsChanged() {}
