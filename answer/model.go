package answer

import (
	"sync"

	"github.com/gammae/gammae/query"
)

// runBatchModel answers items with a baseline model: each query is scored
// against every entity on its own (unions by their best DNF branch), its
// size measure standing in for GammaE's entropy where the model has one.
func (e *Engine) runBatchModel(items []*item) {
	n := e.kg.Entities.Len()
	s := &scratch{scores: make([]float32, len(items)*n)}
	entropy := make([]float64, len(items))
	ok := make([]bool, len(items))
	var wg sync.WaitGroup
	for r, it := range items {
		wg.Go(func() {
			it.err = e.scoreModel(it.q, s.scores[r*n:(r+1)*n], &entropy[r])
			ok[r] = it.err == nil
		})
	}
	wg.Wait()
	// finishAll takes the scored rows in order, packed.
	var ordered []*item
	var ent []float64
	off := 0
	for r, it := range items {
		if !ok[r] {
			continue
		}
		copy(s.scores[off*n:(off+1)*n], s.scores[r*n:(r+1)*n])
		ordered, ent = append(ordered, it), append(ent, entropy[r])
		off++
	}
	e.finishAll(s, ordered, ent, n)
}

// scoreModel writes q's logits of every entity to dst and its size measure
// (0 where the model has none: GQE) to u.
func (e *Engine) scoreModel(q query.Node, dst []float32, u *float64) error {
	scores := make([]float64, len(dst))
	if err := e.qm.Scores(q, scores); err != nil {
		return err
	}
	for i, v := range scores {
		dst[i] = float32(v)
	}
	*u = 0
	if v, ok := e.qm.Uncertainty(q); ok {
		*u = v
	}
	return nil
}
