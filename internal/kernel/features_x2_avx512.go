//go:build goexperiment.simd

package kernel

import (
	"simd/archsimd"
)

// Two vectors in lockstep: log32x16 and psiEnt32x16 are chains of dependent
// operations (a polynomial, the recurrence shift), and one vector's chain
// leaves most of the core's FP pipes idle; the out-of-order window does not
// reach the next call. Interleaving two independent chains in one
// instruction stream fills them. Lane for lane the same operations as the
// one-vector versions, so the same bits.

// log32x16x2 is log32x16 of x0 and x1.
func log32x16x2(x0, x1 archsimd.Float32x16) (archsimd.Float32x16, archsimd.Float32x16) {
	one, zero := bf16(1), bf16(0)
	tiny, scale := bf16(0x1p-126), bf16(0x1p23)
	sub0, sub1 := x0.Less(tiny), x1.Less(tiny)
	xs0, xs1 := x0.Mul(scale).Merge(x0, sub0), x1.Mul(scale).Merge(x1, sub1)
	bits0, bits1 := xs0.AsInt32x16(), xs1.AsInt32x16()
	b127 := bi16(127)
	e0, e1 := bits0.ShiftAllRight(23).Sub(b127).ConvertToFloat32(), bits1.ShiftAllRight(23).Sub(b127).ConvertToFloat32()
	b23 := bf16(23)
	e0, e1 = e0.Sub(b23).Merge(e0, sub0), e1.Sub(b23).Merge(e1, sub1)
	mant, expOne := bi16(0x7FFFFF), bi16(0x3F800000)
	m0, m1 := bits0.And(mant).Or(expOne).AsFloat32x16(), bits1.And(mant).Or(expOne).AsFloat32x16()
	s2 := bf16(sqrt2f32)
	hi0, hi1 := m0.Greater(s2), m1.Greater(s2)
	half := bf16(0.5)
	m0, m1 = m0.Mul(half).Merge(m0, hi0), m1.Mul(half).Merge(m1, hi1)
	e0, e1 = e0.Add(one).Merge(e0, hi0), e1.Add(one).Merge(e1, hi1)
	f0, f1 := m0.Sub(one), m1.Sub(one)
	z0, z1 := f0.Mul(f0), f1.Mul(f1)
	p0, p1 := bf16(lp8), bf16(lp8)
	// Unrolled: ranging over an array literal copies it with legacy SSE
	// moves in the middle of the vector code.
	c7 := bf16(lp7)
	p0, p1 = p0.MulAdd(f0, c7), p1.MulAdd(f1, c7)
	c6 := bf16(lp6)
	p0, p1 = p0.MulAdd(f0, c6), p1.MulAdd(f1, c6)
	c5 := bf16(lp5)
	p0, p1 = p0.MulAdd(f0, c5), p1.MulAdd(f1, c5)
	c4 := bf16(lp4)
	p0, p1 = p0.MulAdd(f0, c4), p1.MulAdd(f1, c4)
	c3 := bf16(lp3)
	p0, p1 = p0.MulAdd(f0, c3), p1.MulAdd(f1, c3)
	c2 := bf16(lp2)
	p0, p1 = p0.MulAdd(f0, c2), p1.MulAdd(f1, c2)
	c1 := bf16(lp1)
	p0, p1 = p0.MulAdd(f0, c1), p1.MulAdd(f1, c1)
	c0 := bf16(lp0)
	p0, p1 = p0.MulAdd(f0, c0), p1.MulAdd(f1, c0)

	lo := bf16(ln2Lo32)
	y0, y1 := p0.Mul(z0).MulAdd(f0, e0.Mul(lo)), p1.Mul(z1).MulAdd(f1, e1.Mul(lo))
	mh := bf16(-0.5)
	y0, y1 = z0.MulAdd(mh, y0), z1.MulAdd(mh, y1)
	ln2 := bf16(ln2Hi32)
	r0, r1 := e0.MulAdd(ln2, f0.Add(y0)), e1.MulAdd(ln2, f1.Add(y1))
	nan := fbits16(nan32Bits)
	r0, r1 = r0.Merge(nan, x0.Greater(zero)), r1.Merge(nan, x1.Greater(zero))
	ninf := fbits16(ninf32Bits)
	r0, r1 = ninf.Merge(r0, x0.Equal(zero)), ninf.Merge(r1, x1.Equal(zero))
	inf := fbits16(inf32Bits)
	return x0.Merge(r0, x0.Equal(inf)), x1.Merge(r1, x1.Equal(inf))
}

