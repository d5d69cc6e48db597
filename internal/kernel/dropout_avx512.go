//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// dropoutAVX512 is dropoutRef for 32 units at a time: eight splitmix64
// draws side by side (64-bit lane products: AVX-512 DQ), whose 16-bit
// quarters, in lane order, are the 32 units' draws in the reference's
// order. It returns how many units it did (whole blocks of 32); the
// caller runs the reference on the rest. The shifts take their counts
// from vectors: ShiftAllRight(30) compiles to a legacy-SSE MOVQ of the
// count (bf16round_avx512.go).
//
//go:noinline
func dropoutAVX512(x []float32, thr uint16, scale float32, state *uint64) int {
	n := len(x) &^ 31
	if n > 0 {
		sc := archsimd.BroadcastFloat32x16(scale)
		var off [8]uint64
		g := uint64(golden)
		for k := range off {
			off[k] = uint64(k+1) * g
		}
		st := archsimd.BroadcastUint64x8(*state).Add(archsimd.LoadUint64x8Slice(off[:]))
		step := archsimd.BroadcastUint64x8(8 * g)
		c1, c2 := archsimd.BroadcastUint64x8(0xbf58476d1ce4e5b9), archsimd.BroadcastUint64x8(0x94d049bb133111eb)
		s27, s30, s31 := archsimd.BroadcastUint64x8(27), archsimd.BroadcastUint64x8(30), archsimd.BroadcastUint64x8(31)
		t := archsimd.BroadcastUint32x16(uint32(thr))
		for i := 0; i < n; i += 32 {
			z := st.Xor(st.ShiftRight(s30)).Mul(c1)
			z = z.Xor(z.ShiftRight(s27)).Mul(c2)
			u := z.Xor(z.ShiftRight(s31)).AsUint16x32()
			lo, hi := u.GetLo().ExtendToUint32(), u.GetHi().ExtendToUint32()
			archsimd.LoadFloat32x16Slice(x[i:]).Mul(sc).Masked(lo.GreaterEqual(t)).StoreSlice(x[i:])
			archsimd.LoadFloat32x16Slice(x[i+16:]).Mul(sc).Masked(hi.GreaterEqual(t)).StoreSlice(x[i+16:])
			st = st.Add(step)
		}
		*state += uint64(n/4) * g
	}
	return n
}
