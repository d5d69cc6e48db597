package gamma

import (
	"math/rand/v2"
	"slices"

	"github.com/gammae/gammae/internal/kernel"
)

// Bounds of the regulariser clamp(x + 1, regMin, regMax) that keeps α and β
// of projections and candidate entities positive.
const (
	regMin = 0.15
	regMax = 1e9
)

func reg[T kernel.Float](x T) T {
	x++
	if x < regMin {
		return regMin
	}
	if x > regMax {
		return regMax
	}
	return x
}

// regPass reports whether the clamp passes the gradient at x (inclusive
// bounds, as torch.clamp's backward).
func regPass[T kernel.Float](x T) bool {
	x++
	return x >= regMin && x <= regMax
}

// The projection maps (α, β) through relation r: α' = reg(MLPα([α; Rα[r]])),
// β' = reg(MLPβ([β; Rβ[r]])). All projection instructions of one level,
// over every run of a call, are stacked into one projBatch, so each layer
// is one large matrix product rather than one per instruction and group.
//
// The first layer's product splits: [x; R[r]]·Wᵀ = x·W₁ᵀ + R[r]·W₂ᵀ with
// W = [W₁ W₂]. In training the relation half is computed once per distinct
// relation of the batch (and its gradients summed per relation first),
// which is exact up to rounding and saves that half for every repeated
// relation. Inference reads it from a table of every relation's half,
// computed once per parameter version (relationHalves): answering a query
// then never streams W₂ for the product of one relation row.
//
// Rows that project an anchor repeat: the same entity goes through the same
// relation in several queries of a batch (a tenth of the first projections
// of an FB15k-237 training batch). Their outputs are equal, so the nets run
// once per distinct row: the output is copied to every repeat, and in the
// backward pass the repeats' gradients are summed into the first one's,
// which alone passes the input gradient on.

// projBatch is the stacked projection instructions of one level.
type projBatch[T kernel.Float] struct {
	segs  []projSeg[T]
	rows  int // stacked rows
	urows int // distinct rows: the nets' rows
	// u is per stacked row its distinct row, in first-seen order, or
	// −1 − its row in the anchored cache; cached counts the latter.
	u      []int32
	cached int
	lead   []bool          // per stacked row: the first with its distinct row
	seen   map[int64]int32 // (anchor entity, relation) → distinct row
	// root, when dropout is limited to the queries' last projections: per
	// distinct row, whether it is one (such rows never share a distinct
	// row with the others); nil otherwise. rootBuf holds it between batches.
	root, rootBuf []bool
	rel           []int32 // per distinct row: index into rels
	rels          []int32 // the distinct relations, in first-seen order
	a, b          projSide[T]
}

// projSeg is one projection instruction of one run inside a batch, at
// stacked rows row0 … row0 + r.rows − 1.
type projSeg[T kernel.Float] struct {
	r    *run[T]
	in   *instr
	row0 int
}

// projSide holds the activations of the α or the β net: act.acts[0] is the
// stacked input x (rows × d) without the relation half, act.acts[i+1] the
// output of layer i.
type projSide[T kernel.Float] struct {
	act mlp[T]
	xr  []T // the distinct relations' embeddings, rels × d
	pr  []T // xr·W₂ᵀ, rels × h
}

