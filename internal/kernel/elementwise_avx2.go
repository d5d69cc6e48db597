//go:build goexperiment.simd

package kernel

import (
	"math"
	"simd/archsimd"
)

// AVX2 exp and log, 8 float32 lanes, operation for operation the twins
// exp32 and log32 in elementwise.go; elementwise_avx512.go with 8 lanes.

// bf8 broadcasts v through an integer register, as bf16.
func bf8(v float32) archsimd.Float32x8 {
	return archsimd.BroadcastInt32x8(int32(math.Float32bits(v))).AsFloat32x8()
}

// fbits8 is fbits16 on 8 lanes.
func fbits8(b int32) archsimd.Float32x8 { return archsimd.BroadcastInt32x8(b).AsFloat32x8() }

func bi8(v int32) archsimd.Int32x8 { return archsimd.BroadcastInt32x8(v) }

func exp32x8(x archsimd.Float32x8) archsimd.Float32x8 {
	xc := x.Max(bf8(expLo)).Min(bf8(expHi))
	n := xc.Mul(bf8(log2e32)).RoundToEven()
	r := n.MulAdd(bf8(-ln2Hi32), xc)
	r = n.MulAdd(bf8(-ln2Lo32), r)
	p := bf8(ep5).MulAdd(r, bf8(ep4)).MulAdd(r, bf8(ep3)).MulAdd(r, bf8(ep2)).MulAdd(r, bf8(ep1)).MulAdd(r, bf8(ep0))
	p = p.MulAdd(r.Mul(r), r).Add(bf8(1))
	ni := n.ConvertToInt32()
	n1 := ni.ShiftAllRight(1)
	n2 := ni.Sub(n1)
	s1 := n1.Add(bi8(127)).ShiftAllLeft(23).AsFloat32x8()
	s2 := n2.Add(bi8(127)).ShiftAllLeft(23).AsFloat32x8()
	y := p.Mul(s1).Mul(s2)
	return x.Merge(y, x.IsNaN())
}

func log32x8(x archsimd.Float32x8) archsimd.Float32x8 {
	one, zero := bf8(1), bf8(0)
	sub := x.Less(bf8(0x1p-126))
	xs := x.Mul(bf8(0x1p23)).Merge(x, sub)
	bits := xs.AsInt32x8()
	e := bits.ShiftAllRight(23).Sub(bi8(127)).ConvertToFloat32()
	e = e.Sub(bf8(23)).Merge(e, sub)
	m := bits.And(bi8(0x7FFFFF)).Or(bi8(0x3F800000)).AsFloat32x8()
	hi := m.Greater(bf8(sqrt2f32))
	m = m.Mul(bf8(0.5)).Merge(m, hi)
	e = e.Add(one).Merge(e, hi)
	f := m.Sub(one)
	z := f.Mul(f)
	p := bf8(lp8).MulAdd(f, bf8(lp7)).MulAdd(f, bf8(lp6)).MulAdd(f, bf8(lp5)).MulAdd(f, bf8(lp4)).MulAdd(f, bf8(lp3)).MulAdd(f, bf8(lp2)).MulAdd(f, bf8(lp1)).MulAdd(f, bf8(lp0))
	y := p.Mul(z).MulAdd(f, e.Mul(bf8(ln2Lo32)))
	y = z.MulAdd(bf8(-0.5), y)
	r := e.MulAdd(bf8(ln2Hi32), f.Add(y))
	r = r.Merge(fbits8(nan32Bits), x.Greater(zero))
	r = fbits8(ninf32Bits).Merge(r, x.Equal(zero))
	return x.Merge(r, x.Equal(fbits8(inf32Bits)))
}

func expAVX2(dst, x []float32) {
	dst = dst[:len(x)]
	i := 0
	for ; i+8 <= len(x); i += 8 {
		exp32x8(archsimd.LoadFloat32x8Slice(x[i:])).StoreSlice(dst[i:])
	}
	if i < len(x) {
		clearUpper()
		expTwin(dst[i:], x[i:])
	}
}

func logAVX2(dst, x []float32) {
	dst = dst[:len(x)]
	i := 0
	for ; i+8 <= len(x); i += 8 {
		log32x8(archsimd.LoadFloat32x8Slice(x[i:])).StoreSlice(dst[i:])
	}
	if i < len(x) {
		clearUpper()
		logTwin(dst[i:], x[i:])
	}
}
