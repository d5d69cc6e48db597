//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
)

// AVX-512 lgamma, digamma, trigamma: 8 lanes of float64, operation for
// operation the twins in special.go (a branch there is a Merge here; both
// sides of a branch are computed on all lanes and the unused side is
// discarded). special_avx2.go is this file with 4 lanes.

// bc8 broadcasts v through an integer register, as bf16.
func bc8(v float64) archsimd.Float64x8 {
	return archsimd.BroadcastInt64x8(int64(math.Float64bits(v))).AsFloat64x8()
}

// lgammaG8 holds lgammaG's coefficients, each in all 8 lanes: a vector
// load each, where a broadcast of a float64 loaded from memory left the
// register allocator spilling and reloading them with legacy-SSE moves.
var lgammaG8 = func() (v [len(lgammaG)][8]float64) {
	for i, g := range lgammaG {
		for l := range v[i] {
			v[i][l] = g
		}
	}
	return v
}()

func log64x8(x archsimd.Float64x8) archsimd.Float64x8 {
	one := bc8(1)
	bits := x.AsUint64x8()
	e := bits.ShiftAllRight(52).Or(archsimd.BroadcastUint64x8(expBias)).AsFloat64x8().Sub(bc8(twoP52 + 1023))
	m := bits.And(archsimd.BroadcastUint64x8(1<<52 - 1)).Or(archsimd.BroadcastUint64x8(0x3FF0000000000000)).AsFloat64x8()
	hi := m.Greater(bc8(math.Sqrt2))
	m = m.Mul(bc8(0.5)).Merge(m, hi)
	e = e.Add(one).Merge(e, hi)
	f := m.Sub(one)
	s := f.Div(bc8(2).Add(f))
	z := s.Mul(s)
	w := z.Mul(z)
	t1 := w.Mul(w.MulAdd(w.MulAdd(bc8(lnLg6), bc8(lnLg4)), bc8(lnLg2)))
	t2 := z.Mul(w.MulAdd(w.MulAdd(w.MulAdd(bc8(lnLg7), bc8(lnLg5)), bc8(lnLg3)), bc8(lnLg1)))
	r := t2.Add(t1)
	hfsq := bc8(0.5).Mul(f).Mul(f)
	l := e.MulAdd(bc8(ln2Hi), f.Sub(hfsq.Sub(s.MulAdd(hfsq.Add(r), e.Mul(bc8(ln2Lo))))))
	return x.Merge(l, x.Equal(archsimd.BroadcastInt64x8(inf64Bits).AsFloat64x8()))
}

func lgamma64x8(x archsimd.Float64x8) archsimd.Float64x8 {
	one, tb := bc8(1), bc8(lgammaT)
	big := x.GreaterEqual(tb)
	z, prod := x.Min(tb), one
	sgn := bc8(-1).Merge(one, z.Less(bc8(1.5)))
	for range 2 {
		up := z.Less(bc8(1.5))
		prod = prod.Mul(z).Merge(prod, up)
		z = z.Add(one).Merge(z, up)
	}
	for range 2 {
		dn := z.GreaterEqual(bc8(2.5))
		z = z.Sub(one).Merge(z, dn)
		prod = prod.Mul(z).Merge(prod, dn)
	}
	l := log64x8(x.Merge(prod, big))

	xb := x.Max(tb)
	t := one.Div(xb)
	w := t.Mul(t)
	ser := w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(bc8(st6), bc8(st5)), bc8(st4)), bc8(st3)), bc8(st2)), bc8(st1))
	rb := xb.Sub(bc8(0.5)).MulAdd(l.Sub(one), ser.MulAdd(t, bc8(stirlingC)))

	p := z.Sub(bc8(2))
	// Written out: as a loop the Horner chain ran ~20 % slower (Zen 3,
	// 2026-11-29).
	g := archsimd.LoadFloat64x8(&lgammaG8[13])
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[12]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[11]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[10]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[9]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[8]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[7]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[6]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[5]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[4]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[3]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[2]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[1]))
	g = g.MulAdd(p, archsimd.LoadFloat64x8(&lgammaG8[0]))
	rs := p.MulAdd(g, sgn.Mul(l))

	return rb.Merge(rs, big).Merge(archsimd.BroadcastInt64x8(nan64Bits).AsFloat64x8(), x.Greater(bc8(0)))
}