// collect gathers the projections at level l of runs and their distinct
// relations; mark is −1 for every relation and is left so. rootOnly marks
// the rows whose output is an output of their query (pb.root).
func (pb *projBatch[T]) collect(runs []*run[T], l int, mark []int32, rootOnly bool, cache *anchoredCache[T]) {
	pb.segs, pb.rows, pb.rels, pb.cached = pb.segs[:0], 0, pb.rels[:0], 0
	for _, r := range runs {
		for i := range r.prog.instrs {
			if in := &r.prog.instrs[i]; in.level == l && in.kind == opProject {
				pb.segs = append(pb.segs, projSeg[T]{r: r, in: in, row0: pb.rows})
				pb.rows += r.rows
			}
		}
	}
	pb.rel, pb.u, pb.lead = grow(pb.rel, pb.rows), grow(pb.u, pb.rows), grow(pb.lead, pb.rows)
	pb.root = nil
	if rootOnly {
		pb.rootBuf = grow(pb.rootBuf, pb.rows)
		pb.root = pb.rootBuf
	}
	if pb.seen == nil {
		pb.seen = map[int64]int32{}
	}
	clear(pb.seen)
	n := int32(0)
	for _, sg := range pb.segs {
		slots := sg.r.prog.slots
		anchor := sg.r.prog.anchorSlot(sg.in.in[0])
		root := rootOnly && slices.Contains(sg.r.prog.outputs, sg.in.out)
		for b := 0; b < sg.r.rows; b++ {
			id := sg.r.ids[b*slots+sg.in.slot]
			u := n
			if anchor >= 0 {
				key := Anchored{sg.r.ids[b*slots+anchor], id}.key()
				if cache != nil {
					if c, ok := cache.rows[key]; ok {
						pb.u[sg.row0+b], pb.lead[sg.row0+b] = -1-c, false
						pb.cached++
						continue
					}
				}
				if root {
					key = ^key // negative: apart from the other rows' keys
				}
				if v, ok := pb.seen[key]; ok {
					u = v
				} else {
					pb.seen[key] = n
				}
			}
			pb.u[sg.row0+b], pb.lead[sg.row0+b] = u, u == n
			if u < n {
				continue
			}
			n++
			if rootOnly {
				pb.root[u] = root
			}
			if mark[id] < 0 {
				mark[id] = int32(len(pb.rels))
				pb.rels = append(pb.rels, id)
			}
			pb.rel[u] = mark[id]
		}
	}
	pb.urows = int(n)
	for _, id := range pb.rels {
		mark[id] = -1
	}
}

// forward runs the batch with products as pm says. In training with
// projection dropout, each net's masks come from its own stream, seeded
// here from rng: the two nets run concurrently.
func (pb *projBatch[T]) forward(m *Model[T], pm prod, rng *rand.Rand) {
	var p float64 // the dropout, 0 outside training
	var seeds [2]uint64
	if pm&prodPacked == 0 && rng != nil && m.cfg.ProjectionDropout > 0 {
		p, seeds = m.cfg.ProjectionDropout, [2]uint64{rng.Uint64(), rng.Uint64()}
	}
	m.sideBySide(pm, pb.urows,
		func(pm prod) { pb.a.forward(m, m.projA, m.params[m.relAlpha].Data, pb, false, pm, p, seeds[0]) },
		func(pm prod) { pb.b.forward(m, m.projB, m.params[m.relBeta].Data, pb, true, pm, p, seeds[1]) })
}

// copyCached writes the outputs of the rows collect found in the anchored
// cache.
func (pb *projBatch[T]) copyCached(c *anchoredCache[T], d int) {
	for _, sg := range pb.segs {
		a, b := sg.r.vals[sg.in.out].a, sg.r.vals[sg.in.out].b
		for i := 0; i < sg.r.rows; i++ {
			if u := int(pb.u[sg.row0+i]); u < 0 {
				k := -1 - u
				copy(a[i*d:(i+1)*d], c.a[k*d:(k+1)*d])
				copy(b[i*d:(i+1)*d], c.b[k*d:(k+1)*d])
			}
		}
	}
}

// backward runs the two nets' backward passes side by side (each with its
// own scratch; they write disjoint gradients: the α or β half of the
// inputs', their own weights' and relation table's).
func (pb *projBatch[T]) backward(w *Workspace[T]) {
	m := w.m
	m.sideBySide(0, pb.urows,
		func(pm prod) { pb.a.backward(w, &w.sides[0], m.projA, m.relAlpha, pb, false, pm) },
		func(pm prod) { pb.b.backward(w, &w.sides[1], m.projB, m.relBeta, pb, true, pm) })
}

// dropout runs the projection dropout on y (rows × width): every row, or
// only the roots (pb.root). It returns the kept units' scale.
func (pb *projBatch[T]) dropout(y []T, rows int, p float64, seed *uint64) T {
	scale := T(0)
	if pb.root == nil {
		return kernel.Dropout(y, p, seed)
	}
	for row := range selectedRows(y, pb.root[:rows]) {
		scale = kernel.Dropout(row, p, seed)
	}
	return scale
}

