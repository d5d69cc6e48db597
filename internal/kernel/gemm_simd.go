//go:build goexperiment.simd

package kernel

import (
	"simd/archsimd"
	"unsafe"
)

// The AVX2 register micro-kernel: 4 rows × 2 vectors = 8 accumulators,
// the most the compiler keeps in registers (ENGINE-NOTES). The panels are
// strided (see gemmKernel.micro), so A can be read in place. Loads go
// through unsafe offsets from the panel starts, the last one checked up
// front, so the loop carries no bounds checks; every offset stays inside
// the panels. The AVX-512 kernel is written in assembly (micro_amd64.s):
// archsimd's code for it spent more instructions on register copies and
// broadcasts than on FMAs.

// microAVX2 is the 4×16 kernel (two Float32x8 per row).
func microAVX2(k int, a []float32, ar, ap int, b []float32, bp int, c []float32, ldc int, load bool) {
	if k <= 0 {
		return // gemmBlock never asks for an empty sum
	}
	_, _, _ = a[3*ar+(k-1)*ap], b[(k-1)*bp+15], c[3*ldc+15]
	pc := unsafe.Pointer(unsafe.SliceData(c))
	row := uintptr(ldc) * 4
	var c00, c01, c10, c11, c20, c21, c30, c31 archsimd.Float32x8
	if load {
		c00 = archsimd.LoadFloat32x8((*[8]float32)(pc))
		c01 = archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pc, 32)))
		c10 = archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pc, row)))
		c11 = archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pc, row+32)))
		c20 = archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pc, 2*row)))
		c21 = archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pc, 2*row+32)))
		c30 = archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pc, 3*row)))
		c31 = archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(pc, 3*row+32)))
	}
	pa := unsafe.Pointer(unsafe.SliceData(a))
	pb := unsafe.Pointer(unsafe.SliceData(b))
	ar1, ap1, bp1 := uintptr(ar)*4, uintptr(ap)*4, uintptr(bp)*4
	ar2, ar3 := 2*ar1, 3*ar1
	// Byte offsets, not advanced pointers: a pointer one step past the
	// panel's end would leave its allocation.
	var oa, ob uintptr
	for range k {
		qa, qb := unsafe.Add(pa, oa), unsafe.Add(pb, ob)
		b0 := archsimd.LoadFloat32x8((*[8]float32)(qb))
		b1 := archsimd.LoadFloat32x8((*[8]float32)(unsafe.Add(qb, 32)))
		a0 := archsimd.BroadcastFloat32x8(*(*float32)(qa))
		c00 = a0.MulAdd(b0, c00)
		c01 = a0.MulAdd(b1, c01)
		a1 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Add(qa, ar1)))
		c10 = a1.MulAdd(b0, c10)
		c11 = a1.MulAdd(b1, c11)
		a2 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Add(qa, ar2)))
		c20 = a2.MulAdd(b0, c20)
		c21 = a2.MulAdd(b1, c21)
		a3 := archsimd.BroadcastFloat32x8(*(*float32)(unsafe.Add(qa, ar3)))
		c30 = a3.MulAdd(b0, c30)
		c31 = a3.MulAdd(b1, c31)
		oa, ob = oa+ap1, ob+bp1
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
