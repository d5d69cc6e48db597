//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
)

// AVX-512 GammaFeatures and GammaFeaturesGrad: 8 float64 lanes, operation
// for operation the twins in features.go. features_avx2.go is this file
// with 4 lanes.

// psiLgamma64x8 is psiLgamma64 on 8 lanes.
func psiLgamma64x8(a archsimd.Float64x8) (psi, lg archsimd.Float64x8) {
	one, t8 := bc8(1), bc8(specialT)
	small := a.Less(t8)
	y := a.Min(t8)
	num, den := bc8(0), one
	for range 8 {
		num = num.MulAdd(y, den)
		den = den.Mul(y)
		y = y.Add(one)
	}
	y = y.Merge(a, small)
	num = num.Merge(bc8(0), small)
	den = den.Merge(one, small)
	inv := one.Div(den.Mul(y))
	t := den.Mul(inv)
	shift := num.Mul(y.Mul(inv))
	l := log64x8(y)
	w := t.Mul(t)
	sd := w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(bc8(dg8), bc8(dg7)), bc8(dg6)), bc8(dg5)), bc8(dg4)), bc8(dg3)), bc8(dg2)), bc8(dg1))
	psi = w.MulAdd(sd, bc8(-0.5).MulAdd(t, l)).Sub(shift)
	ss := w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(bc8(st6), bc8(st5)), bc8(st4)), bc8(st3)), bc8(st2)), bc8(st1))
	lg = y.Sub(bc8(0.5)).MulAdd(l.Sub(one), ss.MulAdd(t, bc8(stirlingC))).Sub(log64x8(den))
	pos, nan := a.Greater(bc8(0)), bc8(math.NaN())
	return psi.Merge(nan, pos), lg.Merge(nan, pos)
}

// clampReg8 is clampReg of x − 1 (x already has the 1 added).
func clampReg8(x, lo, hi archsimd.Float32x8) archsimd.Float32x8 {
	x = lo.Merge(x, x.Less(lo))
	return hi.Merge(x, x.Greater(hi))
}

func featuresAVX512(f1, f2, xa, xb []float32, lo, hi float32) float32 {
	n := len(xa)
	f1, f2, xb = f1[:n], f2[:n], xb[:n]
	one, lo8, hi8 := archsimd.BroadcastFloat32x8(1), archsimd.BroadcastFloat32x8(lo), archsimd.BroadcastFloat32x8(hi)
	zero := bc8(0)
	acc := zero
	i := 0
	for ; i+8 <= n; i += 8 {
		a := clampReg8(archsimd.LoadFloat32x8Slice(xa[i:]).Add(one), lo8, hi8).ConvertToFloat64()
		b := clampReg8(archsimd.LoadFloat32x8Slice(xb[i:]).Add(one), lo8, hi8).ConvertToFloat64()
		psi, lg := psiLgamma64x8(a)
		log64x8(b).Sub(psi).ConvertToFloat32().StoreSlice(f1[i:])
		a.Div(b).ConvertToFloat32().StoreSlice(f2[i:])
		acc = acc.Add(a.MulAdd(psi, zero.Sub(lg)).Sub(a))
	}
	var s [8]float64
	acc.Store(&s)
	for ; i < n; i++ {
		featureAt(f1, f2, xa, xb, lo, hi, i, &s)
	}
	return sumAcc(&s)
}

func featuresGradAVX512(g1, g2, xa, xb []float32, ge, lo, hi float32) {
	n := len(xa)
	g1, g2, xb = g1[:n], g2[:n], xb[:n]
	one, lo8, hi8 := archsimd.BroadcastFloat32x8(1), archsimd.BroadcastFloat32x8(lo), archsimd.BroadcastFloat32x8(hi)
	zero32, zero, ge8, one64 := archsimd.BroadcastFloat32x8(0), bc8(0), bc8(float64(ge)), bc8(1)
	i := 0
	for ; i+8 <= n; i += 8 {
		xa1 := archsimd.LoadFloat32x8Slice(xa[i:]).Add(one)
		xb1 := archsimd.LoadFloat32x8Slice(xb[i:]).Add(one)
		pa := xa1.GreaterEqual(lo8).And(xa1.LessEqual(hi8))
		pb := xb1.GreaterEqual(lo8).And(xb1.LessEqual(hi8))
		a := clampReg8(xa1, lo8, hi8).ConvertToFloat64()
		ib := one64.Div(clampReg8(xb1, lo8, hi8).ConvertToFloat64())
		tr := trigamma64x8(a)
		u := archsimd.LoadFloat32x8Slice(g1[i:]).ConvertToFloat64()
		v := archsimd.LoadFloat32x8Slice(g2[i:]).ConvertToFloat64()
		ga := ge8.MulAdd(a.MulAdd(tr, bc8(-1)), v.MulAdd(ib, zero.Sub(tr.Mul(u))))
		gb := u.Sub(v.Mul(a).Mul(ib)).Mul(ib)
		ga.ConvertToFloat32().Merge(zero32, pa).StoreSlice(g1[i:])
		gb.ConvertToFloat32().Merge(zero32, pb).StoreSlice(g2[i:])
	}
	for ; i < n; i++ {
		featureGradAt(g1, g2, xa, xb, ge, lo, hi, i)
	}
}
