//go:build goexperiment.simd

package kernel

import (
	"simd/archsimd"
)

// features_x2_avx512.go with 8 lanes.

// log32x8x2 is log32x8 of x0 and x1.
func log32x8x2(x0, x1 archsimd.Float32x8) (archsimd.Float32x8, archsimd.Float32x8) {
	one, zero := bf8(1), bf8(0)
	tiny, scale := bf8(0x1p-126), bf8(0x1p23)
	sub0, sub1 := x0.Less(tiny), x1.Less(tiny)
	xs0, xs1 := x0.Mul(scale).Merge(x0, sub0), x1.Mul(scale).Merge(x1, sub1)
	bits0, bits1 := xs0.AsInt32x8(), xs1.AsInt32x8()
	b127 := bi8(127)
	e0, e1 := bits0.ShiftAllRight(23).Sub(b127).ConvertToFloat32(), bits1.ShiftAllRight(23).Sub(b127).ConvertToFloat32()
	b23 := bf8(23)
	e0, e1 = e0.Sub(b23).Merge(e0, sub0), e1.Sub(b23).Merge(e1, sub1)
	mant, expOne := bi8(0x7FFFFF), bi8(0x3F800000)
	m0, m1 := bits0.And(mant).Or(expOne).AsFloat32x8(), bits1.And(mant).Or(expOne).AsFloat32x8()
	s2 := bf8(sqrt2f32)
	hi0, hi1 := m0.Greater(s2), m1.Greater(s2)
	half := bf8(0.5)
	m0, m1 = m0.Mul(half).Merge(m0, hi0), m1.Mul(half).Merge(m1, hi1)
	e0, e1 = e0.Add(one).Merge(e0, hi0), e1.Add(one).Merge(e1, hi1)
	f0, f1 := m0.Sub(one), m1.Sub(one)
	z0, z1 := f0.Mul(f0), f1.Mul(f1)
	p0, p1 := bf8(lp8), bf8(lp8)
	// Unrolled: ranging over an array literal copies it with legacy SSE
	// moves in the middle of the vector code.
	c7 := bf8(lp7)
	p0, p1 = p0.MulAdd(f0, c7), p1.MulAdd(f1, c7)
	c6 := bf8(lp6)
	p0, p1 = p0.MulAdd(f0, c6), p1.MulAdd(f1, c6)
	c5 := bf8(lp5)
	p0, p1 = p0.MulAdd(f0, c5), p1.MulAdd(f1, c5)
	c4 := bf8(lp4)
	p0, p1 = p0.MulAdd(f0, c4), p1.MulAdd(f1, c4)
	c3 := bf8(lp3)
	p0, p1 = p0.MulAdd(f0, c3), p1.MulAdd(f1, c3)
	c2 := bf8(lp2)
	p0, p1 = p0.MulAdd(f0, c2), p1.MulAdd(f1, c2)
	c1 := bf8(lp1)
	p0, p1 = p0.MulAdd(f0, c1), p1.MulAdd(f1, c1)
	c0 := bf8(lp0)
	p0, p1 = p0.MulAdd(f0, c0), p1.MulAdd(f1, c0)

	lo := bf8(ln2Lo32)
	y0, y1 := p0.Mul(z0).MulAdd(f0, e0.Mul(lo)), p1.Mul(z1).MulAdd(f1, e1.Mul(lo))
	mh := bf8(-0.5)
	y0, y1 = z0.MulAdd(mh, y0), z1.MulAdd(mh, y1)
	ln2 := bf8(ln2Hi32)
	r0, r1 := e0.MulAdd(ln2, f0.Add(y0)), e1.MulAdd(ln2, f1.Add(y1))
	nan := fbits8(nan32Bits)
	r0, r1 = r0.Merge(nan, x0.Greater(zero)), r1.Merge(nan, x1.Greater(zero))
	ninf := fbits8(ninf32Bits)
	r0, r1 = ninf.Merge(r0, x0.Equal(zero)), ninf.Merge(r1, x1.Equal(zero))
	inf := fbits8(inf32Bits)
	return x0.Merge(r0, x0.Equal(inf)), x1.Merge(r1, x1.Equal(inf))
}

