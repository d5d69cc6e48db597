package cone

import (
	"math"
	"sync"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
	"github.com/gammae/gammae/internal/kernel"
)

// halves are sin and cos of half of every entity's axis, per dimension,
// computed once per parameter version: every |sin((x − y)/2)| of the
// distance is then sin(x/2)cos(y/2) − cos(x/2)sin(y/2), products only.
// For a gradient they also hold the axis' derivative π(1 − tanh²(x/ρ))/ρ.
type halves struct{ sin, cos, dAxis []float64 }

type cache struct {
	mu    sync.Mutex
	h     *halves
	slabs baseline.Slabs // the arrays of earlier halves, for the next ones
}

func (n *Net) halves(grad bool) *halves {
	n.cache.mu.Lock()
	defer n.cache.mu.Unlock()
	if h := n.cache.h; h != nil && (!grad || h.dAxis != nil) {
		return h
	}
	N, d := n.cfg.Entities, n.cfg.Dim
	h := &halves{sin: n.cache.slabs.Get(N * d), cos: n.cache.slabs.Get(N * d)}
	if grad {
		h.dAxis = n.cache.slabs.Get(N * d)
	}
	baseline.Range(N*d, func(lo, hi int) {
		var dAxis []float64
		if grad {
			dAxis = h.dAxis[lo:hi]
		}
		kernel.ConeHalves(h.sin[lo:hi], h.cos[lo:hi], dAxis, n.entity.Data[lo:hi], n.rho)
	})
	n.cache.h = h
	return h
}

// side is the query side of the distance per row and dimension: sin and
// cos of axis/2, (axis−arg)/2 and (axis+arg)/2, sin and cos of arg/2, and
// base = |sin(arg/2)|.
type side struct{ sa, ca, s1, c1, s2, c2, sg, cg, base []float64 }

func querySide(t *ad.Tape, q baseline.Emb) *side {
	return t.Memo(q[0], func() any {
		axis, arg := t.Val(q[0]), t.Val(q[1])
		m := len(axis)
		s := &side{make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m),
			make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m), make([]float64, m)}
		for i := range m {
			s.sa[i], s.ca[i] = math.Sincos(axis[i] / 2)
			s.s1[i], s.c1[i] = math.Sincos((axis[i] - arg[i]) / 2)
			s.s2[i], s.c2[i] = math.Sincos((axis[i] + arg[i]) / 2)
			s.sg[i], s.cg[i] = math.Sincos(arg[i] / 2)
			s.base[i] = math.Abs(s.sg[i])
		}
		return s
	}).(*side)
}

// coneLogits records γ − (Σ d_out + λ·Σ d_in)·modulus of every row's
// candidates ids (k per row), with the entity axis e = π·tanh(x/ρ):
//
//	d_out = min(|sin((e−a+g)/2)|, |sin((e−a−g)/2)|) unless |sin((e−a)/2)| < |sin(g/2)|
//	d_in  = min(|sin((e−a)/2)|, |sin(g/2)|)
//
// for the query's axis a and aperture g; at ties of a min each side gets
// half the gradient (torch.min of two tensors).
func (n *Net) coneLogits(t *ad.Tape, q baseline.Emb, ids []int32) ad.V {
	d, rows := n.cfg.Dim, t.Rows()
	k := len(ids) / rows
	h := n.halves(t.Training())
	qs := querySide(t, q)
	cen, mod := n.cfg.CenterReg, n.modulus.Data[0]
	out := t.Alloc(len(ids))
	dists := make([]float64, len(ids))
	for c, id := range ids {
		r, p := c/k*d, int(id)*d
		kernel.ConeRows(dists[c:c+1], h.sin[p:p+d], h.cos[p:p+d], qs.sa[r:r+d], qs.ca[r:r+d], qs.s1[r:r+d], qs.c1[r:r+d],
			qs.s2[r:r+d], qs.c2[r:r+d], qs.base[r:r+d], cen, 1, 0)
		dists[c] = -dists[c]
		out[c] = n.cfg.Gamma - dists[c]*mod
	}
	return t.Custom(out, func(g []float64) {
		ga, gg, pg, gm := t.G(q[0]), t.G(q[1]), t.ParamGrad(n.entity), t.ParamGrad(n.modulus)
		x := kernel.ConeGradArgs{Cen: cen}
		for c, id := range ids {
			if g[c] == 0 {
				continue
			}
			gm[0] -= g[c] * dists[c]
			j, p := c/k*d, int(id)*d
			x.G = -g[c] * mod
			x.Sin, x.Cos, x.DAxis, x.GE = h.sin[p:p+d], h.cos[p:p+d], h.dAxis[p:p+d], pg[p:p+d]
			x.SA, x.CA, x.S1, x.C1 = qs.sa[j:j+d], qs.ca[j:j+d], qs.s1[j:j+d], qs.c1[j:j+d]
			x.S2, x.C2, x.SG, x.CG = qs.s2[j:j+d], qs.c2[j:j+d], qs.sg[j:j+d], qs.cg[j:j+d]
			x.GA, x.GG = ga[j:j+d], gg[j:j+d]
			kernel.ConeGrad(&x)
		}
	})
}

// ScoreAll writes γ − (‖d_out‖₁ + λ‖d_in‖₁)·modulus for every entity.
func (n *Net) ScoreAll(t *ad.Tape, q baseline.Emb, dst []float64) {
	h := n.halves(false)
	qs := querySide(t, q)
	N, d := n.cfg.Entities, n.cfg.Dim
	baseline.Blocks(N, len(dst)/N, func(r, e0, e1 int) {
		x, y, a, b := e0*d, e1*d, r*d, (r+1)*d
		kernel.ConeRows(dst[r*N+e0:r*N+e1], h.sin[x:y], h.cos[x:y], qs.sa[a:b], qs.ca[a:b], qs.s1[a:b], qs.c1[a:b],
			qs.s2[a:b], qs.c2[a:b], qs.base[a:b], n.cfg.CenterReg, n.modulus.Data[0], n.cfg.Gamma)
	})
}

// ParamsChanged drops the entity halves, keeping their arrays for the
// next ones: nothing may read halves across a parameter update.
func (n *Net) ParamsChanged() {
	n.cache.mu.Lock()
	if h := n.cache.h; h != nil {
		n.cache.slabs.Put(h.sin, h.cos, h.dAxis)
	}
	n.cache.h = nil
	n.cache.mu.Unlock()
}
