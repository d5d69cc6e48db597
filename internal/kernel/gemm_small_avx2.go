//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
	"unsafe"
)

// AVX2 kernels of the small path (8 lanes), the twins of
// gemm_small_avx512.go.

var smallAVX2 = smallKernels{
	lanes:  8,
	dot4x2: dot4x2AVX2,
	dot2x4: dot2x4AVX2,
	dot1x4: dot1x4AVX2,
	sum:    func(acc []float32) float32 { return sum8(archsimd.LoadFloat32x8Slice(acc)) },
	nnw:    16,
	nnKC:   8,
	nn:     [3]func(int, []float32, int, []float32, int, []float32, int, float32){nn4x2AVX2, nn2x2AVX2, nn1x2AVX2},
	nnTail: nnTailAVX2,
}

func ld8(p unsafe.Pointer, off uintptr) archsimd.Float32x8 {
	return archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(p, off)))
}

func st8(v archsimd.Float32x8, p unsafe.Pointer, off uintptr) {
	v.Store((*[8]float32)(unsafe.Add(p, off)))
}

// lanes8 holds 0…7, for mask8.
var lanes8 = [8]int32{0, 1, 2, 3, 4, 5, 6, 7}

// mask8 is set in the lanes below n.
func mask8(n int) archsimd.Mask32x8 {
	return archsimd.LoadInt32x8(&lanes8).Less(archsimd.BroadcastInt32x8(int32(n)))
}

// ldPart8 is ldPart16 on 8 lanes (VMASKMOVPS suppresses the faults of the
// lanes it does not load).
//
//go:nocheckptr
//go:noinline
func ldPart8(p unsafe.Pointer, off uintptr, n int) archsimd.Float32x8 {
	return archsimd.LoadMaskedFloat32x8((*[8]float32)(unsafe.Add(p, off)), mask8(n))
}

// stPart8 is stPart16 on 8 lanes.
//
//go:nocheckptr
//go:noinline
func stPart8(v archsimd.Float32x8, p unsafe.Pointer, off uintptr, n int) {
	v.StoreMasked((*[8]float32)(unsafe.Add(p, off)), mask8(n))
}

// sum8 adds the lanes of v in a fixed tree: halves, pairs.
func sum8(v archsimd.Float32x8) float32 {
	q := v.GetLo().Add(v.GetHi())
	q = q.AddPairs(q)
	return first4(q.AddPairs(q))
}

// first4 returns lane 0 of q through memory, after clearUpper: the float32
// result would otherwise move from a general register to X0 with a legacy
// MOVD while the upper halves are dirty.
func first4(q archsimd.Float32x4) float32 {
	var t [4]float32
	q.Store(&t)
	clearUpper()
	return t[0]
}

// The dot kernels run the lanes over the first kv = k rounded down to 8
// values of b, then over the rest with masked loads (a is zero there already).
// Accumulator rows are 4·32 bytes apart.
const accRow8 = 4 * 32

func dot4x2AVX2(k int, a []float32, kp int, b0, b1 []float32, acc []float32) {
	b0, b1 = b0[:k], b1[:k]
	_, _ = a[3*kp+(k+15)&^15-1], acc[(3*4+1)*8+7]
	kv := k &^ 7
	pa, p0, p1 := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b0)), unsafe.Pointer(unsafe.SliceData(b1))
	ps := unsafe.Pointer(unsafe.SliceData(acc))
	row := uintptr(kp) * 4
	s00, s01 := ld8(ps, 0), ld8(ps, 32)
	s10, s11 := ld8(ps, accRow8), ld8(ps, accRow8+32)
	s20, s21 := ld8(ps, 2*accRow8), ld8(ps, 2*accRow8+32)
	s30, s31 := ld8(ps, 3*accRow8), ld8(ps, 3*accRow8+32)
	for off := uintptr(0); off < uintptr(kv)*4; off += 32 {
		x0, x1 := ld8(p0, off), ld8(p1, off)
		v := ld8(pa, off)
		s00, s01 = v.MulAdd(x0, s00), v.MulAdd(x1, s01)
		v = ld8(pa, row+off)
		s10, s11 = v.MulAdd(x0, s10), v.MulAdd(x1, s11)
		v = ld8(pa, 2*row+off)
		s20, s21 = v.MulAdd(x0, s20), v.MulAdd(x1, s21)
		v = ld8(pa, 3*row+off)
		s30, s31 = v.MulAdd(x0, s30), v.MulAdd(x1, s31)
	}
	if kv < k {
		off, r := uintptr(kv)*4, k-kv
		x0, x1 := ldPart8(p0, off, r), ldPart8(p1, off, r)
		v := ld8(pa, off)
		s00, s01 = v.MulAdd(x0, s00), v.MulAdd(x1, s01)
		v = ld8(pa, row+off)
		s10, s11 = v.MulAdd(x0, s10), v.MulAdd(x1, s11)
		v = ld8(pa, 2*row+off)
		s20, s21 = v.MulAdd(x0, s20), v.MulAdd(x1, s21)
		v = ld8(pa, 3*row+off)
		s30, s31 = v.MulAdd(x0, s30), v.MulAdd(x1, s31)
	}
	st8(s00, ps, 0)
	st8(s01, ps, 32)
	st8(s10, ps, accRow8)
	st8(s11, ps, accRow8+32)
	st8(s20, ps, 2*accRow8)
	st8(s21, ps, 2*accRow8+32)
	st8(s30, ps, 3*accRow8)
	st8(s31, ps, 3*accRow8+32)
}