// psiEnt32x8x2 is psiEnt32x8 of a0 and a1.
func psiEnt32x8x2(a0, a1 archsimd.Float32x8) (psi0, ent0, psi1, ent1 archsimd.Float32x8) {
	one, t8 := bf8(1), bf8(specialT)
	small0, small1 := a0.Less(t8), a1.Less(t8)
	y0, y1 := a0.Min(t8), a1.Min(t8)
	num0, den0 := bf8(0), one
	num1, den1 := num0, one
	for range 8 {
		num0, num1 = num0.MulAdd(y0, den0), num1.MulAdd(y1, den1)
		den0, den1 = den0.Mul(y0), den1.Mul(y1)
		y0, y1 = y0.Add(one), y1.Add(one)
	}
	zero := bf8(0)
	y0, y1 = y0.Merge(a0, small0), y1.Merge(a1, small1)
	num0, num1 = num0.Merge(zero, small0), num1.Merge(zero, small1)
	den0, den1 = den0.Merge(one, small0), den1.Merge(one, small1)
	l0, l1 := log32x8x2(y0, y1)
	ld0, ld1 := log32x8x2(den0, den1)
	inv0, inv1 := one.Div(den0.Mul(y0)), one.Div(den1.Mul(y1))
	t0, t1 := den0.Mul(inv0), den1.Mul(inv1)
	shift0, shift1 := num0.Mul(y0.Mul(inv0)), num1.Mul(y1.Mul(inv1))
	w0, w1 := t0.Mul(t0), t1.Mul(t1)
	g3, g2, g1 := bf8(dg3), bf8(dg2), bf8(dg1)
	sd0, sd1 := w0.MulAdd(w0.MulAdd(g3, g2), g1), w1.MulAdd(w1.MulAdd(g3, g2), g1)
	mh := bf8(-0.5)
	psi0, psi1 = w0.MulAdd(sd0, mh.MulAdd(t0, l0)).Sub(shift0), w1.MulAdd(sd1, mh.MulAdd(t1, l1)).Sub(shift1)
	s3, s2, s1 := bf8(st3), bf8(st2), bf8(st1)
	ss0, ss1 := w0.MulAdd(w0.MulAdd(s3, s2), s1), w1.MulAdd(w1.MulAdd(s3, s2), s1)
	half, sc := bf8(0.5), bf8(stirlingC)
	lg0 := y0.Sub(half).MulAdd(l0.Sub(one), ss0.MulAdd(t0, sc)).Sub(ld0)
	lg1 := y1.Sub(half).MulAdd(l1.Sub(one), ss1.MulAdd(t1, sc)).Sub(ld1)
	ent0, ent1 = a0.MulAdd(psi0, zero.Sub(lg0)).Sub(a0), a1.MulAdd(psi1, zero.Sub(lg1)).Sub(a1)
	ec := bf8(entC)
	ent0 = ent0.Merge(t0.MulAdd(sd0.Sub(ss0), half.MulAdd(l0, ec)), small0)
	ent1 = ent1.Merge(t1.MulAdd(sd1.Sub(ss1), half.MulAdd(l1, ec)), small1)
	nan := fbits8(nan32Bits)
	pos0, pos1 := a0.Greater(zero), a1.Greater(zero)
	return psi0.Merge(nan, pos0), ent0.Merge(nan, pos0), psi1.Merge(nan, pos1), ent1.Merge(nan, pos1)
}

// trigammaAm32x8x2 is trigammaAm32x8 of a0 and a1.
func trigammaAm32x8x2(a0, a1 archsimd.Float32x8) (tr0, am0, tr1, am1 archsimd.Float32x8) {
	one, t8 := bf8(1), bf8(specialT)
	small0, small1 := a0.Less(t8), a1.Less(t8)
	y0, y1 := a0.Min(t8), a1.Min(t8)
	num0, den0 := bf8(0), one
	num1, den1 := num0, one
	for range 8 {
		sq0, sq1 := y0.Mul(y0), y1.Mul(y1)
		num0, num1 = num0.MulAdd(sq0, den0), num1.MulAdd(sq1, den1)
		den0, den1 = den0.Mul(sq0), den1.Mul(sq1)
		y0, y1 = y0.Add(one), y1.Add(one)
	}
	zero := bf8(0)
	shift0, shift1 := num0.Div(den0).Merge(zero, small0), num1.Div(den1).Merge(zero, small1)
	y0, y1 = y0.Merge(a0, small0), y1.Merge(a1, small1)
	t0, t1 := one.Div(y0), one.Div(y1)
	w0, w1 := t0.Mul(t0), t1.Mul(t1)
	g3, g2, g1, half := bf8(tg3), bf8(tg2), bf8(tg1), bf8(0.5)
	h0 := t0.MulAdd(w0.MulAdd(w0.MulAdd(g3, g2), g1), half)
	h1 := t1.MulAdd(w1.MulAdd(w1.MulAdd(g3, g2), g1), half)
	tr0, tr1 = w0.MulAdd(h0, t0).Add(shift0), w1.MulAdd(h1, t1).Add(shift1)
	m1 := bf8(-1)
	am0, am1 = a0.MulAdd(tr0, m1).Merge(t0.Mul(h0), small0), a1.MulAdd(tr1, m1).Merge(t1.Mul(h1), small1)
	nan := fbits8(nan32Bits)
	pos0, pos1 := a0.Greater(zero), a1.Greater(zero)
	return tr0.Merge(nan, pos0), am0.Merge(nan, pos0), tr1.Merge(nan, pos1), am1.Merge(nan, pos1)
}
