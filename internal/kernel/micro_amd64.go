//go:build goexperiment.simd

package kernel

// The register micro-kernels of the vector levels are in assembly
// (micro_amd64.s): archsimd's code for them spent more instructions on
// register copies (it has only vfmadd213, which overwrites a
// multiplicand), broadcasts through a register and address arithmetic
// than on FMAs, and spilled beyond 8 accumulators. The wrappers check that
// every address the assembly reads or writes lies inside the slices.

//go:noescape
func micro8x32(k int, a *float32, ar, ap int, b *float32, bp int, c *float32, ldc int, load bool)

//go:noescape
func micro8x16(k int, a *float32, ar, ap int, b *float32, bp int, c *float32, ldc int, load bool)

//go:noescape
func micro6x16(k int, a *float32, ar, ap int, b *float32, bp int, c *float32, ldc int, load bool)

// micro8x32AVX512 is the AVX-512 micro-kernel (gemmKernel.micro): an 8×32
// tile.
func micro8x32AVX512(k int, a []float32, ar, ap int, b []float32, bp int, c []float32, ldc int, load bool) {
	if k <= 0 {
		return // gemmBlock never asks for an empty sum
	}
	_, _, _ = a[7*ar+(k-1)*ap], b[(k-1)*bp+31], c[7*ldc+31]
	micro8x32(k, &a[0], ar, ap, &b[0], bp, &c[0], ldc, load)
}

// micro8x16AVX512 is micro8x32AVX512 on the first 16 columns of its tile
// (gemmKernel.half).
func micro8x16AVX512(k int, a []float32, ar, ap int, b []float32, bp int, c []float32, ldc int, load bool) {
	if k <= 0 {
		return
	}
	_, _, _ = a[7*ar+(k-1)*ap], b[(k-1)*bp+15], c[7*ldc+15]
	micro8x16(k, &a[0], ar, ap, &b[0], bp, &c[0], ldc, load)
}

// micro6x16AVX2 is the AVX2 micro-kernel: a 6×16 tile.
func micro6x16AVX2(k int, a []float32, ar, ap int, b []float32, bp int, c []float32, ldc int, load bool) {
	if k <= 0 {
		return // gemmBlock never asks for an empty sum
	}
	_, _, _ = a[5*ar+(k-1)*ap], b[(k-1)*bp+15], c[5*ldc+15]
	micro6x16(k, &a[0], ar, ap, &b[0], bp, &c[0], ldc, load)
}
