package kernel

import (
	"fmt"
	"math"
)

// The entity side of the Gamma KL score, fused: one pass per embedding row
// instead of a dozen (clamp, ψ, lnΓ, ln, quotient, sums), and ψ and lnΓ
// share one recurrence shift. float32 only: the float64 path of the model
// composes Lgamma, Digamma and Log, which is the specification these are
// tested against. The arithmetic is float32, as in the reference's float32
// autograd, with the two differences that cancel for large a (the entity
// term and aψ'(a) − 1) taken from their asymptotic series instead.

// GammaFeatures sets, elementwise with a = clamp(xa+1, lo, hi) and
// b = clamp(xb+1, lo, hi) (the model's regulariser, in float32):
// f1 = ln b − ψ(a) and f2 = a/b, and returns Σ (aψ(a) − lnΓ(a) − a), the
// entity-only term of the KL distance. Accuracy: an element is within
// ~2e-7 of the size of the terms it is made of (ln b and ψ(a) cancel in f1
// where they are close); the sum is taken in float64 in 8 interleaved
// partial sums.
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

// checkFeatures panics unless the four lengths agree. Not variadic: the
// slice of a variadic call that reaches fmt escapes, and an allocation per
// row measured ~1 % of a training iteration.
func checkFeatures(name string, n0, n1, n2, n3 int) {
	if n1 != n0 || n2 != n0 || n3 != n0 {
		panic(fmt.Sprintf("kernel.%s: lengths %d, %d, %d, %d differ", name, n0, n1, n2, n3))
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

// entC is the constant of the entity term's asymptotic form:
// aψ(a) − lnΓ(a) − a = ½ln a − ½ − ½ln 2π + O(1/a).
const entC = -0.5 - 0.91893853320467274178

// psiEnt32 returns ψ(a) and the entity term aψ(a) − lnΓ(a) − a for a > 0
// (NaN otherwise) in float32 arithmetic. Below specialT, a is moved up by 8
// with ψ(a) = ψ(y) − Σ 1/(a+i) and lnΓ(a) = lnΓ(y) − ln Π(a+i), Π the
// shift's denominator; at y both take their asymptotic series around the
// one ln y. From specialT on, aψ(a) and lnΓ(a) + a grow like a·ln a and
// their difference would lose everything to float32's rounding, so the
// entity term comes from the difference of the two series instead:
// ½ln a + entC + (sd − ss)/a, with no cancellation.
func psiEnt32(a float32) (psi, ent float32) {
	small := a < specialT
	y := min(a, specialT)
	var num, den float32 = 0, 1
	for range 8 {
		num = fma32(num, y, den)
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
	l := log32(y)
	w := t * t
	sd := fma32(w, fma32(w, dg3, dg2), dg1)
	psi = fma32(w, sd, fma32(-0.5, t, l)) - shift
	ss := fma32(w, fma32(w, st3, st2), st1)
	lg := fma32(y-0.5, l-1, fma32(ss, t, stirlingC)) - log32(den)
	ent = fma32(a, psi, 0-lg) - a
	if !small {
		ent = fma32(t, sd-ss, fma32(0.5, l, entC))
	}
	if !(a > 0) {
		nan := float32(math.NaN())
		return nan, nan
	}
	return psi, ent
}

// trigammaAm32 returns ψ'(a) and aψ'(a) − 1 for a > 0 in float32
// arithmetic, the algorithm of trigamma64 with the series cut to float32's
// precision. From specialT on, aψ'(a) − 1 = t·(½ + t·ser) (t = 1/a) is
// taken from the series, where aψ'(a) would round away the small difference.
func trigammaAm32(a float32) (tr, am float32) {
	small := a < specialT
	y := min(a, specialT)
	var num, den float32 = 0, 1
	for range 8 {
		y2 := y * y
		num = fma32(num, y2, den)
		den *= y2
		y++
	}
	shift := num / den
	if !small {
		y, shift = a, 0
	}
	t := 1 / y
	w := t * t
	h := fma32(t, fma32(w, fma32(w, tg3, tg2), tg1), 0.5)
	tr = fma32(w, h, t) + shift
	am = fma32(a, tr, -1)
	if !small {
		am = t * h
	}
	if !(a > 0) {
		nan := float32(math.NaN())
		return nan, nan
	}
	return tr, am
}

// featureAt computes element i of GammaFeatures and adds its entity-only
// term to acc[i%8]: the twin's body and the vector kernels' tail.
func featureAt(f1, f2, xa, xb []float32, lo, hi float32, i int, acc *[8]float64) {
	a, b := clampReg(xa[i], lo, hi), clampReg(xb[i], lo, hi)
	psi, ent := psiEnt32(a)
	f1[i] = log32(b) - psi
	f2[i] = a / b
	acc[i%8] += float64(ent)
}

func sumAcc(acc *[8]float64) float32 { return float32(sumAcc64(acc)) }

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
	a, ib := clampReg(xa[i], lo, hi), 1/clampReg(xb[i], lo, hi)
	tr, am := trigammaAm32(a)
	u, v := g1[i], g2[i]
	ga := fma32(ge, am, fma32(v, ib, 0-tr*u))
	gb := (u - v*a*ib) * ib
	if x := xa[i] + 1; x >= lo && x <= hi {
		g1[i] = ga
	} else {
		g1[i] = 0
	}
	if x := xb[i] + 1; x >= lo && x <= hi {
		g2[i] = gb
	} else {
		g2[i] = 0
	}
}

func featuresGradTwin(g1, g2, xa, xb []float32, ge, lo, hi float32) {
	for i := range xa {
		featureGradAt(g1, g2, xa, xb, ge, lo, hi, i)
	}
}