func dot2x4AVX2(k int, a []float32, kp int, b0, b1, b2, b3 []float32, acc []float32) {
	b0, b1, b2, b3 = b0[:k], b1[:k], b2[:k], b3[:k]
	_, _ = a[kp+(k+15)&^15-1], acc[(4+3)*8+7]
	kv := k &^ 7
	pa := unsafe.Pointer(unsafe.SliceData(a))
	p0, p1 := unsafe.Pointer(unsafe.SliceData(b0)), unsafe.Pointer(unsafe.SliceData(b1))
	p2, p3 := unsafe.Pointer(unsafe.SliceData(b2)), unsafe.Pointer(unsafe.SliceData(b3))
	ps := unsafe.Pointer(unsafe.SliceData(acc))
	row := uintptr(kp) * 4
	s00, s01, s02, s03 := ld8(ps, 0), ld8(ps, 32), ld8(ps, 64), ld8(ps, 96)
	s10, s11, s12, s13 := ld8(ps, accRow8), ld8(ps, accRow8+32), ld8(ps, accRow8+64), ld8(ps, accRow8+96)
	for off := uintptr(0); off < uintptr(kv)*4; off += 32 {
		x0, x1, x2, x3 := ld8(p0, off), ld8(p1, off), ld8(p2, off), ld8(p3, off)
		v := ld8(pa, off)
		s00, s01, s02, s03 = v.MulAdd(x0, s00), v.MulAdd(x1, s01), v.MulAdd(x2, s02), v.MulAdd(x3, s03)
		v = ld8(pa, row+off)
		s10, s11, s12, s13 = v.MulAdd(x0, s10), v.MulAdd(x1, s11), v.MulAdd(x2, s12), v.MulAdd(x3, s13)
	}
	if kv < k {
		off, r := uintptr(kv)*4, k-kv
		x0, x1 := ldPart8(p0, off, r), ldPart8(p1, off, r)
		x2, x3 := ldPart8(p2, off, r), ldPart8(p3, off, r)
		v := ld8(pa, off)
		s00, s01, s02, s03 = v.MulAdd(x0, s00), v.MulAdd(x1, s01), v.MulAdd(x2, s02), v.MulAdd(x3, s03)
		v = ld8(pa, row+off)
		s10, s11, s12, s13 = v.MulAdd(x0, s10), v.MulAdd(x1, s11), v.MulAdd(x2, s12), v.MulAdd(x3, s13)
	}
	st8(s00, ps, 0)
	st8(s01, ps, 32)
	st8(s02, ps, 64)
	st8(s03, ps, 96)
	st8(s10, ps, accRow8)
	st8(s11, ps, accRow8+32)
	st8(s12, ps, accRow8+64)
	st8(s13, ps, accRow8+96)
}

