package kernel

import "math"

// The pure-Go level's GammaFeatures and GammaFeaturesGrad: the twins'
// algorithm in float64 arithmetic, rounded once. As scalar code float64 is
// faster than the twins' float32 (no emulated fused multiply-adds, one
// series for both ψ and lnΓ without the large-a forms), and more accurate.

func featuresGo(f1, f2, xa, xb []float32, lo, hi float32) float32 {
	var acc [8]float64
	for i := range xa {
		featureAt64(f1, f2, xa, xb, lo, hi, i, &acc)
	}
	return sumAcc(&acc)
}

func featuresGradGo(g1, g2, xa, xb []float32, ge, lo, hi float32) {
	for i := range xa {
		featureGradAt64(g1, g2, xa, xb, ge, lo, hi, i)
	}
}

// psiLgamma64 returns ψ(a) and lnΓ(a) for a > 0 from one shift: below
// specialT, a is moved up by 8 with ψ(a) = ψ(y) − Σ 1/(a+i)
// and lnΓ(a) = lnΓ(y) − ln Π(a+i), where Π is the shift's denominator; at
// y both take their asymptotic series around the one ln y.
func psiLgamma64(a float64) (psi, lg float64) {
	small, y, num, den := shiftUp64(a)
	if !small {
		y, num, den = a, 0, 1
	}
	// One division for 1/y and the shift num/den.
	inv := 1 / (den * y)
	t := den * inv
	shift := num * (y * inv)
	l := log64(y)
	w := t * t
	sd := math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, dg8, dg7), dg6), dg5), dg4), dg3), dg2), dg1)
	psi = math.FMA(w, sd, math.FMA(-0.5, t, l)) - shift
	ss := math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, st6, st5), st4), st3), st2), st1)
	lg = math.FMA(y-0.5, l-1, math.FMA(ss, t, stirlingC)) - log64(den)
	if !(a > 0) {
		return math.NaN(), math.NaN()
	}
	return psi, lg
}

// featureAt64 is featureAt in float64 arithmetic.
func featureAt64(f1, f2, xa, xb []float32, lo, hi float32, i int, acc *[8]float64) {
	a, b := float64(clampReg(xa[i], lo, hi)), float64(clampReg(xb[i], lo, hi))
	psi, lg := psiLgamma64(a)
	f1[i] = float32(log64(b) - psi)
	f2[i] = float32(a / b)
	acc[i%8] += math.FMA(a, psi, 0-lg) - a
}

// featureGradAt64 is featureGradAt in float64 arithmetic.
func featureGradAt64(g1, g2, xa, xb []float32, ge, lo, hi float32, i int) {
	a, ib := float64(clampReg(xa[i], lo, hi)), 1/float64(clampReg(xb[i], lo, hi))
	tr := trigamma64(a)
	u, v := float64(g1[i]), float64(g2[i])
	ga := math.FMA(float64(ge), math.FMA(a, tr, -1), math.FMA(v, ib, 0-tr*u))
	gb := (u - v*a*ib) * ib
	if x := xa[i] + 1; x >= lo && x <= hi {
		g1[i] = float32(ga)
	} else {
		g1[i] = 0
	}
	if x := xb[i] + 1; x >= lo && x <= hi {
		g2[i] = float32(gb)
	} else {
		g2[i] = 0
	}
}
