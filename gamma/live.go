package gamma

import (
	"errors"
	"slices"
)

// errPartialEntity: a Backward would add to an entity gradient whose rows
// outside EntityGradRows are stale.
var errPartialEntity = errors.New("gamma: the entity gradient holds stale rows (after EntityGradSparse): call ZeroGrad before accumulating")

// EntityGradSparse is EntityGradStale for an optimiser that is told which
// rows hold a gradient: the next Backward writes the rows it reaches and
// leaves every other row of the table's gradient as it was, where
// EntityGradStale has it write zeros (most of the table: a batch reaches
// a few thousand entities). Workspace.EntityGradRows then lists the rows
// written; the table's gradient is its value there and zero elsewhere, and
// the rows elsewhere must not be read as a gradient (optim.Adam.Live).
func (m *Model[T]) EntityGradSparse() {
	m.zeroGrads, m.staleEntity, m.sparseEntity, m.partialEntity = false, true, true, false
}

// EntityGradRows returns the rows of the entity table's gradient that the
// last Backward wrote, ascending, and true, when that Backward followed
// EntityGradSparse: the gradient is zero in every other row, whatever the
// table holds there. Otherwise it returns nil and false: the table's
// gradient is all there is. The slice is the workspace's, valid until the
// next Backward.
func (w *Workspace[T]) EntityGradRows() ([]int32, bool) {
	t := &w.train
	return t.live, t.liveSet
}

// liveRows sets t.live to the entity rows the Backward in progress
// writes: the candidates' (written already) and the batch's anchors',
// whose rows it zeroes first where no candidate wrote them, since the
// anchors' gradients are added to the table after.
func (w *Workspace[T]) liveRows() {
	m, t := w.m, &w.train
	d, g := m.cfg.Dim, m.grad(m.entity)
	extra := t.liveScratch[:0]
	for id := range w.anchors {
		if _, ok := slices.BinarySearch(t.uniq, id); !ok {
			extra = append(extra, id)
		}
	}
	slices.Sort(extra)
	extra = slices.Compact(extra)
	for _, id := range extra {
		clear(g[int(id)*2*d : (int(id)+1)*2*d])
	}
	t.liveScratch = extra
	// Merge: both ascending, disjoint.
	live := t.live[:0]
	i, j := 0, 0
	for i < len(t.uniq) || j < len(extra) {
		if j == len(extra) || i < len(t.uniq) && t.uniq[i] < extra[j] {
			live = append(live, t.uniq[i])
			i++
		} else {
			live = append(live, extra[j])
			j++
		}
	}
	t.live, t.liveSet = live, true
}
