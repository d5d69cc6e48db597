//go:build goexperiment.simd

package kernel

import (
	"simd/archsimd"
)

// AVX2 GammaFeatures and GammaFeaturesGrad: features_avx512.go with 8
// float32 lanes (two vectors in lockstep in the main loops, too).

// psiEnt32x8 is psiEnt32 on 8 lanes.
func psiEnt32x8(a archsimd.Float32x8) (psi, ent archsimd.Float32x8) {
	one, t8 := bf8(1), bf8(specialT)
	small := a.Less(t8)
	y := a.Min(t8)
	num, den := bf8(0), one
	for range 8 {
		num = num.MulAdd(y, den)
		den = den.Mul(y)
		y = y.Add(one)
	}
	y = y.Merge(a, small)
	num = num.Merge(bf8(0), small)
	den = den.Merge(one, small)
	inv := one.Div(den.Mul(y))
	t := den.Mul(inv)
	shift := num.Mul(y.Mul(inv))
	l := log32x8(y)
	w := t.Mul(t)
	sd := w.MulAdd(w.MulAdd(bf8(dg3), bf8(dg2)), bf8(dg1))
	psi = w.MulAdd(sd, bf8(-0.5).MulAdd(t, l)).Sub(shift)
	ss := w.MulAdd(w.MulAdd(bf8(st3), bf8(st2)), bf8(st1))
	lg := y.Sub(bf8(0.5)).MulAdd(l.Sub(one), ss.MulAdd(t, bf8(stirlingC))).Sub(log32x8(den))
	ent = a.MulAdd(psi, bf8(0).Sub(lg)).Sub(a)
	ent = ent.Merge(t.MulAdd(sd.Sub(ss), bf8(0.5).MulAdd(l, bf8(entC))), small)
	pos, nan := a.Greater(bf8(0)), fbits8(nan32Bits)
	return psi.Merge(nan, pos), ent.Merge(nan, pos)
}

// trigammaAm32x8 is trigammaAm32 on 8 lanes.
func trigammaAm32x8(a archsimd.Float32x8) (tr, am archsimd.Float32x8) {
	one, t8 := bf8(1), bf8(specialT)
	small := a.Less(t8)
	y := a.Min(t8)
	num, den := bf8(0), one
	for range 8 {
		y2 := y.Mul(y)
		num = num.MulAdd(y2, den)
		den = den.Mul(y2)
		y = y.Add(one)
	}
	shift := num.Div(den).Merge(bf8(0), small)
	y = y.Merge(a, small)
	t := one.Div(y)
	w := t.Mul(t)
	h := t.MulAdd(w.MulAdd(w.MulAdd(bf8(tg3), bf8(tg2)), bf8(tg1)), bf8(0.5))
	tr = w.MulAdd(h, t).Add(shift)
	am = a.MulAdd(tr, bf8(-1)).Merge(t.Mul(h), small)
	pos, nan := a.Greater(bf8(0)), fbits8(nan32Bits)
	return tr.Merge(nan, pos), am.Merge(nan, pos)
}

// clampReg8 is clampReg of x − 1 (x already has the 1 added).
func clampReg8(x, lo, hi archsimd.Float32x8) archsimd.Float32x8 {
	x = lo.Merge(x, x.Less(lo))
	return hi.Merge(x, x.Greater(hi))
}

func featuresAVX2(f1, f2, xa, xb []float32, lo, hi float32) float32 {
	var s [8]float64
	i := featuresVecAVX2(f1, f2, xa, xb, archsimd.BroadcastFloat32x8(lo), archsimd.BroadcastFloat32x8(hi), &s)
	clearUpper() // the scalar tail runs on clean upper halves
	for ; i < len(xa); i++ {
		featureAt(f1, f2, xa, xb, lo, hi, i, &s)
	}
	return sumAcc(&s)
}

