//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
	"unsafe"
)

// AVX-512 kernels of the small path (16 lanes). At most 8 accumulators,
// as in the blocked micro-kernel; loads go through unsafe offsets checked
// once up front. gemm_small_avx2.go is this file with 8 lanes.

var smallAVX512 = smallKernels{
	lanes:  16,
	dot4x2: dot4x2AVX512,
	dot2x4: dot2x4AVX512,
	dot1x4: dot1x4AVX512,
	sum:    func(acc []float32) float32 { return sum16(archsimd.LoadFloat32x16Slice(acc)) },
	nnw:    32,
	nnKC:   8,
	nn:     [3]func(int, []float32, int, []float32, int, []float32, int, float32){nn4x2AVX512, nn2x2AVX512, nn1x2AVX512},
	nnTail: nnTailAVX512,
}

func ld16(p unsafe.Pointer, off uintptr) archsimd.Float32x16 {
	return archsimd.LoadFloat32x16((*[16]float32)(unsafe.Add(p, off)))
}

func st16(v archsimd.Float32x16, p unsafe.Pointer, off uintptr) {
	v.Store((*[16]float32)(unsafe.Add(p, off)))
}

// ldPart16 loads the n ≤ 16 floats at p+off into the low lanes, zero in
// the others, with a masked load: the other lanes are not read (their
// faults are suppressed), so no padded copy is needed (such copies are
// legacy SSE moves between vector instructions). checkptr would flag the
// 64-byte array type that may reach past the allocation; nothing past n is
// touched, hence nocheckptr, and noinline so that the directive holds.
//
//go:nocheckptr
//go:noinline
func ldPart16(p unsafe.Pointer, off uintptr, n int) archsimd.Float32x16 {
	return archsimd.LoadMaskedFloat32x16((*[16]float32)(unsafe.Add(p, off)), archsimd.Mask32x16FromBits(uint16(1)<<n-1))
}

// stPart16 stores the low n ≤ 16 lanes of v at p+off, as ldPart16 loads.
//
//go:nocheckptr
//go:noinline
func stPart16(v archsimd.Float32x16, p unsafe.Pointer, off uintptr, n int) {
	v.StoreMasked((*[16]float32)(unsafe.Add(p, off)), archsimd.Mask32x16FromBits(uint16(1)<<n-1))
}

// sum16 adds the lanes of v in a fixed tree: halves, quarters, pairs.
func sum16(v archsimd.Float32x16) float32 {
	h := v.GetLo().Add(v.GetHi())
	q := h.GetLo().Add(h.GetHi())
	q = q.AddPairs(q)
	return first4(q.AddPairs(q))
}

// The dot kernels run the lanes over the first kv = k rounded down to 16
// values of b, then over the rest with masked loads (a is zero there already).
// Accumulator rows are 4·64 bytes apart.
const accRow16 = 4 * 64

func dot4x2AVX512(k int, a []float32, kp int, b0, b1 []float32, acc []float32) {
	b0, b1 = b0[:k], b1[:k]
	_, _ = a[3*kp+(k+15)&^15-1], acc[(3*4+1)*16+15]
	kv := k &^ 15
	pa, p0, p1 := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b0)), unsafe.Pointer(unsafe.SliceData(b1))
	ps := unsafe.Pointer(unsafe.SliceData(acc))
	row := uintptr(kp) * 4
	s00, s01 := ld16(ps, 0), ld16(ps, 64)
	s10, s11 := ld16(ps, accRow16), ld16(ps, accRow16+64)
	s20, s21 := ld16(ps, 2*accRow16), ld16(ps, 2*accRow16+64)
	s30, s31 := ld16(ps, 3*accRow16), ld16(ps, 3*accRow16+64)
	for off := uintptr(0); off < uintptr(kv)*4; off += 64 {
		x0, x1 := ld16(p0, off), ld16(p1, off)
		v := ld16(pa, off)
		s00, s01 = v.MulAdd(x0, s00), v.MulAdd(x1, s01)
		v = ld16(pa, row+off)
		s10, s11 = v.MulAdd(x0, s10), v.MulAdd(x1, s11)
		v = ld16(pa, 2*row+off)
		s20, s21 = v.MulAdd(x0, s20), v.MulAdd(x1, s21)
		v = ld16(pa, 3*row+off)
		s30, s31 = v.MulAdd(x0, s30), v.MulAdd(x1, s31)
	}
	if kv < k {
		off, r := uintptr(kv)*4, k-kv
		x0, x1 := ldPart16(p0, off, r), ldPart16(p1, off, r)
		v := ld16(pa, off)
		s00, s01 = v.MulAdd(x0, s00), v.MulAdd(x1, s01)
		v = ld16(pa, row+off)
		s10, s11 = v.MulAdd(x0, s10), v.MulAdd(x1, s11)
		v = ld16(pa, 2*row+off)
		s20, s21 = v.MulAdd(x0, s20), v.MulAdd(x1, s21)
		v = ld16(pa, 3*row+off)
		s30, s31 = v.MulAdd(x0, s30), v.MulAdd(x1, s31)
	}
	st16(s00, ps, 0)
	st16(s01, ps, 64)
	st16(s10, ps, accRow16)
	st16(s11, ps, accRow16+64)
	st16(s20, ps, 2*accRow16)
	st16(s21, ps, 2*accRow16+64)
	st16(s30, ps, 3*accRow16)
	st16(s31, ps, 3*accRow16+64)
}

