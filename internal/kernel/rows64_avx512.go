//go:build goexperiment.simd

package kernel

import "simd/archsimd"

// The AVX-512 levels of the baselines' row scores (rows64.go): eight
// dimensions per vector, a row's lanes summed after clearUpper, the tail
// of a row (d not a multiple of 8) by the scalar loop.

// abs8 is |x| by clearing the sign bits.
func abs8(x archsimd.Float64x8, mask archsimd.Int64x8) archsimd.Float64x8 {
	return x.AsInt64x8().And(mask).AsFloat64x8()
}

// lanesum8 is the sum of a vector's lanes, taken on clean upper halves.
func lanesum8(v archsimd.Float64x8) float64 {
	var l [8]float64
	v.Store(&l)
	clearUpper()
	return ((l[0] + l[1]) + (l[2] + l[3])) + ((l[4] + l[5]) + (l[6] + l[7]))
}

// lanesum8x2 is lanesum8 of two vectors.
func lanesum8x2(u, v archsimd.Float64x8) (float64, float64) {
	var a, b [8]float64
	u.Store(&a)
	v.Store(&b)
	clearUpper()
	return ((a[0] + a[1]) + (a[2] + a[3])) + ((a[4] + a[5]) + (a[6] + a[7])),
		((b[0] + b[1]) + (b[2] + b[3])) + ((b[4] + b[5]) + (b[6] + b[7]))
}

func absMask() archsimd.Int64x8 { return archsimd.BroadcastInt64x8(0x7fffffffffffffff) }

func l1RowsAVX512(dst, tab, q []float64, gamma float64) {
	d := len(q)
	n8 := d &^ 7
	for e := range dst {
		row := tab[e*d : (e+1)*d]
		acc, m := bc8(0), absMask()
		for i := 0; i < n8; i += 8 {
			acc = acc.Add(abs8(archsimd.LoadFloat64x8Slice(row[i:]).Sub(archsimd.LoadFloat64x8Slice(q[i:])), m))
		}
		s := lanesum8(acc)
		l1RowsGo(dst[e:e+1], row[n8:], q[n8:], 0)
		dst[e] = gamma - (s - dst[e])
	}
}

func boxRowsAVX512(dst, tab, c, o []float64, cen, gamma float64) {
	d := len(c)
	n8 := d &^ 7
	for e := range dst {
		row := tab[e*d : (e+1)*d]
		out, in, zero, m := bc8(0), bc8(0), bc8(0), absMask()
		for i := 0; i < n8; i += 8 {
			delta := abs8(archsimd.LoadFloat64x8Slice(row[i:]).Sub(archsimd.LoadFloat64x8Slice(c[i:])), m)
			ov := archsimd.LoadFloat64x8Slice(o[i:])
			out = out.Add(delta.Sub(ov).Max(zero))
			in = in.Add(delta.Min(ov))
		}
		so, si := lanesum8x2(out, in)
		for i := n8; i < d; i++ {
			delta := row[i] - c[i]
			if delta < 0 {
				delta = -delta
			}
			so += max(delta-o[i], 0)
			si += min(delta, o[i])
		}
		dst[e] = gamma - so - cen*si
	}
}

func betaRowsAVX512(dst, psiA, psiB, psiS, ent, lg, a, b []float64, gamma float64) {
	d := len(lg)
	n8 := d &^ 7
	for e := range dst {
		off := e * d
		acc, m, zero := bc8(0), absMask(), bc8(0)
		for i := 0; i < n8; i += 8 {
			// Fused: −a·ψA + x, −b·ψB + x, (a+b)·ψS + x.
			k := off + i
			av, bv := archsimd.LoadFloat64x8Slice(a[i:]), archsimd.LoadFloat64x8Slice(b[i:])
			x := archsimd.LoadFloat64x8Slice(lg[i:]).Add(archsimd.LoadFloat64x8Slice(ent[k:]))
			x = zero.Sub(av).MulAdd(archsimd.LoadFloat64x8Slice(psiA[k:]), x)
			x = zero.Sub(bv).MulAdd(archsimd.LoadFloat64x8Slice(psiB[k:]), x)
			x = av.Add(bv).MulAdd(archsimd.LoadFloat64x8Slice(psiS[k:]), x)
			acc = acc.Add(abs8(x, m))
		}
		s := lanesum8(acc)
		for i := n8; i < d; i++ {
			k := off + i
			v := lg[i] + ent[k] - a[i]*psiA[k] - b[i]*psiB[k] + (a[i]+b[i])*psiS[k]
			if v < 0 {
				v = -v
			}
			s += v
		}
		dst[e] = gamma - s
	}
}

func coneRowsAVX512(dst, sin, cos, sa, ca, s1, c1, s2, c2, base []float64, cen, mod, gamma float64) {
	d := len(sa)
	n8 := d &^ 7
	for e := range dst {
		se, ce := sin[e*d:(e+1)*d], cos[e*d:(e+1)*d]
		out, in, m := bc8(0), bc8(0), absMask()
		for i := 0; i < n8; i += 8 {
			sv, cv := archsimd.LoadFloat64x8Slice(se[i:]), archsimd.LoadFloat64x8Slice(ce[i:])
			bv := archsimd.LoadFloat64x8Slice(base[i:])
			t := abs8(sv.Mul(archsimd.LoadFloat64x8Slice(ca[i:])).Sub(cv.Mul(archsimd.LoadFloat64x8Slice(sa[i:]))), m)
			d1 := abs8(sv.Mul(archsimd.LoadFloat64x8Slice(c1[i:])).Sub(cv.Mul(archsimd.LoadFloat64x8Slice(s1[i:]))), m)
			d2 := abs8(sv.Mul(archsimd.LoadFloat64x8Slice(c2[i:])).Sub(cv.Mul(archsimd.LoadFloat64x8Slice(s2[i:]))), m)
			// Outside the aperture unless t < base: only lanes t ≥ base add.
			out = out.Add(d1.Min(d2).Masked(t.GreaterEqual(bv)))
			in = in.Add(t.Min(bv))
		}
		so, si := lanesum8x2(out, in)
		if n8 < d {
			var tail [1]float64
			coneRowsGo(tail[:], se[n8:], ce[n8:], sa[n8:], ca[n8:], s1[n8:], c1[n8:], s2[n8:], c2[n8:], base[n8:], cen, 1, 0)
			// tail = −(out + cen·in) of the tail dimensions.
			dst[e] = gamma - (so+cen*si-tail[0])*mod
			continue
		}
		dst[e] = gamma - (so+cen*si)*mod
	}
}
