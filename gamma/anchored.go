package gamma

import (
	"fmt"

	"github.com/gammae/gammae/query"
)

// Anchored is a projection of an anchor: entity Entity through relation
// Relation, the first hop of most benchmark queries.
type Anchored struct{ Entity, Relation int32 }

func (a Anchored) key() int64 { return int64(a.Entity)<<32 | int64(uint32(a.Relation)) }

// AnchoredSlots returns, for each projection of an anchor in p, its anchor's
// and its relation's id columns (query.Slots order), each pair once.
func (p *Program) AnchoredSlots() [][2]int {
	var out [][2]int
	for i := range p.instrs {
		in := &p.instrs[i]
		if in.kind != opProject {
			continue
		}
		if a := p.anchorSlot(in.in[0]); a >= 0 {
			pair := [2]int{a, in.slot}
			dup := false
			for _, q := range out {
				dup = dup || q == pair
			}
			if !dup {
				out = append(out, pair)
			}
		}
	}
	return out
}

// anchoredCache holds the projections of some anchors, computed once: an
// evaluation meets the same first hop in many queries of many structures
// (FB15k-237's 152,801 test projections of an anchor are 42,638 distinct
// ones), and inference's outputs depend on nothing else.
type anchoredCache[T any] struct {
	rows map[int64]int32
	a, b []T // rows × d: the projections' outputs, α and β
}

// CacheAnchored computes the projections of pairs and keeps them: until
// DropAnchored, Embed copies them wherever a query projects one of these
// anchors instead of running the nets on it. The model must not change
// while they are kept. Training (Forward) never uses them.
func (w *Workspace[T]) CacheAnchored(pairs []Anchored) error {
	w.cache = nil
	if len(pairs) == 0 {
		return nil
	}
	m := w.m
	for _, p := range pairs {
		if p.Entity < 0 || int(p.Entity) >= m.cfg.Entities || p.Relation < 0 || int(p.Relation) >= m.cfg.Relations {
			return fmt.Errorf("gamma: anchored projection (%d, %d) out of range", p.Entity, p.Relation)
		}
	}
	prog, err := Compile(query.Projection{Arg: query.Anchor{}}, m.cfg.Mode())
	if err != nil {
		return err
	}
	d := m.cfg.Dim
	c := &anchoredCache[T]{rows: make(map[int64]int32, len(pairs)), a: make([]T, 0, len(pairs)*d), b: make([]T, 0, len(pairs)*d)}
	const block = 512
	ids := make([]int32, 0, 2*block)
	for lo := 0; lo < len(pairs); lo += block {
		ids = ids[:0]
		for _, p := range pairs[lo:min(lo+block, len(pairs))] {
			ids = append(ids, p.Entity, p.Relation)
		}
		e, err := w.Embed(prog, ids)
		if err != nil {
			return err
		}
		c.a = append(c.a, e.Alpha[0]...)
		c.b = append(c.b, e.Beta[0]...)
	}
	for i, p := range pairs {
		if _, ok := c.rows[p.key()]; !ok {
			c.rows[p.key()] = int32(i)
		}
	}
	w.Forget(prog)
	w.cache = c
	return nil
}

// DropAnchored forgets the projections CacheAnchored kept.
func (w *Workspace[T]) DropAnchored() { w.cache = nil }
