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
	mu sync.Mutex
	h  *halves
}

func (n *Net) halves(grad bool) *halves {
	n.cache.mu.Lock()
	defer n.cache.mu.Unlock()
	if h := n.cache.h; h != nil && (!grad || h.dAxis != nil) {
		return h
	}
	N, d := n.cfg.Entities, n.cfg.Dim
	h := &halves{sin: make([]float64, N*d), cos: make([]float64, N*d)}
	if grad {
		h.dAxis = make([]float64, N*d)
	}
	baseline.Range(N*d, func(lo, hi int) {
		for k := lo; k < hi; k++ {
			if k%1024 == 0 {
				kernel.ClearUpper()
			}
			th := math.Tanh(n.entity.Data[k] / n.rho)
			h.sin[k], h.cos[k] = math.Sincos(th * math.Pi / 2)
			if grad {
				h.dAxis[k] = math.Pi * (1 - th*th) / n.rho
			}
		}
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
		// dh is d|sin(u/2)|/du from sin(u/2) and cos(u/2).
		dh := func(s, c float64) float64 { return 0.5 * c * ad.Sign(s) }
		for c, id := range ids {
			if g[c] == 0 {
				continue
			}
			kernel.ClearUpper()
			gm[0] -= g[c] * dists[c]
			gd := -g[c] * mod
			r, ent := c/k, int(id)
			for i := range d {
				j, p := r*d+i, ent*d+i
				se, ce := h.sin[p], h.cos[p]
				su, cu := se*qs.ca[j]-ce*qs.sa[j], ce*qs.ca[j]+se*qs.sa[j] // (e−a)/2
				toAxis, base := math.Abs(su), math.Abs(qs.sg[j])
				// The outside distance's terms, weighted by whether the
				// entity is outside (computed either way: no branch).
				s1, c1 := se*qs.c1[j]-ce*qs.s1[j], ce*qs.c1[j]+se*qs.s1[j] // (e−a+g)/2
				s2, c2 := se*qs.c2[j]-ce*qs.s2[j], ce*qs.c2[j]+se*qs.s2[j] // (e−a−g)/2
				d1, d2 := math.Abs(s1), math.Abs(s2)
				out := outside(toAxis, base)
				w1, w2 := out*ad.Tie(d1, d2), out*ad.Tie(d2, d1)
				h1, h2 := dh(s1, c1), dh(s2, c2)
				de := w1*h1 + w2*h2
				da := -w1*h1 - w2*h2
				dg := w1*h1 - w2*h2
				wt, wb := cen*ad.Tie(toAxis, base), cen*ad.Tie(base, toAxis)
				ht := dh(su, cu)
				de += wt * ht
				da -= wt * ht
				dg += wb * dh(qs.sg[j], qs.cg[j])
				pg[p] += gd * de * h.dAxis[p]
				ga[j] += gd * da
				gg[j] += gd * dg
			}
		}
	})
}

// outside is 1 when an entity at toAxis from the axis is outside an
// aperture of half-width base (not toAxis < base), else 0, as a flag.
func outside(toAxis, base float64) float64 {
	in := 0
	if toAxis < base {
		in = 1
	}
	return float64(1 - in)
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

// ParamsChanged drops the entity halves.
func (n *Net) ParamsChanged() {
	n.cache.mu.Lock()
	n.cache.h = nil
	n.cache.mu.Unlock()
}
