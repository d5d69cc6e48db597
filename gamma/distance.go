package gamma

import (
	"errors"
	"fmt"
	"math"

	"github.com/gammae/gammae/internal/kernel"
)

// The distance of entity e to query q is Σ_d |KL(Gamma(αₑ,βₑ) ‖ Gamma(α_q,β_q))|
// with (β a rate)
//
//	KL = α_q ln(βₑ/β_q) + lnΓ(α_q) − lnΓ(αₑ) + (αₑ−α_q)ψ(αₑ) + (β_q−βₑ)αₑ/βₑ
//	   = E(e) + Q(q) + α_q·(ln βₑ − ψ(αₑ)) + β_q·(αₑ/βₑ)
//
// with the entity-only term E = −lnΓ(αₑ) + αₑψ(αₑ) − αₑ and the query-only
// term Q = lnΓ(α_q) − α_q ln β_q. The split drops the absolute value: KL ≥ 0
// in every dimension, so |·| only differs from the identity by rounding
// (the parity test checks the reference's values). Scoring is then a dot
// product of the query features [α_q; β_q] with the entity features
// [ln βₑ − ψ(αₑ); αₑ/βₑ] of inner size 2d.

// entityFeatures holds the scoring features of entity rows: f is n × 2d,
// e the entity-only terms.
type entityFeatures[T kernel.Float] struct {
	version uint64
	f, e    []T
	packed  *kernel.PackedB // fᵀ packed for GemmPacked, on first use (float32 only)
	bf16    *kernel.PackedBF16
}

// featureChunk is the number of entity rows after which features calls
// its after hook, while those rows' features are still in cache.
const featureChunk = 8

// featureScratch is the per-part scratch size of features and
// entityBackward.
func featureScratch(d int) int { return 6 * d }

// features fills f (len(ids) × 2d) and ent with the features of the
// regularised entity rows ids; tmp holds per-part scratch. after, unless
// nil, runs after each chunk of rows [lo, hi) is done, on the same core
// while its features are in cache.
func (m *Model[T]) features(ids []int32, f, ent []T, tmp *[maxParts][]T, after func(lo, hi int)) {
	parallelFor(len(ids), 8*featureChunk, func(part, lo, hi int) {
		m.featureRows(ids, lo, hi, f, ent, tmp[part], after)
	})
}

func (m *Model[T]) featureRows(ids []int32, lo, hi int, f, ent, tmp []T, after func(lo, hi int)) {
	d := m.cfg.Dim
	tab := m.params[m.entity].Data
	e, ones, scratch := tmp[:d], tmp[d:2*d], tmp[2*d:6*d]
	for j := range ones {
		ones[j] = 1
	}
	for c0 := lo; c0 < hi; c0 += featureChunk {
		c1 := min(c0+featureChunk, hi)
		for i := c0; i < c1; i++ {
			id := int(ids[i])
			row, fr := tab[id*2*d:(id+1)*2*d], f[i*2*d:(i+1)*2*d]
			if r32, ok := any(row).([]float32); ok { // the fused kernel
				f32 := any(fr).([]float32)
				ent[i] = T(kernel.GammaFeatures(f32[:d], f32[d:], r32[:d], r32[d:], regMin, regMax))
				continue
			}
			gammaFeatures(fr[:d], fr[d:], e, row[:d], row[d:], scratch)
			ent[i] = kernel.Dot(e, ones)
		}
		if after != nil {
			after(c0, c1)
		}
	}
}

// gammaFeatures sets, elementwise with a = reg(xa) and b = reg(xb),
// f1 = ln b − ψ(a), f2 = a/b and e = aψ(a) − lnΓ(a) − a (the entity-only
// term); tmp has 3·len(xa) of scratch. The specification of
// kernel.GammaFeatures, which float32 uses.
func gammaFeatures[T kernel.Float](f1, f2, e, xa, xb, tmp []T) {
	n := len(xa)
	a, b, psi := tmp[:n], tmp[n:2*n], tmp[2*n:3*n]
	regInto(a, xa)
	regInto(b, xb)
	kernel.Digamma(psi, a)
	kernel.Lgamma(e, a)
	kernel.Log(f1, b)
	kernel.Axpy(-1, psi, f1)
	entityTerms(f2, e, a, b, psi)
}

// regInto sets dst = reg(src) elementwise.
func regInto[T kernel.Float](dst, src []T) {
	dst = dst[:len(src)]
	for j, x := range src {
		dst[j] = reg(x)
	}
}

