//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// AVX2 vector helpers, the twins of blas.go (no fused multiply-add, so
// the results are identical to the pure-Go level; dot excepted). Tails run
// the pure-Go twin after clearUpper: scalar SSE code on dirty upper halves
// costs a microcode assist per instruction on some Intel hosts. This is
// blas_avx512.go with 8 lanes.

// axpyAVX2 and scaleAVX2 take the scalar part first: alpha would otherwise
// be spilled and reloaded with legacy SSE moves between vector instructions.
func axpyAVX2(alpha float32, x, y []float32) {
	y = y[:len(x)]
	h := len(x) % 8
	axpyGo(alpha, x[:h], y[:h])
	va := archsimd.BroadcastFloat32x8(alpha)
	for i := h; i < len(x); i += 8 {
		yv := archsimd.LoadFloat32x8Slice(y[i:])
		yv.Add(archsimd.LoadFloat32x8Slice(x[i:]).Mul(va)).StoreSlice(y[i:])
	}
}

// dotAVX2 keeps two vector accumulators (even and odd blocks of 8) and
// adds their lanes in order at the end.
func dotAVX2(x, y []float32) float32 {
	y = y[:len(x)]
	var s0, s1 archsimd.Float32x8
	i := 0
	for ; i+16 <= len(x); i += 16 {
		s0 = archsimd.LoadFloat32x8Slice(x[i:]).MulAdd(archsimd.LoadFloat32x8Slice(y[i:]), s0)
		s1 = archsimd.LoadFloat32x8Slice(x[i+8:]).MulAdd(archsimd.LoadFloat32x8Slice(y[i+8:]), s1)
	}
	if i+8 <= len(x) {
		s0 = archsimd.LoadFloat32x8Slice(x[i:]).MulAdd(archsimd.LoadFloat32x8Slice(y[i:]), s0)
		i += 8
	}
	var lanes [8]float32
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

func scaleAVX2(alpha float32, x []float32) {
	h := len(x) % 8
	scaleGo(alpha, x[:h])
	va := archsimd.BroadcastFloat32x8(alpha)
	for i := h; i < len(x); i += 8 {
		archsimd.LoadFloat32x8Slice(x[i:]).Mul(va).StoreSlice(x[i:])
	}
}

func addToAVX2(dst, x []float32) {
	dst = dst[:len(x)]
	i := 0
	for ; i+8 <= len(x); i += 8 {
		archsimd.LoadFloat32x8Slice(dst[i:]).Add(archsimd.LoadFloat32x8Slice(x[i:])).StoreSlice(dst[i:])
	}
	if i < len(x) {
		clearUpper()
		addToGo(dst[i:], x[i:])
	}
}

func addBiasAVX2(c, bias []float32) { addToAVX2(c, bias) }

// affineAVX2 does the scalar head first, as axpy: scalars live across the
// vector loop would be spilled with legacy SSE moves.
func affineAVX2(c, x []float32, a, b float32) {
	c = c[:len(x)]
	h := len(x) % 8
	affineRef(c[:h], x[:h], a, b)
	va, vb := archsimd.BroadcastFloat32x8(a), archsimd.BroadcastFloat32x8(b)
	for i := h; i < len(x); i += 8 {
		archsimd.LoadFloat32x8Slice(c[i:]).Add(archsimd.LoadFloat32x8Slice(x[i:])).MulAdd(va, vb).StoreSlice(c[i:])
	}
}

func addBiasReLUAVX2(c, bias []float32) {
	c = c[:len(bias)]
	zero := archsimd.BroadcastFloat32x8(0)
	i := 0
	for ; i+8 <= len(bias); i += 8 {
		v := archsimd.LoadFloat32x8Slice(c[i:]).Add(archsimd.LoadFloat32x8Slice(bias[i:]))
		zero.Merge(v, v.Less(zero)).StoreSlice(c[i:])
	}
	if i < len(bias) {
		clearUpper()
		addBiasReLUGo(c[i:], bias[i:])
	}
}

func reluBackwardAVX2(dy, y []float32) {
	y = y[:len(dy)]
	zero := archsimd.BroadcastFloat32x8(0)
	i := 0
	for ; i+8 <= len(dy); i += 8 {
		d := archsimd.LoadFloat32x8Slice(dy[i:])
		d.Merge(zero, archsimd.LoadFloat32x8Slice(y[i:]).Greater(zero)).StoreSlice(dy[i:])
	}
	if i < len(dy) {
		clearUpper()
		reluBackwardGo(dy[i:], y[i:])
	}
}

func part8(s []float32) (a [8]float32) {
	copy(a[:], s)
	return
}
