package q2b

import (
	"github.com/gammae/gammae/internal/kernel"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
)

// ScoreAll writes γ − ‖relu(|e−c| − o)‖₁ − cen·‖min(|e−c|, o)‖₁ for every
// entity e.
func (n *Net) ScoreAll(t *ad.Tape, q baseline.Emb, dst []float64) {
	N, d, c, o := n.cfg.Entities, n.cfg.Dim, t.Val(q[0]), t.Val(q[1])
	baseline.Blocks(N, len(dst)/N, func(r, e0, e1 int) {
		kernel.BoxRows(dst[r*N+e0:r*N+e1], n.entity.Data[e0*d:e1*d], c[r*d:(r+1)*d], o[r*d:(r+1)*d], n.cfg.CenterReg, n.cfg.Gamma)
	})
}

// ParamsChanged: Query2Box caches nothing.
func (n *Net) ParamsChanged() {}
