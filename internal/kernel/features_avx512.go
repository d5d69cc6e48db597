//go:build goexperiment.simd

package kernel

import (
	"simd/archsimd"
)

// AVX-512 GammaFeatures and GammaFeaturesGrad: 16 float32 lanes, operation
// for operation the twins in features.go (a branch there is a Merge here).
// features_avx2.go is this file with 8 lanes. The main loops take two
// vectors in lockstep (features_x2_avx512.go): 1.3× the values per second,
// the same bits.

// psiEnt32x16 is psiEnt32 on 16 lanes.
func psiEnt32x16(a archsimd.Float32x16) (psi, ent archsimd.Float32x16) {
	one, t8 := bf16(1), bf16(specialT)
	small := a.Less(t8)
	y := a.Min(t8)
	num, den := bf16(0), one
	for range 8 {
		num = num.MulAdd(y, den)
		den = den.Mul(y)
		y = y.Add(one)
	}
	y = y.Merge(a, small)
	num = num.Merge(bf16(0), small)
	den = den.Merge(one, small)
	inv := one.Div(den.Mul(y))
	t := den.Mul(inv)
	shift := num.Mul(y.Mul(inv))
	l := log32x16(y)
	w := t.Mul(t)
	sd := w.MulAdd(w.MulAdd(bf16(dg3), bf16(dg2)), bf16(dg1))
	psi = w.MulAdd(sd, bf16(-0.5).MulAdd(t, l)).Sub(shift)
	ss := w.MulAdd(w.MulAdd(bf16(st3), bf16(st2)), bf16(st1))
	lg := y.Sub(bf16(0.5)).MulAdd(l.Sub(one), ss.MulAdd(t, bf16(stirlingC))).Sub(log32x16(den))
	ent = a.MulAdd(psi, bf16(0).Sub(lg)).Sub(a)
	ent = ent.Merge(t.MulAdd(sd.Sub(ss), bf16(0.5).MulAdd(l, bf16(entC))), small)
	pos, nan := a.Greater(bf16(0)), fbits16(nan32Bits)
	return psi.Merge(nan, pos), ent.Merge(nan, pos)
}

// trigammaAm32x16 is trigammaAm32 on 16 lanes.
func trigammaAm32x16(a archsimd.Float32x16) (tr, am archsimd.Float32x16) {
	one, t8 := bf16(1), bf16(specialT)
	small := a.Less(t8)
	y := a.Min(t8)
	num, den := bf16(0), one
	for range 8 {
		y2 := y.Mul(y)
		num = num.MulAdd(y2, den)
		den = den.Mul(y2)
		y = y.Add(one)
	}
	shift := num.Div(den).Merge(bf16(0), small)
	y = y.Merge(a, small)
	t := one.Div(y)
	w := t.Mul(t)
	h := t.MulAdd(w.MulAdd(w.MulAdd(bf16(tg3), bf16(tg2)), bf16(tg1)), bf16(0.5))
	tr = w.MulAdd(h, t).Add(shift)
	am = a.MulAdd(tr, bf16(-1)).Merge(t.Mul(h), small)
	pos, nan := a.Greater(bf16(0)), fbits16(nan32Bits)
	return tr.Merge(nan, pos), am.Merge(nan, pos)
}

// clampReg16 is clampReg of x − 1 (x already has the 1 added).
func clampReg16(x, lo, hi archsimd.Float32x16) archsimd.Float32x16 {
	x = lo.Merge(x, x.Less(lo))
	return hi.Merge(x, x.Greater(hi))
}

func featuresAVX512(f1, f2, xa, xb []float32, lo, hi float32) float32 {
	var s [8]float64
	var t tail16
	i := featuresVecAVX512(f1, f2, xa, xb, archsimd.BroadcastFloat32x16(lo), archsimd.BroadcastFloat32x16(hi), &s, &t)
	clearUpper() // the scalar tail runs on clean upper halves
	for ; i < len(xa); i++ {
		featureAt(f1, f2, xa, xb, lo, hi, i, &s)
	}
	return sumAcc(&s)
}

