package kernel

import "math"

// ConeGradArgs are the operands of ConeGrad: one candidate entity against
// one query row of ConE's distance, d dimensions each.
type ConeGradArgs struct {
	G   float64 // upstream gradient of the row's distance (γ − dist·mod: −g·mod)
	Cen float64 // the inside distance's weight λ

	// Entity side: sin and cos of half the axis, and the axis' derivative.
	Sin, Cos, DAxis []float64
	// Query side: sin and cos of axis/2, (axis−arg)/2, (axis+arg)/2 and
	// arg/2.
	SA, CA, S1, C1, S2, C2, SG, CG []float64
	// Gradients accumulated into: the entity's table row, the query's
	// axis and arg.
	GE, GA, GG []float64
}

// ConeGrad accumulates the gradient of G·(Σ d_out + λ·Σ d_in) (ConeRows'
// distance, e the entity's axis, a the query's, g its aperture) into the
// entity's table row and the query's axis and arg, with torch.min's
// halving at ties and d|sin(u/2)|/du = ½cos(u/2)·sign(sin(u/2)).
func ConeGrad(x *ConeGradArgs) {
	defer clearUpper()
	d := len(x.SA)
	for _, s := range [][]float64{x.Sin, x.Cos, x.DAxis, x.CA, x.S1, x.C1, x.S2, x.C2, x.SG, x.CG, x.GE, x.GA, x.GG} {
		checkLen("ConeGrad", len(s), d)
	}
	i := 0
	if cur.coneGrad != nil {
		i = cur.coneGrad(x)
	}
	coneGradGo(x, i)
}

// tie is the share of min(x, y)'s gradient that goes to x.
func tie(x, y float64) float64 {
	if x < y {
		return 1
	}
	if x == y {
		return 0.5
	}
	return 0
}

// coneGradGo is the specification, from element i on.
func coneGradGo(x *ConeGradArgs, i int) {
	for ; i < len(x.SA); i++ {
		se, ce := x.Sin[i], x.Cos[i]
		su, cu := se*x.CA[i]-ce*x.SA[i], ce*x.CA[i]+se*x.SA[i] // (e−a)/2
		toAxis, base := math.Abs(su), math.Abs(x.SG[i])
		s1, c1 := se*x.C1[i]-ce*x.S1[i], ce*x.C1[i]+se*x.S1[i] // (e−a+g)/2
		s2, c2 := se*x.C2[i]-ce*x.S2[i], ce*x.C2[i]+se*x.S2[i] // (e−a−g)/2
		d1, d2 := math.Abs(s1), math.Abs(s2)
		out := 1.0 // the outside distance counts unless the entity is inside
		if toAxis < base {
			out = 0
		}
		w1, w2 := out*tie(d1, d2), out*tie(d2, d1)
		h1, h2 := 0.5*c1*sign64(s1), 0.5*c2*sign64(s2)
		p1, p2 := w1*h1, w2*h2
		de := p1 + p2
		da := -p1 - p2
		dg := p1 - p2
		wt, wb := x.Cen*tie(toAxis, base), x.Cen*tie(base, toAxis)
		pt := wt * (0.5 * cu * sign64(su))
		de += pt
		da -= pt
		dg += wb * (0.5 * x.CG[i] * sign64(x.SG[i]))
		x.GE[i] += x.G * de * x.DAxis[i]
		x.GA[i] += x.G * da
		x.GG[i] += x.G * dg
	}
}
