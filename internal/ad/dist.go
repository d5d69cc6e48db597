package ad

import "math"

// The baselines' distances between an entity (a row of a parameter table)
// and a query embedding, fused into one scalar node each: a training batch
// scores every query against ~130 entities, and recording the elementwise
// steps separately allocated gigabytes per step. Each derivative follows
// the composition of torch operations the authors' code uses.

// scalarNode records a scalar value with a backward function.
func (t *Tape) scalarNode(v float64, back func(g float64)) V {
	y := t.alloc(1)
	y[0] = v
	return t.node(y, func(g []float64) { back(g[0]) })
}

// rowGrad is the gradient row of p's row r on this tape.
func (t *Tape) rowGrad(p *Param, r int) []float64 {
	return t.gradOf(p)[r*p.Cols : (r+1)*p.Cols]
}

// sign is torch's sign (0 at 0).
func sign(x float64) float64 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

// L1Dist is Σ|e − q| for e = row r of p (GQE).
func (t *Tape) L1Dist(p *Param, r int, q V) V {
	e, qv := p.Row(r), t.val[q]
	s := 0.0
	for i, v := range e {
		s += math.Abs(v - qv[i])
	}
	return t.scalarNode(s, func(g float64) {
		ge, gq := t.rowGrad(p, r), t.G(q)
		for i, v := range e {
			d := g * sign(v-qv[i])
			ge[i] += d
			gq[i] -= d
		}
	})
}

// BoxDist is Σ relu(|e−c| − o) + cen·Σ min(|e−c|, o) for e = row r of p
// (Query2Box).
func (t *Tape) BoxDist(p *Param, r int, c, o V, cen float64) V {
	e, cv, ov := p.Row(r), t.val[c], t.val[o]
	s := 0.0
	for i, v := range e {
		delta := math.Abs(v - cv[i])
		s += math.Max(delta-ov[i], 0) + cen*math.Min(delta, ov[i])
	}
	return t.scalarNode(s, func(g float64) {
		ge, gc, gO := t.rowGrad(p, r), t.G(c), t.G(o)
		for i, v := range e {
			delta := math.Abs(v - cv[i])
			var dDelta, dO float64
			if delta-ov[i] > 0 {
				dDelta, dO = 1, -1
			}
			dDelta += cen * tie(delta, ov[i])
			dO += cen * tie(ov[i], delta)
			sd := g * dDelta * sign(v-cv[i])
			ge[i] += sd
			gc[i] -= sd
			gO[i] += g * dO
		}
	})
}

// betaQuery holds the query-side terms of the Beta KL of one embedding:
// every candidate's distance needs them.
type betaQuery struct {
	lg               []float64 // lnΓ(αq) + lnΓ(βq) − lnΓ(αq+βq)
	psiA, psiB, psiS []float64 // ψ(αq), ψ(βq), ψ(αq+βq)
}

func (t *Tape) betaQueryTerms(aq, bq V) *betaQuery {
	return t.memoize(aq, func() any {
		av, bv := t.val[aq], t.val[bq]
		q := &betaQuery{lg: make([]float64, len(av)), psiA: make([]float64, len(av)), psiB: make([]float64, len(av)), psiS: make([]float64, len(av))}
		for i, a := range av {
			b := bv[i]
			la, _ := math.Lgamma(a)
			lb, _ := math.Lgamma(b)
			ls, _ := math.Lgamma(a + b)
			q.lg[i] = la + lb - ls
			q.psiA[i], q.psiB[i], q.psiS[i] = Digamma(a), Digamma(b), Digamma(a+b)
		}
		return q
	}).(*betaQuery)
}

