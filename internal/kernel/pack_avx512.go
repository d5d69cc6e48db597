//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The AVX-512 packer of B for the 8×32 kernel (A is read in place; its
// AVX2 twin is pack_avx2.go, change both). Bᵀ's 16-float rows go through
// a perfect-shuffle network of ConcatPermute: one shuffle rotates the
// (row, lane) bit address left by one, so log₂(rows) of them transpose.
// Partial panels fall back to the scalar packer.

// Interleave the low / high halves of two vectors: x0 y0 x1 y1 …
var (
	shuffleLo = [16]uint32{0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23}
	shuffleHi = [16]uint32{8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31}
)

func packBAVX512(dst, b []float32, ldb int, trans bool, p0, kc, j0, nc int) {
	full := nc / 32 * 32 // columns in whole panels
	if !trans {
		// Row by row, so each row of b is read as one contiguous run.
		for p := range kc {
			row := b[(p0+p)*ldb+j0 : (p0+p)*ldb+j0+full]
			for q := 0; q < full; q += 32 {
				d := dst[q*kc+p*32 : q*kc+p*32+32]
				archsimd.LoadFloat32x16Slice(row[q:]).StoreSlice(d)
				archsimd.LoadFloat32x16Slice(row[q+16:]).StoreSlice(d[16:])
			}
		}
	} else {
		for q := 0; q < full; q += 32 {
			pan := dst[q*kc : (q+32)*kc]
			j := j0 + q
			p := 0
			for ; p+16 <= kc; p += 16 {
				transpose16(pan[p*32:(p+16)*32], b, ldb, j, p0+p)
				transpose16(pan[p*32+16:(p+16)*32], b, ldb, j+16, p0+p)
			}
			if p < kc {
				clearUpper() // a scalar copy follows
				tail := pan[p*32:]
				for c := range 32 {
					src := b[(j+c)*ldb+p0+p : (j+c)*ldb+p0+kc]
					for pp, v := range src {
						tail[pp*32+c] = v
					}
				}
			}
		}
	}
	if full < nc {
		clearUpper()
		packBGo(dst[full*kc:], b, ldb, trans, p0, kc, j0+full, nc-full, 32)
	}
}

