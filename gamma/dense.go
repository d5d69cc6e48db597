package gamma

import (
	"math"
	"slices"

	"github.com/gammae/gammae/internal/kernel"
	"github.com/gammae/gammae/qe"
)

// Training against a candidate set common to the batch (the dense
// objectives): every entity (Objective "all", 1-vs-all scoring), or the
// batch's positives and its shared negatives (Objective "shared"). Each
// query row's distances to the U candidates are matrix products of the
// rows' [α; β] with the candidates' features (the split of SPEC section 4,
// as ScoreAll takes it), and so are their gradients: Backward's feature
// gradients of every candidate are Gᵀ·[α; β] and the queries' G·f, for G
// the distances' gradient. A row's columns are 0, its positive (as in the
// sampled objectives), then 1…U, candidate uniq[i] at 1 + i.

// denseCandidates sets the candidates (uniq, ascending), each row's
// positive among them (posCol) and the columns per row.
func (w *Workspace[T]) denseCandidates(b *Batch) {
	m, t := w.m, &w.train
	n := m.cfg.Entities
	t.posCol = grow(t.posCol, len(b.Positive))
	if b.Objective.Kind == "all" {
		if len(t.uniq) != n || t.uniq[n-1] != int32(n-1) {
			t.uniq = t.uniq[:0]
			for e := range n {
				t.uniq = append(t.uniq, int32(e))
			}
		}
		copy(t.posCol, b.Positive)
		t.cols = n + 1
		t.exclude(b, func(e int32) int32 { return e })
		return
	}
	t.markCandidates(n, b.Positive, b.Shared)
	for r, e := range b.Positive {
		t.posCol[r] = t.mark[e]
	}
	t.exclude(b, func(e int32) int32 { return t.mark[e] })
	t.unmark()
	t.cols = len(t.uniq) + 1
}

// exclude sets each row's other answers (Batch.Exclude) among the
// candidates, as indices into uniq (col: an entity's index, or −1 for
// none), leaving out the row's positive; an answer listed twice is one
// column (sorted, unique: answer targets count each once).
func (t *trainState[T]) exclude(b *Batch, col func(int32) int32) {
	t.excl, t.exclAt = t.excl[:0], grow(t.exclAt, len(b.Positive)+1)
	for r := range b.Positive {
		t.exclAt[r] = int32(len(t.excl))
		if b.Exclude == nil {
			continue
		}
		for _, e := range b.Exclude[r] {
			if c := col(e); c >= 0 && c != t.posCol[r] {
				t.excl = append(t.excl, c)
			}
		}
		row := t.excl[t.exclAt[r]:]
		slices.Sort(row)
		t.excl = t.excl[:int(t.exclAt[r])+len(slices.Compact(row))]
	}
	t.exclAt[len(b.Positive)] = int32(len(t.excl))
}

// denseForward sets every run's distances to the candidates: one product
// of all component rows' [α; β] (gathered into q) with the candidates'
// features, so that the features are packed once a step and the kernel
// sees a tall matrix rather than one short one per structure.
func (w *Workspace[T]) denseForward() {
	m, t := w.m, &w.train
	d, cols, n := m.cfg.Dim, t.cols, len(t.uniq)
	t.feat, t.ent = grow(t.feat, n*2*d), grow(t.ent, n)
	m.features(t.uniq, t.feat, t.ent, &t.part, nil)
	t.q = grow(t.q, t.crows*2*d)
	for _, r := range t.runs {
		for c, o := range r.prog.outputs {
			v, x0 := &r.vals[o], r.score.crow0+c*r.rows
			for b := range r.rows {
				q := t.q[(x0+b)*2*d : (x0+b+1)*2*d]
				copy(q[:d], v.a[b*d:(b+1)*d])
				copy(q[d:], v.b[b*d:(b+1)*d])
			}
		}
	}
	m.gemmDense(false, true, t.crows, n, 2*d, t.q, 2*d, t.feat, 2*d, t.dist[1:], cols)
	for _, r := range t.runs {
		s := &r.score
		for c := range r.prog.outputs {
			dist := s.dist[c*r.rows*cols : (c+1)*r.rows*cols]
			parallelFor(r.rows, 4, func(_, lo, hi int) {
				for b := lo; b < hi; b++ {
					row, q := dist[b*cols:(b+1)*cols], s.qterm[c*r.rows+b]
					for e, ent := range t.ent {
						row[1+e] += ent + q
					}
					row[0] = row[1+int(t.posCol[s.row0+b])]
				}
			})
		}
	}
}

