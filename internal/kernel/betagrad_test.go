package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestBetaGrad checks every level against the scalar specification, bit
// for bit, including the sign's zeros and NaNs and the clamp's edges, and
// the specification against central differences of Σ|KL|.
func TestBetaGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	args := func(d int) *BetaGradArgs {
		v := func(lo, hi float64) []float64 {
			s := make([]float64, d)
			for i := range s {
				s[i] = lo + (hi-lo)*r.Float64()
			}
			return s
		}
		x := &BetaGradArgs{G: r.NormFloat64(), Lo: 0.05, Hi: 1e9,
			RawA: v(-1.2, 1), RawB: v(-1.2, 1), A: v(0.05, 3), B: v(0.05, 3), PsiA: v(-3, 1), PsiB: v(-3, 1), PsiS: v(-1, 1),
			E: v(-1, 1), TriA: v(0, 5), TriB: v(0, 5), TriS: v(0, 2),
			QA: v(0.05, 3), QB: v(0.05, 3), Lg: v(-2, 2), QPsiA: v(-3, 1), QPsiB: v(-3, 1), QPsiS: v(-1, 1),
			GeA: v(-1, 1), GeB: v(-1, 1), GA: v(-1, 1), GB: v(-1, 1)}
		if d > 3 {
			// A zero KL, a NaN one, a raw value on the clamp's edge.
			x.Lg[1] = 0
			x.E[1] = x.QA[1]*x.PsiA[1] + x.QB[1]*x.PsiB[1] - (x.QA[1]+x.QB[1])*x.PsiS[1]
			x.Lg[2] = math.NaN()
			x.RawA[3] = x.Lo - 1
		}
		return x
	}
	clone := func(x *BetaGradArgs) *BetaGradArgs {
		y := *x
		y.GeA, y.GeB, y.GA, y.GB = slices.Clone(x.GeA), slices.Clone(x.GeB), slices.Clone(x.GA), slices.Clone(x.GB)
		return &y
	}
	eachLevel(t, func(t *testing.T) {
		for _, d := range []int{1, 7, 8, 9, 16, 200, 203} {
			x := args(d)
			want, got := clone(x), clone(x)
			betaGradGo(want, 0)
			BetaGrad(got)
			for k, p := range [][2][]float64{{want.GeA, got.GeA}, {want.GeB, got.GeB}, {want.GA, got.GA}, {want.GB, got.GB}} {
				if !sameSlices(p[0], p[1]) {
					t.Fatalf("d=%d: gradient %d is %v, the specification's %v", d, k, p[1], p[0])
				}
			}
		}
	})

	// The specification against finite differences: the KL of Beta
	// distributions from lnΓ and ψ, entity (αp, βp) against query (αq, βq).
	kl := func(ap, bp, aq, bq float64) float64 {
		lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
		return lg(aq) + lg(bq) - lg(aq+bq) - (lg(ap) + lg(bp) - lg(ap+bp)) +
			(ap-aq)*digamma64(ap) + (bp-bq)*digamma64(bp) + (aq+bq-ap-bp)*digamma64(ap+bp)
	}
	tri := func(x float64) float64 { h := 1e-5; return (digamma64(x+h) - digamma64(x-h)) / (2 * h) }
	for range 200 {
		ap, bp, aq, bq := 0.2+3*r.Float64(), 0.2+3*r.Float64(), 0.2+3*r.Float64(), 0.2+3*r.Float64()
		lg := func(x float64) float64 { v, _ := math.Lgamma(x); return v }
		x := &BetaGradArgs{G: 1.3, Lo: 0.05, Hi: 1e9, RawA: []float64{ap - 1}, RawB: []float64{bp - 1}, A: []float64{ap}, B: []float64{bp},
			PsiA: []float64{digamma64(ap)}, PsiB: []float64{digamma64(bp)}, PsiS: []float64{digamma64(ap + bp)},
			E:    []float64{lg(ap+bp) - lg(ap) - lg(bp) + ap*digamma64(ap) + bp*digamma64(bp) - (ap+bp)*digamma64(ap+bp)},
			TriA: []float64{tri(ap)}, TriB: []float64{tri(bp)}, TriS: []float64{tri(ap + bp)},
			QA: []float64{aq}, QB: []float64{bq}, Lg: []float64{lg(aq) + lg(bq) - lg(aq+bq)},
			QPsiA: []float64{digamma64(aq)}, QPsiB: []float64{digamma64(bq)}, QPsiS: []float64{digamma64(aq + bq)},
			GeA: []float64{0}, GeB: []float64{0}, GA: []float64{0}, GB: []float64{0}}
		betaGradGo(x, 0)
		h := 1e-6
		f := func(ap, bp, aq, bq float64) float64 { return 1.3 * math.Abs(kl(ap, bp, aq, bq)) }
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"αp", x.GeA[0], (f(ap+h, bp, aq, bq) - f(ap-h, bp, aq, bq)) / (2 * h)},
			{"βp", x.GeB[0], (f(ap, bp+h, aq, bq) - f(ap, bp-h, aq, bq)) / (2 * h)},
			{"αq", x.GA[0], (f(ap, bp, aq+h, bq) - f(ap, bp, aq-h, bq)) / (2 * h)},
			{"βq", x.GB[0], (f(ap, bp, aq, bq+h) - f(ap, bp, aq, bq-h)) / (2 * h)},
		} {
			if math.Abs(c.got-c.want) > 1e-4*max(1, math.Abs(c.want)) {
				t.Fatalf("∂/∂%s at p=(%g,%g) q=(%g,%g): %g, finite difference %g", c.name, ap, bp, aq, bq, c.got, c.want)
			}
		}
	}
}
