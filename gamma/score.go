package gamma

import (
	"math"

	"github.com/gammae/gammae/internal/kernel"
)

// Training scores each query against its own positive and negatives only,
// entity-major: the (query row, candidate) pairs are sorted by candidate,
// and as soon as a chunk of distinct candidates has its features
// computed, the distances of all their pairs are taken while those
// features are in cache (two dot products of length d with query rows,
// which stay in cache too). A feature row is thus written once and read
// back once, in order, by Backward, instead of being gathered from memory
// for every pair. Backward goes over the pairs entity-major again: each
// candidate's feature gradient is summed in cache and turned into its
// embedding's gradient at once, and the queries' gradients Σ g·f go into
// scoreBlocks accumulators (one per block of candidates), summed in a
// fixed order. The [batch × negatives × 2d] tensor of the reference never
// exists, and neither does the features' gradient.

// scoreBlocks is the number of candidate blocks with their own query
// gradient accumulators: fixed, so the sums do not depend on the number
// of cores (which it bounds for the entity-side backward).
const scoreBlocks = 4

// groupScore holds a run's candidate distances for the loss.
type groupScore[T kernel.Float] struct {
	row0        int // first batch row of the group
	crow0       int // first component row in the query gradient accumulators
	dist, ddist []T // components × rows × (n+1)
	// borrowed: dist and ddist are windows of trainState's dense buffers
	// (the dense objectives), not the run's own.
	borrowed    bool
	ds          []T // gradient of the mixture scores, components × rows
	qterm, gsum []T // per component and row: Q and Σⱼ ∂loss/∂distⱼ
}

// trainState is the loss side of a training step.
type trainState[T kernel.Float] struct {
	pending         bool
	runs            []*run[T]
	rowRun          []int32 // batch row → index into runs
	rows, cols      int     // batch rows, candidates per row (n+1)
	crows           int     // component rows over the runs
	weight          []float64
	objective       Objective
	posCol          []int32          // dense objectives: each row's positive as an index into uniq
	excl, exclAt    []int32          // dense objectives: row r's excluded answers as indices into uniq, excl[exclAt[r]:exclAt[r+1]]
	dfeat, dent     []T              // dense objectives: the candidates' feature gradients, and Σ of their distances' gradients at dent[1+i]
	dist, ddist     []T              // dense objectives: every run's distances and their gradients, crows × cols
	q               []T              // dense objectives: every component row's [α; β], crows × 2d
	local           []int32          // rows × cols: candidate index into uniq
	uniq            []int32          // distinct candidate entities
	mark            []int32          // entity → index into uniq, or −1
	start, pairs    []int32          // pairs[start[i]:start[i+1]]: the pairs (row·cols + j) of uniq[i]
	feat, ent       []T              // features of uniq
	logits, dlogits []T              // rows × cols
	sig             []T              // rows × cols: the dense objectives' sigmoid term's scratch
	pos, neg        []float64        // per row: weighted loss terms
	sw              float64          // Σ weight
	acc             [scoreBlocks][]T // query gradient accumulators, crows × 2d
	// entityChecked: the last Backward wrote every candidate row of the
	// entity gradient and checked it; entityBad[blk]: a row of block blk
	// held a NaN or an infinity (see GradNonFinite).
	entityChecked bool
	entityBad     [scoreBlocks]bool
	part          [maxParts][]T    // per-part scratch
	dists         func(lo, hi int) // pairDists, bound once
}