// psiEnt32x16x2 is psiEnt32x16 of a0 and a1.
func psiEnt32x16x2(a0, a1 archsimd.Float32x16) (psi0, ent0, psi1, ent1 archsimd.Float32x16) {
	one, t8 := bf16(1), bf16(specialT)
	small0, small1 := a0.Less(t8), a1.Less(t8)
	y0, y1 := a0.Min(t8), a1.Min(t8)
	num0, den0 := bf16(0), one
	num1, den1 := num0, one
	for range 8 {
		num0, num1 = num0.MulAdd(y0, den0), num1.MulAdd(y1, den1)
		den0, den1 = den0.Mul(y0), den1.Mul(y1)
		y0, y1 = y0.Add(one), y1.Add(one)
	}
	zero := bf16(0)
	y0, y1 = y0.Merge(a0, small0), y1.Merge(a1, small1)
	num0, num1 = num0.Merge(zero, small0), num1.Merge(zero, small1)
	den0, den1 = den0.Merge(one, small0), den1.Merge(one, small1)
	// Both logarithms first: every vector register is caller-saved, and
	// few values are live yet (7–10 % faster than taking them where used).
	l0, l1 := log32x16x2(y0, y1)
	ld0, ld1 := log32x16x2(den0, den1)
	inv0, inv1 := one.Div(den0.Mul(y0)), one.Div(den1.Mul(y1))
	t0, t1 := den0.Mul(inv0), den1.Mul(inv1)
	shift0, shift1 := num0.Mul(y0.Mul(inv0)), num1.Mul(y1.Mul(inv1))
	w0, w1 := t0.Mul(t0), t1.Mul(t1)
	g3, g2, g1 := bf16(dg3), bf16(dg2), bf16(dg1)
	sd0, sd1 := w0.MulAdd(w0.MulAdd(g3, g2), g1), w1.MulAdd(w1.MulAdd(g3, g2), g1)
	mh := bf16(-0.5)
	psi0, psi1 = w0.MulAdd(sd0, mh.MulAdd(t0, l0)).Sub(shift0), w1.MulAdd(sd1, mh.MulAdd(t1, l1)).Sub(shift1)
	s3, s2, s1 := bf16(st3), bf16(st2), bf16(st1)
	ss0, ss1 := w0.MulAdd(w0.MulAdd(s3, s2), s1), w1.MulAdd(w1.MulAdd(s3, s2), s1)
	half, sc := bf16(0.5), bf16(stirlingC)
	lg0 := y0.Sub(half).MulAdd(l0.Sub(one), ss0.MulAdd(t0, sc)).Sub(ld0)
	lg1 := y1.Sub(half).MulAdd(l1.Sub(one), ss1.MulAdd(t1, sc)).Sub(ld1)
	ent0, ent1 = a0.MulAdd(psi0, zero.Sub(lg0)).Sub(a0), a1.MulAdd(psi1, zero.Sub(lg1)).Sub(a1)
	ec := bf16(entC)
	ent0 = ent0.Merge(t0.MulAdd(sd0.Sub(ss0), half.MulAdd(l0, ec)), small0)
	ent1 = ent1.Merge(t1.MulAdd(sd1.Sub(ss1), half.MulAdd(l1, ec)), small1)
	nan := fbits16(nan32Bits)
	pos0, pos1 := a0.Greater(zero), a1.Greater(zero)
	return psi0.Merge(nan, pos0), ent0.Merge(nan, pos0), psi1.Merge(nan, pos1), ent1.Merge(nan, pos1)
}

// trigammaAm32x16x2 is trigammaAm32x16 of a0 and a1.
func trigammaAm32x16x2(a0, a1 archsimd.Float32x16) (tr0, am0, tr1, am1 archsimd.Float32x16) {
	one, t8 := bf16(1), bf16(specialT)
	small0, small1 := a0.Less(t8), a1.Less(t8)
	y0, y1 := a0.Min(t8), a1.Min(t8)
	num0, den0 := bf16(0), one
	num1, den1 := num0, one
	for range 8 {
		sq0, sq1 := y0.Mul(y0), y1.Mul(y1)
		num0, num1 = num0.MulAdd(sq0, den0), num1.MulAdd(sq1, den1)
		den0, den1 = den0.Mul(sq0), den1.Mul(sq1)
		y0, y1 = y0.Add(one), y1.Add(one)
	}
	zero := bf16(0)
	shift0, shift1 := num0.Div(den0).Merge(zero, small0), num1.Div(den1).Merge(zero, small1)
	y0, y1 = y0.Merge(a0, small0), y1.Merge(a1, small1)
	t0, t1 := one.Div(y0), one.Div(y1)
	w0, w1 := t0.Mul(t0), t1.Mul(t1)
	g3, g2, g1, half := bf16(tg3), bf16(tg2), bf16(tg1), bf16(0.5)
	h0 := t0.MulAdd(w0.MulAdd(w0.MulAdd(g3, g2), g1), half)
	h1 := t1.MulAdd(w1.MulAdd(w1.MulAdd(g3, g2), g1), half)
	tr0, tr1 = w0.MulAdd(h0, t0).Add(shift0), w1.MulAdd(h1, t1).Add(shift1)
	m1 := bf16(-1)
	am0, am1 = a0.MulAdd(tr0, m1).Merge(t0.Mul(h0), small0), a1.MulAdd(tr1, m1).Merge(t1.Mul(h1), small1)
	nan := fbits16(nan32Bits)
	pos0, pos1 := a0.Greater(zero), a1.Greater(zero)
	return tr0.Merge(nan, pos0), am0.Merge(nan, pos0), tr1.Merge(nan, pos1), am1.Merge(nan, pos1)
}
