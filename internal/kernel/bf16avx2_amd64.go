//go:build goexperiment.simd

package kernel

//go:noescape
func microBF16AVX2Asm(kp int, a *uint32, b *uint32, c *float32, ldc int)

// microBF16AVX2 is the bfloat16 micro-kernel of the AVX2 level
// (impl.bf16): VDPBF16PS's arithmetic emulated with FMAs, the same bits.
func microBF16AVX2(kp int, a, b []uint32, c []float32, ldc int) {
	if kp <= 0 {
		for r := range bf16Rows {
			clear(c[r*ldc : r*ldc+bf16Cols])
		}
		return
	}
	_, _, _ = a[kp*bf16Rows-1], b[kp*bf16Cols-1], c[(bf16Rows-1)*ldc+bf16Cols-1]
	microBF16AVX2Asm(kp, &a[0], &b[0], &c[0], ldc)
}