// candidates lists the distinct entities among the positives and negatives
// in ascending order (so the entity-side passes stream through the tables),
// maps every candidate to its index, and sorts the pairs by candidate.
func (w *Workspace[T]) candidates(b *Batch) {
	t := &w.train
	t.local = grow(t.local, t.rows*t.cols)
	t.markCandidates(w.m.cfg.Entities, b.Positive, b.Negative)
	n := b.Negatives
	for r := 0; r < t.rows; r++ {
		t.local[r*t.cols] = t.mark[b.Positive[r]]
		for j := 0; j < n; j++ {
			t.local[r*t.cols+1+j] = t.mark[b.Negative[r*n+j]]
		}
	}
	t.unmark()
	// Counting sort of the pairs by candidate, in pair order within one.
	nu := len(t.uniq)
	t.start = grow(t.start, nu+1)
	clear(t.start)
	for _, u := range t.local {
		t.start[u+1]++
	}
	for i := 0; i < nu; i++ {
		t.start[i+1] += t.start[i]
	}
	t.pairs = grow(t.pairs, len(t.local))
	for p, u := range t.local {
		t.pairs[t.start[u]] = int32(p)
		t.start[u]++
	}
	// Each start[u] moved to the end of u's pairs: shift back.
	copy(t.start[1:], t.start[:nu])
	t.start[0] = 0
}

// markCandidates sets uniq to the distinct entities of the sets in
// ascending order (so the entity-side passes stream through the tables)
// and mark[e] to e's index in it; unmark resets the marks to −1.
func (t *trainState[T]) markCandidates(entities int, sets ...[]int32) {
	if len(t.mark) != entities {
		t.mark = make([]int32, entities)
		for i := range t.mark {
			t.mark[i] = -1
		}
	}
	for _, ids := range sets {
		for _, e := range ids {
			t.mark[e] = 0
		}
	}
	t.uniq = t.uniq[:0]
	for e, v := range t.mark {
		if v == 0 {
			t.mark[e] = int32(len(t.uniq))
			t.uniq = append(t.uniq, int32(e))
		}
	}
}

// clearGap zeroes the rows (of width w) of g between candidate uniq[i-1]
// and uniq[i], and after the last candidate: the entities no candidate
// reached, over a stale gradient.
func (t *trainState[T]) clearGap(g []T, i, w int) {
	e, prev := int(t.uniq[i]), -1
	if i > 0 {
		prev = int(t.uniq[i-1])
	}
	clear(g[(prev+1)*w : e*w])
	if i == len(t.uniq)-1 {
		clear(g[(e+1)*w:])
	}
}

func (t *trainState[T]) unmark() {
	for _, e := range t.uniq {
		t.mark[e] = -1
	}
}

// queryTerms sizes the runs' score buffers and sets the query-only terms
// Q of every row. Each pass over the batch's rows is one parallel loop
// over all runs' rows: one hand-off to the other core per pass, not one
// per structure.
func (w *Workspace[T]) queryTerms() {
	t, d := &w.train, w.m.cfg.Dim
	dense := t.objective.dense()
	if dense {
		t.dist, t.ddist = grow(t.dist, t.crows*t.cols), grow(t.ddist, t.crows*t.cols)
	}
	for _, r := range t.runs {
		k, s := len(r.prog.outputs), &r.score
		switch lo, hi := s.crow0*t.cols, (s.crow0+k*r.rows)*t.cols; {
		case dense:
			// One window of the batch's distances: the products of all
			// runs are one matrix product (denseForward).
			s.dist, s.ddist, s.borrowed = t.dist[lo:hi:hi], t.ddist[lo:hi:hi], true
		case s.borrowed:
			// Windows of a dense step may overlap another run's: own
			// buffers again.
			s.dist, s.ddist, s.borrowed = make([]T, hi-lo), make([]T, hi-lo), false
		default:
			s.dist = grow(s.dist, hi-lo)
			s.ddist = grow(s.ddist, len(s.dist))
		}
		s.ds, s.qterm, s.gsum = grow(s.ds, k*r.rows), grow(s.qterm, k*r.rows), grow(s.gsum, k*r.rows)
	}
	w.eachRow(func(r *run[T], b int, tmp []T) {
		s := &r.score
		for c, o := range r.prog.outputs {
			v := &r.vals[o]
			s.qterm[c*r.rows+b] = queryTerm(v.a[b*d:(b+1)*d], v.b[b*d:(b+1)*d], tmp)
		}
	})
}

