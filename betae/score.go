package betae

import (
	"math"
	"sync"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
	"github.com/gammae/gammae/internal/kernel"
)

// features are the entity-side terms of the Beta KL, per entity and
// dimension, computed once per parameter version: with p the entity and q
// the query,
//
//	KL = lnΓ(αq)+lnΓ(βq)−lnΓ(sq) + E − αq·ψ(αp) − βq·ψ(βp) + sq·ψ(sp),
//	E  = lnΓ(sp)−lnΓ(αp)−lnΓ(βp) + αp·ψ(αp) + βp·ψ(βp) − sp·ψ(sp),
//
// s = α+β. Scoring a query is then a few products per element instead of
// six special functions (32 bytes per entity and dimension); training
// also keeps the trigammas ψ'(αp), ψ'(βp), ψ'(sp) for the gradient.
type features struct {
	a, b                []float64 // αp, βp
	psiA, psiB, psiS, e []float64
	triA, triB, triS    []float64 // nil unless computed for a gradient
}

// cache holds the features of the current parameters: exact (float64)
// for scoring and the checks, and from the float32 kernels for training
// with float32 products; slabs recycles their arrays from step to step.
type cache struct {
	mu          sync.Mutex
	exact, fast *features
	slabs       baseline.Slabs
}

// reg is the regulariser clamp(x + 1, 0.05, 1e9) (NaN stays NaN).
func reg(x float64) float64 {
	x++
	if x < regLo {
		return regLo
	}
	if x > regHi {
		return regHi
	}
	return x
}

// features returns the entity terms, with the trigammas when grad is set.
func (n *Net) features(fast, grad bool) *features {
	n.cache.mu.Lock()
	defer n.cache.mu.Unlock()
	slot := &n.cache.exact
	if fast {
		slot = &n.cache.fast
	}
	if f := *slot; f != nil && (!grad || f.triA != nil) {
		return f
	}
	N, d := n.cfg.Entities, n.cfg.Dim
	get := func() []float64 { return n.cache.slabs.Get(N * d) }
	a, b, s := get(), get(), get()
	baseline.Range(N, func(lo, hi int) {
		for ent := lo; ent < hi; ent++ {
			row := n.entity.Data[ent*2*d : (ent+1)*2*d]
			for i := range d {
				k := ent*d + i
				a[k], b[k] = reg(row[i]), reg(row[d+i])
				s[k] = a[k] + b[k]
			}
		}
	})
	lgamma, digamma, trigamma := exactSpecial(kernel.Lgamma[float64]), exactSpecial(kernel.Digamma[float64]), exactSpecial(kernel.Trigamma[float64])
	if fast {
		lgamma, digamma, trigamma = kernel.LgammaFast, kernel.DigammaFast, kernel.TrigammaFast
	}
	f := &features{a: a, b: b, psiA: get(), psiB: get(), psiS: get(), e: get()}
	digamma(f.psiA, a)
	digamma(f.psiB, b)
	digamma(f.psiS, s)
	la, lb, ls := get(), get(), get()
	lgamma(la, a)
	lgamma(lb, b)
	lgamma(ls, s)
	baseline.Range(len(f.e), func(lo, hi int) {
		for k := lo; k < hi; k++ {
			f.e[k] = ls[k] - la[k] - lb[k] + a[k]*f.psiA[k] + b[k]*f.psiB[k] - s[k]*f.psiS[k]
		}
	})
	if grad {
		f.triA, f.triB, f.triS = get(), get(), get()
		trigamma(f.triA, a)
		trigamma(f.triB, b)
		trigamma(f.triS, s)
	}
	n.cache.slabs.Put(s, la, lb, ls)
	*slot = f // a replaced one (without trigammas) may still be read: left to the collector
	return f
}

// exactSpecial runs the float64 reference f on every core. (The fast
// kernels are vectorised and multi-core themselves.)
func exactSpecial(f func(dst, x []float64)) func(dst, x []float64) {
	return func(dst, x []float64) {
		baseline.Range(len(x), func(lo, hi int) { f(dst[lo:hi], x[lo:hi]) })
	}
}

// queryTerms are the query side of the KL per row and dimension:
// lnΓ(αq)+lnΓ(βq)−lnΓ(sq), and ψ(αq), ψ(βq), ψ(sq) for the gradient.
type queryTerms struct {
	lg, psiA, psiB, psiS []float64
}

