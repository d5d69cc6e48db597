//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
)

// AVX2 lgamma, digamma, trigamma: special_avx512.go with 4 lanes, line for
// line.

// bc4 broadcasts v through an integer register, as bf16.
func bc4(v float64) archsimd.Float64x4 {
	return archsimd.BroadcastInt64x4(int64(math.Float64bits(v))).AsFloat64x4()
}

// lgammaG4 holds lgammaG's coefficients, each in all 4 lanes: a vector
// load each, where a broadcast of a float64 loaded from memory left the
// register allocator spilling and reloading them with legacy-SSE moves.
var lgammaG4 = func() (v [len(lgammaG)][4]float64) {
	for i, g := range lgammaG {
		for l := range v[i] {
			v[i][l] = g
		}
	}
	return v
}()

func log64x4(x archsimd.Float64x4) archsimd.Float64x4 {
	one := bc4(1)
	bits := x.AsUint64x4()
	e := bits.ShiftRight(archsimd.BroadcastUint64x4(52)).Or(archsimd.BroadcastUint64x4(expBias)).AsFloat64x4().Sub(bc4(twoP52 + 1023))
	m := bits.And(archsimd.BroadcastUint64x4(1<<52 - 1)).Or(archsimd.BroadcastUint64x4(0x3FF0000000000000)).AsFloat64x4()
	hi := m.Greater(bc4(math.Sqrt2))
	m = m.Mul(bc4(0.5)).Merge(m, hi)
	e = e.Add(one).Merge(e, hi)
	f := m.Sub(one)
	s := f.Div(bc4(2).Add(f))
	z := s.Mul(s)
	w := z.Mul(z)
	t1 := w.Mul(w.MulAdd(w.MulAdd(bc4(lnLg6), bc4(lnLg4)), bc4(lnLg2)))
	t2 := z.Mul(w.MulAdd(w.MulAdd(w.MulAdd(bc4(lnLg7), bc4(lnLg5)), bc4(lnLg3)), bc4(lnLg1)))
	r := t2.Add(t1)
	hfsq := bc4(0.5).Mul(f).Mul(f)
	l := e.MulAdd(bc4(ln2Hi), f.Sub(hfsq.Sub(s.MulAdd(hfsq.Add(r), e.Mul(bc4(ln2Lo))))))
	return x.Merge(l, x.Equal(archsimd.BroadcastInt64x4(inf64Bits).AsFloat64x4()))
}

func lgamma64x4(x archsimd.Float64x4) archsimd.Float64x4 {
	one, tb := bc4(1), bc4(lgammaT)
	big := x.GreaterEqual(tb)
	z, prod := x.Min(tb), one
	sgn := bc4(-1).Merge(one, z.Less(bc4(1.5)))
	for range 2 {
		up := z.Less(bc4(1.5))
		prod = prod.Mul(z).Merge(prod, up)
		z = z.Add(one).Merge(z, up)
	}
	for range 2 {
		dn := z.GreaterEqual(bc4(2.5))
		z = z.Sub(one).Merge(z, dn)
		prod = prod.Mul(z).Merge(prod, dn)
	}
	l := log64x4(x.Merge(prod, big))

	xb := x.Max(tb)
	t := one.Div(xb)
	w := t.Mul(t)
	ser := w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(bc4(st6), bc4(st5)), bc4(st4)), bc4(st3)), bc4(st2)), bc4(st1))
	rb := xb.Sub(bc4(0.5)).MulAdd(l.Sub(one), ser.MulAdd(t, bc4(stirlingC)))

	p := z.Sub(bc4(2))
	// Written out: as a loop the Horner chain ran ~20 % slower (Zen 3,
	// 2026-11-29).
	g := archsimd.LoadFloat64x4(&lgammaG4[13])
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[12]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[11]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[10]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[9]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[8]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[7]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[6]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[5]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[4]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[3]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[2]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[1]))
	g = g.MulAdd(p, archsimd.LoadFloat64x4(&lgammaG4[0]))
	rs := p.MulAdd(g, sgn.Mul(l))

	return rb.Merge(rs, big).Merge(archsimd.BroadcastInt64x4(nan64Bits).AsFloat64x4(), x.Greater(bc4(0)))
}

