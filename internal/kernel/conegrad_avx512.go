//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// tie8 is tie on eight lanes.
func tie8(x, y, one, half, zero archsimd.Float64x8) archsimd.Float64x8 {
	return one.Merge(half.Merge(zero, x.Equal(y)), x.Less(y))
}

// sign8 is sign64 on eight lanes: ±1, or x itself for ±0 and NaN.
func sign8(x, one, zero archsimd.Float64x8) archsimd.Float64x8 {
	s := one.Merge(x, x.Greater(zero))
	return zero.Sub(one).Merge(s, x.Less(zero))
}

// neg8 is −x by flipping the sign bit (0 − x would turn −0 into +0).
func neg8(x archsimd.Float64x8) archsimd.Float64x8 {
	return x.AsInt64x8().Xor(archsimd.BroadcastInt64x8(-1 << 63)).AsFloat64x8()
}

// coneGradAVX512 is ConeGrad on eight dimensions per vector; it returns
// where the scalar tail starts.
func coneGradAVX512(x *ConeGradArgs) int {
	d := len(x.SA)
	n8 := d &^ 7
	g, cen := bc8(x.G), bc8(x.Cen)
	one, half, zero, m := bc8(1), bc8(0.5), bc8(0), absMask()
	ld := archsimd.LoadFloat64x8Slice
	for i := 0; i < n8; i += 8 {
		se, ce := ld(x.Sin[i:]), ld(x.Cos[i:])
		sa, ca := ld(x.SA[i:]), ld(x.CA[i:])
		su, cu := se.Mul(ca).Sub(ce.Mul(sa)), ce.Mul(ca).Add(se.Mul(sa))
		sg := ld(x.SG[i:])
		toAxis, base := abs8(su, m), abs8(sg, m)
		qs1, qc1, qs2, qc2 := ld(x.S1[i:]), ld(x.C1[i:]), ld(x.S2[i:]), ld(x.C2[i:])
		s1, c1 := se.Mul(qc1).Sub(ce.Mul(qs1)), ce.Mul(qc1).Add(se.Mul(qs1))
		s2, c2 := se.Mul(qc2).Sub(ce.Mul(qs2)), ce.Mul(qc2).Add(se.Mul(qs2))
		d1, d2 := abs8(s1, m), abs8(s2, m)
		out := zero.Merge(one, toAxis.Less(base))
		w1, w2 := out.Mul(tie8(d1, d2, one, half, zero)), out.Mul(tie8(d2, d1, one, half, zero))
		h1 := half.Mul(c1).Mul(sign8(s1, one, zero))
		h2 := half.Mul(c2).Mul(sign8(s2, one, zero))
		p1, p2 := w1.Mul(h1), w2.Mul(h2)
		de := p1.Add(p2)
		da := neg8(p1).Sub(p2)
		dg := p1.Sub(p2)
		wt, wb := cen.Mul(tie8(toAxis, base, one, half, zero)), cen.Mul(tie8(base, toAxis, one, half, zero))
		pt := wt.Mul(half.Mul(cu).Mul(sign8(su, one, zero)))
		de = de.Add(pt)
		da = da.Sub(pt)
		dg = dg.Add(wb.Mul(half.Mul(ld(x.CG[i:])).Mul(sign8(sg, one, zero))))
		ld(x.GE[i:]).Add(g.Mul(de).Mul(ld(x.DAxis[i:]))).StoreSlice(x.GE[i:])
		ld(x.GA[i:]).Add(g.Mul(da)).StoreSlice(x.GA[i:])
		ld(x.GG[i:]).Add(g.Mul(dg)).StoreSlice(x.GG[i:])
	}
	return n8
}