// side returns the α or β half of a value (or of its gradient).
func side[T kernel.Float](v *value[T], beta, grad bool) []T {
	switch {
	case beta && grad:
		return v.db
	case beta:
		return v.b
	case grad:
		return v.da
	}
	return v.a
}

func (s *projSide[T]) prepare(net []layer, rows, d int) {
	if len(s.act.acts) != len(net)+1 {
		s.act.acts = make([][]T, len(net)+1)
	}
	s.act.acts[0] = grow(s.act.acts[0], rows*d)
	for i, l := range net {
		s.act.acts[i+1] = grow(s.act.acts[i+1], rows*l.out)
	}
}

func (s *projSide[T]) forward(m *Model[T], net []layer, tab []T, pb *projBatch[T], beta bool, pm prod, p float64, seed uint64) {
	d, h, rows, nr := m.cfg.Dim, net[0].out, pb.urows, len(pb.rels)
	s.prepare(net, rows, d)
	x := s.act.acts[0]
	for _, sg := range pb.segs {
		in := side(&sg.r.vals[sg.in.in[0]], beta, false)
		for b := 0; b < sg.r.rows; b++ {
			if row := sg.row0 + b; pb.lead[row] {
				u := int(pb.u[row])
				copy(x[u*d:(u+1)*d], in[b*d:(b+1)*d])
			}
		}
	}
	l := net[0]
	bias := m.params[l.w+1].Data
	y := s.act.acts[1]
	m.mulWT(pm, rows, x, d, l.w, 0, d, 2*d, y, h)
	if pm&prodPacked == 0 {
		s.xr, s.pr = grow(s.xr, nr*d), grow(s.pr, nr*h)
		for i, id := range pb.rels {
			copy(s.xr[i*d:(i+1)*d], tab[int(id)*d:])
		}
		m.mulWT(pm, nr, s.xr, d, l.w, d, d, 2*d, s.pr, h)
		for row, i := range pb.rel[:rows] {
			kernel.Axpy(1, s.pr[int(i)*h:(int(i)+1)*h], y[row*h:(row+1)*h])
		}
	} else {
		// Inference reads every relation's half from the model's table.
		halves := m.relationHalves(beta)
		for row, i := range pb.rel[:rows] {
			id := int(pb.rels[i])
			kernel.Axpy(1, halves[id*h:(id+1)*h], y[row*h:(row+1)*h])
		}
	}
	// Layers ≥ 1: the first layer is never the last.
	kernel.AddBiasReLU(y, bias, rows, h)
	s.act.scale, s.act.rows = 0, nil
	if p > 0 {
		s.act.scale = pb.dropout(y[:rows*h], rows, p, &seed)
		if pb.root != nil {
			s.act.rows = pb.root[:rows]
		}
	}
	for i := 1; i < len(net); i++ {
		hidden := i < len(net)-1
		m.linearForward(net[i], s.act.acts[i], s.act.acts[i+1], rows, hidden, pm)
		if hidden && p > 0 {
			pb.dropout(s.act.acts[i+1][:rows*net[i].out], rows, p, &seed)
		}
	}
	out := s.act.output()
	for _, sg := range pb.segs {
		dst := side(&sg.r.vals[sg.in.out], beta, false)[:sg.r.rows*d]
		for b := 0; b < sg.r.rows; b++ {
			u := int(pb.u[sg.row0+b])
			if u < 0 {
				continue // copyCached
			}
			row := dst[b*d : (b+1)*d]
			for j, z := range out[u*d : (u+1)*d] {
				row[j] = reg(z)
			}
		}
	}
}