func digamma64x4(x archsimd.Float64x4) archsimd.Float64x4 {
	one, t8 := bc4(1), bc4(specialT)
	small := x.Less(t8)
	y := x.Min(t8)
	num, den := bc4(0), one
	for range 8 {
		num = num.MulAdd(y, den)
		den = den.Mul(y)
		y = y.Add(one)
	}
	shift := num.Div(den).Merge(bc4(0), small)
	y = y.Merge(x, small)
	t := one.Div(y)
	w := t.Mul(t)
	ser := w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(bc4(dg8), bc4(dg7)), bc4(dg6)), bc4(dg5)), bc4(dg4)), bc4(dg3)), bc4(dg2)), bc4(dg1))
	r := w.MulAdd(ser, bc4(-0.5).MulAdd(t, log64x4(y))).Sub(shift)
	return r.Merge(archsimd.BroadcastInt64x4(nan64Bits).AsFloat64x4(), x.Greater(bc4(0)))
}

func trigamma64x4(x archsimd.Float64x4) archsimd.Float64x4 {
	one, t8 := bc4(1), bc4(specialT)
	small := x.Less(t8)
	y := x.Min(t8)
	num, den := bc4(0), one
	for range 8 {
		y2 := y.Mul(y)
		num = num.MulAdd(y2, den)
		den = den.Mul(y2)
		y = y.Add(one)
	}
	shift := num.Div(den).Merge(bc4(0), small)
	y = y.Merge(x, small)
	t := one.Div(y)
	w := t.Mul(t)
	ser := w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(w.MulAdd(bc4(tg7), bc4(tg6)), bc4(tg5)), bc4(tg4)), bc4(tg3)), bc4(tg2)), bc4(tg1))
	r := w.MulAdd(t.MulAdd(ser, bc4(0.5)), t).Add(shift)
	return r.Merge(archsimd.BroadcastInt64x4(nan64Bits).AsFloat64x4(), x.Greater(bc4(0)))
}

// map64x4 applies f to x in float64, 4 lanes at a time; the tail goes
// through the same vector code on a padded copy.
func map64x4(dst, x []float32, f func(archsimd.Float64x4) archsimd.Float64x4) {
	dst = dst[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		v := archsimd.LoadFloat32x4Slice(x[i:]).ConvertToFloat64()
		f(v).ConvertToFloat32().StoreSlice(dst[i:])
	}
	if i < len(x) {
		clearUpper() // the copies below are scalar code
		var t [4]float32
		copy(t[:], x[i:])
		f(archsimd.LoadFloat32x4(&t).ConvertToFloat64()).ConvertToFloat32().Store(&t)
		clearUpper()
		copy(dst[i:], t[:])
	}
}

func lgammaAVX2(dst, x []float32)   { map64x4(dst, x, lgamma64x4) }
func digammaAVX2(dst, x []float32)  { map64x4(dst, x, digamma64x4) }
func trigammaAVX2(dst, x []float32) { map64x4(dst, x, trigamma64x4) }

// map64x4f applies f to float64 slices, four lanes at a time; the tail
// goes through the same vector code on a padded copy.
func map64x4f(dst, x []float64, f func(archsimd.Float64x4) archsimd.Float64x4) {
	dst = dst[:len(x)]
	i := 0
	for ; i+4 <= len(x); i += 4 {
		f(archsimd.LoadFloat64x4Slice(x[i:])).StoreSlice(dst[i:])
	}
	if i < len(x) {
		clearUpper() // the copies below are scalar code
		var t [4]float64
		copy(t[:], x[i:])
		f(archsimd.LoadFloat64x4(&t)).Store(&t)
		clearUpper()
		copy(dst[i:], t[:])
	}
}

func lgamma64AVX2(dst, x []float64)   { map64x4f(dst, x, lgamma64x4) }
func digamma64AVX2(dst, x []float64)  { map64x4f(dst, x, digamma64x4) }
func trigamma64AVX2(dst, x []float64) { map64x4f(dst, x, trigamma64x4) }
