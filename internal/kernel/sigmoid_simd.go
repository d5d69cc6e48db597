//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
)

// The vector SigmoidSum: sigmoidAt on 16 (8) lanes, nb the bits of the negated shift; lane j of the float64
// accumulators sums elements j, j+8, …, the twin's acc[i%8].

func sigmoidSumAVX512(x []float32, nb uint32) float64 {
	shift, one := archsimd.BroadcastInt32x16(int32(nb)).AsFloat32x16(), bf16(1)
	acc := bc8(0)
	i := 0
	for ; i+16 <= len(x); i += 16 {
		s := one.Div(one.Add(exp32x16(shift.Sub(archsimd.LoadFloat32x16Slice(x[i:])))))
		acc = acc.Add(s.GetLo().ConvertToFloat64()).Add(s.GetHi().ConvertToFloat64())
	}
	var a [8]float64
	acc.Store(&a)
	clearUpper() // the scalar tail runs on clean upper halves
	for ; i < len(x); i++ {
		sigmoidAt(x, math.Float32frombits(nb), i, &a)
	}
	return sumAcc64(&a)
}

func sigmoidSumAVX2(x []float32, nb uint32) float64 {
	shift, one := archsimd.BroadcastInt32x8(int32(nb)).AsFloat32x8(), bf8(1)
	acc0, acc1 := bc4(0), bc4(0)
	i := 0
	for ; i+8 <= len(x); i += 8 {
		s := one.Div(one.Add(exp32x8(shift.Sub(archsimd.LoadFloat32x8Slice(x[i:])))))
		acc0 = acc0.Add(s.GetLo().ConvertToFloat64())
		acc1 = acc1.Add(s.GetHi().ConvertToFloat64())
	}
	var a [8]float64
	acc0.Store((*[4]float64)(a[:4]))
	acc1.Store((*[4]float64)(a[4:]))
	clearUpper() // the scalar tail runs on clean upper halves
	for ; i < len(x); i++ {
		sigmoidAt(x, math.Float32frombits(nb), i, &a)
	}
	return sumAcc64(&a)
}
