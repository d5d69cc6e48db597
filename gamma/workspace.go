package gamma

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/gammae/gammae/internal/kernel"
)

// value is an intermediate embedding of a batch: rows × d matrices for α
// and β, and their gradients during backward.
type value[T kernel.Float] struct{ a, b, da, db []T }

// node is the runtime of one instruction, owning its saved activations.
type node[T kernel.Float] interface {
	forward(e *exec[T])
	backward(e *exec[T])
}

// run holds the buffers for one Program over a batch of rows.
type run[T kernel.Float] struct {
	prog  *Program
	vals  []value[T]
	nodes []node[T]
	rows  int
	ids   []int32
	theta []T // mixture weights, components × rows
	score groupScore[T]
	ex    exec[T] // reused so that running does not allocate
}

// exec is the context an instruction runs in.
type exec[T kernel.Float] struct {
	m     *Model[T]
	w     *Workspace[T]
	r     *run[T]
	train bool
	rng   *rand.Rand
}

func (e *exec[T]) id(row, slot int) int { return int(e.r.ids[row*e.r.prog.slots+slot]) }

// Workspace runs programs on a Model and keeps every buffer between calls,
// so the hot path does not allocate once sizes have settled. A Workspace is
// not safe for concurrent use; use one per goroutine.
type Workspace[T kernel.Float] struct {
	m    *Model[T]
	runs map[*Program][]*run[T]
	used map[*Program]int
	scratch[T]
	sides   [2]scratch[T] // of the α and β nets when they run side by side
	train   trainState[T]
	proj    []*projBatch[T] // per level
	relMark []int32         // relation → index in a projBatch, or −1
	one     [1]*run[T]
	cache   *anchoredCache[T] // CacheAnchored's projections, for inference
}

// NewWorkspace returns an empty workspace for m.
func (m *Model[T]) NewWorkspace() *Workspace[T] {
	return &Workspace[T]{m: m, runs: map[*Program][]*run[T]{}, used: map[*Program]int{}}
}

// scratch is a set of reusable buffers.
type scratch[T kernel.Float] struct {
	bufs [6][]T
	sum  []T
}

// buf returns scratch buffer i with at least n elements.
func (s *scratch[T]) buf(i, n int) []T {
	s.bufs[i] = grow(s.bufs[i], n)
	return s.bufs[i][:n]
}

// sumOf is scratch for bias gradients: m's widest layer's output.
func (s *scratch[T]) sumOf(m *Model[T]) []T {
	c := m.cfg
	s.sum = grow(s.sum, max(c.Hidden, 2*c.Dim))
	return s.sum
}

// acquire returns a run for p (the next unused one since the last reset),
// sized for rows.
func (w *Workspace[T]) acquire(p *Program, ids []int32, rows int, train bool) *run[T] {
	k := w.used[p]
	w.used[p] = k + 1
	rs := w.runs[p]
	if k == len(rs) {
		rs = append(rs, w.newRun(p))
		w.runs[p] = rs
	}
	r := rs[k]
	r.rows, r.ids = rows, ids
	d := w.m.cfg.Dim
	for i := range r.vals {
		v := &r.vals[i]
		v.a, v.b = grow(v.a, rows*d), grow(v.b, rows*d)
		if train {
			v.da, v.db = grow(v.da, rows*d), grow(v.db, rows*d)
		}
	}
	return r
}

func (w *Workspace[T]) newRun(p *Program) *run[T] {
	r := &run[T]{prog: p, vals: make([]value[T], p.values)}
	for i := range p.instrs {
		in := &p.instrs[i]
		var n node[T]
		switch in.kind {
		case opAnchor:
			n = &anchorNode[T]{instr: in}
		case opProject:
			// Run by the level's projBatch.
		case opNegate:
			n = &negateNode[T]{instr: in}
		case opIntersect:
			n = &intersectNode[T]{instr: in}
		case opUnion:
			n = &unionNode[T]{instr: in}
		}
		r.nodes = append(r.nodes, n)
	}
	return r
}

// checkIDs validates an id matrix against a program: every anchor slot an
// entity, every relation slot a relation.
func (m *Model[T]) checkIDs(p *Program, ids []int32) (rows int, err error) {
	if p.slots == 0 || len(ids)%p.slots != 0 {
		return 0, fmt.Errorf("gamma: %d ids for structure %s, want a multiple of its %d slots", len(ids), p.shape, p.slots)
	}
	rows = len(ids) / p.slots
	for _, in := range p.instrs {
		limit, what := 0, ""
		switch in.kind {
		case opAnchor:
			limit, what = m.cfg.Entities, "entity"
		case opProject:
			limit, what = m.cfg.Relations, "relation"
		default:
			continue
		}
		for r := 0; r < rows; r++ {
			if v := ids[r*p.slots+in.slot]; v < 0 || int(v) >= limit {
				return 0, fmt.Errorf("gamma: structure %s row %d slot %d: %s id %d out of range [0, %d)", p.shape, r, in.slot, what, v, limit)
			}
		}
	}
	return rows, nil
}

