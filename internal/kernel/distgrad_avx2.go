//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The AVX2 twin of distgrad_avx512.go: four lanes, line for line
// (archsimd's vector types have no width parameter); change both.

// The AVX2 levels of L1Grad and BoxGrad: four dimensions per vector,
// operation for operation the scalar loops; they return where the scalar
// tail starts.

func l1GradAVX2(ge, gq, e, q []float64, g float64) int {
	n4 := len(e) &^ 3
	gv, one, zero := bc4(g), bc4(1), bc4(0)
	ld := archsimd.LoadFloat64x4Slice
	for i := 0; i < n4; i += 4 {
		x := gv.Mul(sign4(ld(e[i:]).Sub(ld(q[i:])), one, zero))
		ld(ge[i:]).Add(x).StoreSlice(ge[i:])
		ld(gq[i:]).Sub(x).StoreSlice(gq[i:])
	}
	return n4
}

func boxGradAVX2(ge, gc, gO, e, c, o []float64, g, cen float64) int {
	n4 := len(e) &^ 3
	gv, cv, one, half, zero, m := bc4(g), bc4(cen), bc4(1), bc4(0.5), bc4(0), absMask4()
	ld := archsimd.LoadFloat64x4Slice
	for i := 0; i < n4; i += 4 {
		diff := ld(e[i:]).Sub(ld(c[i:]))
		delta, ov := abs4(diff, m), ld(o[i:])
		fg := one.Merge(zero, delta.Greater(ov))
		fl := one.Merge(zero, delta.Less(ov))
		h := half.Mul(one.Sub(fg).Sub(fl))
		dDelta := fg.Add(cv.Mul(fl.Add(h)))
		dO := neg4(fg).Add(cv.Mul(fg.Add(h)))
		sd := gv.Mul(dDelta).Mul(sign4(diff, one, zero))
		ld(ge[i:]).Add(sd).StoreSlice(ge[i:])
		ld(gc[i:]).Sub(sd).StoreSlice(gc[i:])
		ld(gO[i:]).Add(gv.Mul(dO)).StoreSlice(gO[i:])
	}
	return n4
}
