//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
)

// AVX2 GammaFeatures and GammaFeaturesGrad: features_avx512.go with 4
// float64 lanes, run twice per 8 elements so that the partial sums are the
// twin's.

func psiLgamma64x4(a archsimd.Float64x4) (psi, lg archsimd.Float64x4) {
	one, t8 := bc4(1), bc4(specialT)
	small := a.Less(t8)
	y := a.Min(t8)
	num, den := bc4(0), one
	for range 8 {
		num = num.MulAdd(y, den)
		den = den.Mul(y)
		y = y.Add(one)
	}
	y = y.Merge(a, small)
	num = num.Merge(bc4(0), small)
	den = den.Merge(one, small)
	inv := one.Div(den.Mul(y))
	t := den.Mul(inv)
	shift := num.Mul(y.Mul(inv))
	l := log64x4(y)
	w := t.Mul(t)
	sd := w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(bc4(dg8), bc4(dg7)), bc4(dg6)), bc4(dg5)), bc4(dg4)), bc4(dg3)), bc4(dg2)), bc4(dg1))
	psi = w.MulAdd(sd, bc4(-0.5).MulAdd(t, l)).Sub(shift)
	ss := w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(bc4(st6), bc4(st5)), bc4(st4)), bc4(st3)), bc4(st2)), bc4(st1))
	lg = y.Sub(bc4(0.5)).MulAdd(l.Sub(one), ss.MulAdd(t, bc4(stirlingC))).Sub(log64x4(den))
	pos, nan := a.Greater(bc4(0)), bc4(math.NaN())
	return psi.Merge(nan, pos), lg.Merge(nan, pos)
}

func clampReg4(x, lo, hi archsimd.Float32x4) archsimd.Float32x4 {
	x = lo.Merge(x, x.Less(lo))
	return hi.Merge(x, x.Greater(hi))
}

// featuresHalf computes 4 elements at i and returns their entity terms.
func featuresHalf(f1, f2, xa, xb []float32, i int, one, lo4, hi4 archsimd.Float32x4) archsimd.Float64x4 {
	a := clampReg4(archsimd.LoadFloat32x4Slice(xa[i:]).Add(one), lo4, hi4).ConvertToFloat64()
	b := clampReg4(archsimd.LoadFloat32x4Slice(xb[i:]).Add(one), lo4, hi4).ConvertToFloat64()
	psi, lg := psiLgamma64x4(a)
	log64x4(b).Sub(psi).ConvertToFloat32().StoreSlice(f1[i:])
	a.Div(b).ConvertToFloat32().StoreSlice(f2[i:])
	return a.MulAdd(psi, bc4(0).Sub(lg)).Sub(a)
}

func featuresAVX2(f1, f2, xa, xb []float32, lo, hi float32) float32 {
	n := len(xa)
	f1, f2, xb = f1[:n], f2[:n], xb[:n]
	one, lo4, hi4 := archsimd.BroadcastFloat32x4(1), archsimd.BroadcastFloat32x4(lo), archsimd.BroadcastFloat32x4(hi)
	acc0, acc1 := bc4(0), bc4(0)
	i := 0
	for ; i+8 <= n; i += 8 {
		acc0 = acc0.Add(featuresHalf(f1, f2, xa, xb, i, one, lo4, hi4))
		acc1 = acc1.Add(featuresHalf(f1, f2, xa, xb, i+4, one, lo4, hi4))
	}
	var s [8]float64
	acc0.Store((*[4]float64)(s[:4]))
	acc1.Store((*[4]float64)(s[4:]))
	for ; i < n; i++ {
		featureAt(f1, f2, xa, xb, lo, hi, i, &s)
	}
	return sumAcc(&s)
}

func featuresGradAVX2(g1, g2, xa, xb []float32, ge, lo, hi float32) {
	n := len(xa)
	g1, g2, xb = g1[:n], g2[:n], xb[:n]
	one, lo4, hi4 := archsimd.BroadcastFloat32x4(1), archsimd.BroadcastFloat32x4(lo), archsimd.BroadcastFloat32x4(hi)
	zero32, zero, ge4, one64 := archsimd.BroadcastFloat32x4(0), bc4(0), bc4(float64(ge)), bc4(1)
	i := 0
	for ; i+4 <= n; i += 4 {
		xa1 := archsimd.LoadFloat32x4Slice(xa[i:]).Add(one)
		xb1 := archsimd.LoadFloat32x4Slice(xb[i:]).Add(one)
		pa := xa1.GreaterEqual(lo4).And(xa1.LessEqual(hi4))
		pb := xb1.GreaterEqual(lo4).And(xb1.LessEqual(hi4))
		a := clampReg4(xa1, lo4, hi4).ConvertToFloat64()
		ib := one64.Div(clampReg4(xb1, lo4, hi4).ConvertToFloat64())
		tr := trigamma64x4(a)
		u := archsimd.LoadFloat32x4Slice(g1[i:]).ConvertToFloat64()
		v := archsimd.LoadFloat32x4Slice(g2[i:]).ConvertToFloat64()
		ga := ge4.MulAdd(a.MulAdd(tr, bc4(-1)), v.MulAdd(ib, zero.Sub(tr.Mul(u))))
		gb := u.Sub(v.Mul(a).Mul(ib)).Mul(ib)
		ga.ConvertToFloat32().Merge(zero32, pa).StoreSlice(g1[i:])
		gb.ConvertToFloat32().Merge(zero32, pb).StoreSlice(g2[i:])
	}
	for ; i < n; i++ {
		featureGradAt(g1, g2, xa, xb, ge, lo, hi, i)
	}
}