// gemmDense sets c = op(a)·op(b), the dense objectives' products: with
// bfloat16 operands when the model's products are (SetPrecision), so that
// --precision bf16 covers the distances to the candidates as it covers
// the MLPs.
func (m *Model[T]) gemmDense(transA, transB bool, rows, n, k int, a []T, lda int, b []T, ldb int, c []T, ldc int) {
	if m.bf16 {
		kernel.GemmBF16(transA, transB, rows, n, k, any(a).([]float32), lda, any(b).([]float32), ldb, 0, any(c).([]float32), ldc)
		return
	}
	kernel.Gemm(transA, transB, rows, n, k, 1, a, lda, b, ldb, 0, c, ldc)
}

// rowMax is the largest of l (NaN if l[0] is; a later NaN is passed
// over, and shows in the row's loss): four independent maxima and
// comparisons, not the max builtin, whose NaN and signed-zero rules cost
// a branch chain per element on the loss's hot path.
func rowMax[T kernel.Float](l []T) T {
	m0 := l[0]
	m1, m2, m3 := m0, m0, m0
	i := 1
	for ; i+4 <= len(l); i += 4 {
		if v := l[i]; v > m0 {
			m0 = v
		}
		if v := l[i+1]; v > m1 {
			m1 = v
		}
		if v := l[i+2]; v > m2 {
			m2 = v
		}
		if v := l[i+3]; v > m3 {
			m3 = v
		}
	}
	for ; i < len(l); i++ {
		if v := l[i]; v > m0 {
			m0 = v
		}
	}
	return max(m0, m1, m2, m3)
}

// rowLossAll is rowLoss for the dense objectives: −log softmax(l/T) at
// the positive over the U candidates (columns 1…U); column 0, the
// positive again, carries the −1 of the target (−(1−ε) with label
// smoothing ε, whose ε/k on each of the k candidates goes to their
// columns). With answer targets the row's other answers stay among the
// candidates and the target 1−ε is shared by its a answers: the loss is
// −(1−ε)·mean over the answers of log softmax, each answer's column
// carrying −(1−ε)/a.
func (t *trainState[T]) rowLossAll(wr float64, l, dl []T, r int) {
	tau := t.objective.temperature()
	answers := t.excl[t.exclAt[r]:t.exclAt[r+1]] // unique, the positive's column not among them
	out := answers                               // the columns that leave the row
	if t.objective.AnswerTargets {
		out = nil
	}
	e, src := dl[1:], l[1:]
	top := rowMax(src)
	if len(out) > 0 {
		// The excluded candidates leave the row: −Inf in a copy of it, out
		// of the max, their exponentials 0 and out of the sum of logits.
		copy(e, src)
		for _, c := range out {
			e[c] = T(math.Inf(-1))
		}
		src = e
		top = rowMax(e)
	}
	mx := float64(top) / tau
	// One pass: e = exp(l/T − max) in dl (scaled to the softmax's
	// gradient below), Σ e, and Σ l over the k candidates for smoothing.
	z, sumL := kernel.ExpSum(e, src, T(1/tau), T(mx))
	logZ := math.Log(z)
	eps := t.objective.Smoothing
	// With smoothing, the mean of the k candidates' l/T − max.
	meanX, k := 0.0, len(e)-len(out)
	if eps > 0 {
		meanX = sumL/float64(max(k, 1))/tau - mx
	}
	// The gradient softmax − target: the target is (1−ε)/a on each of
	// the a answers (the positive's share in column 0) and ε/k on each
	// candidate.
	scale, u := T(wr/(z*tau)), T(eps*wr/(float64(k)*tau))
	kernel.ScaleShift(e, scale, u)
	if u != 0 { // the columns out of the row got −u
		for _, c := range out {
			e[c] = 0
		}
	}
	a, sumA := 1, float64(l[0])
	if t.objective.AnswerTargets {
		a += len(answers)
		share := T((1 - eps) * wr / (float64(a) * tau))
		for _, c := range answers {
			e[c] -= share
			sumA += float64(l[1+c])
		}
	}
	dl[0] = T(-(1 - eps) * wr / (float64(a) * tau))
	t.pos[r] = wr * (sumA/float64(a)/tau - mx - logZ)
	if eps > 0 {
		t.pos[r] = (1-eps)*t.pos[r] + eps*wr*(meanX-logZ)
	}
	t.neg[r] = t.pos[r]
	if lam := t.objective.Sigmoid; lam > 0 {
		t.rowSigmoid(lam*wr, l, dl, r)
	}
}

