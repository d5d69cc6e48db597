//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The AVX-512 levels of L1Grad and BoxGrad: eight dimensions per vector,
// operation for operation the scalar loops; they return where the scalar
// tail starts.

func l1GradAVX512(ge, gq, e, q []float64, g float64) int {
	n8 := len(e) &^ 7
	gv, one, zero := bc8(g), bc8(1), bc8(0)
	ld := archsimd.LoadFloat64x8Slice
	for i := 0; i < n8; i += 8 {
		x := gv.Mul(sign8(ld(e[i:]).Sub(ld(q[i:])), one, zero))
		ld(ge[i:]).Add(x).StoreSlice(ge[i:])
		ld(gq[i:]).Sub(x).StoreSlice(gq[i:])
	}
	return n8
}

func boxGradAVX512(ge, gc, gO, e, c, o []float64, g, cen float64) int {
	n8 := len(e) &^ 7
	gv, cv, one, half, zero, m := bc8(g), bc8(cen), bc8(1), bc8(0.5), bc8(0), absMask()
	ld := archsimd.LoadFloat64x8Slice
	for i := 0; i < n8; i += 8 {
		diff := ld(e[i:]).Sub(ld(c[i:]))
		delta, ov := abs8(diff, m), ld(o[i:])
		fg := one.Merge(zero, delta.Greater(ov))
		fl := one.Merge(zero, delta.Less(ov))
		h := half.Mul(one.Sub(fg).Sub(fl))
		dDelta := fg.Add(cv.Mul(fl.Add(h)))
		dO := neg8(fg).Add(cv.Mul(fg.Add(h)))
		sd := gv.Mul(dDelta).Mul(sign8(diff, one, zero))
		ld(ge[i:]).Add(sd).StoreSlice(ge[i:])
		ld(gc[i:]).Sub(sd).StoreSlice(gc[i:])
		ld(gO[i:]).Add(gv.Mul(dO)).StoreSlice(gO[i:])
	}
	return n8
}
