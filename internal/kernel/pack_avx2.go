//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The AVX2 packer of B for the 6×16 kernel (A is read in place): the
// four-lane-pair twin of pack_avx512.go, change both. Bᵀ's 8-float rows
// go through the usual 8×8 transpose: 32-bit unpacks, 64-bit unpacks,
// then 128-bit halves swapped between pairs. Partial panels fall back to
// the scalar packer.

func packBAVX2(dst, b []float32, ldb int, trans bool, p0, kc, j0, nc int) {
	full := nc / 16 * 16 // columns in whole panels
	if !trans {
		// Row by row, so each row of b is read as one contiguous run.
		for p := range kc {
			row := b[(p0+p)*ldb+j0 : (p0+p)*ldb+j0+full]
			for q := 0; q < full; q += 16 {
				d := dst[q*kc+p*16 : q*kc+p*16+16]
				archsimd.LoadFloat32x8Slice(row[q:]).StoreSlice(d)
				archsimd.LoadFloat32x8Slice(row[q+8:]).StoreSlice(d[8:])
			}
		}
	} else {
		for q := 0; q < full; q += 16 {
			pan := dst[q*kc : (q+16)*kc]
			j := j0 + q
			p := 0
			for ; p+8 <= kc; p += 8 {
				transpose8(pan[p*16:(p+8)*16], b, ldb, j, p0+p)
				transpose8(pan[p*16+8:(p+8)*16], b, ldb, j+8, p0+p)
			}
			if p < kc {
				clearUpper() // a scalar copy follows
				tail := pan[p*16:]
				for c := range 16 {
					src := b[(j+c)*ldb+p0+p : (j+c)*ldb+p0+kc]
					for pp, v := range src {
						tail[pp*16+c] = v
					}
				}
			}
		}
	}
	if full < nc {
		clearUpper()
		packBGo(dst[full*kc:], b, ldb, trans, p0, kc, j0+full, nc-full, 16)
	}
}

// transpose8 writes the 8×8 block b[(j+c)·ldb + p + r], c, r < 8, as
// dst[r·16 + c].
func transpose8(dst, b []float32, ldb, j, p int) {
	_ = dst[7*16+7]
	r0 := archsimd.LoadFloat32x8Slice(b[(j+0)*ldb+p:]).AsUint32x8()
	r1 := archsimd.LoadFloat32x8Slice(b[(j+1)*ldb+p:]).AsUint32x8()
	r2 := archsimd.LoadFloat32x8Slice(b[(j+2)*ldb+p:]).AsUint32x8()
	r3 := archsimd.LoadFloat32x8Slice(b[(j+3)*ldb+p:]).AsUint32x8()
	r4 := archsimd.LoadFloat32x8Slice(b[(j+4)*ldb+p:]).AsUint32x8()
	r5 := archsimd.LoadFloat32x8Slice(b[(j+5)*ldb+p:]).AsUint32x8()
	r6 := archsimd.LoadFloat32x8Slice(b[(j+6)*ldb+p:]).AsUint32x8()
	r7 := archsimd.LoadFloat32x8Slice(b[(j+7)*ldb+p:]).AsUint32x8()
	// Rows a…h, elements 0…7: t0 = a0 b0 a1 b1 | a4 b4 a5 b5, t1 = a2 b2 a3 b3 | a6 b6 a7 b7, …
	t0, t1 := r0.InterleaveLoGrouped(r1).AsUint64x4(), r0.InterleaveHiGrouped(r1).AsUint64x4()
	t2, t3 := r2.InterleaveLoGrouped(r3).AsUint64x4(), r2.InterleaveHiGrouped(r3).AsUint64x4()
	t4, t5 := r4.InterleaveLoGrouped(r5).AsUint64x4(), r4.InterleaveHiGrouped(r5).AsUint64x4()
	t6, t7 := r6.InterleaveLoGrouped(r7).AsUint64x4(), r6.InterleaveHiGrouped(r7).AsUint64x4()
	// u0 = a0 b0 c0 d0 | a4 b4 c4 d4, u1 = a1 … | a5 …, u2 = a2 … | a6 …, u3 = a3 … | a7 …
	u0, u1 := t0.InterleaveLoGrouped(t2), t0.InterleaveHiGrouped(t2)
	u2, u3 := t1.InterleaveLoGrouped(t3), t1.InterleaveHiGrouped(t3)
	u4, u5 := t4.InterleaveLoGrouped(t6), t4.InterleaveHiGrouped(t6)
	u6, u7 := t5.InterleaveLoGrouped(t7), t5.InterleaveHiGrouped(t7)
	u0.Select128FromPair(0, 2, u4).AsFloat32x8().StoreSlice(dst[0*16:])
	u1.Select128FromPair(0, 2, u5).AsFloat32x8().StoreSlice(dst[1*16:])
	u2.Select128FromPair(0, 2, u6).AsFloat32x8().StoreSlice(dst[2*16:])
	u3.Select128FromPair(0, 2, u7).AsFloat32x8().StoreSlice(dst[3*16:])
	u0.Select128FromPair(1, 3, u4).AsFloat32x8().StoreSlice(dst[4*16:])
	u1.Select128FromPair(1, 3, u5).AsFloat32x8().StoreSlice(dst[5*16:])
	u2.Select128FromPair(1, 3, u6).AsFloat32x8().StoreSlice(dst[6*16:])
	u3.Select128FromPair(1, 3, u7).AsFloat32x8().StoreSlice(dst[7*16:])
}
