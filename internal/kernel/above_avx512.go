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

func countAboveAVX512(xs []float32, t float32) int {
	tv := archsimd.BroadcastFloat32x16(t)
	n16 := len(xs) &^ 15
	n := 0
	for i := 0; i < n16; i += 16 {
		n += bits.OnesCount16(archsimd.LoadFloat32x16Slice(xs[i:]).Greater(tv).ToBits())
	}
	for _, x := range xs[n16:] {
		if x > t {
			n++
		}
	}
	return n
}
