//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The bfloat16 rounding of the packs (bf16round.go), 16 lanes at a time,
// operation for operation toBF16. Callers clear the upper state before
// their scalar tails.

func bu16(v uint32) archsimd.Uint32x16 { return archsimd.BroadcastUint32x16(v) }

// roundBF16x16 rounds the float32 bits b to bfloat16 in the low halves of
// the lanes (the high halves zero): nearest even, a NaN quieted.
//
// The shifts take their count from a vector: ShiftAllRight(16) compiles
// to a legacy-SSE MOVQ of the count (Go 1.26.8). The constants are the
// callers', broadcast once outside their loops (as a struct they would be
// copied with legacy-SSE moves): 0x7fff, 1, 0x7fffffff, 0x7f800000, 0x40,
// 16.
func roundBF16x16(b, half, one, abs, inf, quiet, s16 archsimd.Uint32x16) archsimd.Uint32x16 {
	hi := b.ShiftRight(s16)
	r := b.Add(half).Add(hi.And(one)).ShiftRight(s16)
	nan := b.And(abs).Greater(inf)
	return hi.Or(quiet).Merge(r, nan)
}

// roundPairsAVX512 is roundPairs' vector part: the words of dst whose
// float pairs lie in whole vectors of src; it returns how many.
//
//go:noinline
func roundPairsAVX512(dst []uint32, src []float32) int {
	half, one, abs, inf, quiet, s16 := bu16(0x7fff), bu16(1), bu16(0x7fffffff), bu16(0x7f800000), bu16(0x40), bu16(16)
	n := min(len(dst), len(src)/2) &^ 7
	for i := 0; i < n; i += 8 {
		b := archsimd.LoadFloat32x16Slice(src[2*i:]).AsUint32x16()
		roundBF16x16(b, half, one, abs, inf, quiet, s16).TruncateToUint16().AsUint32x8().StoreSlice(dst[i:])
	}
	return n
}

// roundRowsAVX512 is roundRows' vector part: whole vectors of dst; it
// returns how many words.
//
//go:noinline
func roundRowsAVX512(dst []uint32, lo, hi []float32) int {
	half, one, abs, inf, quiet, s16 := bu16(0x7fff), bu16(1), bu16(0x7fffffff), bu16(0x7f800000), bu16(0x40), bu16(16)
	n := len(dst) &^ 15
	for c := 0; c < n; c += 16 {
		w := roundBF16x16(archsimd.LoadFloat32x16Slice(lo[c:]).AsUint32x16(), half, one, abs, inf, quiet, s16)
		if hi != nil {
			w = w.Or(roundBF16x16(archsimd.LoadFloat32x16Slice(hi[c:]).AsUint32x16(), half, one, abs, inf, quiet, s16).ShiftLeft(s16))
		}
		w.StoreSlice(dst[c:])
	}
	return n
}