// featuresVecAVX512 runs the vector part of featuresAVX512, leaving the
// lanes' partial sums in s, and returns where the scalar tail starts. Not
// inlined, so that no float32 scalar lives across its loops: the register
// allocator reloads those with legacy SSE moves.
//
//go:noinline
func featuresVecAVX512(f1, f2, xa, xb []float32, lo16, hi16 archsimd.Float32x16, s *[8]float64, t *tail16) int {
	n := len(xa)
	f1, f2, xb = f1[:n], f2[:n], xb[:n]
	one := bf16(1)
	// Lane j of acc sums elements j, j+8, j+16, …: the twin's acc[i%8].
	acc := bc8(0)
	i := 0
	for ; i+32 <= n; i += 32 {
		a0 := clampReg16(archsimd.LoadFloat32x16Slice(xa[i:]).Add(one), lo16, hi16)
		a1 := clampReg16(archsimd.LoadFloat32x16Slice(xa[i+16:]).Add(one), lo16, hi16)
		b0 := clampReg16(archsimd.LoadFloat32x16Slice(xb[i:]).Add(one), lo16, hi16)
		b1 := clampReg16(archsimd.LoadFloat32x16Slice(xb[i+16:]).Add(one), lo16, hi16)
		// Stored and taken in this order so that few vectors live across
		// the calls (every vector register is caller-saved).
		a0.Div(b0).StoreSlice(f2[i:])
		a1.Div(b1).StoreSlice(f2[i+16:])
		lb0, lb1 := log32x16x2(b0, b1)
		psi0, ent0, psi1, ent1 := psiEnt32x16x2(a0, a1)
		lb0.Sub(psi0).StoreSlice(f1[i:])
		lb1.Sub(psi1).StoreSlice(f1[i+16:])
		acc = acc.Add(ent0.GetLo().ConvertToFloat64()).Add(ent0.GetHi().ConvertToFloat64())
		acc = acc.Add(ent1.GetLo().ConvertToFloat64()).Add(ent1.GetHi().ConvertToFloat64())
	}
	for ; i+16 <= n; i += 16 {
		a := clampReg16(archsimd.LoadFloat32x16Slice(xa[i:]).Add(one), lo16, hi16)
		b := clampReg16(archsimd.LoadFloat32x16Slice(xb[i:]).Add(one), lo16, hi16)
		psi, ent := psiEnt32x16(a)
		log32x16(b).Sub(psi).StoreSlice(f1[i:])
		a.Div(b).StoreSlice(f2[i:])
		acc = acc.Add(ent.GetLo().ConvertToFloat64()).Add(ent.GetHi().ConvertToFloat64())
	}
	if i < n {
		// The tail under a mask: the lanes past n load zeros (a = b = 1
		// after the clamp, finite) and their entropies are dropped, so
		// the sums keep the twin's order. Scalar tails cost ~10 % of a
		// d=200 iteration (200 = 6·32 + 8).
		valid := archsimd.Mask32x16FromBits(0xffff >> (16 - (n - i)))
		pa, pb := t.in(xa[i:], xb[i:])
		a := clampReg16(archsimd.LoadMaskedFloat32x16(pa, valid).Add(one), lo16, hi16)
		b := clampReg16(archsimd.LoadMaskedFloat32x16(pb, valid).Add(one), lo16, hi16)
		psi, ent := psiEnt32x16(a)
		p1, p2 := t.out(f1[i:], f2[i:])
		log32x16(b).Sub(psi).StoreMasked(p1, valid)
		a.Div(b).StoreMasked(p2, valid)
		t.flush(f1[i:], f2[i:])
		ent = ent.Merge(bf16(0), valid)
		acc = acc.Add(ent.GetLo().ConvertToFloat64()).Add(ent.GetHi().ConvertToFloat64())
		i = n
	}
	acc.Store(s)
	return i
}

func featuresGradAVX512(g1, g2, xa, xb []float32, ge, lo, hi float32) {
	var t tail16
	i := featuresGradVecAVX512(g1, g2, xa, xb, archsimd.BroadcastFloat32x16(ge), archsimd.BroadcastFloat32x16(lo), archsimd.BroadcastFloat32x16(hi), &t)
	clearUpper() // the scalar tail runs on clean upper halves
	for ; i < len(xa); i++ {
		featureGradAt(g1, g2, xa, xb, ge, lo, hi, i)
	}
}

// featuresGradVecAVX512 is the vector part of featuresGradAVX512, not inlined
// for the reason featuresVecAVX512 is not.
//
//go:noinline
func featuresGradVecAVX512(g1, g2, xa, xb []float32, ge16, lo16, hi16 archsimd.Float32x16, t *tail16) int {
	n := len(xa)
	g1, g2, xb = g1[:n], g2[:n], xb[:n]
	one := bf16(1)
	i := 0
	for ; i+32 <= n; i += 32 {
		xa0 := archsimd.LoadFloat32x16Slice(xa[i:]).Add(one)
		xa1 := archsimd.LoadFloat32x16Slice(xa[i+16:]).Add(one)
		tr0, am0, tr1, am1 := trigammaAm32x16x2(clampReg16(xa0, lo16, hi16), clampReg16(xa1, lo16, hi16))
		featureGrad16(g1[i:], g2[i:], xa0, archsimd.LoadFloat32x16Slice(xb[i:]).Add(one), tr0, am0, ge16, lo16, hi16)
		featureGrad16(g1[i+16:], g2[i+16:], xa1, archsimd.LoadFloat32x16Slice(xb[i+16:]).Add(one), tr1, am1, ge16, lo16, hi16)
	}
	for ; i+16 <= n; i += 16 {
		xa1 := archsimd.LoadFloat32x16Slice(xa[i:]).Add(one)
		tr, am := trigammaAm32x16(clampReg16(xa1, lo16, hi16))
		featureGrad16(g1[i:], g2[i:], xa1, archsimd.LoadFloat32x16Slice(xb[i:]).Add(one), tr, am, ge16, lo16, hi16)
	}
	if i < n {
		// The tail under a mask, as in featuresVecAVX512.
		valid := archsimd.Mask32x16FromBits(0xffff >> (16 - (n - i)))
		pa, pb := t.in(xa[i:], xb[i:])
		xa1 := archsimd.LoadMaskedFloat32x16(pa, valid).Add(one)
		xb1 := archsimd.LoadMaskedFloat32x16(pb, valid).Add(one)
		tr, am := trigammaAm32x16(clampReg16(xa1, lo16, hi16))
		p1, p2 := t.in(g1[i:], g2[i:]) // xa and xb are loaded: t is free
		u, v := archsimd.LoadMaskedFloat32x16(p1, valid), archsimd.LoadMaskedFloat32x16(p2, valid)
		ga, gb := featureGradVec16(u, v, xa1, xb1, tr, am, ge16, lo16, hi16)
		p1, p2 = t.out(g1[i:], g2[i:])
		ga.StoreMasked(p1, valid)
		gb.StoreMasked(p2, valid)
		t.flush(g1[i:], g2[i:])
		i = n
	}
	return i
}