func dot2x4AVX512(k int, a []float32, kp int, b0, b1, b2, b3 []float32, acc []float32) {
	b0, b1, b2, b3 = b0[:k], b1[:k], b2[:k], b3[:k]
	_, _ = a[kp+(k+15)&^15-1], acc[(4+3)*16+15]
	kv := k &^ 15
	pa := unsafe.Pointer(unsafe.SliceData(a))
	p0, p1 := unsafe.Pointer(unsafe.SliceData(b0)), unsafe.Pointer(unsafe.SliceData(b1))
	p2, p3 := unsafe.Pointer(unsafe.SliceData(b2)), unsafe.Pointer(unsafe.SliceData(b3))
	ps := unsafe.Pointer(unsafe.SliceData(acc))
	row := uintptr(kp) * 4
	s00, s01, s02, s03 := ld16(ps, 0), ld16(ps, 64), ld16(ps, 128), ld16(ps, 192)
	s10, s11, s12, s13 := ld16(ps, accRow16), ld16(ps, accRow16+64), ld16(ps, accRow16+128), ld16(ps, accRow16+192)
	for off := uintptr(0); off < uintptr(kv)*4; off += 64 {
		x0, x1, x2, x3 := ld16(p0, off), ld16(p1, off), ld16(p2, off), ld16(p3, off)
		v := ld16(pa, off)
		s00, s01, s02, s03 = v.MulAdd(x0, s00), v.MulAdd(x1, s01), v.MulAdd(x2, s02), v.MulAdd(x3, s03)
		v = ld16(pa, row+off)
		s10, s11, s12, s13 = v.MulAdd(x0, s10), v.MulAdd(x1, s11), v.MulAdd(x2, s12), v.MulAdd(x3, s13)
	}
	if kv < k {
		off, r := uintptr(kv)*4, k-kv
		x0, x1 := ldPart16(p0, off, r), ldPart16(p1, off, r)
		x2, x3 := ldPart16(p2, off, r), ldPart16(p3, off, r)
		v := ld16(pa, off)
		s00, s01, s02, s03 = v.MulAdd(x0, s00), v.MulAdd(x1, s01), v.MulAdd(x2, s02), v.MulAdd(x3, s03)
		v = ld16(pa, row+off)
		s10, s11, s12, s13 = v.MulAdd(x0, s10), v.MulAdd(x1, s11), v.MulAdd(x2, s12), v.MulAdd(x3, s13)
	}
	st16(s00, ps, 0)
	st16(s01, ps, 64)
	st16(s02, ps, 128)
	st16(s03, ps, 192)
	st16(s10, ps, accRow16)
	st16(s11, ps, accRow16+64)
	st16(s12, ps, accRow16+128)
	st16(s13, ps, accRow16+192)
}

