//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
)

// The vector loss-row passes: lossrow.go's twins on 16 (8) lanes; lane j
// of the float64 accumulators sums elements j, j+8, …, the twins' acc[i%8].

func expSumAVX512(dst, x []float32, ab, nbb uint32) (float64, float64) {
	dst = dst[:len(x)]
	a := archsimd.BroadcastInt32x16(int32(ab)).AsFloat32x16()
	nb := archsimd.BroadcastInt32x16(int32(nbb)).AsFloat32x16()
	ninf, zero := fbits16(ninf32Bits), bf16(0)
	accE, accX := bc8(0), bc8(0)
	i := 0
	for ; i+16 <= len(x); i += 16 {
		v := archsimd.LoadFloat32x16Slice(x[i:])
		e := exp32x16(v.MulAdd(a, nb))
		e.StoreSlice(dst[i:])
		accE = accE.Add(e.GetLo().ConvertToFloat64()).Add(e.GetHi().ConvertToFloat64())
		v = zero.Merge(v, v.Equal(ninf))
		accX = accX.Add(v.GetLo().ConvertToFloat64()).Add(v.GetHi().ConvertToFloat64())
	}
	var ae, ax [8]float64
	accE.Store(&ae)
	accX.Store(&ax)
	clearUpper() // the scalar tail runs on clean upper halves
	for ; i < len(x); i++ {
		expSumAt(dst, x, math.Float32frombits(ab), math.Float32frombits(nbb), i, &ae, &ax)
	}
	return sumAcc64(&ae), sumAcc64(&ax)
}

func expSumAVX2(dst, x []float32, ab, nbb uint32) (float64, float64) {
	dst = dst[:len(x)]
	a := archsimd.BroadcastInt32x8(int32(ab)).AsFloat32x8()
	nb := archsimd.BroadcastInt32x8(int32(nbb)).AsFloat32x8()
	ninf, zero := fbits8(ninf32Bits), bf8(0)
	e0, e1, x0, x1 := bc4(0), bc4(0), bc4(0), bc4(0)
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:])
		e := exp32x8(v.MulAdd(a, nb))
		e.StoreSlice(dst[i:])
		e0 = e0.Add(e.GetLo().ConvertToFloat64())
		e1 = e1.Add(e.GetHi().ConvertToFloat64())
		v = zero.Merge(v, v.Equal(ninf))
		x0 = x0.Add(v.GetLo().ConvertToFloat64())
		x1 = x1.Add(v.GetHi().ConvertToFloat64())
	}
	var ae, ax [8]float64
	e0.Store((*[4]float64)(ae[:4]))
	e1.Store((*[4]float64)(ae[4:]))
	x0.Store((*[4]float64)(ax[:4]))
	x1.Store((*[4]float64)(ax[4:]))
	clearUpper()
	for ; i < len(x); i++ {
		expSumAt(dst, x, math.Float32frombits(ab), math.Float32frombits(nbb), i, &ae, &ax)
	}
	return sumAcc64(&ae), sumAcc64(&ax)
}

func scaleShiftAVX512(x []float32, ab, nbb uint32) {
	a := archsimd.BroadcastInt32x16(int32(ab)).AsFloat32x16()
	nb := archsimd.BroadcastInt32x16(int32(nbb)).AsFloat32x16()
	i := 0
	for ; i+16 <= len(x); i += 16 {
		archsimd.LoadFloat32x16Slice(x[i:]).MulAdd(a, nb).StoreSlice(x[i:])
	}
	if i < len(x) {
		clearUpper()
		scaleShiftTwin(x[i:], ab, nbb)
	}
}

func scaleShiftAVX2(x []float32, ab, nbb uint32) {
	a := archsimd.BroadcastInt32x8(int32(ab)).AsFloat32x8()
	nb := archsimd.BroadcastInt32x8(int32(nbb)).AsFloat32x8()
	i := 0
	for ; i+8 <= len(x); i += 8 {
		archsimd.LoadFloat32x8Slice(x[i:]).MulAdd(a, nb).StoreSlice(x[i:])
	}
	if i < len(x) {
		clearUpper()
		scaleShiftTwin(x[i:], ab, nbb)
	}
}

func sigmoidLossAVX512(g, x []float32, cb uint32) float64 {
	g = g[:len(x)]
	c := archsimd.BroadcastInt32x16(int32(cb)).AsFloat32x16()
	one, hi := bf16(1), bf16(80)
	acc := bc8(0)
	i := 0
	for ; i+16 <= len(x); i += 16 {
		xv := archsimd.LoadFloat32x16Slice(x[i:])
		u := exp32x16(xv.Merge(xv.Min(hi), xv.IsNaN())) // min keeps a NaN, as Go's
		v := one.Add(u)
		u.Div(v).MulAdd(c, archsimd.LoadFloat32x16Slice(g[i:])).StoreSlice(g[i:])
		l := log32x16(v)
		acc = acc.Add(l.GetLo().ConvertToFloat64()).Add(l.GetHi().ConvertToFloat64())
	}
	var a [8]float64
	acc.Store(&a)
	clearUpper()
	for ; i < len(x); i++ {
		sigmoidLossAt(g, x, math.Float32frombits(cb), i, &a)
	}
	return sumAcc64(&a)
}

func sigmoidLossAVX2(g, x []float32, cb uint32) float64 {
	g = g[:len(x)]
	c := archsimd.BroadcastInt32x8(int32(cb)).AsFloat32x8()
	one, hi := bf8(1), bf8(80)
	acc0, acc1 := bc4(0), bc4(0)
	i := 0
	for ; i+8 <= len(x); i += 8 {
		xv := archsimd.LoadFloat32x8Slice(x[i:])
		u := exp32x8(xv.Merge(xv.Min(hi), xv.IsNaN())) // min keeps a NaN, as Go's
		v := one.Add(u)
		u.Div(v).MulAdd(c, archsimd.LoadFloat32x8Slice(g[i:])).StoreSlice(g[i:])
		l := log32x8(v)
		acc0 = acc0.Add(l.GetLo().ConvertToFloat64())
		acc1 = acc1.Add(l.GetHi().ConvertToFloat64())
	}
	var a [8]float64
	acc0.Store((*[4]float64)(a[:4]))
	acc1.Store((*[4]float64)(a[4:]))
	clearUpper()
	for ; i < len(x); i++ {
		sigmoidLossAt(g, x, math.Float32frombits(cb), i, &a)
	}
	return sumAcc64(&a)
}
