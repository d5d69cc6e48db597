//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// AVX-512 vector helpers, the twins of blas.go (no fused multiply-add, so
// the results are identical to the pure-Go level; dot excepted). Tails run
// the pure-Go twin after clearUpper: scalar SSE code on dirty upper halves
// costs a microcode assist per instruction on some Intel hosts. blas_avx2.go is this file with 8 lanes.

// axpyAVX512 and scaleAVX512 take the scalar part first: alpha would otherwise
// be spilled and reloaded with legacy SSE moves between vector instructions.
func axpyAVX512(alpha float32, x, y []float32) {
	y = y[:len(x)]
	h := len(x) % 16
	axpyGo(alpha, x[:h], y[:h])
	va := archsimd.BroadcastFloat32x16(alpha)
	for i := h; i < len(x); i += 16 {
		yv := archsimd.LoadFloat32x16Slice(y[i:])
		yv.Add(archsimd.LoadFloat32x16Slice(x[i:]).Mul(va)).StoreSlice(y[i:])
	}
}

// dotAVX512 keeps two vector accumulators (even and odd blocks of 16) and
// adds their lanes in order at the end.
func dotAVX512(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1 archsimd.Float32x16
	i := 0
	for ; i+32 <= len(x); i += 32 {
		s0 = archsimd.LoadFloat32x16Slice(x[i:]).MulAdd(archsimd.LoadFloat32x16Slice(y[i:]), s0)
		s1 = archsimd.LoadFloat32x16Slice(x[i+16:]).MulAdd(archsimd.LoadFloat32x16Slice(y[i+16:]), s1)
	}
	if i+16 <= len(x) {
		s0 = archsimd.LoadFloat32x16Slice(x[i:]).MulAdd(archsimd.LoadFloat32x16Slice(y[i:]), s0)
		i += 16
	}
	var lanes [16]float32
	s0.Add(s1).Store(&lanes)
	clearUpper()
	for j := range len(x) - i {
		lanes[j] += x[i+j] * y[i+j]
	}
	var s float32
	for _, v := range lanes {
		s += v
	}
	return s
}

func scaleAVX512(alpha float32, x []float32) {
	h := len(x) % 16
	scaleGo(alpha, x[:h])
	va := archsimd.BroadcastFloat32x16(alpha)
	for i := h; i < len(x); i += 16 {
		archsimd.LoadFloat32x16Slice(x[i:]).Mul(va).StoreSlice(x[i:])
	}
}

func addToAVX512(dst, x []float32) {
	dst = dst[:len(x)]
	i := 0
	for ; i+16 <= len(x); i += 16 {
		archsimd.LoadFloat32x16Slice(dst[i:]).Add(archsimd.LoadFloat32x16Slice(x[i:])).StoreSlice(dst[i:])
	}
	if i < len(x) {
		clearUpper()
		addToGo(dst[i:], x[i:])
	}
}

func addBiasAVX512(c, bias []float32) { addToAVX512(c, bias) }

// affineAVX512 does the scalar head first, as axpy: scalars live across the
// vector loop would be spilled with legacy SSE moves.
func affineAVX512(c, x []float32, a, b float32) {
	c = c[:len(x)]
	h := len(x) % 16
	affineRef(c[:h], x[:h], a, b)
	va, vb := archsimd.BroadcastFloat32x16(a), archsimd.BroadcastFloat32x16(b)
	for i := h; i < len(x); i += 16 {
		archsimd.LoadFloat32x16Slice(c[i:]).Add(archsimd.LoadFloat32x16Slice(x[i:])).MulAdd(va, vb).StoreSlice(c[i:])
	}
}

func addBiasReLUAVX512(c, bias []float32) {
	c = c[:len(bias)]
	zero := archsimd.BroadcastFloat32x16(0)
	i := 0
	for ; i+16 <= len(bias); i += 16 {
		v := archsimd.LoadFloat32x16Slice(c[i:]).Add(archsimd.LoadFloat32x16Slice(bias[i:]))
		zero.Merge(v, v.Less(zero)).StoreSlice(c[i:])
	}
	if i < len(bias) {
		clearUpper()
		addBiasReLUGo(c[i:], bias[i:])
	}
}

func reluBackwardAVX512(dy, y []float32) {
	y = y[:len(dy)]
	zero := archsimd.BroadcastFloat32x16(0)
	i := 0
	for ; i+16 <= len(dy); i += 16 {
		d := archsimd.LoadFloat32x16Slice(dy[i:])
		d.Merge(zero, archsimd.LoadFloat32x16Slice(y[i:]).Greater(zero)).StoreSlice(dy[i:])
	}
	if i < len(dy) {
		clearUpper()
		reluBackwardGo(dy[i:], y[i:])
	}
}
