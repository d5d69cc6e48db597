//go:build goexperiment.simd

package kernel

import (
	"math/bits"
	"simd/archsimd"
)

func aboveAVX512(dst []int32, xs []float32, t float32) []int32 {
	tv := archsimd.BroadcastFloat32x16(t)
	n16 := len(xs) &^ 15
	for i := 0; i < n16; i += 16 {
		m := archsimd.LoadFloat32x16Slice(xs[i:]).Greater(tv).ToBits()
		for m != 0 {
			dst = append(dst, int32(i+bits.TrailingZeros16(m)))
			m &= m - 1
		}
	}
	for i := n16; i < len(xs); i++ {
		if xs[i] > t {
			dst = append(dst, int32(i))
		}
	}
	return dst
}