func terms(t *ad.Tape, q baseline.Emb) *queryTerms {
	return t.Memo(q[0], func() any {
		av, bv := t.Val(q[0]), t.Val(q[1])
		qt := &queryTerms{lg: make([]float64, len(av))}
		for i, a := range av {
			la, _ := math.Lgamma(a)
			lb, _ := math.Lgamma(bv[i])
			ls, _ := math.Lgamma(a + bv[i])
			qt.lg[i] = la + lb - ls
		}
		if t.Training() {
			qt.psiA, qt.psiB, qt.psiS = make([]float64, len(av)), make([]float64, len(av)), make([]float64, len(av))
			for i, a := range av {
				qt.psiA[i], qt.psiB[i], qt.psiS[i] = ad.Digamma(a), ad.Digamma(bv[i]), ad.Digamma(a+bv[i])
			}
		}
		return qt
	}).(*queryTerms)
}

// klDist records ‖KL(Beta(entity) ‖ Beta(query))‖₁ of every row's
// candidates ids (k per row) with torch's Beta KL and its derivatives:
//
//	∂/∂αq = ψ(αq) − ψ(sq) − ψ(αp) + ψ(sp)
//	∂/∂αp = (αp−αq)ψ'(αp) + (sq−sp)ψ'(sp)   (where the clamp passes)
//
// and likewise for β, times the sign of each dimension's KL.
func (n *Net) klDist(t *ad.Tape, q baseline.Emb, ids []int32) ad.V {
	d, rows := n.cfg.Dim, t.Rows()
	k := len(ids) / rows
	f := n.features(t.Float32(), t.Training())
	qt := terms(t, q)
	av, bv := t.Val(q[0]), t.Val(q[1])
	out := t.Alloc(len(ids))
	for c, id := range ids {
		r, p := c/k*d, int(id)*d
		kernel.BetaRows(out[c:c+1], f.psiA[p:p+d], f.psiB[p:p+d], f.psiS[p:p+d], f.e[p:p+d], qt.lg[r:r+d], av[r:r+d], bv[r:r+d], 0)
		out[c] = -out[c]
	}
	return t.Custom(out, func(g []float64) {
		ga, gb, pg := t.G(q[0]), t.G(q[1]), t.ParamGrad(n.entity)
		x := kernel.BetaGradArgs{Lo: regLo, Hi: regHi}
		for c, id := range ids {
			if g[c] == 0 {
				continue
			}
			r, ent := c/k, int(id)
			row, ge := n.entity.Data[ent*2*d:(ent+1)*2*d], pg[ent*2*d:(ent+1)*2*d]
			j, p := r*d, ent*d
			x.G = g[c]
			x.RawA, x.RawB, x.GeA, x.GeB = row[:d], row[d:], ge[:d], ge[d:]
			x.A, x.B, x.PsiA, x.PsiB, x.PsiS, x.E = f.a[p:p+d], f.b[p:p+d], f.psiA[p:p+d], f.psiB[p:p+d], f.psiS[p:p+d], f.e[p:p+d]
			x.TriA, x.TriB, x.TriS = f.triA[p:p+d], f.triB[p:p+d], f.triS[p:p+d]
			x.QA, x.QB, x.Lg, x.GA, x.GB = av[j:j+d], bv[j:j+d], qt.lg[j:j+d], ga[j:j+d], gb[j:j+d]
			x.QPsiA, x.QPsiB, x.QPsiS = qt.psiA[j:j+d], qt.psiB[j:j+d], qt.psiS[j:j+d]
			kernel.BetaGrad(&x)
		}
	})
}

// ScoreAll writes γ − ‖KL(Beta(e) ‖ Beta(q))‖₁ for every entity e.
func (n *Net) ScoreAll(t *ad.Tape, q baseline.Emb, dst []float64) {
	f := n.features(false, false)
	N, aq, bq, d := n.cfg.Entities, t.Val(q[0]), t.Val(q[1]), n.cfg.Dim
	qt := terms(t, q)
	baseline.Blocks(N, len(dst)/N, func(r, e0, e1 int) {
		x, y := e0*d, e1*d
		kernel.BetaRows(dst[r*N+e0:r*N+e1], f.psiA[x:y], f.psiB[x:y], f.psiS[x:y], f.e[x:y],
			qt.lg[r*d:(r+1)*d], aq[r*d:(r+1)*d], bq[r*d:(r+1)*d], n.cfg.Gamma)
	})
}

// ParamsChanged drops the entity features, keeping their arrays for the
// next ones: nothing may read features across a parameter update.
func (n *Net) ParamsChanged() {
	n.cache.mu.Lock()
	for _, f := range []*features{n.cache.exact, n.cache.fast} {
		if f != nil {
			n.cache.slabs.Put(f.a, f.b, f.psiA, f.psiB, f.psiS, f.e, f.triA, f.triB, f.triS)
		}
	}
	n.cache.exact, n.cache.fast = nil, nil
	n.cache.mu.Unlock()
}