// eachRow runs f on every row of the batch, in parallel: f gets the row's
// run, its index b in the run and per-part scratch.
func (w *Workspace[T]) eachRow(f func(r *run[T], b int, tmp []T)) {
	t := &w.train
	parallelFor(t.rows, 16, func(part, lo, hi int) {
		for row := lo; row < hi; row++ {
			r := t.runs[t.rowRun[row]]
			f(r, row-r.score.row0, t.part[part])
		}
	})
}

// pairDists sets the distances of every pair of the candidates uniq[lo:hi],
// whose features are ready.
func (w *Workspace[T]) pairDists(lo, hi int) {
	t, d := &w.train, w.m.cfg.Dim
	cols := t.cols
	for i := lo; i < hi; i++ {
		f, e := t.feat[i*2*d:(i+1)*2*d], t.ent[i]
		for _, p := range t.pairs[t.start[i]:t.start[i+1]] {
			row, j := int(p)/cols, int(p)%cols
			r := t.runs[t.rowRun[row]]
			s, b, rows := &r.score, row-r.score.row0, r.rows
			for c, o := range r.prog.outputs {
				v := &r.vals[o]
				s.dist[(c*rows+b)*cols+j] = e + s.qterm[c*rows+b] + kernel.Dot(v.a[b*d:(b+1)*d], f[:d]) + kernel.Dot(v.b[b*d:(b+1)*d], f[d:])
			}
		}
	}
}

// scores computes the logits and loss terms of every row from their
// distances, and the gradients of the distances and mixture scores.
func (w *Workspace[T]) scores() {
	w.eachRow(w.scoreRow)
}

// scoreRow is scores for row b of run r; tmp has 2·components of scratch.
func (w *Workspace[T]) scoreRow(r *run[T], b int, tmp []T) {
	t := &w.train
	cols, rows, k := t.cols, r.rows, len(r.prog.outputs)
	s := &r.score
	row := s.row0 + b
	theta, ds := tmp[:k], tmp[k:2*k]
	for c := 0; c < k; c++ {
		theta[c] = r.thetaOf(c, b)
		ds[c] = 0
	}
	gamma := T(w.m.cfg.Gamma)
	logits := t.logits[row*cols : (row+1)*cols]
	if k == 1 { // one component: logit = γ − distance, no combining
		dist, ddist := s.dist[b*cols:(b+1)*cols], s.ddist[b*cols:(b+1)*cols]
		for j, v := range dist {
			logits[j] = gamma - v
		}
		t.rowLoss(row)
		var sum T
		for j, g := range t.dlogits[row*cols : (row+1)*cols] {
			ddist[j] = -g
			sum -= g
		}
		s.ds[b], s.gsum[b] = 0, sum
		return
	}
	if r.prog.mode == UnionMixture {
		w.mixtureRow(r, b, theta, ds, tmp[2*k:])
	} else {
		for j := range logits {
			logits[j] = gamma - combine(r.prog.mode, s.dist[b*cols+j:], rows*cols, theta, k)
		}
		t.rowLoss(row)
		for j, g := range t.dlogits[row*cols : (row+1)*cols] {
			// logit = γ − D.
			combineBackward(r.prog.mode, -g, s.dist[b*cols+j:], rows*cols, theta, k, s.ddist[b*cols+j:], ds)
		}
	}
	for c := 0; c < k; c++ {
		s.ds[c*rows+b] = ds[c]
		var sum T
		for _, g := range s.ddist[(c*rows+b)*cols : (c*rows+b+1)*cols] {
			sum += g
		}
		s.gsum[c*rows+b] = sum
	}
}