// featuresVecAVX2 runs the vector part of featuresAVX2, leaving the
// lanes' partial sums in s, and returns where the scalar tail starts. Not
// inlined, so that no float32 scalar lives across its loops: the register
// allocator reloads those with legacy SSE moves.
//
//go:noinline
func featuresVecAVX2(f1, f2, xa, xb []float32, lo8, hi8 archsimd.Float32x8, s *[8]float64) int {
	n := len(xa)
	f1, f2, xb = f1[:n], f2[:n], xb[:n]
	one := bf8(1)
	// Lane j of acc0 (acc1) sums elements j (4+j), j+8, …: the twin's acc[i%8].
	acc0, acc1 := bc4(0), bc4(0)
	i := 0
	for ; i+16 <= n; i += 16 {
		a0 := clampReg8(archsimd.LoadFloat32x8Slice(xa[i:]).Add(one), lo8, hi8)
		a1 := clampReg8(archsimd.LoadFloat32x8Slice(xa[i+8:]).Add(one), lo8, hi8)
		b0 := clampReg8(archsimd.LoadFloat32x8Slice(xb[i:]).Add(one), lo8, hi8)
		b1 := clampReg8(archsimd.LoadFloat32x8Slice(xb[i+8:]).Add(one), lo8, hi8)
		// In this order few vectors live across the calls (featuresAVX512).
		a0.Div(b0).StoreSlice(f2[i:])
		a1.Div(b1).StoreSlice(f2[i+8:])
		lb0, lb1 := log32x8x2(b0, b1)
		psi0, ent0, psi1, ent1 := psiEnt32x8x2(a0, a1)
		lb0.Sub(psi0).StoreSlice(f1[i:])
		lb1.Sub(psi1).StoreSlice(f1[i+8:])
		acc0 = acc0.Add(ent0.GetLo().ConvertToFloat64()).Add(ent1.GetLo().ConvertToFloat64())
		acc1 = acc1.Add(ent0.GetHi().ConvertToFloat64()).Add(ent1.GetHi().ConvertToFloat64())
	}
	for ; i+8 <= n; i += 8 {
		a := clampReg8(archsimd.LoadFloat32x8Slice(xa[i:]).Add(one), lo8, hi8)
		b := clampReg8(archsimd.LoadFloat32x8Slice(xb[i:]).Add(one), lo8, hi8)
		psi, ent := psiEnt32x8(a)
		log32x8(b).Sub(psi).StoreSlice(f1[i:])
		a.Div(b).StoreSlice(f2[i:])
		acc0 = acc0.Add(ent.GetLo().ConvertToFloat64())
		acc1 = acc1.Add(ent.GetHi().ConvertToFloat64())
	}
	acc0.Store((*[4]float64)(s[:4]))
	acc1.Store((*[4]float64)(s[4:]))
	return i
}

func featuresGradAVX2(g1, g2, xa, xb []float32, ge, lo, hi float32) {
	i := featuresGradVecAVX2(g1, g2, xa, xb, archsimd.BroadcastFloat32x8(ge), archsimd.BroadcastFloat32x8(lo), archsimd.BroadcastFloat32x8(hi))
	clearUpper() // the scalar tail runs on clean upper halves
	for ; i < len(xa); i++ {
		featureGradAt(g1, g2, xa, xb, ge, lo, hi, i)
	}
}

// featuresGradVecAVX2 is the vector part of featuresGradAVX2, not inlined
// for the reason featuresVecAVX2 is not.
//
//go:noinline
func featuresGradVecAVX2(g1, g2, xa, xb []float32, ge8, lo8, hi8 archsimd.Float32x8) int {
	n := len(xa)
	g1, g2, xb = g1[:n], g2[:n], xb[:n]
	one := bf8(1)
	i := 0
	for ; i+16 <= n; i += 16 {
		xa0 := archsimd.LoadFloat32x8Slice(xa[i:]).Add(one)
		xa1 := archsimd.LoadFloat32x8Slice(xa[i+8:]).Add(one)
		tr0, am0, tr1, am1 := trigammaAm32x8x2(clampReg8(xa0, lo8, hi8), clampReg8(xa1, lo8, hi8))
		featureGrad8(g1[i:], g2[i:], xa0, archsimd.LoadFloat32x8Slice(xb[i:]).Add(one), tr0, am0, ge8, lo8, hi8)
		featureGrad8(g1[i+8:], g2[i+8:], xa1, archsimd.LoadFloat32x8Slice(xb[i+8:]).Add(one), tr1, am1, ge8, lo8, hi8)
	}
	for ; i+8 <= n; i += 8 {
		xa1 := archsimd.LoadFloat32x8Slice(xa[i:]).Add(one)
		tr, am := trigammaAm32x8(clampReg8(xa1, lo8, hi8))
		featureGrad8(g1[i:], g2[i:], xa1, archsimd.LoadFloat32x8Slice(xb[i:]).Add(one), tr, am, ge8, lo8, hi8)
	}
	return i
}

// featureGrad8 is featureGrad16 on 8 lanes.
func featureGrad8(g1, g2 []float32, xa1, xb1, tr, am, ge8, lo8, hi8 archsimd.Float32x8) {
	one, zero := bf8(1), bf8(0)
	pa := xa1.GreaterEqual(lo8).And(xa1.LessEqual(hi8))
	pb := xb1.GreaterEqual(lo8).And(xb1.LessEqual(hi8))
	a := clampReg8(xa1, lo8, hi8)
	ib := one.Div(clampReg8(xb1, lo8, hi8))
	u := archsimd.LoadFloat32x8Slice(g1)
	v := archsimd.LoadFloat32x8Slice(g2)
	ga := ge8.MulAdd(am, v.MulAdd(ib, zero.Sub(tr.Mul(u))))
	gb := u.Sub(v.Mul(a).Mul(ib)).Mul(ib)
	ga.Merge(zero, pa).StoreSlice(g1)
	gb.Merge(zero, pb).StoreSlice(g2)
}
