//go:build goexperiment.simd

package kernel

import "unsafe"

//go:noescape
func copyNT(dst, src *float32, n int)

// copyStreamAVX is the vector levels' stream copy: non-temporal stores
// (copyNT) when dst starts on a cache line and the length is whole lines,
// else copy.
func copyStreamAVX(dst, src []float32) {
	n := len(src)
	dst = dst[:n]
	if n == 0 || n%16 != 0 || uintptr(unsafe.Pointer(&dst[0]))%64 != 0 {
		copy(dst, src)
		return
	}
	copyNT(&dst[0], &src[0], n)
}
