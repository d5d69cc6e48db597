//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// dot64AVX512 keeps two 8-lane accumulators and adds their lanes after
// clearUpper; the tail is scalar.
func dot64AVX512(x, y []float64) float64 {
	n := len(x)
	y = y[:n]
	s0, s1 := bc8(0), bc8(0)
	i := 0
	for ; i+16 <= n; i += 16 {
		s0 = archsimd.LoadFloat64x8Slice(x[i:]).MulAdd(archsimd.LoadFloat64x8Slice(y[i:]), s0)
		s1 = archsimd.LoadFloat64x8Slice(x[i+8:]).MulAdd(archsimd.LoadFloat64x8Slice(y[i+8:]), s1)
	}
	if i+8 <= n {
		s0 = archsimd.LoadFloat64x8Slice(x[i:]).MulAdd(archsimd.LoadFloat64x8Slice(y[i:]), s0)
		i += 8
	}
	var lanes [8]float64
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

// axpy64AVX512 takes the scalar head first, as axpyAVX512.
func axpy64AVX512(alpha float64, x, y []float64) {
	y = y[:len(x)]
	h := len(x) % 8
	axpy64Go(alpha, x[:h], y[:h])
	va := bc8(alpha)
	for i := h; i < len(x); i += 8 {
		yv := archsimd.LoadFloat64x8Slice(y[i:])
		archsimd.LoadFloat64x8Slice(x[i:]).MulAdd(va, yv).StoreSlice(y[i:])
	}
}
