//go:build goexperiment.simd

package kernel

//go:noescape
func microBF16(kp int, a *uint32, b *uint32, c *float32, ldc int)

func cpuid(leaf, sub uint32) (a, b, c, d uint32)

// hasAVX512BF16 reads CPUID leaf 7, sub-leaf 1, EAX bit 5 (the OS's
// saving of the AVX-512 state is archsimd.X86.AVX512's check).
func hasAVX512BF16() bool {
	if max, _, _, _ := cpuid(0, 0); max < 7 {
		return false
	}
	if subs, _, _, _ := cpuid(7, 0); subs < 1 {
		return false
	}
	a, _, _, _ := cpuid(7, 1)
	return a&(1<<5) != 0
}

// microBF16AVX512 is the AVX512-BF16 micro-kernel (impl.bf16).
var microBF16AVX512 = bf16Tile(microBF16)

// bf16Tile makes an assembly bfloat16 micro-kernel microBF16Go's
// contract: the empty sum (kp = 0) clears the tile, and every address the
// assembly touches is checked to lie inside the slices.
func bf16Tile(asm func(kp int, a *uint32, b *uint32, c *float32, ldc int)) func(kp int, a, b []uint32, c []float32, ldc int) {
	return func(kp int, a, b []uint32, c []float32, ldc int) {
		if kp <= 0 {
			for r := range bf16Rows {
				clear(c[r*ldc : r*ldc+bf16Cols])
			}
			return
		}
		_, _, _ = a[kp*bf16Rows-1], b[kp*bf16Cols-1], c[(bf16Rows-1)*ldc+bf16Cols-1]
		asm(kp, &a[0], &b[0], &c[0], ldc)
	}
}
