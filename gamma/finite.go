package gamma

import (
	"math"
	"slices"

	"github.com/gammae/gammae/internal/kernel"
)

// GradNonFinite returns the name of the first parameter whose gradient
// holds a NaN or an infinity, or "". Values whose squares sum past T's
// range count too (per half of a tensor, per row of the entity table):
// such a gradient would overflow Adam's second moment.
//
// After a Backward that wrote the entity table's gradient rather than
// adding to it (begun after ZeroGrad, GradsZeroed or EntityGradStale),
// the table is judged by the rows as Backward wrote them, checked while
// they were in cache, and the rows of the queries' anchors, which the
// rest of Backward added to: the table (tens to hundreds of MB) is not
// read again. Otherwise every value is read.
func (w *Workspace[T]) GradNonFinite() string {
	m, t := w.m, &w.train
	skip := -1
	var entityBad bool
	if t.entityChecked {
		skip = m.entity
		entityBad = slices.Contains(t.entityBad[:], true) || w.anchorGradNonFinite()
	}
	// Each half of every other gradient on its own core: one core alone
	// does not saturate the memory bandwidth this pass needs.
	var bad [2][]bool
	n := 0
	for i, g := range m.grads {
		if i != skip {
			n += len(g)
		}
	}
	eachHalf(n, func(beta bool) {
		h := 0
		if beta {
			h = 1
		}
		bad[h] = make([]bool, len(m.grads))
		for i, g := range m.grads {
			if i != skip {
				bad[h][i] = nonFinite(g[h*len(g)/2 : (h+1)*len(g)/2])
			}
		}
	})
	for i := range m.grads {
		if bad[0][i] || bad[1][i] || i == skip && entityBad {
			return m.params[i].Name
		}
	}
	return ""
}

// anchorGradNonFinite checks the entity gradient rows of the batch's
// anchors.
func (w *Workspace[T]) anchorGradNonFinite() bool {
	m, t := w.m, &w.train
	d, g := m.cfg.Dim, m.grads[m.entity]
	for _, r := range t.runs {
		p := r.prog
		for i := range p.instrs {
			in := &p.instrs[i]
			if in.kind != opAnchor {
				continue
			}
			for b := 0; b < r.rows; b++ {
				id := int(r.ids[b*p.slots+in.slot])
				if nonFinite(g[id*2*d : (id+1)*2*d]) {
					return true
				}
			}
		}
	}
	return false
}

// nonFinite reports whether x holds a NaN or an infinity, or values whose
// squares sum past T's range.
func nonFinite[T kernel.Float](x []T) bool {
	s := float64(kernel.Dot(x, x))
	return math.IsNaN(s) || math.IsInf(s, 0)
}