// rowSigmoid adds w times the reference's loss over row r's candidates,
// ½(−logσ(l₀) − mean_j logσ(−l_j)) for the candidates j but the
// positive's column and the excluded ones, to the row's loss terms and
// gradient dl: one vector pass (kernel.SigmoidLoss) over a copy of the
// row in which those columns are −Inf, which the pass leaves out.
func (t *trainState[T]) rowSigmoid(w float64, l, dl []T, r int) {
	x := float64(l[0])
	t.pos[r] += w * qe.LogSigmoid(x)
	dl[0] += T(-0.5 * w * qe.Sigmoid(-x))
	excl := t.excl[t.exclAt[r]:t.exclAt[r+1]] // unique, the positive's column not among them
	n := len(l) - 2 - len(excl)
	if n <= 0 {
		return
	}
	u := t.sig[r*t.cols : (r+1)*t.cols][1:]
	copy(u, l[1:])
	for _, j := range excl {
		u[j] = T(math.Inf(-1))
	}
	u[t.posCol[r]] = T(math.Inf(-1))
	sum := kernel.SigmoidLoss(dl[1:], u, T(0.5*w/float64(n)))
	t.neg[r] -= w * sum / float64(n)
}

// denseBackward is entityBackward for the dense objectives: every
// candidate's feature gradient (and the queries' Σ g·f in the first
// accumulator block) by products, then every candidate row's gradient,
// written when overwrite (and checked) or added; with stale, the rows of
// the entities that are not candidates are set to zero.
func (w *Workspace[T]) denseBackward(overwrite, stale bool) {
	m, t := w.m, &w.train
	d, cols, n := m.cfg.Dim, t.cols, len(t.uniq)
	t.dfeat, t.dent = grow(t.dfeat, n*2*d), grow(t.dent, cols)
	acc := grow(t.acc[0], t.crows*2*d)
	t.acc[0] = acc
	for blk := 1; blk < scoreBlocks; blk++ {
		t.acc[blk] = t.acc[blk][:0]
	}
	g := t.ddist
	// Σ of every candidate column by the vector kernel; dent[1+i] is then
	// candidate i's (column 0, the positives, is added row by row below).
	kernel.SumRows(t.dent, g, t.crows, cols)
	m.gemmDense(true, false, n, 2*d, t.crows, g[1:], cols, t.q, 2*d, t.dfeat, 2*d)
	m.gemmDense(false, false, t.crows, 2*d, n, g[1:], cols, t.feat, 2*d, acc, 2*d)
	for _, r := range t.runs {
		s := &r.score
		for c := range r.prog.outputs {
			x0 := s.crow0 + c*r.rows
			for b := range r.rows {
				x := x0 + b
				// Column 0: the positive's distance once more.
				p, g0 := int(t.posCol[s.row0+b]), g[x*cols]
				t.dent[1+p] += g0
				kernel.Axpy(g0, t.q[x*2*d:(x+1)*2*d], t.dfeat[p*2*d:(p+1)*2*d])
				kernel.Axpy(g0, t.feat[p*2*d:(p+1)*2*d], acc[x*2*d:(x+1)*2*d])
			}
		}
	}
	tab, grad := m.params[m.entity].Data, m.grad(m.entity)
	var bad [maxParts]bool
	parallelFor(n, 64, func(part, lo, hi int) {
		scratch := t.part[part][:4*d]
		for i := lo; i < hi; i++ {
			e := int(t.uniq[i])
			df, row := t.dfeat[i*2*d:(i+1)*2*d], tab[e*2*d:(e+1)*2*d]
			if r32, ok := any(row).([]float32); ok {
				df32 := any(df).([]float32)
				kernel.GammaFeaturesGrad(df32[:d], df32[d:], r32[:d], r32[d:], float32(t.dent[1+i]), regMin, regMax)
			} else {
				gammaFeaturesGrad(df[:d], df[d:], row[:d], row[d:], t.dent[1+i], scratch)
			}
			if overwrite {
				bad[part] = bad[part] || nonFinite(df)
				copy(grad[e*2*d:(e+1)*2*d], df)
			} else {
				kernel.Axpy(1, df, grad[e*2*d:(e+1)*2*d])
			}
			if stale {
				t.clearGap(grad, i, 2*d)
			}
		}
	})
	t.entityBad = [scoreBlocks]bool{}
	for _, b := range bad {
		t.entityBad[0] = t.entityBad[0] || b
	}
}
