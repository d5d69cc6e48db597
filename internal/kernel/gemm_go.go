package kernel

import "unsafe"

// microGo1x4 is the pure-Go micro-kernel: one row × 4 columns, 4 scalar
// accumulators. Wider tiles measured slower: the compiler schedules all
// products of an iteration before the sums, and past ~9 live values the
// 15 usable SSE registers spill (4×4: 4.0 GFLOP/s per core, 2×4: 6.9,
// 1×4: 8.7). Loads go through unsafe offsets checked once up front, so the
// loop carries no bounds checks.
func microGo1x4(k int, a []float32, _, ap int, b []float32, bp int, c []float32, ldc int, load bool) {
	if k <= 0 {
		return // gemmBlock never asks for an empty sum
	}
	_, _ = a[(k-1)*ap], b[(k-1)*bp+3]
	c0 := c[0:4:4]
	var c00, c01, c02, c03 float32
	if load {
		c00, c01, c02, c03 = c0[0], c0[1], c0[2], c0[3]
	}
	pa, pb := unsafe.Pointer(unsafe.SliceData(a)), unsafe.Pointer(unsafe.SliceData(b))
	ap1, bp1 := uintptr(ap)*4, uintptr(bp)*4
	// Byte offsets, not advanced pointers: a pointer one step past the
	// panel's end would leave its allocation.
	var oa, ob uintptr
	for range k {
		qa, qb := unsafe.Add(pa, oa), unsafe.Add(pb, ob)
		a0 := *(*float32)(qa)
		c00 += a0 * *(*float32)(qb)
		c01 += a0 * *(*float32)(unsafe.Add(qb, 4))
		c02 += a0 * *(*float32)(unsafe.Add(qb, 8))
		c03 += a0 * *(*float32)(unsafe.Add(qb, 12))
		oa, ob = oa+ap1, ob+bp1
	}
	c0[0], c0[1], c0[2], c0[3] = c00, c01, c02, c03
}
