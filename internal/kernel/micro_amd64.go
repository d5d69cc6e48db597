//go:build goexperiment.simd

package kernel

// micro8x32 is in micro_amd64.s.
//
//go:noescape
func micro8x32(k int, a *float32, ar, ap int, b *float32, bp int, c *float32, ldc int, load bool)

// micro8x32AVX512 is the AVX-512 micro-kernel (gemmKernel.micro): an 8×32
// tile. The checks make every address the assembly reads or writes lie
// inside the slices.
func micro8x32AVX512(k int, a []float32, ar, ap int, b []float32, bp int, c []float32, ldc int, load bool) {
	if k <= 0 {
		return // gemmBlock never asks for an empty sum
	}
	_, _, _ = a[7*ar+(k-1)*ap], b[(k-1)*bp+31], c[7*ldc+31]
	micro8x32(k, &a[0], ar, ap, &b[0], bp, &c[0], ldc, load)
}
