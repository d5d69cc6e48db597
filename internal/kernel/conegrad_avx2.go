//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The AVX2 twin of conegrad_avx512.go: four lanes, line for line
// (archsimd's vector types have no width parameter); change both.

// tie4 is tie on four lanes.
func tie4(x, y, one, half, zero archsimd.Float64x4) archsimd.Float64x4 {
	return one.Merge(half.Merge(zero, x.Equal(y)), x.Less(y))
}

// sign4 is sign64 on four lanes: ±1, or x itself for ±0 and NaN.
func sign4(x, one, zero archsimd.Float64x4) archsimd.Float64x4 {
	s := one.Merge(x, x.Greater(zero))
	return zero.Sub(one).Merge(s, x.Less(zero))
}

// neg4 is −x by flipping the sign bit (0 − x would turn −0 into +0).
func neg4(x archsimd.Float64x4) archsimd.Float64x4 {
	return x.AsInt64x4().Xor(archsimd.BroadcastInt64x4(-1 << 63)).AsFloat64x4()
}

// coneGradAVX2 is ConeGrad on four dimensions per vector; it returns
// where the scalar tail starts.
func coneGradAVX2(x *ConeGradArgs) int {
	d := len(x.SA)
	n4 := d &^ 3
	g, cen := bc4(x.G), bc4(x.Cen)
	one, half, zero, m := bc4(1), bc4(0.5), bc4(0), absMask4()
	ld := archsimd.LoadFloat64x4Slice
	for i := 0; i < n4; i += 4 {
		se, ce := ld(x.Sin[i:]), ld(x.Cos[i:])
		sa, ca := ld(x.SA[i:]), ld(x.CA[i:])
		su, cu := se.Mul(ca).Sub(ce.Mul(sa)), ce.Mul(ca).Add(se.Mul(sa))
		sg := ld(x.SG[i:])
		toAxis, base := abs4(su, m), abs4(sg, m)
		qs1, qc1, qs2, qc2 := ld(x.S1[i:]), ld(x.C1[i:]), ld(x.S2[i:]), ld(x.C2[i:])
		s1, c1 := se.Mul(qc1).Sub(ce.Mul(qs1)), ce.Mul(qc1).Add(se.Mul(qs1))
		s2, c2 := se.Mul(qc2).Sub(ce.Mul(qs2)), ce.Mul(qc2).Add(se.Mul(qs2))
		d1, d2 := abs4(s1, m), abs4(s2, m)
		out := zero.Merge(one, toAxis.Less(base))
		w1, w2 := out.Mul(tie4(d1, d2, one, half, zero)), out.Mul(tie4(d2, d1, one, half, zero))
		h1 := half.Mul(c1).Mul(sign4(s1, one, zero))
		h2 := half.Mul(c2).Mul(sign4(s2, one, zero))
		p1, p2 := w1.Mul(h1), w2.Mul(h2)
		de := p1.Add(p2)
		da := neg4(p1).Sub(p2)
		dg := p1.Sub(p2)
		wt, wb := cen.Mul(tie4(toAxis, base, one, half, zero)), cen.Mul(tie4(base, toAxis, one, half, zero))
		pt := wt.Mul(half.Mul(cu).Mul(sign4(su, one, zero)))
		de = de.Add(pt)
		da = da.Sub(pt)
		dg = dg.Add(wb.Mul(half.Mul(ld(x.CG[i:])).Mul(sign4(sg, one, zero))))
		ld(x.GE[i:]).Add(g.Mul(de).Mul(ld(x.DAxis[i:]))).StoreSlice(x.GE[i:])
		ld(x.GA[i:]).Add(g.Mul(da)).StoreSlice(x.GA[i:])
		ld(x.GG[i:]).Add(g.Mul(dg)).StoreSlice(x.GG[i:])
	}
	return n4
}
