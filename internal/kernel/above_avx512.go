//go:build goexperiment.simd

package kernel

import (
	"math"
	"math/bits"
	"simd/archsimd"
	"slices"
)

// The vector passes only compare and keep each vector's lane mask; the
// indices are appended, and the tail compared, by scalar code after
// clearUpper (legacy SSE between vector instructions stalls; see
// TestNoLegacySSEInVectorCode).

const aboveChunk = 256 // vectors per pass: a stack array of masks

func aboveAVX512(dst []int32, xs []float32, t float32) []int32 {
	tb := int32(math.Float32bits(t))
	n16 := len(xs) &^ 15
	var masks [aboveChunk]uint16
	for base := 0; base < n16; base += 16 * aboveChunk {
		end := min(n16, base+16*aboveChunk)
		aboveMasks(&masks, xs[base:end], tb)
		clearUpper()
		for j, m := range masks[:(end-base)/16] {
			for m != 0 {
				dst = append(dst, int32(base+16*j+bits.TrailingZeros16(m)))
				m &= m - 1
			}
		}
	}
	for i := n16; i < len(xs); i++ {
		if xs[i] > t {
			dst = append(dst, int32(i))
		}
	}
	return dst
}

// aboveMasks sets masks[j] to the lanes of xs[16j:16j+16] above the
// float32 with bits tb; len(xs) is a multiple of 16, at most 16·aboveChunk.
//
//go:noinline
func aboveMasks(masks *[aboveChunk]uint16, xs []float32, tb int32) {
	tv := fbits16(tb)
	for j := range len(xs) / 16 {
		masks[j] = archsimd.LoadFloat32x16Slice(xs[16*j:]).Greater(tv).ToBits()
	}
}

func countAboveAVX512(xs []float32, t float32) int {
	n16 := len(xs) &^ 15
	n := countAboveVec(xs[:n16], int32(math.Float32bits(t)))
	clearUpper()
	for _, x := range xs[n16:] {
		if x > t {
			n++
		}
	}
	return n
}

//go:noinline
func countAboveVec(xs []float32, tb int32) int {
	tv := fbits16(tb)
	n := 0
	for i := 0; i < len(xs); i += 16 {
		n += bits.OnesCount16(archsimd.LoadFloat32x16Slice(xs[i:]).Greater(tv).ToBits())
	}
	return n
}

func valuesAboveAVX512(dst, xs []float32, t float32) []float32 {
	n16 := len(xs) &^ 15
	k := len(dst)
	dst = slices.Grow(dst, n16+16)[:k+n16+16] // each store writes 16 lanes
	k = valuesAboveVec(dst, k, xs[:n16], int32(math.Float32bits(t)))
	clearUpper()
	dst = dst[:k]
	for _, x := range xs[n16:] {
		if x > t {
			dst = append(dst, x)
		}
	}
	return dst
}

// valuesAboveVec stores the elements of xs above the float32 with bits tb
// at dst[k:], compacted, and returns the new k; dst has room for 16 lanes
// past the last.
//
//go:noinline
func valuesAboveVec(dst []float32, k int, xs []float32, tb int32) int {
	tv := fbits16(tb)
	for i := 0; i < len(xs); i += 16 {
		x := archsimd.LoadFloat32x16Slice(xs[i:])
		m := x.Greater(tv)
		x.Compress(m).StoreSlice(dst[k:])
		k += bits.OnesCount16(m.ToBits())
	}
	return k
}
