//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The AVX2 twin of betagrad_avx512.go: four lanes, line for line
// (archsimd's vector types have no width parameter); change both.

// betaGradAVX2 is BetaGrad on four dimensions per vector; it returns
// where the scalar tail starts.
func betaGradAVX2(x *BetaGradArgs) int {
	d := len(x.QA)
	n4 := d &^ 3
	g, one, zero := bc4(x.G), bc4(1), bc4(0)
	lo, hi := bc4(x.Lo), bc4(x.Hi)
	ld := archsimd.LoadFloat64x4Slice
	for i := 0; i < n4; i += 4 {
		a, b := ld(x.QA[i:]), ld(x.QB[i:])
		psiA, psiB, psiS := ld(x.PsiA[i:]), ld(x.PsiB[i:]), ld(x.PsiS[i:])
		kl := ld(x.Lg[i:]).Add(ld(x.E[i:]))
		kl = kl.Sub(a.Mul(psiA)).Sub(b.Mul(psiB)).Add(a.Add(b).Mul(psiS))
		// sign(kl)·G, and kl·G for ±0 and NaN as the scalar loop.
		s := one.Merge(kl, kl.Greater(zero))
		s = zero.Sub(one).Merge(s, kl.Less(zero))
		sg := s.Mul(g)
		ap, bp := ld(x.A[i:]), ld(x.B[i:])
		ds := a.Add(b).Sub(ap).Sub(bp).Mul(ld(x.TriS[i:]))
		ra, rb := ld(x.RawA[i:]).Add(one), ld(x.RawB[i:]).Add(one)
		pa := ra.GreaterEqual(lo).And(ra.LessEqual(hi))
		pb := rb.GreaterEqual(lo).And(rb.LessEqual(hi))
		ga := sg.Mul(ap.Sub(a).Mul(ld(x.TriA[i:])).Add(ds))
		gb := sg.Mul(bp.Sub(b).Mul(ld(x.TriB[i:])).Add(ds))
		ld(x.GeA[i:]).Add(ga.Merge(zero, pa)).StoreSlice(x.GeA[i:])
		ld(x.GeB[i:]).Add(gb.Merge(zero, pb)).StoreSlice(x.GeB[i:])
		qs := ld(x.QPsiS[i:])
		ld(x.GA[i:]).Add(sg.Mul(ld(x.QPsiA[i:]).Sub(qs).Sub(psiA).Add(psiS))).StoreSlice(x.GA[i:])
		ld(x.GB[i:]).Add(sg.Mul(ld(x.QPsiB[i:]).Sub(qs).Sub(psiB).Add(psiS))).StoreSlice(x.GB[i:])
	}
	return n4
}