func (s *projSide[T]) backward(w *Workspace[T], sc *scratch[T], net []layer, relParam int, pb *projBatch[T], beta bool, pm prod) {
	m := w.m
	d, h, rows, nr := m.cfg.Dim, net[0].out, pb.urows, len(pb.rels)
	width := max(m.cfg.Hidden, 2*d)
	dz := sc.buf(0, rows*d)
	out := s.act.output()
	for _, sg := range pb.segs {
		g := side(&sg.r.vals[sg.in.out], beta, true)[:sg.r.rows*d]
		for b := 0; b < sg.r.rows; b++ {
			row := sg.row0 + b
			u := int(pb.u[row])
			gs, dzs := g[b*d:(b+1)*d], dz[u*d:(u+1)*d]
			if pb.lead[row] { // the first of its distinct row, in row order
				for j, z := range out[u*d : (u+1)*d] {
					if regPass(z) {
						dzs[j] = gs[j]
					} else {
						dzs[j] = 0
					}
				}
				continue
			}
			for j, z := range out[u*d : (u+1)*d] {
				if regPass(z) {
					dzs[j] += gs[j]
				}
			}
		}
	}
	dy := sc.buf(1, rows*h)
	rest := mlp[T]{acts: s.act.acts[1:], scale: s.act.scale, rows: s.act.rows}
	m.mlpBackward(net[1:], &rest, rows, pm, dz, dy, sc.buf(2, rows*width), sc.buf(3, rows*width), sc.sumOf(w.m))
	rest.hiddenBackward(dy, s.act.acts[1][:rows*h])

	// The first layer: bias, the x half per row, the relation half per
	// distinct relation.
	l := net[0]
	gw, gb := m.grad(l.w), m.grad(l.w+1)
	sum := sc.sumOf(w.m)[:h]
	kernel.SumRows(sum, dy, rows, h)
	add(gb, sum)
	m.weightGrad(pm, h, d, rows, dy, h, s.act.acts[0], d, gw, 2*d)
	dx := sc.buf(4, rows*d)
	m.mulW(pm, rows, dy, h, l.w, 0, h, 2*d, dx, d)
	dyr := sc.buf(5, nr*h)
	clear(dyr)
	for row, i := range pb.rel[:rows] {
		kernel.Axpy(1, dy[row*h:(row+1)*h], dyr[int(i)*h:(int(i)+1)*h])
	}
	m.weightGrad(pm, h, d, nr, dyr, h, s.xr, d, gw[d:], 2*d)
	dr := sc.buf(2, nr*d)
	m.mulW(pm, nr, dyr, h, l.w, d, h, 2*d, dr, d)
	g := m.grad(relParam)
	for i, id := range pb.rels {
		kernel.Axpy(1, dr[i*d:(i+1)*d], g[int(id)*d:(int(id)+1)*d])
	}
	// Only the first of a distinct row passes the input gradient on: the
	// repeats' inputs are the same entity row.
	for _, sg := range pb.segs {
		dst := side(&sg.r.vals[sg.in.in[0]], beta, true)[:sg.r.rows*d]
		for b := 0; b < sg.r.rows; b++ {
			if row := sg.row0 + b; pb.lead[row] {
				u := int(pb.u[row])
				kernel.Axpy(1, dx[u*d:(u+1)*d], dst[b*d:(b+1)*d])
			}
		}
	}
}

// relationHalves returns R·W₂ᵀ for every relation (Relations × h) of the α
// or the β net's first layer, computing both once per parameter version.
func (m *Model[T]) relationHalves(beta bool) []T {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.halves == nil || m.halves.version != m.version {
		nr, d := m.cfg.Relations, m.cfg.Dim
		hv := &halves[T]{version: m.version}
		for i, side := range []struct {
			net []layer
			tab int
		}{{m.projA, m.relAlpha}, {m.projB, m.relBeta}} {
			l := side.net[0]
			hv.side[i] = make([]T, nr*l.out)
			kernel.Gemm(false, true, nr, l.out, d, 1, m.params[side.tab].Data, d, m.params[l.w].Data[d:], 2*d, 0, hv.side[i], l.out)
		}
		m.halves = hv
	}
	if beta {
		return m.halves.side[1]
	}
	return m.halves.side[0]
}

// halves holds the relation halves of the projection nets' first layers
// (α net, β net) for one parameter version.
type halves[T kernel.Float] struct {
	version uint64
	side    [2][]T
}