// Runs execute together, level by level: an instruction depends only on
// lower levels, and each level's projections over every run form one
// projBatch.

// forward runs the instructions of runs and their mixture weights.
func (w *Workspace[T]) forward(runs []*run[T], train bool, rng *rand.Rand) {
	levels := 0
	for _, r := range runs {
		r.ex = exec[T]{m: w.m, w: w, r: r, train: train, rng: rng}
		levels = max(levels, r.prog.levels)
	}
	if len(w.relMark) != w.m.cfg.Relations {
		w.relMark = make([]int32, w.m.cfg.Relations)
		for i := range w.relMark {
			w.relMark[i] = -1
		}
	}
	for len(w.proj) < levels {
		w.proj = append(w.proj, &projBatch[T]{})
	}
	for l := 0; l < levels; l++ {
		pb := w.proj[l]
		cache := w.cache
		if train {
			cache = nil
		}
		pb.collect(runs, l, w.relMark, train && w.m.cfg.ProjectionDropoutRoot, cache)
		if pb.urows > 0 {
			pb.forward(w.m, inferProd(train), rng)
		}
		if pb.cached > 0 {
			pb.copyCached(cache, w.m.cfg.Dim)
		}
		for _, r := range runs {
			for i := range r.prog.instrs {
				if in := &r.prog.instrs[i]; in.level == l && in.kind != opProject {
					r.nodes[i].forward(&r.ex)
				}
			}
		}
	}
	for _, r := range runs {
		if r.prog.mode == UnionMixture {
			w.m.mixtureForward(r)
		}
	}
}

// backward runs the instructions of runs backwards; the output values'
// gradients (and mixture scores') must have been set.
func (w *Workspace[T]) backward(runs []*run[T]) {
	levels := 0
	for _, r := range runs {
		r.ex = exec[T]{m: w.m, w: w, r: r, train: true}
		levels = max(levels, r.prog.levels)
		if r.prog.mode == UnionMixture {
			w.m.mixtureBackward(r)
		}
	}
	for l := levels - 1; l >= 0; l-- {
		for k := len(runs) - 1; k >= 0; k-- {
			r := runs[k]
			for i := len(r.prog.instrs) - 1; i >= 0; i-- {
				if in := &r.prog.instrs[i]; in.level == l && in.kind != opProject {
					r.nodes[i].backward(&r.ex)
				}
			}
		}
		if pb := w.proj[l]; pb.rows > 0 {
			pb.backward(w)
		}
	}
}

// Embedding is the embedding of a batch of queries: for each component
// (one unless the union mode is dnf or mixture) rows × d matrices of α and
// β. It aliases workspace buffers and is valid until the workspace's next
// call.
type Embedding[T kernel.Float] struct {
	Rows, Dim   int
	Alpha, Beta [][]T // per component
	mode        Union
	theta       []T // mixture weights, components × rows
}

// Components is the number of Gamma components per query.
func (e Embedding[T]) Components() int { return len(e.Alpha) }

// Theta returns the mixture weight of component k for row b (1 when the
// embedding is not a mixture of several components).
func (e Embedding[T]) Theta(k, b int) T {
	if e.theta == nil {
		return 1
	}
	return e.theta[k*e.Rows+b]
}

// Embed computes the embeddings of rows queries of program p in inference
// mode (no dropout); ids holds rows × p.Slots() ids in query.Slots order.
// It invalidates a pending Backward.
func (w *Workspace[T]) Embed(p *Program, ids []int32) (Embedding[T], error) {
	if p.mode != w.m.cfg.Mode() {
		return Embedding[T]{}, fmt.Errorf("gamma: program compiled for union mode %q, model uses %q", p.mode, w.m.cfg.Mode())
	}
	rows, err := w.m.checkIDs(p, ids)
	if err != nil {
		return Embedding[T]{}, err
	}
	w.reset()
	r := w.acquire(p, ids, rows, false)
	w.one[0] = r
	w.forward(w.one[:], false, nil)
	return r.embedding(w.m.cfg.Dim), nil
}

func (r *run[T]) embedding(d int) Embedding[T] {
	e := Embedding[T]{Rows: r.rows, Dim: d, mode: r.prog.mode}
	for _, o := range r.prog.outputs {
		e.Alpha = append(e.Alpha, r.vals[o].a)
		e.Beta = append(e.Beta, r.vals[o].b)
	}
	if r.prog.mode == UnionMixture {
		e.theta = r.theta
	}
	return e
}

// reset forgets the runs handed out (their buffers stay for reuse).
// Forget drops the buffers the workspace keeps for p's runs; embeddings of
// p it returned become the caller's alone. A caller that runs programs one
// after another, each over many batches, hands each one's memory to the
// next this way (with a collection between): at d=400 a structure's buffers
// for 512 rows are ~30 MB, and the first touch of fresh memory is dear on
// some hosts.
func (w *Workspace[T]) Forget(p *Program) {
	delete(w.runs, p)
	delete(w.used, p)
}

func (w *Workspace[T]) reset() {
	clear(w.used)
	w.train.pending = false
}

var errNoForward = errors.New("gamma: Backward without a preceding training Forward")