// mixtureRow is scoreRow's forward and backward for a mixture union, the
// whole row at once, as combine and combineBackward per candidate but with
// vectorised exponentials and logarithms (per-candidate float64 calls cost
// a 150-minute run 6 % of its iterations): with xᶜ = ln θᶜ − Dᶜ and
// m = maxᶜ xᶜ, the logit is γ + m + ln Σᶜ e^{xᶜ−m}, ∂D/∂Dᶜ = rᶜ and
// ∂D/∂sᶜ = θᶜ − rᶜ for rᶜ = softmaxᶜ(xᶜ). buf holds (k+2)·cols.
func (w *Workspace[T]) mixtureRow(r *run[T], b int, theta, ds, buf []T) {
	t := &w.train
	cols, rows, k := t.cols, r.rows, len(r.prog.outputs)
	row := r.score.row0 + b
	dist := func(c int) []T { return r.score.dist[(c*rows+b)*cols : (c*rows+b+1)*cols] }
	x := buf[:k*cols] // xᶜ, then e^{xᶜ−m}, then rᶜ
	mx, sum := buf[k*cols:(k+1)*cols], buf[(k+1)*cols:(k+2)*cols]
	for c := 0; c < k; c++ {
		lt := T(math.Log(float64(theta[c])))
		xc := x[c*cols : (c+1)*cols]
		for j, v := range dist(c) {
			xc[j] = lt - v
		}
	}
	expShifted(x, k, mx, sum)
	logits := t.logits[row*cols : (row+1)*cols]
	kernel.Log(logits, sum)
	gamma := T(w.m.cfg.Gamma)
	for j := range logits {
		logits[j] += gamma + mx[j]
	}
	t.rowLoss(row)
	dl := t.dlogits[row*cols : (row+1)*cols]
	for c := 0; c < k; c++ {
		xc, dd := x[c*cols:(c+1)*cols], r.score.ddist[(c*rows+b)*cols:(c*rows+b+1)*cols]
		var acc T
		for j, g := range dl {
			rc := xc[j] / sum[j]
			// logit = γ − D: ∂/∂Dᶜ = −g·rᶜ, ∂/∂sᶜ = −g·(θᶜ − rᶜ).
			dd[j] = -g * rc
			acc += -g * (theta[c] - rc)
		}
		ds[c] += acc
	}
}

func (r *run[T]) thetaOf(c, b int) T {
	if r.prog.mode != UnionMixture {
		return 1
	}
	return r.theta[c*r.rows+b]
}

// queryBackward adds to the runs' output components the gradient of their
// distances: the accumulated Σⱼ gⱼ·fⱼ over the candidates' features, and
// Σⱼ gⱼ times that of the query-only term Q = Σ lnΓ(α) − α ln β, whose
// derivatives are ∂Q/∂α = ψ(α) − ln β and ∂Q/∂β = −α/β.
func (w *Workspace[T]) queryBackward() {
	t, d := &w.train, w.m.cfg.Dim
	w.eachRow(func(r *run[T], b int, tmp []T) {
		s := &r.score
		psi, lb := tmp[:d], tmp[d:2*d]
		for c, o := range r.prog.outputs {
			v, x := &r.vals[o], s.crow0+c*r.rows+b
			qa, qb := v.a[b*d:(b+1)*d], v.b[b*d:(b+1)*d]
			dqa, dqb := v.da[b*d:(b+1)*d], v.db[b*d:(b+1)*d]
			for blk := range t.acc {
				if len(t.acc[blk]) == 0 {
					continue // Objective "all" uses block 0 alone
				}
				acc := t.acc[blk][x*2*d : (x+1)*2*d]
				kernel.Axpy(1, acc[:d], dqa)
				kernel.Axpy(1, acc[d:], dqb)
			}
			kernel.Digamma(psi, qa)
			kernel.Log(lb, qb)
			queryTermGrad(dqa, dqb, qa, qb, psi, lb, s.gsum[c*r.rows+b])
		}
	})
}

// queryTermGrad adds g·∂Q/∂α = g·(ψ(α) − ln β) to da and g·∂Q/∂β = −g·α/β
// to db.
func queryTermGrad[T kernel.Float](da, db, a, b, psi, lb []T, g T) {
	n := len(a)
	da, db, b, psi, lb = da[:n], db[:n], b[:n], psi[:n], lb[:n]
	for j, al := range a {
		da[j] += g * (psi[j] - lb[j])
		db[j] -= g * al / b[j]
	}
}

