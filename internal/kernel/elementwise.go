package kernel

import "math"

// Float32 exp and log in float32 arithmetic (Cephes' expf/logf polynomials,
// within 1 ulp), the algorithm of the vector levels. The scalar functions
// are the twins of the vector code, which the tests compare them to; fma32
// stands for the vectors' fused multiply-add, so the two agree except for
// rare double roundings in fma32. (The pure-Go level uses math.Exp and
// math.Log, faster as scalar code.)

const (
	expHi    = 89.0 // exp(89) > MaxFloat32
	expLo    = -104 // exp(−104) < smallest subnormal / 2
	log2e32  = 1.44269504088896341
	ln2Hi32  = 0.693359375 // ln 2 = ln2Hi32 + ln2Lo32; n·ln2Hi32 is exact
	ln2Lo32  = -2.12194440e-4
	sqrt2f32 = 1.41421356
)

// expf polynomial: e^r ≈ 1 + r + r²·P(r), |r| ≤ ln2/2.
const (
	ep0 = 5.0000001201e-1
	ep1 = 1.6666665459e-1
	ep2 = 4.1665795894e-2
	ep3 = 8.3334519073e-3
	ep4 = 1.3981999507e-3
	ep5 = 1.9875691500e-4
)

// logf polynomial: ln(1+f) ≈ f − f²/2 + f³·P(f), √½ ≤ 1+f ≤ √2.
const (
	lp0 = 3.3333331174e-1
	lp1 = -2.4999993993e-1
	lp2 = 2.0000714765e-1
	lp3 = -1.6668057665e-1
	lp4 = 1.4249322787e-1
	lp5 = -1.2420140846e-1
	lp6 = 1.1676998740e-1
	lp7 = -1.1514610310e-1
	lp8 = 7.0376836292e-2
)

// The bits of float32 NaN and ±Inf, for the vector kernels' broadcasts.
const (
	nan32Bits  int32 = 0x7FC00000
	inf32Bits  int32 = 0x7F800000
	ninf32Bits int32 = -0x800000 // 0xFF800000

	nan64Bits int64 = 0x7FF8000000000000
	inf64Bits int64 = 0x7FF0000000000000
)

func fma32(x, y, z float32) float32 {
	return float32(math.FMA(float64(x), float64(y), float64(z)))
}

func exp32(x float32) float32 {
	xc := min(max(x, expLo), expHi)
	n := float32(math.RoundToEven(float64(xc * log2e32)))
	r := fma32(n, -ln2Hi32, xc)
	r = fma32(n, -ln2Lo32, r)
	p := fma32(fma32(fma32(fma32(fma32(ep5, r, ep4), r, ep3), r, ep2), r, ep1), r, ep0)
	p = fma32(p, r*r, r) + 1
	// 2ⁿ in two factors so that subnormal results round once.
	ni := int32(n)
	n1 := ni >> 1
	n2 := ni - n1
	y := p * math.Float32frombits(uint32(n1+127)<<23) * math.Float32frombits(uint32(n2+127)<<23)
	if x != x {
		return x
	}
	return y
}

func log32(x float32) float32 {
	// Subnormals: scale into the normal range first.
	sub := x < 0x1p-126
	xs := x
	if sub {
		xs = x * 0x1p23
	}
	bits := math.Float32bits(xs)
	e := float32(int32(bits>>23) - 127)
	if sub {
		e -= 23
	}
	m := math.Float32frombits(bits&0x7FFFFF | 0x3F800000)
	if m > sqrt2f32 {
		m *= 0.5
		e++
	}
	f := m - 1
	z := f * f
	p := fma32(fma32(fma32(fma32(fma32(fma32(fma32(fma32(lp8, f, lp7), f, lp6), f, lp5), f, lp4), f, lp3), f, lp2), f, lp1), f, lp0)
	y := fma32(p*z, f, e*ln2Lo32)
	y = fma32(z, -0.5, y)
	r := fma32(e, ln2Hi32, f+y)
	switch {
	case x == 0:
		return float32(math.Inf(-1))
	case !(x > 0): // negative or NaN
		return float32(math.NaN())
	case x > math.MaxFloat32:
		return x
	}
	return r
}

func expTwin(dst, x []float32) {
	for i, v := range x {
		dst[i] = exp32(v)
	}
}

func logTwin(dst, x []float32) {
	for i, v := range x {
		dst[i] = log32(v)
	}
}