// entityTerms sets ab = α/β and replaces lg = lnΓ(α) by the entity-only
// term αψ(α) − lnΓ(α) − α, elementwise.
func entityTerms[T kernel.Float](ab, lg, a, b, psi []T) {
	n := len(a)
	ab, lg, b, psi = ab[:n], lg[:n], b[:n], psi[:n]
	for j, al := range a {
		ab[j] = al / b[j]
		lg[j] = al*psi[j] - lg[j] - al
	}
}

// gammaFeaturesGrad replaces g1 and g2, the gradients of the features
// ln b − ψ(a) and a/b of gammaFeatures, by those of xa and xb (ge is the
// gradient of the entity-only terms): with a = reg(xa), b = reg(xb),
// ∂/∂a = −ψ'(a)·g1 + g2/b + ge·(aψ'(a) − 1) and ∂/∂b = (g1 − g2·a/b)/b,
// passed through the regulariser's clamp. tmp has 2·len(xa) of scratch.
// The specification of kernel.GammaFeaturesGrad, which float32 uses.
func gammaFeaturesGrad[T kernel.Float](g1, g2, xa, xb []T, ge T, tmp []T) {
	n := len(xa)
	a, tri := tmp[:n], tmp[n:2*n]
	regInto(a, xa)
	kernel.Trigamma(tri, a)
	g1, g2, xb, tri = g1[:n], g2[:n], xb[:n], tri[:n]
	for j, al := range a {
		tr, u, v := tri[j], g1[j], g2[j]
		ib := 1 / reg(xb[j])
		if regPass(xa[j]) {
			g1[j] = -tr*u + v*ib + ge*(al*tr-1)
		} else {
			g1[j] = 0
		}
		if regPass(xb[j]) {
			g2[j] = (u - v*al*ib) * ib
		} else {
			g2[j] = 0
		}
	}
}

// queryTerm returns Q = Σ_d lnΓ(α) − α ln β for one query row; tmp has 2d
// elements of scratch.
func queryTerm[T kernel.Float](alpha, beta, tmp []T) T {
	d := len(alpha)
	lg, lb := tmp[:d], tmp[d:2*d]
	kernel.Lgamma(lg, alpha)
	kernel.Log(lb, beta)
	s := 0.0
	for j, a := range alpha {
		s += float64(lg[j]) - float64(a)*float64(lb[j])
	}
	return T(s)
}

// allFeatures returns the features of every entity, computing them once per
// parameter version.
func (m *Model[T]) allFeatures() *entityFeatures[T] {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.feats != nil && m.feats.version == m.version {
		return m.feats
	}
	n, d := m.cfg.Entities, m.cfg.Dim
	ids := make([]int32, n)
	for i := range ids {
		ids[i] = int32(i)
	}
	f := &entityFeatures[T]{version: m.version, f: make([]T, n*2*d), e: make([]T, n)}
	var tmp [maxParts][]T
	m.features(ids, f.f, f.e, parts(&tmp, featureScratch(d)), nil)
	m.feats = f
	return f
}

// ScoreAll writes the logits of every query row of e against every entity
// into dst (e.Rows × Entities, row-major): γ − distance, combined over the
// components as the union mode says. The entity-side features are computed
// once per parameter version (see ParamsChanged).
func (w *Workspace[T]) ScoreAll(e Embedding[T], dst []T) error {
	m := w.m
	n, d, rows, k := m.cfg.Entities, m.cfg.Dim, e.Rows, e.Components()
	if len(dst) != rows*n {
		return fmt.Errorf("gamma: ScoreAll into %d values, want %d rows × %d entities", len(dst), rows, n)
	}
	feats := m.allFeatures()
	gamma := T(m.cfg.Gamma)
	q := w.buf(0, rows*2*d)
	qs := w.buf(1, k*rows)
	dist := dst
	if k > 1 {
		dist = w.buf(2, k*rows*n)
	}
	for c := 0; c < k; c++ {
		al, be := e.Alpha[c], e.Beta[c]
		for b := 0; b < rows; b++ {
			copy(q[b*2*d:], al[b*d:(b+1)*d])
			copy(q[b*2*d+d:(b+1)*2*d], be[b*d:(b+1)*d])
			qs[c*rows+b] = queryTerm(al[b*d:(b+1)*d], be[b*d:(b+1)*d], w.buf(3, 2*d))
		}
		out := dist[c*rows*n : (c+1)*rows*n]
		// A few rows (answering queries) read the features packed: faster
		// at one row too, the product being memory-bound. Many rows
		// (evaluation) take the blocked path, which packs its own blocks.
		if p := m.bf16Features(feats); p != nil {
			kernel.GemmPackedBF16(rows, any(q).([]float32), 2*d, p, any(out).([]float32), n)
		} else if p := m.packedFeatures(feats, rows); p != nil {
			kernel.GemmPacked(rows, 1, any(q).([]float32), 2*d, p, 0, any(out).([]float32), n)
		} else {
			kernel.Gemm(false, true, rows, n, 2*d, 1, q, 2*d, feats.f, 2*d, 0, out, n)
		}
		// The per-entity and per-query terms, and for one component the
		// score γ − distance, in one parallel pass over the table.
		// A mixture's components go in as x = ln θ − distance, the terms
		// of its log-sum-exp (combineAll).
		shift := qs[c*rows : (c+1)*rows]
		switch {
		case k == 1:
			for b, v := range shift {
				shift[b] = gamma - v
			}
			kernel.AffineRows(out, feats.e, rows, n, -1, shift)
		case e.mode == UnionMixture:
			for b, v := range shift {
				shift[b] = T(math.Log(float64(e.Theta(c, b)))) - v
			}
			kernel.AffineRows(out, feats.e, rows, n, -1, shift)
		default:
			kernel.AffineRows(out, feats.e, rows, n, 1, shift)
		}
	}
	if k > 1 {
		combineAll(e, dst, dist, n, gamma)
	}
	return nil
}

