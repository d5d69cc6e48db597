//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
)

// The AVX2 twin of conehalves_avx512.go: four lanes, line for line
// (archsimd's vector types have no width parameter); change both.

// coneHalvesAVX2 is ConeHalves on four elements per vector, operation
// for operation the twins; it returns where the scalar tail starts.
func coneHalvesAVX2(sin, cos, dAxis, x []float64, rho float64) int {
	n4 := len(x) &^ 3
	r, hp, pi := bc4(rho), bc4(math.Pi/2), bc4(math.Pi)
	one, m := bc4(1), absMask4()
	for i := 0; i < n4; i += 4 {
		y := archsimd.LoadFloat64x4Slice(x[i:]).Div(r)
		th := tanh4(y, one, m)
		s, c := sincos4(th.Mul(hp))
		s.StoreSlice(sin[i:])
		c.StoreSlice(cos[i:])
		if dAxis != nil {
			pi.Mul(neg4(th).MulAdd(th, one)).Div(r).StoreSlice(dAxis[i:])
		}
	}
	return n4
}

// expm14 is expm1Twin on four lanes.
func expm14(x archsimd.Float64x4) archsimd.Float64x4 {
	magic := bc4(roundMagic)
	t := x.MulAdd(bc4(math.Log2E), magic)
	k := t.Sub(magic)
	rr := neg4(k).MulAdd(bc4(expLn2Hi), x)
	rr = neg4(k).MulAdd(bc4(expLn2Lo), rr)
	p := bcBits4(em1Bits[13])
	for j := 12; j >= 0; j-- {
		p = p.MulAdd(rr, bcBits4(em1Bits[j]))
	}
	bias := archsimd.BroadcastInt64x4(int64(math.Float64bits(roundMagic)) - 1023)
	scale := t.AsInt64x4().Sub(bias).ShiftAllLeft(52).AsFloat64x4()
	return scale.MulAdd(rr.Mul(p), scale.Sub(bc4(1)))
}

// tanh4 is tanhTwin on four lanes.
func tanh4(y, one archsimd.Float64x4, m archsimd.Int64x4) archsimd.Float64x4 {
	e := expm14(bc4(-2).Mul(abs4(y, m)).Max(bc4(-60)))
	th := neg4(e).Div(bc4(2).Add(e))
	// Copysign by Or, as tanh8 (whose comment says why).
	sign := y.AsInt64x4().And(archsimd.BroadcastInt64x4(-1 << 63))
	return abs4(th, m).AsInt64x4().Or(sign).AsFloat64x4()
}

// sincos4 is sincosTwin on four lanes.
func sincos4(u archsimd.Float64x4) (s, c archsimd.Float64x4) {
	u2 := u.Mul(u)
	s = bcBits4(sinBits[21])
	for k := 19; k >= 1; k -= 2 {
		s = s.MulAdd(u2, bcBits4(sinBits[k]))
	}
	c = bcBits4(cosBits[22])
	for k := 20; k >= 0; k -= 2 {
		c = c.MulAdd(u2, bcBits4(cosBits[k]))
	}
	return s.Mul(u), c
}

// bcBits broadcasts a float64 given by its bits.
func bcBits4(b int64) archsimd.Float64x4 { return archsimd.BroadcastInt64x4(b).AsFloat64x4() }