// BetaKLDist is Σ|KL(Beta(αp, βp) ‖ Beta(αq, βq))| where [αp | βp] =
// clamp(row r of p + 1, lo, hi) (BetaE; torch's Beta KL):
//
//	KL = lnΓ(αq)+lnΓ(βq)−lnΓ(sq) − lnΓ(αp)−lnΓ(βp)+lnΓ(sp)
//	     + (αp−αq)ψ(αp) + (βp−βq)ψ(βp) + (sq−sp)ψ(sp),  s = α+β.
func (t *Tape) BetaKLDist(p *Param, r int, aq, bq V, lo, hi float64) V {
	row, av, bv := p.Row(r), t.val[aq], t.val[bq]
	qt := t.betaQueryTerms(aq, bq)
	d := len(av)
	reg := func(x float64) float64 { return math.Min(math.Max(x+1, lo), hi) }
	kl := make([]float64, d) // signs for the backward pass
	psiP := make([]float64, 3*d)
	s := 0.0
	for i := range d {
		ap, bp := reg(row[i]), reg(row[d+i])
		sp, sq := ap+bp, av[i]+bv[i]
		pa, pb, ps := Digamma(ap), Digamma(bp), Digamma(sp)
		la, _ := math.Lgamma(ap)
		lb, _ := math.Lgamma(bp)
		ls, _ := math.Lgamma(sp)
		kl[i] = qt.lg[i] - la - lb + ls + (ap-av[i])*pa + (bp-bv[i])*pb + (sq-sp)*ps
		psiP[3*i], psiP[3*i+1], psiP[3*i+2] = pa, pb, ps
		s += math.Abs(kl[i])
	}
	return t.scalarNode(s, func(g float64) {
		ge, ga, gb := t.rowGrad(p, r), t.G(aq), t.G(bq)
		for i := range d {
			xa, xb := row[i]+1, row[d+i]+1
			ap, bp := reg(row[i]), reg(row[d+i])
			a, b := av[i], bv[i]
			sg := g * sign(kl[i])
			sp, sq := ap+bp, a+b
			tsp := Trigamma(sp)
			if xa >= lo && xa <= hi {
				ge[i] += sg * ((ap-a)*Trigamma(ap) + (sq-sp)*tsp)
			}
			if xb >= lo && xb <= hi {
				ge[d+i] += sg * ((bp-b)*Trigamma(bp) + (sq-sp)*tsp)
			}
			pa, pb, ps := psiP[3*i], psiP[3*i+1], psiP[3*i+2]
			ga[i] += sg * (qt.psiA[i] - qt.psiS[i] - pa + ps)
			gb[i] += sg * (qt.psiB[i] - qt.psiS[i] - pb + ps)
		}
	})
}

// ConeDist is ConE's logit γ − (Σ d_out + cen·Σ d_in)·modulus for the
// entity axis e = π·tanh(x/ρ), x = row r of p, a query (axis, arg), and the
// scalar parameter modulus (cal_logit_cone).
func (t *Tape) ConeDist(p *Param, r int, axis, arg V, mod *Param, rho, cen, gamma float64) V {
	x, av, gv := p.Row(r), t.val[axis], t.val[arg]
	h := func(u float64) float64 { return math.Abs(math.Sin(u / 2)) }
	dist := 0.0
	for i, xv := range x {
		e := math.Pi * math.Tanh(xv/rho)
		a, g := av[i], gv[i]
		toAxis, base := h(e-a), h(g)
		if !(toAxis < base) {
			dist += math.Min(h(e-a+g), h(e-a-g))
		}
		dist += cen * math.Min(toAxis, base)
	}
	m := mod.Data[0]
	return t.scalarNode(gamma-dist*m, func(gl float64) {
		t.gradOf(mod)[0] -= gl * dist
		gd := -gl * m // d logit / d dist
		ge, ga, gg := t.rowGrad(p, r), t.G(axis), t.G(arg)
		dh := func(u float64) float64 { return 0.5 * math.Cos(u/2) * sign(math.Sin(u/2)) }
		for i, xv := range x {
			th := math.Tanh(xv / rho)
			e := math.Pi * th
			a, g := av[i], gv[i]
			toAxis, base := h(e-a), h(g)
			var de, da, dg float64
			if !(toAxis < base) {
				d1, d2 := h(e-a+g), h(e-a-g)
				w1, w2 := tie(d1, d2), tie(d2, d1)
				h1, h2 := dh(e-a+g), dh(e-a-g)
				de += w1*h1 + w2*h2
				da += -w1*h1 - w2*h2
				dg += w1*h1 - w2*h2
			}
			wt, wb := cen*tie(toAxis, base), cen*tie(base, toAxis)
			ht := dh(e - a)
			de += wt * ht
			da -= wt * ht
			dg += wb * dh(g)
			ge[i] += gd * de * math.Pi * (1 - th*th) / rho
			ga[i] += gd * da
			gg[i] += gd * dg
		}
	})
}
