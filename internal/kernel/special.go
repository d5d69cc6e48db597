package kernel

import "math"

// Float32 lgamma, digamma and trigamma, the algorithm of the vector levels.
// The arithmetic is float64 inside, so the float32 results carry only the
// final rounding plus at most ~1e-10 of approximation error. The scalar functions
// here are the exact twins of the vector code (same operations, same order,
// math.FMA where the vectors fuse): the tests hold every vector level to
// them bit for bit. (The pure-Go level itself uses the float64 reference,
// which is faster as scalar code.)
//
// lgamma: x ≥ 4 uses Stirling's series (6 terms, error < 1e-10 there).
// Below, z is moved into [1.5, 2.5] by z → z+1 (x < 1.5, at most twice) or
// z → z−1 (at most twice), the product of the factors is logged once, and
// lnΓ(z) = p·G(p), p = z−2, with G a fitted polynomial. Writing the result
// as a multiple of p keeps the relative error small at the roots x = 1, 2.
//
// digamma and trigamma: x < 8 is shifted by 8 (ψ(x) = ψ(x+8) − Σ 1/(x+i),
// ψ'(x) = ψ'(x+8) + Σ 1/(x+i)²; the sums are kept as one fraction so there is
// a single division), then the asymptotic series applies.

// lgammaG are the coefficients (p⁰ first) of G(p) = lnΓ(2+p)/p on
// [−0.5, 0.5]: the degree-13 Chebyshev interpolant of math.Lgamma, relative
// error 1e-13 (see TestLgammaPolynomial).
var lgammaG = [...]float64{
	0.42278433509844893,
	0.3224670334241182,
	-0.067352301045993074,
	0.020580808424649714,
	-0.0073855514901932642,
	0.0028905105445145652,
	-0.0011927428809071572,
	0.00050966433712216846,
	-0.00022327964143187271,
	9.9516409786052206e-05,
	-4.4206686392759101e-05,
	2.0168214437684841e-05,
	-1.1454153406832899e-05,
	5.3217767604759758e-06,
}

const (
	stirlingC = 0.91893853320467274178 - 0.5 // ½ln(2π) − ½
	specialT  = 8                            // asymptotic series from here
	lgammaT   = 4                            // lgamma: Stirling's series from here
)

// Stirling's series for lnΓ(x) − ((x−½)ln x − x + ½ln 2π): B₂ₙ/(2n(2n−1)).
const (
	st1 = 1.0 / 12
	st2 = -1.0 / 360
	st3 = 1.0 / 1260
	st4 = -1.0 / 1680
	st5 = 1.0 / 1188
	st6 = -691.0 / 360360
)

// Asymptotic series of ψ(x) − (ln x − 1/(2x)) in w = 1/x²: −B₂ₙ/(2n).
const (
	dg1 = -1.0 / 12
	dg2 = 1.0 / 120
	dg3 = -1.0 / 252
	dg4 = 1.0 / 240
	dg5 = -1.0 / 132
	dg6 = 691.0 / 32760
	dg7 = -1.0 / 12
	dg8 = 3617.0 / 8160
)

// Asymptotic series of ψ'(x) = 1/x + 1/(2x²) + Σ B₂ₙ/x^(2n+1).
const (
	tg1 = 1.0 / 6
	tg2 = -1.0 / 30
	tg3 = 1.0 / 42
	tg4 = -1.0 / 30
	tg5 = 5.0 / 66
	tg6 = -691.0 / 2730
	tg7 = 7.0 / 6
)

// fdlibm's log: ln(1+f) = f − hfsq + s·(hfsq+R), s = f/(2+f).
const (
	lnLg1   = 6.666666666666735130e-01
	lnLg2   = 3.999999999940941908e-01
	lnLg3   = 2.857142874366239149e-01
	lnLg4   = 2.222219843214978396e-01
	lnLg5   = 1.818357216161805012e-01
	lnLg6   = 1.531383769920937332e-01
	lnLg7   = 1.479819860511658591e-01
	ln2Hi   = 6.93147180369123816490e-01
	ln2Lo   = 1.90821492927058770002e-10
	twoP52  = 4503599627370496.0 // 2⁵²: exponent bits → float64 trick
	expBias = 0x4330000000000000 // bits of 2⁵²
)