// transpose16 writes the 16×16 block b[(j+c)·ldb + p + r], c, r < 16, as
// dst[r·32 + c].
func transpose16(dst, b []float32, ldb, j, p int) {
	lo, hi := archsimd.LoadUint32x16(&shuffleLo), archsimd.LoadUint32x16(&shuffleHi)
	_ = dst[15*32+15]
	r0 := archsimd.LoadFloat32x16Slice(b[(j+0)*ldb+p:])
	r1 := archsimd.LoadFloat32x16Slice(b[(j+1)*ldb+p:])
	r2 := archsimd.LoadFloat32x16Slice(b[(j+2)*ldb+p:])
	r3 := archsimd.LoadFloat32x16Slice(b[(j+3)*ldb+p:])
	r4 := archsimd.LoadFloat32x16Slice(b[(j+4)*ldb+p:])
	r5 := archsimd.LoadFloat32x16Slice(b[(j+5)*ldb+p:])
	r6 := archsimd.LoadFloat32x16Slice(b[(j+6)*ldb+p:])
	r7 := archsimd.LoadFloat32x16Slice(b[(j+7)*ldb+p:])
	r8 := archsimd.LoadFloat32x16Slice(b[(j+8)*ldb+p:])
	r9 := archsimd.LoadFloat32x16Slice(b[(j+9)*ldb+p:])
	r10 := archsimd.LoadFloat32x16Slice(b[(j+10)*ldb+p:])
	r11 := archsimd.LoadFloat32x16Slice(b[(j+11)*ldb+p:])
	r12 := archsimd.LoadFloat32x16Slice(b[(j+12)*ldb+p:])
	r13 := archsimd.LoadFloat32x16Slice(b[(j+13)*ldb+p:])
	r14 := archsimd.LoadFloat32x16Slice(b[(j+14)*ldb+p:])
	r15 := archsimd.LoadFloat32x16Slice(b[(j+15)*ldb+p:])
	s0_0, s0_1 := r0.ConcatPermute(r8, lo), r0.ConcatPermute(r8, hi)
	s0_2, s0_3 := r1.ConcatPermute(r9, lo), r1.ConcatPermute(r9, hi)
	s0_4, s0_5 := r2.ConcatPermute(r10, lo), r2.ConcatPermute(r10, hi)
	s0_6, s0_7 := r3.ConcatPermute(r11, lo), r3.ConcatPermute(r11, hi)
	s0_8, s0_9 := r4.ConcatPermute(r12, lo), r4.ConcatPermute(r12, hi)
	s0_10, s0_11 := r5.ConcatPermute(r13, lo), r5.ConcatPermute(r13, hi)
	s0_12, s0_13 := r6.ConcatPermute(r14, lo), r6.ConcatPermute(r14, hi)
	s0_14, s0_15 := r7.ConcatPermute(r15, lo), r7.ConcatPermute(r15, hi)
	s1_0, s1_1 := s0_0.ConcatPermute(s0_8, lo), s0_0.ConcatPermute(s0_8, hi)
	s1_2, s1_3 := s0_1.ConcatPermute(s0_9, lo), s0_1.ConcatPermute(s0_9, hi)
	s1_4, s1_5 := s0_2.ConcatPermute(s0_10, lo), s0_2.ConcatPermute(s0_10, hi)
	s1_6, s1_7 := s0_3.ConcatPermute(s0_11, lo), s0_3.ConcatPermute(s0_11, hi)
	s1_8, s1_9 := s0_4.ConcatPermute(s0_12, lo), s0_4.ConcatPermute(s0_12, hi)
	s1_10, s1_11 := s0_5.ConcatPermute(s0_13, lo), s0_5.ConcatPermute(s0_13, hi)
	s1_12, s1_13 := s0_6.ConcatPermute(s0_14, lo), s0_6.ConcatPermute(s0_14, hi)
	s1_14, s1_15 := s0_7.ConcatPermute(s0_15, lo), s0_7.ConcatPermute(s0_15, hi)
	s2_0, s2_1 := s1_0.ConcatPermute(s1_8, lo), s1_0.ConcatPermute(s1_8, hi)
	s2_2, s2_3 := s1_1.ConcatPermute(s1_9, lo), s1_1.ConcatPermute(s1_9, hi)
	s2_4, s2_5 := s1_2.ConcatPermute(s1_10, lo), s1_2.ConcatPermute(s1_10, hi)
	s2_6, s2_7 := s1_3.ConcatPermute(s1_11, lo), s1_3.ConcatPermute(s1_11, hi)
	s2_8, s2_9 := s1_4.ConcatPermute(s1_12, lo), s1_4.ConcatPermute(s1_12, hi)
	s2_10, s2_11 := s1_5.ConcatPermute(s1_13, lo), s1_5.ConcatPermute(s1_13, hi)
	s2_12, s2_13 := s1_6.ConcatPermute(s1_14, lo), s1_6.ConcatPermute(s1_14, hi)
	s2_14, s2_15 := s1_7.ConcatPermute(s1_15, lo), s1_7.ConcatPermute(s1_15, hi)
	o3_0, o3_1 := s2_0.ConcatPermute(s2_8, lo), s2_0.ConcatPermute(s2_8, hi)
	o3_2, o3_3 := s2_1.ConcatPermute(s2_9, lo), s2_1.ConcatPermute(s2_9, hi)
	o3_4, o3_5 := s2_2.ConcatPermute(s2_10, lo), s2_2.ConcatPermute(s2_10, hi)
	o3_6, o3_7 := s2_3.ConcatPermute(s2_11, lo), s2_3.ConcatPermute(s2_11, hi)
	o3_8, o3_9 := s2_4.ConcatPermute(s2_12, lo), s2_4.ConcatPermute(s2_12, hi)
	o3_10, o3_11 := s2_5.ConcatPermute(s2_13, lo), s2_5.ConcatPermute(s2_13, hi)
	o3_12, o3_13 := s2_6.ConcatPermute(s2_14, lo), s2_6.ConcatPermute(s2_14, hi)
	o3_14, o3_15 := s2_7.ConcatPermute(s2_15, lo), s2_7.ConcatPermute(s2_15, hi)
	o3_0.StoreSlice(dst[0:])
	o3_1.StoreSlice(dst[32:])
	o3_2.StoreSlice(dst[64:])
	o3_3.StoreSlice(dst[96:])
	o3_4.StoreSlice(dst[128:])
	o3_5.StoreSlice(dst[160:])
	o3_6.StoreSlice(dst[192:])
	o3_7.StoreSlice(dst[224:])
	o3_8.StoreSlice(dst[256:])
	o3_9.StoreSlice(dst[288:])
	o3_10.StoreSlice(dst[320:])
	o3_11.StoreSlice(dst[352:])
	o3_12.StoreSlice(dst[384:])
	o3_13.StoreSlice(dst[416:])
	o3_14.StoreSlice(dst[448:])
	o3_15.StoreSlice(dst[480:])
}
