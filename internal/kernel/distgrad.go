package kernel

import "math"

// L1Grad accumulates the gradient of g·Σᵢ|eᵢ − qᵢ| (GQE's distance of
// candidate e to query q): ge += g·sign(e − q), gq −= the same.
func L1Grad(ge, gq, e, q []float64, g float64) {
	defer clearUpper()
	d := len(e)
	for _, n := range []int{len(ge), len(gq), len(q)} {
		checkLen("L1Grad", n, d)
	}
	i := 0
	if cur.l1Grad != nil {
		i = cur.l1Grad(ge, gq, e, q, g)
	}
	for ; i < d; i++ {
		x := g * sign64(e[i]-q[i])
		ge[i] += x
		gq[i] -= x
	}
}

// BoxGrad accumulates the gradient of g·(Σ relu(δᵢ − oᵢ) + cen·Σ min(δᵢ, oᵢ)),
// δ = |e − c| (Query2Box's distance of candidate e to the box of center c
// and offset o) into ge, gc and go_, a tie of δ and o splitting min's
// gradient.
func BoxGrad(ge, gc, gO, e, c, o []float64, g, cen float64) {
	defer clearUpper()
	d := len(e)
	for _, n := range []int{len(ge), len(gc), len(gO), len(c), len(o)} {
		checkLen("BoxGrad", n, d)
	}
	i := 0
	if cur.boxGrad != nil {
		i = cur.boxGrad(ge, gc, gO, e, c, o, g, cen)
	}
	for ; i < d; i++ {
		delta := math.Abs(e[i] - c[i])
		fg, fl := 0.0, 0.0
		if delta > o[i] {
			fg = 1
		}
		if delta < o[i] {
			fl = 1
		}
		half := 0.5 * (1 - fg - fl)
		dDelta := fg + cen*(fl+half)
		dO := -fg + cen*(fg+half)
		sd := g * dDelta * sign64(e[i]-c[i])
		ge[i] += sd
		gc[i] -= sd
		gO[i] += g * dO
	}
}