// log64 is ln x for positive normal x and +Inf, to 1 ulp.
func log64(x float64) float64 {
	bits := math.Float64bits(x)
	e := math.Float64frombits(bits>>52|expBias) - (twoP52 + 1023)
	m := math.Float64frombits(bits&(1<<52-1) | 0x3FF0000000000000)
	if m > math.Sqrt2 {
		m *= 0.5
		e++
	}
	f := m - 1
	s := f / (2 + f)
	z := s * s
	w := z * z
	t1 := w * math.FMA(w, math.FMA(w, lnLg6, lnLg4), lnLg2)
	t2 := z * math.FMA(w, math.FMA(w, math.FMA(w, lnLg7, lnLg5), lnLg3), lnLg1)
	r := t2 + t1
	hfsq := 0.5 * f * f
	l := math.FMA(e, ln2Hi, f-(hfsq-math.FMA(s, hfsq+r, e*ln2Lo)))
	if x == math.Inf(1) {
		return x
	}
	return l
}

func lgamma64(x float64) float64 {
	big := x >= lgammaT
	// z into [1.5, 2.5]; prod is the product of the factors moved over.
	z, prod, sgn := min(x, lgammaT), 1.0, 1.0
	if z < 1.5 {
		sgn = -1
	}
	for range 2 {
		if z < 1.5 {
			prod *= z
			z++
		}
	}
	for range 2 {
		if z >= 2.5 {
			z--
			prod *= z
		}
	}
	arg := prod
	if big {
		arg = x
	}
	l := log64(arg)
	var r float64
	if big {
		xb := x
		t := 1 / xb
		w := t * t
		ser := math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, st6, st5), st4), st3), st2), st1)
		r = math.FMA(xb-0.5, l-1, math.FMA(ser, t, stirlingC))
	} else {
		p := z - 2
		g := lgammaG[13]
		for i := 12; i >= 0; i-- {
			g = math.FMA(g, p, lgammaG[i])
		}
		r = math.FMA(p, g, sgn*l)
	}
	if !(x > 0) {
		return math.NaN()
	}
	return r
}

// shiftUp64 is the recurrence shift of ψ and lnΓ: for x below specialT
// (small), y = x + 8 and num/den = Σ 1/(x+i), den = Π (x+i), i < 8; above,
// the values for specialT, which the callers discard.
func shiftUp64(x float64) (small bool, y, num, den float64) {
	small = x < specialT
	y = min(x, specialT)
	num, den = 0.0, 1.0
	for range 8 {
		num = math.FMA(num, y, den)
		den *= y
		y++
	}
	return small, y, num, den
}

func digamma64(x float64) float64 {
	small, y, num, den := shiftUp64(x)
	shift := num / den
	if !small {
		y, shift = x, 0
	}
	t := 1 / y
	w := t * t
	ser := math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, dg8, dg7), dg6), dg5), dg4), dg3), dg2), dg1)
	r := math.FMA(w, ser, math.FMA(-0.5, t, log64(y))) - shift
	if !(x > 0) {
		return math.NaN()
	}
	return r
}

func trigamma64(x float64) float64 {
	small := x < specialT
	y := min(x, specialT)
	num, den := 0.0, 1.0
	for range 8 {
		y2 := y * y
		num = math.FMA(num, y2, den)
		den *= y2
		y++
	}
	shift := num / den
	if !small {
		y, shift = x, 0
	}
	t := 1 / y
	w := t * t
	ser := math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, math.FMA(w, tg7, tg6), tg5), tg4), tg3), tg2), tg1)
	r := math.FMA(w, math.FMA(t, ser, 0.5), t) + shift
	if !(x > 0) {
		return math.NaN()
	}
	return r
}

func lgammaTwin(dst, x []float32) {
	for i, v := range x {
		dst[i] = float32(lgamma64(float64(v)))
	}
}

func digammaTwin(dst, x []float32) {
	for i, v := range x {
		dst[i] = float32(digamma64(float64(v)))
	}
}

func trigammaTwin(dst, x []float32) {
	for i, v := range x {
		dst[i] = float32(trigamma64(float64(v)))
	}
}
