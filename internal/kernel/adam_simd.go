//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The vector Adam steps: the operations of adamRef, lane by lane (no fused
// multiply-add; Sqrt and Div are correctly rounded like the scalar ones;
// the shrink a Mul, as Scale's).
// Tails go through zero-padded copies.

func adamAVX512(p, g, m, v []float32, k *adamConsts[float32]) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	b1, c1 := archsimd.BroadcastFloat32x16(k.b1), archsimd.BroadcastFloat32x16(k.c1)
	b2, c2 := archsimd.BroadcastFloat32x16(k.b2), archsimd.BroadcastFloat32x16(k.c2)
	step, bc2, eps := archsimd.BroadcastFloat32x16(k.stepSize), archsimd.BroadcastFloat32x16(k.bc2Sqrt), archsimd.BroadcastFloat32x16(k.eps)
	shrink := archsimd.BroadcastFloat32x16(k.shrink)
	zero := bf16(0)
	i := 0
	for ; i+16 <= len(p); i += 16 {
		gi := archsimd.LoadFloat32x16Slice(g[i:])
		if k.zero {
			zero.StoreSlice(g[i:])
		}
		mi := archsimd.LoadFloat32x16Slice(m[i:]).Mul(b1).Add(c1.Mul(gi))
		vi := archsimd.LoadFloat32x16Slice(v[i:]).Mul(b2).Add(c2.Mul(gi.Mul(gi)))
		mi.StoreSlice(m[i:])
		vi.StoreSlice(v[i:])
		denom := vi.Sqrt().Div(bc2).Add(eps)
		pi := archsimd.LoadFloat32x16Slice(p[i:])
		if k.shrinks {
			pi = pi.Mul(shrink)
		}
		pi.Sub(step.Mul(mi.Div(denom))).StoreSlice(p[i:])
	}
	if i < len(p) {
		clearUpper()
		adamRef(p[i:], g[i:], m[i:], v[i:], k)
	}
}

func adamAVX2(p, g, m, v []float32, k *adamConsts[float32]) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	b1, c1 := archsimd.BroadcastFloat32x8(k.b1), archsimd.BroadcastFloat32x8(k.c1)
	b2, c2 := archsimd.BroadcastFloat32x8(k.b2), archsimd.BroadcastFloat32x8(k.c2)
	step, bc2, eps := archsimd.BroadcastFloat32x8(k.stepSize), archsimd.BroadcastFloat32x8(k.bc2Sqrt), archsimd.BroadcastFloat32x8(k.eps)
	shrink := archsimd.BroadcastFloat32x8(k.shrink)
	zero := bf8(0)
	i := 0
	for ; i+8 <= len(p); i += 8 {
		gi := archsimd.LoadFloat32x8Slice(g[i:])
		if k.zero {
			zero.StoreSlice(g[i:])
		}
		mi := archsimd.LoadFloat32x8Slice(m[i:]).Mul(b1).Add(c1.Mul(gi))
		vi := archsimd.LoadFloat32x8Slice(v[i:]).Mul(b2).Add(c2.Mul(gi.Mul(gi)))
		mi.StoreSlice(m[i:])
		vi.StoreSlice(v[i:])
		denom := vi.Sqrt().Div(bc2).Add(eps)
		pi := archsimd.LoadFloat32x8Slice(p[i:])
		if k.shrinks {
			pi = pi.Mul(shrink)
		}
		pi.Sub(step.Mul(mi.Div(denom))).StoreSlice(p[i:])
	}
	if i < len(p) {
		clearUpper()
		adamRef(p[i:], g[i:], m[i:], v[i:], k)
	}
}

// adam64AVX512 is adamAVX512 for float64: the baselines' parameters.
func adam64AVX512(p, g, m, v []float64, k *adamConsts[float64]) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	b1, c1 := bc8(k.b1), bc8(k.c1)
	b2, c2 := bc8(k.b2), bc8(k.c2)
	step, bc2, eps := bc8(k.stepSize), bc8(k.bc2Sqrt), bc8(k.eps)
	shrink := bc8(k.shrink)
	zero := bc8(0)
	i := 0
	for ; i+8 <= len(p); i += 8 {
		gi := archsimd.LoadFloat64x8Slice(g[i:])
		if k.zero {
			zero.StoreSlice(g[i:])
		}
		mi := archsimd.LoadFloat64x8Slice(m[i:]).Mul(b1).Add(c1.Mul(gi))
		vi := archsimd.LoadFloat64x8Slice(v[i:]).Mul(b2).Add(c2.Mul(gi.Mul(gi)))
		mi.StoreSlice(m[i:])
		vi.StoreSlice(v[i:])
		denom := vi.Sqrt().Div(bc2).Add(eps)
		pi := archsimd.LoadFloat64x8Slice(p[i:])
		if k.shrinks {
			pi = pi.Mul(shrink)
		}
		pi.Sub(step.Mul(mi.Div(denom))).StoreSlice(p[i:])
	}
	if i < len(p) {
		clearUpper()
		adamRef(p[i:], g[i:], m[i:], v[i:], k)
	}
}

// adam64AVX2 is adamAVX2 for float64: the baselines' parameters.
func adam64AVX2(p, g, m, v []float64, k *adamConsts[float64]) {
	g, m, v = g[:len(p)], m[:len(p)], v[:len(p)]
	b1, c1 := bc4(k.b1), bc4(k.c1)
	b2, c2 := bc4(k.b2), bc4(k.c2)
	step, bc2, eps := bc4(k.stepSize), bc4(k.bc2Sqrt), bc4(k.eps)
	shrink := bc4(k.shrink)
	zero := bc4(0)
	i := 0
	for ; i+4 <= len(p); i += 4 {
		gi := archsimd.LoadFloat64x4Slice(g[i:])
		if k.zero {
			zero.StoreSlice(g[i:])
		}
		mi := archsimd.LoadFloat64x4Slice(m[i:]).Mul(b1).Add(c1.Mul(gi))
		vi := archsimd.LoadFloat64x4Slice(v[i:]).Mul(b2).Add(c2.Mul(gi.Mul(gi)))
		mi.StoreSlice(m[i:])
		vi.StoreSlice(v[i:])
		denom := vi.Sqrt().Div(bc2).Add(eps)
		pi := archsimd.LoadFloat64x4Slice(p[i:])
		if k.shrinks {
			pi = pi.Mul(shrink)
		}
		pi.Sub(step.Mul(mi.Div(denom))).StoreSlice(p[i:])
	}
	if i < len(p) {
		clearUpper()
		adamRef(p[i:], g[i:], m[i:], v[i:], k)
	}
}