// KL is the divergence KL(Gamma(αₑ,βₑ) ‖ Gamma(α_q,β_q)) of one dimension,
// in float64, as the reference computes it.
func KL(ae, be, aq, bq float64) float64 {
	lq, _ := math.Lgamma(aq)
	le, _ := math.Lgamma(ae)
	psi := make([]float64, 1)
	kernel.Digamma(psi, []float64{ae})
	return aq*math.Log(be/bq) + lq - le + (ae-aq)*psi[0] + (bq-be)*(ae/be)
}

// Entropy returns the differential entropy of a product of Gammas,
// Σ_d α − ln β + lnΓ(α) + (1−α)ψ(α), used for the uncertainty study.
func Entropy[T kernel.Float](alpha, beta []T) float64 {
	psi := make([]T, len(alpha))
	lg := make([]T, len(alpha))
	kernel.Digamma(psi, alpha)
	kernel.Lgamma(lg, alpha)
	s := 0.0
	for j, a := range alpha {
		s += float64(a) - math.Log(float64(beta[j])) + float64(lg[j]) + (1-float64(a))*float64(psi[j])
	}
	return s
}

// Precision is the arithmetic of the products with packed operands:
// ScoreAll's entity products, and in training the MLPs' forward and
// input-gradient products: "fp32" (the default) or "bf16" (operands
// rounded to bfloat16, float32 sums: twice the rate on CPUs with
// AVX512-BF16 or AMX, kernel.NativeBF16; emulated elsewhere, slower),
// weight gradients included.
type Precision string

// SetPrecision sets the precision of the packed products (Precision).
// bf16 needs float32 parameters.
func (m *Model[T]) SetPrecision(p Precision) error {
	switch p {
	case "", "fp32":
		m.bf16 = false
	case "bf16":
		if _, ok := any(m.params[0].Data).([]float32); !ok {
			return errors.New("gamma: bf16 scoring needs a float32 model")
		}
		m.bf16 = true
	default:
		return fmt.Errorf("gamma: precision must be fp32 or bf16, got %q", p)
	}
	return nil
}

// Precision is the precision set by SetPrecision.
func (m *Model[T]) Precision() Precision {
	if m.bf16 {
		return "bf16"
	}
	return "fp32"
}

// bf16Features returns fᵀ of feats rounded to bfloat16 and packed, on first
// use; nil unless the model scores in bf16.
func (m *Model[T]) bf16Features(feats *entityFeatures[T]) *kernel.PackedBF16 {
	if !m.bf16 {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if feats.bf16 == nil {
		f32 := any(feats.f).([]float32)
		d2 := 2 * m.cfg.Dim
		feats.bf16 = kernel.PackBF16(true, d2, len(f32)/d2, f32, d2)
	}
	return feats.bf16
}

// packedFeatures returns fᵀ of feats packed for products of rows ≤
// packMaxRows rows, packing it on first use; nil for more rows or float64.
func (m *Model[T]) packedFeatures(feats *entityFeatures[T], rows int) *kernel.PackedB {
	f32, ok := any(feats.f).([]float32)
	if !ok || rows > packMaxRows {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if feats.packed == nil {
		d2 := 2 * m.cfg.Dim
		feats.packed = kernel.PackB(true, d2, len(f32)/d2, f32, d2)
	}
	return feats.packed
}
