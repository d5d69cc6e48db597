package kernel

import "math"

// ConeHalves sets, for every element of x (ConE's entity table), the
// entity's axis e = π·tanh(x/ρ) as sin(e/2) and cos(e/2), and, unless
// dAxis is nil, its derivative de/dx = π(1 − tanh²(x/ρ))/ρ. The functions
// are polynomials on the reduced ranges (|e/2| ≤ π/2 needs no reduction),
// within a few units of the last place of math.Tanh and math.Sincos.
func ConeHalves(sin, cos, dAxis, x []float64, rho float64) {
	defer clearUpper()
	checkLen("ConeHalves", len(sin), len(x))
	checkLen("ConeHalves", len(cos), len(x))
	if dAxis != nil {
		checkLen("ConeHalves", len(dAxis), len(x))
	}
	i := 0
	if cur.coneHalves != nil {
		i = cur.coneHalves(sin, cos, dAxis, x, rho)
	}
	for ; i < len(x); i++ {
		th := tanhTwin(x[i] / rho)
		sin[i], cos[i] = sincosTwin(th * (math.Pi / 2))
		if dAxis != nil {
			dAxis[i] = math.Pi * math.FMA(-th, th, 1) / rho
		}
	}
}

// The constants of the twins below: round-to-integer by adding 1.5·2⁵²,
// ln 2 split in two, and Taylor coefficients: (eʳ − 1)/r to degree 13,
// sin to 21, cos to 22.
const (
	roundMagic = 6755399441055744.0 // 1.5·2⁵²
	expLn2Hi   = 6.93147180369123816490e-01
	expLn2Lo   = 1.90821492927058770002e-10
)

var (
	em1Coef = taylor(14, func(k int) float64 { return 1 })[1:]      // 1/(j+1)!: (eʳ − 1)/r = Σ rʲ/(j+1)!
	sinCoef = taylor(21, func(k int) float64 { return sgn(k / 2) }) // odd k: (−1)^((k−1)/2)/k!
	cosCoef = taylor(22, func(k int) float64 { return sgn(k / 2) }) // even k: (−1)^(k/2)/k!
)

// The same coefficients as bits, for the vector levels to broadcast from
// integer registers (a float load there would be a legacy-SSE MOVSD).
var em1Bits, sinBits, cosBits = bitsOf(em1Coef), bitsOf(sinCoef), bitsOf(cosCoef)

func bitsOf(c []float64) []int64 {
	b := make([]int64, len(c))
	for i, v := range c {
		b[i] = int64(math.Float64bits(v))
	}
	return b
}

func sgn(k int) float64 { return float64(1 - 2*(k&1)) }

// taylor returns s(k)/k! for k = 0..n.
func taylor(n int, s func(k int) float64) []float64 {
	c := make([]float64, n+1)
	f := 1.0
	for k := range n + 1 {
		if k > 0 {
			f *= float64(k)
		}
		c[k] = s(k) / f
	}
	return c
}

// expm1Twin is eˣ − 1 for −60 ≤ x ≤ 0 without cancellation near 0:
// x = k·ln 2 + r, |r| ≤ ln 2/2, q = eʳ − 1 by its series (no leading 1),
// then 2ᵏ·q + (2ᵏ − 1).
func expm1Twin(x float64) float64 {
	t := math.FMA(x, math.Log2E, roundMagic)
	k := t - roundMagic
	r := math.FMA(-k, expLn2Hi, x)
	r = math.FMA(-k, expLn2Lo, r)
	p := em1Coef[13]
	for j := 12; j >= 0; j-- {
		p = math.FMA(p, r, em1Coef[j])
	}
	scale := math.Float64frombits(uint64(int64(math.Float64bits(t))-int64(math.Float64bits(roundMagic))+1023) << 52)
	return math.FMA(scale, r*p, scale-1)
}

// tanhTwin is tanh(y) = −m/(2 + m) with m = e^(−2|y|) − 1, signed as y.
func tanhTwin(y float64) float64 {
	m := expm1Twin(max(-2*math.Abs(y), -60))
	return math.Copysign(-m/(2+m), y)
}

// sincosTwin is sin u and cos u for |u| ≤ π/2, by their Taylor series.
func sincosTwin(u float64) (s, c float64) {
	u2 := u * u
	s = sinCoef[21]
	for k := 19; k >= 1; k -= 2 {
		s = math.FMA(s, u2, sinCoef[k])
	}
	c = cosCoef[22]
	for k := 20; k >= 0; k -= 2 {
		c = math.FMA(c, u2, cosCoef[k])
	}
	return s * u, c
}
