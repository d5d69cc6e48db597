//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The AVX2 twin of blas64_avx512.go: four lanes, line for line
// (archsimd's vector types have no width parameter); change both.

// dot64AVX2 keeps two 4-lane accumulators and adds their lanes after
// clearUpper; the tail is scalar.
func dot64AVX2(x, y []float64) float64 {
	n := len(x)
	y = y[:n]
	s0, s1 := bc4(0), bc4(0)
	i := 0
	for ; i+8 <= n; i += 8 {
		s0 = archsimd.LoadFloat64x4Slice(x[i:]).MulAdd(archsimd.LoadFloat64x4Slice(y[i:]), s0)
		s1 = archsimd.LoadFloat64x4Slice(x[i+4:]).MulAdd(archsimd.LoadFloat64x4Slice(y[i+4:]), s1)
	}
	if i+4 <= n {
		s0 = archsimd.LoadFloat64x4Slice(x[i:]).MulAdd(archsimd.LoadFloat64x4Slice(y[i:]), s0)
		i += 4
	}
	var lanes [4]float64
	s0.Add(s1).Store(&lanes)
	clearUpper()
	s := 0.0
	for _, v := range lanes {
		s += v
	}
	for ; i < n; i++ {
		s += x[i] * y[i]
	}
	return s
}

// axpy64AVX2 takes the scalar head first, as axpyAVX2.
func axpy64AVX2(alpha float64, x, y []float64) {
	y = y[:len(x)]
	h := len(x) % 4
	axpy64Go(alpha, x[:h], y[:h])
	va := bc4(alpha)
	for i := h; i < len(x); i += 4 {
		yv := archsimd.LoadFloat64x4Slice(y[i:])
		archsimd.LoadFloat64x4Slice(x[i:]).MulAdd(va, yv).StoreSlice(y[i:])
	}
}