func dot1x4AVX2(k int, a []float32, b0, b1, b2, b3 []float32, acc []float32) {
	b0, b1, b2, b3 = b0[:k], b1[:k], b2[:k], b3[:k]
	_, _ = a[(k+15)&^15-1], acc[3*8+7]
	kv := k &^ 7
	pa := unsafe.Pointer(unsafe.SliceData(a))
	p0, p1 := unsafe.Pointer(unsafe.SliceData(b0)), unsafe.Pointer(unsafe.SliceData(b1))
	p2, p3 := unsafe.Pointer(unsafe.SliceData(b2)), unsafe.Pointer(unsafe.SliceData(b3))
	ps := unsafe.Pointer(unsafe.SliceData(acc))
	s0, s1, s2, s3 := ld8(ps, 0), ld8(ps, 32), ld8(ps, 64), ld8(ps, 96)
	for off := uintptr(0); off < uintptr(kv)*4; off += 32 {
		v := ld8(pa, off)
		s0, s1 = v.MulAdd(ld8(p0, off), s0), v.MulAdd(ld8(p1, off), s1)
		s2, s3 = v.MulAdd(ld8(p2, off), s2), v.MulAdd(ld8(p3, off), s3)
	}
	if kv < k {
		off, r := uintptr(kv)*4, k-kv
		v := ld8(pa, off)
		s0, s1 = v.MulAdd(ldPart8(p0, off, r), s0), v.MulAdd(ldPart8(p1, off, r), s1)
		s2, s3 = v.MulAdd(ldPart8(p2, off, r), s2), v.MulAdd(ldPart8(p3, off, r), s3)
	}
	st8(s0, ps, 0)
	st8(s1, ps, 32)
	st8(s2, ps, 64)
	st8(s3, ps, 96)
}

// accInit8 loads an accumulator as beta·c (zero without reading c for
// beta = 0), like scaleBlock then the micro-kernel's load.
func accInit8(p unsafe.Pointer, off uintptr, mode betaMode, vb archsimd.Float32x8) archsimd.Float32x8 {
	switch mode {
	case betaZero:
		return bf8(0)
	case betaOne:
		return ld8(p, off)
	}
	return ld8(p, off).Mul(vb)
}

func nn4x2AVX2(k int, a []float32, kp int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	_, _, _ = a[3*kp+k-1], b[(k-1)*ldb+15], c[3*ldc+15]
	mode := modeOf(beta) // compared before any vector instruction
	vb := archsimd.BroadcastFloat32x8(beta)
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	row, arow, brow := uintptr(ldc)*4, uintptr(kp)*4, uintptr(ldb)*4
	c00, c01 := accInit8(pc, 0, mode, vb), accInit8(pc, 32, mode, vb)
	c10, c11 := accInit8(pc, row, mode, vb), accInit8(pc, row+32, mode, vb)
	c20, c21 := accInit8(pc, 2*row, mode, vb), accInit8(pc, 2*row+32, mode, vb)
	c30, c31 := accInit8(pc, 3*row, mode, vb), accInit8(pc, 3*row+32, mode, vb)
	offB := uintptr(0)
	for offA := uintptr(0); offA < uintptr(k)*4; offA += 4 {
		b0, b1 := ld8(pb, offB), ld8(pb, offB+32)
		offB += brow
		qa := unsafe.Add(pa, offA)
		a0 := archsimd.BroadcastFloat32x8(*(*float32)(qa))
		c00, c01 = a0.MulAdd(b0, c00), a0.MulAdd(b1, c01)
		a1 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Add(qa, arow)))
		c10, c11 = a1.MulAdd(b0, c10), a1.MulAdd(b1, c11)
		a2 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Add(qa, 2*arow)))
		c20, c21 = a2.MulAdd(b0, c20), a2.MulAdd(b1, c21)
		a3 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Add(qa, 3*arow)))
		c30, c31 = a3.MulAdd(b0, c30), a3.MulAdd(b1, c31)
	}
	c00.Store((*[8]float32)(pc))
	c01.Store((*[8]float32)(unsafe.Add(pc, 32)))
	c10.Store((*[8]float32)(unsafe.Add(pc, row)))
	c11.Store((*[8]float32)(unsafe.Add(pc, row+32)))
	c20.Store((*[8]float32)(unsafe.Add(pc, 2*row)))
	c21.Store((*[8]float32)(unsafe.Add(pc, 2*row+32)))
	c30.Store((*[8]float32)(unsafe.Add(pc, 3*row)))
	c31.Store((*[8]float32)(unsafe.Add(pc, 3*row+32)))
}