// entityBackward adds to the entity table's gradient that of the
// candidates' distances: per distinct candidate, the gradient of its
// features (Σ g·[α_q; β_q] over its pairs and the runs' components) and of
// its entity-only term, then their chain rule. With overwrite (the
// gradient is known to be zero, or stale), each candidate's row is
// written rather than added to, which spares reading it, and checked for
// NaN and infinities (t.entityBad); with stale, the rows no candidate
// reaches are set to zero too. It also sums the queries' Σ g·f, per block
// of candidates.
func (w *Workspace[T]) entityBackward(overwrite, stale bool) {
	m, t := w.m, &w.train
	d, nu := m.cfg.Dim, len(t.uniq)
	tab, g := m.params[m.entity].Data, m.grad(m.entity)
	parallelFor(scoreBlocks, 1, func(part, lo, hi int) {
		df, scratch := t.part[part][:2*d], t.part[part][2*d:4*d]
		for blk := lo; blk < hi; blk++ {
			acc := grow(t.acc[blk], t.crows*2*d)
			t.acc[blk] = acc
			clear(acc)
			bad := false
			i0, i1 := blk*nu/scoreBlocks, (blk+1)*nu/scoreBlocks
			for i := i0; i < i1; i++ {
				ge := w.pairGrad(i, df, acc)
				id := int(t.uniq[i])
				row := tab[id*2*d : (id+1)*2*d]
				if r32, ok := any(row).([]float32); ok { // the fused kernel
					df32 := any(df).([]float32)
					kernel.GammaFeaturesGrad(df32[:d], df32[d:], r32[:d], r32[d:], float32(ge), regMin, regMax)
				} else {
					gammaFeaturesGrad(df[:d], df[d:], row[:d], row[d:], ge, scratch)
				}
				if !overwrite {
					kernel.Axpy(1, df, g[id*2*d:(id+1)*2*d])
					continue
				}
				if testHookEntityGrad != nil {
					testHookEntityGrad(any(df))
				}
				bad = bad || nonFinite(df)
				// Stores that bypass the cache: the table's gradient is far
				// larger than it, and Adam reads it next from memory anyway.
				kernel.CopyStream(g[id*2*d:(id+1)*2*d], df)
				if stale {
					t.clearGap(g, i, 2*d)
				}
			}
			t.entityBad[blk] = bad
		}
	})
}

// testHookEntityGrad, when set (tests only), sees each candidate's
// gradient row before entityBackward checks and writes it.
var testHookEntityGrad func(df any)

// pairGrad sets df to the gradient of candidate i's features, Σ g·[α_q; β_q]
// over its pairs, adds g·f to the pairs' query rows in acc, and returns
// Σ g, the gradient of its entity-only term.
func (w *Workspace[T]) pairGrad(i int, df, acc []T) T {
	t := &w.train
	d, cols := w.m.cfg.Dim, t.cols
	f := t.feat[i*2*d : (i+1)*2*d]
	clear(df)
	var sum T
	for _, p := range t.pairs[t.start[i]:t.start[i+1]] {
		row, j := int(p)/cols, int(p)%cols
		r := t.runs[t.rowRun[row]]
		s, b, rows := &r.score, row-r.score.row0, r.rows
		for c, o := range r.prog.outputs {
			g := s.ddist[(c*rows+b)*cols+j]
			if g == 0 {
				continue
			}
			sum += g
			v := &r.vals[o]
			kernel.Axpy(g, v.a[b*d:(b+1)*d], df[:d])
			kernel.Axpy(g, v.b[b*d:(b+1)*d], df[d:])
			x := s.crow0 + c*rows + b
			kernel.Axpy(g, f, acc[x*2*d:(x+1)*2*d])
		}
	}
	return sum
}