func digamma64x8(x archsimd.Float64x8) archsimd.Float64x8 {
	one, t8 := bc8(1), bc8(specialT)
	small := x.Less(t8)
	y := x.Min(t8)
	num, den := bc8(0), one
	for range 8 {
		num = num.MulAdd(y, den)
		den = den.Mul(y)
		y = y.Add(one)
	}
	shift := num.Div(den).Merge(bc8(0), small)
	y = y.Merge(x, small)
	t := one.Div(y)
	w := t.Mul(t)
	ser := w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(bc8(dg8), bc8(dg7)), bc8(dg6)), bc8(dg5)), bc8(dg4)), bc8(dg3)), bc8(dg2)), bc8(dg1))
	r := w.MulAdd(ser, bc8(-0.5).MulAdd(t, log64x8(y))).Sub(shift)
	return r.Merge(archsimd.BroadcastInt64x8(nan64Bits).AsFloat64x8(), x.Greater(bc8(0)))
}

func trigamma64x8(x archsimd.Float64x8) archsimd.Float64x8 {
	one, t8 := bc8(1), bc8(specialT)
	small := x.Less(t8)
	y := x.Min(t8)
	num, den := bc8(0), one
	for range 8 {
		y2 := y.Mul(y)
		num = num.MulAdd(y2, den)
		den = den.Mul(y2)
		y = y.Add(one)
	}
	shift := num.Div(den).Merge(bc8(0), small)
	y = y.Merge(x, small)
	t := one.Div(y)
	w := t.Mul(t)
	ser := w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(bc8(tg7), bc8(tg6)), bc8(tg5)), bc8(tg4)), bc8(tg3)), bc8(tg2)), bc8(tg1))
	r := w.MulAdd(t.MulAdd(ser, bc8(0.5)), t).Add(shift)
	return r.Merge(archsimd.BroadcastInt64x8(nan64Bits).AsFloat64x8(), x.Greater(bc8(0)))
}

// map64x8 applies f to x in float64, 8 lanes at a time; the tail goes
// through the same vector code on a padded copy.
func map64x8(dst, x []float32, f func(archsimd.Float64x8) archsimd.Float64x8) {
	dst = dst[:len(x)]
	i := 0
	for ; i+8 <= len(x); i += 8 {
		v := archsimd.LoadFloat32x8Slice(x[i:]).ConvertToFloat64()
		f(v).ConvertToFloat32().StoreSlice(dst[i:])
	}
	if i < len(x) {
		clearUpper() // the copies below are scalar code
		var t [8]float32
		copy(t[:], x[i:])
		f(archsimd.LoadFloat32x8(&t).ConvertToFloat64()).ConvertToFloat32().Store(&t)
		clearUpper()
		copy(dst[i:], t[:])
	}
}

func lgammaAVX512(dst, x []float32)   { map64x8(dst, x, lgamma64x8) }
func digammaAVX512(dst, x []float32)  { map64x8(dst, x, digamma64x8) }
func trigammaAVX512(dst, x []float32) { map64x8(dst, x, trigamma64x8) }

// map64x8f applies f to float64 slices, eight lanes at a time, the tail
// under a mask (its padding lanes are computed and dropped).
func map64x8f(dst, x []float64, f func(archsimd.Float64x8) archsimd.Float64x8) {
	dst = dst[:len(x)]
	var t [8]float64 // declared before the vector code: its zeroing is scalar
	i := 0
	for ; i+8 <= len(x); i += 8 {
		f(archsimd.LoadFloat64x8Slice(x[i:])).StoreSlice(dst[i:])
	}
	if i < len(x) {
		// Under a mask, through the slices' memory when their allocations
		// hold 8 elements from i, else through an array (see tail16).
		n := len(x) - i
		valid := archsimd.Mask64x8FromBits(0xff >> (8 - n))
		if cap(x[i:]) >= 8 && cap(dst[i:]) >= 8 {
			f(archsimd.LoadMaskedFloat64x8((*[8]float64)(x[i:i+8]), valid)).StoreMasked((*[8]float64)(dst[i:i+8]), valid)
			return
		}
		copy64(t[:], x[i:])
		f(archsimd.LoadMaskedFloat64x8(&t, valid)).Store(&t)
		copy64(dst[i:], t[:n])
	}
}

func lgamma64AVX512(dst, x []float64)   { map64x8f(dst, x, lgamma64x8) }
func digamma64AVX512(dst, x []float64)  { map64x8f(dst, x, digamma64x8) }
func trigamma64AVX512(dst, x []float64) { map64x8f(dst, x, trigamma64x8) }

// copy64 is copy behind a vzeroupper, for the tails of map64x8f; a call,
// not inlined, for copyIn16's reason.
//
//go:noinline
func copy64(dst, src []float64) {
	clearUpper()
	copy(dst, src)
}
