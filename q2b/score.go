package q2b

import (
	"github.com/gammae/gammae/internal/kernel"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
)

// ScoreAll writes γ − ‖relu(|e−c| − o)‖₁ − cen·‖min(|e−c|, o)‖₁ for every
// entity e.
func (n *Net) ScoreAll(t *ad.Tape, q baseline.Emb, dst []float64) {
	kernel.BoxRows(dst, n.entity.Data[:len(dst)*n.cfg.Dim], t.Val(q[0]), t.Val(q[1]), n.cfg.CenterReg, n.cfg.Gamma)
}

// ParamsChanged: Query2Box caches nothing.
func (n *Net) ParamsChanged() {}