func nn2x2AVX2(k int, a []float32, kp int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	_, _, _ = a[kp+k-1], b[(k-1)*ldb+15], c[ldc+15]
	mode := modeOf(beta) // compared before any vector instruction
	vb := archsimd.BroadcastFloat32x8(beta)
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	row, arow, brow := uintptr(ldc)*4, uintptr(kp)*4, uintptr(ldb)*4
	c00, c01 := accInit8(pc, 0, mode, vb), accInit8(pc, 32, mode, vb)
	c10, c11 := accInit8(pc, row, mode, vb), accInit8(pc, row+32, mode, vb)
	offB := uintptr(0)
	for offA := uintptr(0); offA < uintptr(k)*4; offA += 4 {
		b0, b1 := ld8(pb, offB), ld8(pb, offB+32)
		offB += brow
		qa := unsafe.Add(pa, offA)
		a0 := archsimd.BroadcastFloat32x8(*(*float32)(qa))
		c00, c01 = a0.MulAdd(b0, c00), a0.MulAdd(b1, c01)
		a1 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Add(qa, arow)))
		c10, c11 = a1.MulAdd(b0, c10), a1.MulAdd(b1, c11)
	}
	c00.Store((*[8]float32)(pc))
	c01.Store((*[8]float32)(unsafe.Add(pc, 32)))
	c10.Store((*[8]float32)(unsafe.Add(pc, row)))
	c11.Store((*[8]float32)(unsafe.Add(pc, row+32)))
}

func nn1x2AVX2(k int, a []float32, kp int, b []float32, ldb int, c []float32, ldc int, beta float32) {
	_, _, _ = a[k-1], b[(k-1)*ldb+15], c[15]
	mode := modeOf(beta) // compared before any vector instruction
	vb := archsimd.BroadcastFloat32x8(beta)
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	brow := uintptr(ldb) * 4
	c00, c01 := accInit8(pc, 0, mode, vb), accInit8(pc, 32, mode, vb)
	offB := uintptr(0)
	for offA := uintptr(0); offA < uintptr(k)*4; offA += 4 {
		b0, b1 := ld8(pb, offB), ld8(pb, offB+32)
		offB += brow
		a0 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Add(pa, offA)))
		c00, c01 = a0.MulAdd(b0, c00), a0.MulAdd(b1, c01)
	}
	c00.Store((*[8]float32)(pc))
	c01.Store((*[8]float32)(unsafe.Add(pc, 32)))
}

// nnTailAVX2 runs the last cols < 16 columns one row and 8 columns at a
// time with masked loads and stores.
func nnTailAVX2(rows, k int, a []float32, kp int, b []float32, ldb int, c []float32, ldc int, beta float32, cols int) {
	if rows == 0 || cols == 0 {
		return
	}
	_ = c[(rows-1)*ldc+cols-1]
	if k > 0 {
		_, _ = a[(rows-1)*kp+k-1], b[(k-1)*ldb+cols-1]
	}
	mode := modeOf(beta)
	// beta through an integer register: a float scalar kept for the
	// broadcast would be spilled around ldPart8 with legacy SSE moves.
	vb := archsimd.BroadcastInt32x8(int32(math.Float32bits(beta))).AsFloat32x8()
	pa, pb, pc := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b)), unsafe.Pointer(unsafe.SliceData(c))
	for j := 0; j < cols; j += 8 {
		w := min(8, cols-j)
		for r := range rows {
			coff := uintptr(r*ldc+j) * 4
			acc := bf8(0)
			if mode != betaZero {
				acc = ldPart8(pc, coff, w)
				if mode == betaScale {
					acc = acc.Mul(vb)
				}
			}
			for p := range k {
				// Through an integer register: a float scalar would be
				// spilled around ldPart8 with legacy SSE moves.
				v := archsimd.BroadcastInt32x8(*(*int32)(unsafe.Add(pa, uintptr(r*kp+p)*4))).AsFloat32x8()
				acc = v.MulAdd(ldPart8(pb, uintptr(p*ldb+j)*4, w), acc)
			}
			stPart8(acc, pc, coff, w)
		}
	}
}
