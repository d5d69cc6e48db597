//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The bfloat16 rounding of the packs (bf16round.go) at the AVX2 level, 8
// lanes at a time, operation for operation toBF16 (as roundBF16x16).

func bu8(v uint32) archsimd.Uint32x8 { return archsimd.BroadcastUint32x8(v) }

// roundBF16x8 rounds the float32 bits b to bfloat16 in the low halves of
// the lanes (the high halves zero): nearest even, a NaN quieted. b&abs is
// below 2³¹, so the signed compare (AVX2 has no unsigned one) finds the
// NaNs.
func roundBF16x8(b, half, one, abs, inf, quiet, s16 archsimd.Uint32x8) archsimd.Uint32x8 {
	hi := b.ShiftRight(s16)
	r := b.Add(half).Add(hi.And(one)).ShiftRight(s16)
	nan := b.And(abs).AsInt32x8().Greater(inf.AsInt32x8())
	return hi.Or(quiet).Merge(r, nan)
}

// pairOrder gathers the words of two pairings interleaved by
// roundPairsAVX2 (w0 w4 w1 w5 w2 w6 w3 w7) back into order.
var pairOrder = [8]uint32{0, 2, 4, 6, 1, 3, 5, 7}

// roundPairsAVX2 is roundPairs' vector part: the words of dst whose float
// pairs lie in whole 16-value blocks of src; it returns how many. Each
// 64-bit lane of a rounded vector holds a pair in its 16-bit halves 0 and
// 2; a shift by 16 brings the second next to the first.
//
//go:noinline
func roundPairsAVX2(dst []uint32, src []float32) int {
	half, one, abs, inf, quiet, s16 := bu8(0x7fff), bu8(1), bu8(0x7fffffff), bu8(0x7f800000), bu8(0x40), bu8(16)
	s16q, s32q, low := archsimd.BroadcastUint64x4(16), archsimd.BroadcastUint64x4(32), archsimd.BroadcastUint64x4(0xffffffff)
	order := archsimd.LoadUint32x8Slice(pairOrder[:])
	n := min(len(dst), len(src)/2) &^ 7
	for i := 0; i < n; i += 8 {
		a := roundBF16x8(archsimd.LoadFloat32x8Slice(src[2*i:]).AsUint32x8(), half, one, abs, inf, quiet, s16).AsUint64x4()
		b := roundBF16x8(archsimd.LoadFloat32x8Slice(src[2*i+8:]).AsUint32x8(), half, one, abs, inf, quiet, s16).AsUint64x4()
		a = a.Or(a.ShiftRight(s16q)).And(low)
		b = b.Or(b.ShiftRight(s16q)).ShiftLeft(s32q)
		a.Or(b).AsUint32x8().Permute(order).StoreSlice(dst[i:])
	}
	return n
}

// roundRowsAVX2 is roundRows' vector part: whole vectors of dst; it
// returns how many words.
//
//go:noinline
func roundRowsAVX2(dst []uint32, lo, hi []float32) int {
	half, one, abs, inf, quiet, s16 := bu8(0x7fff), bu8(1), bu8(0x7fffffff), bu8(0x7f800000), bu8(0x40), bu8(16)
	n := len(dst) &^ 7
	for c := 0; c < n; c += 8 {
		w := roundBF16x8(archsimd.LoadFloat32x8Slice(lo[c:]).AsUint32x8(), half, one, abs, inf, quiet, s16)
		if hi != nil {
			w = w.Or(roundBF16x8(archsimd.LoadFloat32x8Slice(hi[c:]).AsUint32x8(), half, one, abs, inf, quiet, s16).ShiftLeft(s16))
		}
		w.StoreSlice(dst[c:])
	}
	return n
}
