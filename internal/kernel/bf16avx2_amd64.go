//go:build goexperiment.simd

package kernel

//go:noescape
func microBF16AVX2Asm(kp int, a *uint32, b *uint32, c *float32, ldc int)

// microBF16AVX2 is the bfloat16 micro-kernel of the AVX2 level
// (impl.bf16): VDPBF16PS's arithmetic emulated with FMAs, the same bits.
var microBF16AVX2 = bf16Tile(microBF16AVX2Asm)
