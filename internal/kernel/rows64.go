package kernel

import (
	"fmt"
	"math"
)

// The baselines' scores of one query against every entity, in float64:
// for each entity row e of a table, a sum over the d dimensions of a
// distance term, subtracted from the margin γ. The pure-Go loops below are
// the specification; the AVX-512 level sums eight dimensions per
// instruction (lane by lane, then across the lanes, so the last bits
// differ from the loops').

// L1Rows sets dst[e] = γ − Σᵢ |tab[e·d+i] − q[i]|, d = len(q) (GQE).
func L1Rows(dst, tab, q []float64, gamma float64) {
	defer clearUpper()
	checkTable("L1Rows", len(dst), len(tab), len(q))
	if cur.l1Rows != nil {
		cur.l1Rows(dst, tab, q, gamma)
		return
	}
	l1RowsGo(dst, tab, q, gamma)
}

func l1RowsGo(dst, tab, q []float64, gamma float64) {
	d := len(q)
	for e := range dst {
		s := 0.0
		for i, v := range tab[e*d : (e+1)*d] {
			s += math.Abs(v - q[i])
		}
		dst[e] = gamma - s
	}
}

// BoxRows sets dst[e] = γ − Σᵢ max(δ − o[i], 0) − cen·Σᵢ min(δ, o[i]) with
// δ = |tab[e·d+i] − c[i]| (Query2Box).
func BoxRows(dst, tab, c, o []float64, cen, gamma float64) {
	defer clearUpper()
	checkTable("BoxRows", len(dst), len(tab), len(c))
	checkLen("BoxRows", len(o), len(c))
	if cur.boxRows != nil {
		cur.boxRows(dst, tab, c, o, cen, gamma)
		return
	}
	boxRowsGo(dst, tab, c, o, cen, gamma)
}

func boxRowsGo(dst, tab, c, o []float64, cen, gamma float64) {
	d := len(c)
	for e := range dst {
		out, in := 0.0, 0.0
		for i, v := range tab[e*d : (e+1)*d] {
			delta := math.Abs(v - c[i])
			out += max(delta-o[i], 0)
			in += min(delta, o[i])
		}
		dst[e] = gamma - out - cen*in
	}
}

// BetaRows sets dst[e] = γ − Σᵢ |lg[i] + E − a[i]·ψA − b[i]·ψB + (a[i]+b[i])·ψS|
// with E, ψA, ψB, ψS the entity terms at e·d+i of ent, psiA, psiB, psiS
// (BetaE's KL split into entity and query terms).
func BetaRows(dst, psiA, psiB, psiS, ent, lg, a, b []float64, gamma float64) {
	defer clearUpper()
	d := len(lg)
	checkTable("BetaRows", len(dst), len(ent), d)
	for _, n := range []int{len(psiA), len(psiB), len(psiS)} {
		checkLen("BetaRows", n, len(ent))
	}
	for _, n := range []int{len(a), len(b)} {
		checkLen("BetaRows", n, d)
	}
	if cur.betaRows != nil {
		cur.betaRows(dst, psiA, psiB, psiS, ent, lg, a, b, gamma)
		return
	}
	betaRowsGo(dst, psiA, psiB, psiS, ent, lg, a, b, gamma)
}

func betaRowsGo(dst, psiA, psiB, psiS, ent, lg, a, b []float64, gamma float64) {
	d := len(lg)
	for e := range dst {
		off := e * d
		s := 0.0
		for i := range d {
			k := off + i
			s += math.Abs(lg[i] + ent[k] - a[i]*psiA[k] - b[i]*psiB[k] + (a[i]+b[i])*psiS[k])
		}
		dst[e] = gamma - s
	}
}

// ConeRows sets dst[e] = γ − (out + cen·in)·mod for ConE's cone distance:
// with sₑ, cₑ the sine and cosine of the entity's half-axis at e·d+i,
// t = |sₑ·ca − cₑ·sa| the distance to the axis and base the aperture's,
// out = Σ [t ≥ base]·min(|sₑ·c1 − cₑ·s1|, |sₑ·c2 − cₑ·s2|) and
// in = Σ min(t, base).
func ConeRows(dst, sin, cos, sa, ca, s1, c1, s2, c2, base []float64, cen, mod, gamma float64) {
	defer clearUpper()
	d := len(sa)
	checkTable("ConeRows", len(dst), len(sin), d)
	checkLen("ConeRows", len(cos), len(sin))
	for _, n := range []int{len(ca), len(s1), len(c1), len(s2), len(c2), len(base)} {
		checkLen("ConeRows", n, d)
	}
	if cur.coneRows != nil {
		cur.coneRows(dst, sin, cos, sa, ca, s1, c1, s2, c2, base, cen, mod, gamma)
		return
	}
	coneRowsGo(dst, sin, cos, sa, ca, s1, c1, s2, c2, base, cen, mod, gamma)
}

func coneRowsGo(dst, sin, cos, sa, ca, s1, c1, s2, c2, base []float64, cen, mod, gamma float64) {
	d := len(sa)
	for e := range dst {
		se, ce := sin[e*d:(e+1)*d], cos[e*d:(e+1)*d]
		out, in := 0.0, 0.0
		for i := range d {
			t := math.Abs(se[i]*ca[i] - ce[i]*sa[i])
			if !(t < base[i]) {
				out += min(math.Abs(se[i]*c1[i]-ce[i]*s1[i]), math.Abs(se[i]*c2[i]-ce[i]*s2[i]))
			}
			in += min(t, base[i])
		}
		dst[e] = gamma - (out+cen*in)*mod
	}
}

// checkTable panics unless tab holds len(dst) rows of d.
func checkTable(name string, rows, tab, d int) {
	if rows*d != tab {
		panic(fmt.Sprintf("kernel.%s: %d rows of %d need %d table values, have %d", name, rows, d, rows*d, tab))
	}
}
