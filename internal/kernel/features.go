package kernel

import (
	"fmt"
	"math"
)

// The entity side of the Gamma KL score, fused: one pass per embedding row
// instead of a dozen (clamp, ψ, lnΓ, ln, quotient, sums), and ψ and lnΓ
// share one recurrence shift. float32 only: the float64 path of the model
// composes Lgamma, Digamma and Log, which is the specification these are
// tested against. Arithmetic runs in float64 lanes and is rounded once.

// GammaFeatures sets, elementwise with a = clamp(xa+1, lo, hi) and
// b = clamp(xb+1, lo, hi) (the model's regulariser, in float32):
// f1 = ln b − ψ(a) and f2 = a/b, and returns Σ (aψ(a) − lnΓ(a) − a), the
// entity-only term of the KL distance. Accuracy: ≤ 1e-6 relative per
// element; the sum is taken in float64 in 8 interleaved partial sums.
func GammaFeatures(f1, f2, xa, xb []float32, lo, hi float32) float32 {
	defer clearUpper()
	checkFeatures("GammaFeatures", len(f1), len(f2), len(xa), len(xb))
	return cur.features(f1, f2, xa, xb, lo, hi)
}

// GammaFeaturesGrad turns g1 and g2, the gradients of the features f1 and
// f2 of GammaFeatures, into those of xa and xb in place (ge is the
// gradient of the entity-only sum): with a, b as there,
//
//	∂/∂a = −ψ'(a)·g1 + g2/b + ge·(aψ'(a) − 1),  ∂/∂b = (g1 − g2·a/b)/b,
//
// zero where the clamp is active (inclusive bounds, as torch.clamp).
func GammaFeaturesGrad(g1, g2, xa, xb []float32, ge, lo, hi float32) {
	defer clearUpper()
	checkFeatures("GammaFeaturesGrad", len(g1), len(g2), len(xa), len(xb))
	cur.featuresGrad(g1, g2, xa, xb, ge, lo, hi)
}

func checkFeatures(name string, n ...int) {
	for _, v := range n[1:] {
		if v != n[0] {
			panic(fmt.Sprintf("kernel.%s: lengths %v differ", name, n))
		}
	}
}

// clampReg is the model's regulariser clamp(x+1, lo, hi) in float32.
func clampReg(x, lo, hi float32) float32 {
	x++
	if x < lo {
		return lo
	}
	if x > hi {
		return hi
	}
	return x
}

// psiLgamma64 returns ψ(a) and lnΓ(a) for a > 0 from one shift: below
// specialT, a is moved up by 8 with ψ(a) = ψ(y) − Σ 1/(a+i)
// and lnΓ(a) = lnΓ(y) − ln Π(a+i), where Π is the shift's denominator; at
// y both take their asymptotic series around the one ln y.
func psiLgamma64(a float64) (psi, lg float64) {
	small := a < specialT
	y := min(a, specialT)
	num, den := 0.0, 1.0
	for range 8 {
		num = math.FMA(num, y, den)
		den *= y
		y++
	}
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

// featureAt computes element i of GammaFeatures and adds its entity-only
// term to acc[i%8]: the twin's body and the vector kernels' tail.
func featureAt(f1, f2, xa, xb []float32, lo, hi float32, i int, acc *[8]float64) {
	a, b := float64(clampReg(xa[i], lo, hi)), float64(clampReg(xb[i], lo, hi))
	psi, lg := psiLgamma64(a)
	f1[i] = float32(log64(b) - psi)
	f2[i] = float32(a / b)
	acc[i%8] += math.FMA(a, psi, 0-lg) - a
}

func sumAcc(acc *[8]float64) float32 {
	s := 0.0
	for _, v := range acc {
		s += v
	}
	return float32(s)
}

// featuresTwin is the scalar specification of the vector kernels.
func featuresTwin(f1, f2, xa, xb []float32, lo, hi float32) float32 {
	var acc [8]float64
	for i := range xa {
		featureAt(f1, f2, xa, xb, lo, hi, i, &acc)
	}
	return sumAcc(&acc)
}

// featureGradAt computes element i of GammaFeaturesGrad.
func featureGradAt(g1, g2, xa, xb []float32, ge, lo, hi float32, i int) {
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

func featuresGradTwin(g1, g2, xa, xb []float32, ge, lo, hi float32) {
	for i := range xa {
		featureGradAt(g1, g2, xa, xb, ge, lo, hi, i)
	}
}