func dot1x4AVX512(k int, a []float32, b0, b1, b2, b3 []float32, acc []float32) {
	b0, b1, b2, b3 = b0[:k], b1[:k], b2[:k], b3[:k]
	_, _ = a[(k+15)&^15-1], acc[3*16+15]
	kv := k &^ 15
	pa := unsafe.Pointer(unsafe.SliceData(a))
	p0, p1 := unsafe.Pointer(unsafe.SliceData(b0)), unsafe.Pointer(unsafe.SliceData(b1))
	p2, p3 := unsafe.Pointer(unsafe.SliceData(b2)), unsafe.Pointer(unsafe.SliceData(b3))
	ps := unsafe.Pointer(unsafe.SliceData(acc))
	s0, s1, s2, s3 := ld16(ps, 0), ld16(ps, 64), ld16(ps, 128), ld16(ps, 192)
	for off := uintptr(0); off < uintptr(kv)*4; off += 64 {
		v := ld16(pa, off)
		s0, s1 = v.MulAdd(ld16(p0, off), s0), v.MulAdd(ld16(p1, off), s1)
		s2, s3 = v.MulAdd(ld16(p2, off), s2), v.MulAdd(ld16(p3, off), s3)
	}
	if kv < k {
		off, r := uintptr(kv)*4, k-kv
		v := ld16(pa, off)
		s0, s1 = v.MulAdd(ldPart16(p0, off, r), s0), v.MulAdd(ldPart16(p1, off, r), s1)
		s2, s3 = v.MulAdd(ldPart16(p2, off, r), s2), v.MulAdd(ldPart16(p3, off, r), s3)
	}
	st16(s0, ps, 0)
	st16(s1, ps, 64)
	st16(s2, ps, 128)
	st16(s3, ps, 192)
}

// accInit16 loads an accumulator as beta·c (zero without reading c for
// beta = 0), like scaleBlock then the micro-kernel's load.
func accInit16(p unsafe.Pointer, off uintptr, mode betaMode, vb archsimd.Float32x16) archsimd.Float32x16 {
	switch mode {
	case betaZero:
		return bf16(0)
	case betaOne:
		return ld16(p, off)
	}
	return ld16(p, off).Mul(vb)
}

func nn4x2AVX512(k int, a []float32, kp int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	_, _, _ = a[3*kp+k-1], b[(k-1)*ldb+31], c[3*ldc+31]
	mode := modeOf(beta) // compared before any vector instruction
	vb := archsimd.BroadcastFloat32x16(beta)
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	row, arow, brow := uintptr(ldc)*4, uintptr(kp)*4, uintptr(ldb)*4
	c00, c01 := accInit16(pc, 0, mode, vb), accInit16(pc, 64, mode, vb)
	c10, c11 := accInit16(pc, row, mode, vb), accInit16(pc, row+64, mode, vb)
	c20, c21 := accInit16(pc, 2*row, mode, vb), accInit16(pc, 2*row+64, mode, vb)
	c30, c31 := accInit16(pc, 3*row, mode, vb), accInit16(pc, 3*row+64, mode, vb)
	offB := uintptr(0)
	for offA := uintptr(0); offA < uintptr(k)*4; offA += 4 {
		b0, b1 := ld16(pb, offB), ld16(pb, offB+64)
		offB += brow
		qa := unsafe.Add(pa, offA)
		a0 := archsimd.BroadcastFloat32x16(*(*float32)(qa))
		c00, c01 = a0.MulAdd(b0, c00), a0.MulAdd(b1, c01)
		a1 := archsimd.BroadcastFloat32x16(*(*float32)(unsafe.Add(qa, arow)))
		c10, c11 = a1.MulAdd(b0, c10), a1.MulAdd(b1, c11)
		a2 := archsimd.BroadcastFloat32x16(*(*float32)(unsafe.Add(qa, 2*arow)))
		c20, c21 = a2.MulAdd(b0, c20), a2.MulAdd(b1, c21)
		a3 := archsimd.BroadcastFloat32x16(*(*float32)(unsafe.Add(qa, 3*arow)))
		c30, c31 = a3.MulAdd(b0, c30), a3.MulAdd(b1, c31)
	}
	c00.Store((*[16]float32)(pc))
	c01.Store((*[16]float32)(unsafe.Add(pc, 64)))
	c10.Store((*[16]float32)(unsafe.Add(pc, row)))
	c11.Store((*[16]float32)(unsafe.Add(pc, row+64)))
	c20.Store((*[16]float32)(unsafe.Add(pc, 2*row)))
	c21.Store((*[16]float32)(unsafe.Add(pc, 2*row+64)))
	c30.Store((*[16]float32)(unsafe.Add(pc, 3*row)))
	c31.Store((*[16]float32)(unsafe.Add(pc, 3*row+64)))
}

