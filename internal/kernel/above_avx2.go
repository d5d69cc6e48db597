//go:build goexperiment.simd

package kernel

import (
	"math"
	"math/bits"
	"simd/archsimd"
)

// The AVX2 levels of Above and CountAbove: above_avx512.go with 8 lanes
// (the lane masks through VMOVMSKPS).

func aboveAVX2(dst []int32, xs []float32, t float32) []int32 {
	tb := int32(math.Float32bits(t))
	n8 := len(xs) &^ 7
	var masks [aboveChunk]uint8
	for base := 0; base < n8; base += 8 * aboveChunk {
		end := min(n8, base+8*aboveChunk)
		aboveMasks8(&masks, xs[base:end], tb)
		clearUpper()
		for j, m := range masks[:(end-base)/8] {
			for m != 0 {
				dst = append(dst, int32(base+8*j+bits.TrailingZeros8(m)))
				m &= m - 1
			}
		}
	}
	for i := n8; i < len(xs); i++ {
		if xs[i] > t {
			dst = append(dst, int32(i))
		}
	}
	return dst
}

// aboveMasks8 sets masks[j] to the lanes of xs[8j:8j+8] above the float32
// with bits tb; len(xs) is a multiple of 8, at most 8·aboveChunk.
//
//go:noinline
func aboveMasks8(masks *[aboveChunk]uint8, xs []float32, tb int32) {
	tv := fbits8(tb)
	for j := range len(xs) / 8 {
		masks[j] = archsimd.LoadFloat32x8Slice(xs[8*j:]).Greater(tv).ToBits()
	}
}

func countAboveAVX2(xs []float32, t float32) int {
	n8 := len(xs) &^ 7
	n := countAboveVec8(xs[:n8], int32(math.Float32bits(t)))
	clearUpper()
	for _, x := range xs[n8:] {
		if x > t {
			n++
		}
	}
	return n
}

//go:noinline
func countAboveVec8(xs []float32, tb int32) int {
	tv := fbits8(tb)
	n := 0
	for i := 0; i < len(xs); i += 8 {
		n += bits.OnesCount8(archsimd.LoadFloat32x8Slice(xs[i:]).Greater(tv).ToBits())
	}
	return n
}
