//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
)

// coneHalvesAVX512 is ConeHalves on eight elements per vector, operation
// for operation the twins; it returns where the scalar tail starts.
func coneHalvesAVX512(sin, cos, dAxis, x []float64, rho float64) int {
	n8 := len(x) &^ 7
	r, hp, pi := bc8(rho), bc8(math.Pi/2), bc8(math.Pi)
	one, m := bc8(1), absMask()
	for i := 0; i < n8; i += 8 {
		y := archsimd.LoadFloat64x8Slice(x[i:]).Div(r)
		th := tanh8(y, one, m)
		s, c := sincos8(th.Mul(hp))
		s.StoreSlice(sin[i:])
		c.StoreSlice(cos[i:])
		if dAxis != nil {
			pi.Mul(neg8(th).MulAdd(th, one)).Div(r).StoreSlice(dAxis[i:])
		}
	}
	return n8
}

// expm18 is expm1Twin on eight lanes.
func expm18(x archsimd.Float64x8) archsimd.Float64x8 {
	magic := bc8(roundMagic)
	t := x.MulAdd(bc8(math.Log2E), magic)
	k := t.Sub(magic)
	rr := neg8(k).MulAdd(bc8(expLn2Hi), x)
	rr = neg8(k).MulAdd(bc8(expLn2Lo), rr)
	p := bcBits(em1Bits[13])
	for j := 12; j >= 0; j-- {
		p = p.MulAdd(rr, bcBits(em1Bits[j]))
	}
	bias := archsimd.BroadcastInt64x8(int64(math.Float64bits(roundMagic)) - 1023)
	scale := t.AsInt64x8().Sub(bias).ShiftAllLeft(52).AsFloat64x8()
	return scale.MulAdd(rr.Mul(p), scale.Sub(bc8(1)))
}

// tanh8 is tanhTwin on eight lanes.
func tanh8(y, one archsimd.Float64x8, m archsimd.Int64x8) archsimd.Float64x8 {
	e := expm18(bc8(-2).Mul(abs8(y, m)).Max(bc8(-60)))
	th := neg8(e).Div(bc8(2).Add(e))
	// Copysign: |th| with y's sign bit, from And with the sign bit: the
	// form (th & m) | (y &^ m) is fused by Go 1.26.8's ternary-logic
	// rewrite into one VPTERNLOGQ with a wrong truth table (immediate
	// 0xc4: the lanes came out as garbage), found by TestConeHalves.
	sign := y.AsInt64x8().And(archsimd.BroadcastInt64x8(-1 << 63))
	return abs8(th, m).AsInt64x8().Or(sign).AsFloat64x8()
}

// sincos8 is sincosTwin on eight lanes.
func sincos8(u archsimd.Float64x8) (s, c archsimd.Float64x8) {
	u2 := u.Mul(u)
	s = bcBits(sinBits[21])
	for k := 19; k >= 1; k -= 2 {
		s = s.MulAdd(u2, bcBits(sinBits[k]))
	}
	c = bcBits(cosBits[22])
	for k := 20; k >= 0; k -= 2 {
		c = c.MulAdd(u2, bcBits(cosBits[k]))
	}
	return s.Mul(u), c
}

// bcBits broadcasts a float64 given by its bits.
func bcBits(b int64) archsimd.Float64x8 { return archsimd.BroadcastInt64x8(b).AsFloat64x8() }