func nn2x2AVX512(k int, a []float32, kp int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	_, _, _ = a[kp+k-1], b[(k-1)*ldb+31], c[ldc+31]
	mode := modeOf(beta) // compared before any vector instruction
	vb := archsimd.BroadcastFloat32x16(beta)
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	row, arow, brow := uintptr(ldc)*4, uintptr(kp)*4, uintptr(ldb)*4
	c00, c01 := accInit16(pc, 0, mode, vb), accInit16(pc, 64, mode, vb)
	c10, c11 := accInit16(pc, row, mode, vb), accInit16(pc, row+64, mode, vb)
	offB := uintptr(0)
	for offA := uintptr(0); offA < uintptr(k)*4; offA += 4 {
		b0, b1 := ld16(pb, offB), ld16(pb, offB+64)
		offB += brow
		qa := unsafe.Add(pa, offA)
		a0 := archsimd.BroadcastFloat32x16(*(*float32)(qa))
		c00, c01 = a0.MulAdd(b0, c00), a0.MulAdd(b1, c01)
		a1 := archsimd.BroadcastFloat32x16(*(*float32)(unsafe.Add(qa, arow)))
		c10, c11 = a1.MulAdd(b0, c10), a1.MulAdd(b1, c11)
	}
	c00.Store((*[16]float32)(pc))
	c01.Store((*[16]float32)(unsafe.Add(pc, 64)))
	c10.Store((*[16]float32)(unsafe.Add(pc, row)))
	c11.Store((*[16]float32)(unsafe.Add(pc, row+64)))
}

func nn1x2AVX512(k int, a []float32, kp int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	_, _, _ = a[k-1], b[(k-1)*ldb+31], c[31]
	mode := modeOf(beta) // compared before any vector instruction
	vb := archsimd.BroadcastFloat32x16(beta)
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	brow := uintptr(ldb) * 4
	c00, c01 := accInit16(pc, 0, mode, vb), accInit16(pc, 64, mode, vb)
	offB := uintptr(0)
	for offA := uintptr(0); offA < uintptr(k)*4; offA += 4 {
		b0, b1 := ld16(pb, offB), ld16(pb, offB+64)
		offB += brow
		a0 := archsimd.BroadcastFloat32x16(*(*float32)(unsafe.Add(pa, offA)))
		c00, c01 = a0.MulAdd(b0, c00), a0.MulAdd(b1, c01)
	}
	c00.Store((*[16]float32)(pc))
	c01.Store((*[16]float32)(unsafe.Add(pc, 64)))
}

// nnTailAVX512 runs the last cols < 32 columns one row and 16 columns at a
// time with masked loads and stores.
func nnTailAVX512(rows, k int, a []float32, kp int, b []float32, ldb int, c []float32, ldc int, beta float32, cols int) {
	if rows == 0 || cols == 0 {
		return
	}
	_ = c[(rows-1)*ldc+cols-1]
	if k > 0 {
		_, _ = a[(rows-1)*kp+k-1], b[(k-1)*ldb+cols-1]
	}
	mode := modeOf(beta)
	// beta through an integer register: a float scalar kept for the
	// broadcast would be spilled around ldPart16 with legacy SSE moves.
	vb := archsimd.BroadcastInt32x16(int32(math.Float32bits(beta))).AsFloat32x16()
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	for j := 0; j < cols; j += 16 {
		w := min(16, cols-j)
		for r := range rows {
			coff := uintptr(r*ldc+j) * 4
			acc := bf16(0)
			if mode != betaZero {
				acc = ldPart16(pc, coff, w)
				if mode == betaScale {
					acc = acc.Mul(vb)
				}
			}
			for p := range k {
				// Through an integer register: a float scalar would be
				// spilled around ldPart16 with legacy SSE moves.
				v := archsimd.BroadcastInt32x16(*(*int32)(unsafe.Add(pa, uintptr(r*kp+p)*4))).AsFloat32x16()
				acc = v.MulAdd(ldPart16(pb, uintptr(p*ldb+j)*4, w), acc)
			}
			stPart16(acc, pc, coff, w)
		}
	}
}
