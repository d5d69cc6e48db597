package ad

import (
	"fmt"
	"math"

	"github.com/gammae/gammae/internal/kernel"
)

// The baselines' distances between entities (rows of a parameter table)
// and query embeddings, fused into one value of Rows() rows of k
// candidates each: a training batch scores every query against ~130
// entities, and recording the elementwise steps separately allocated
// gigabytes per step. Each derivative follows the composition of torch
// operations the authors' code uses. Models with distances of their own
// (BetaE, ConE) record them with Custom.

// Custom records val (Rows() rows) with a backward function that reads the
// value's gradient g and adds to its inputs' (G, ParamGrad).
func (t *Tape) Custom(val []float64, back func(g []float64)) V {
	t.width(len(val), "custom")
	return t.node(val, back)
}

// Alloc returns n zeroed floats that live as long as the tape's values.
func (t *Tape) Alloc(n int) []float64 { return t.alloc(n) }

// ParamGrad is where this tape adds p's gradient.
func (t *Tape) ParamGrad(p *Param) []float64 { return t.gradOf(p) }

// Memo returns what make derives from v, computed once per tape (e.g. the
// special functions of a query embedding that every candidate uses).
func (t *Tape) Memo(v V, make func() any) any { return t.memoize(v, make) }

// candidates is k, the candidates per row of ids for the rows recorded now.
func (t *Tape) candidates(ids []int32, p *Param) int {
	if len(ids)%t.n != 0 {
		panic(fmt.Sprintf("ad: %d candidates for %d rows", len(ids), t.n))
	}
	for _, e := range ids {
		if e < 0 || int(e) >= p.Rows {
			panic(fmt.Sprintf("ad: row %d of %s, which has %d", e, p.Name, p.Rows))
		}
	}
	return len(ids) / t.n
}

// Sign is torch's sign (0 at 0, NaN for NaN). Its argument's sign is
// random in the distances' backward passes: the copy of the sign bit
// takes no branch that could be mispredicted, and 0 and NaN are rare.
func Sign(x float64) float64 {
	s := math.Copysign(1, x)
	if x == 0 || x != x {
		return x
	}
	return s
}

// L1Dist is Σ|e − q| for every row's candidates e (rows ids[r·k:(r+1)·k]
// of p) and that row's q (GQE): Rows() rows of k.
func (t *Tape) L1Dist(p *Param, ids []int32, q V) V {
	k, qv := t.candidates(ids, p), t.val[q]
	d := p.Cols
	out := t.alloc(len(ids))
	for c, id := range ids {
		kernel.L1Rows(out[c:c+1], p.Row(int(id)), qv[c/k*d:(c/k+1)*d], 0)
		out[c] = -out[c]
	}
	return t.node(out, func(g []float64) {
		pg, gq := t.gradOf(p), t.G(q)
		for c, id := range ids {
			if g[c] == 0 {
				continue
			}
			kernel.L1Grad(pg[int(id)*d:int(id+1)*d], gq[c/k*d:(c/k+1)*d], p.Row(int(id)), qv[c/k*d:(c/k+1)*d], g[c])
		}
	})
}

// BoxDist is Σ relu(|e−c| − o) + cen·Σ min(|e−c|, o) for every row's
// candidates e and that row's box (c, o) (Query2Box): Rows() rows of k.
func (t *Tape) BoxDist(p *Param, ids []int32, c, o V, cen float64) V {
	k, cv, ov := t.candidates(ids, p), t.val[c], t.val[o]
	d := p.Cols
	out := t.alloc(len(ids))
	for j, id := range ids {
		kernel.BoxRows(out[j:j+1], p.Row(int(id)), cv[j/k*d:(j/k+1)*d], ov[j/k*d:(j/k+1)*d], cen, 0)
		out[j] = -out[j]
	}
	return t.node(out, func(g []float64) {
		pg, gc, gO := t.gradOf(p), t.G(c), t.G(o)
		for j, id := range ids {
			if g[j] == 0 {
				continue
			}
			r := j / k
			kernel.BoxGrad(pg[int(id)*d:int(id+1)*d], gc[r*d:(r+1)*d], gO[r*d:(r+1)*d], p.Row(int(id)), cv[r*d:(r+1)*d], ov[r*d:(r+1)*d], g[j], cen)
		}
	})
}