// featureGrad16 turns 16 lanes of the features' gradient (g1, g2) into the
// entity's, given xa + 1, xb + 1 and ψ'(a), aψ'(a) − 1 of the clamped a.
func featureGrad16(g1, g2 []float32, xa1, xb1, tr, am, ge16, lo16, hi16 archsimd.Float32x16) {
	u := archsimd.LoadFloat32x16Slice(g1)
	v := archsimd.LoadFloat32x16Slice(g2)
	ga, gb := featureGradVec16(u, v, xa1, xb1, tr, am, ge16, lo16, hi16)
	ga.StoreSlice(g1)
	gb.StoreSlice(g2)
}

// featureGradVec16 is featureGrad16 on the loaded gradient lanes u, v.
func featureGradVec16(u, v, xa1, xb1, tr, am, ge16, lo16, hi16 archsimd.Float32x16) (ga, gb archsimd.Float32x16) {
	one, zero := bf16(1), bf16(0)
	pa := xa1.GreaterEqual(lo16).And(xa1.LessEqual(hi16))
	pb := xb1.GreaterEqual(lo16).And(xb1.LessEqual(hi16))
	a := clampReg16(xa1, lo16, hi16)
	ib := one.Div(clampReg16(xb1, lo16, hi16))
	ga = ge16.MulAdd(am, v.MulAdd(ib, zero.Sub(tr.Mul(u))))
	gb = u.Sub(v.Mul(a).Mul(ib)).Mul(ib)
	return ga.Merge(zero, pa), gb.Merge(zero, pb)
}

// tail16 gives the last, short vectors of a pair of rows an array to be
// loaded from and stored to under a mask: the rows' own memory when their
// allocation holds 16 elements from there (rows inside a larger matrix, a
// safe conversion), else its own arrays, copied in and out. archsimd's
// SlicePart loads and stores convert a short slice to a pointer to a whole
// vector's array whatever its allocation, which checkptr (go test -race)
// rejects at an allocation's end (golang/go#80856). The vector functions
// get their tail16 from their callers, whose zeroing of it (scalar
// stores) runs before any vector code.
type tail16 struct {
	a, b   [16]float32
	copied bool // out handed out a and b: flush copies them back
}

// in returns x's and y's next 16 elements (the first len(x) ≤ 16 valid).
func (t *tail16) in(x, y []float32) (*[16]float32, *[16]float32) {
	if cap(x) >= 16 && cap(y) >= 16 {
		return (*[16]float32)(x[:16]), (*[16]float32)(y[:16])
	}
	copyIn16(&t.a, &t.b, x, y)
	return &t.a, &t.b
}

// out returns where x's and y's next 16 elements are stored (the first
// len(x) of them kept): their own memory when it holds them, else a and
// b, for flush to copy back.
func (t *tail16) out(x, y []float32) (*[16]float32, *[16]float32) {
	if cap(x) >= 16 && cap(y) >= 16 {
		return (*[16]float32)(x[:16]), (*[16]float32)(y[:16])
	}
	t.copied = true
	return &t.a, &t.b
}

// flush copies what out handed out back to x and y (the first len(x)
// elements), if it handed out t's arrays.
func (t *tail16) flush(x, y []float32) {
	if t.copied {
		copyOut16(x, y, &t.a, &t.b)
	}
}

// copyIn16 and copyOut16 copy a short tail between rows and arrays. They
// are calls, not inlined: the caller's live vectors are spilled around a
// call, so the vzeroupper before the copies (scalar code, and memmove's
// SSE) cannot clobber them.
//
//go:noinline
func copyIn16(a, b *[16]float32, x, y []float32) {
	clearUpper()
	copy(a[:], x)
	copy(b[:], y[:len(x)])
}

//go:noinline
func copyOut16(x, y []float32, a, b *[16]float32) {
	clearUpper()
	copy(x, a[:])
	copy(y[:len(x)], b[:])
}
