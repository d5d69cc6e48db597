package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDistGrads checks L1Grad and BoxGrad at every level against the pure-Go
// loops bit for bit (ties and zero differences included) and the loops
// against central differences of the distances.
func TestDistGrads(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	vec := func(d int) []float64 {
		s := make([]float64, d)
		for i := range s {
			s[i] = r.NormFloat64()
		}
		return s
	}
	type run func(ge, gq, gO, e, c, o []float64)
	kinds := map[string]run{
		"L1":  func(ge, gq, _, e, c, _ []float64) { L1Grad(ge, gq, e, c, 0.7) },
		"Box": func(ge, gc, gO, e, c, o []float64) { BoxGrad(ge, gc, gO, e, c, o, 0.7, 0.02) },
	}
	for name, f := range kinds {
		for _, d := range []int{1, 7, 8, 9, 400, 403} {
			e, c, o := vec(d), vec(d), vec(d)
			for i := range o {
				o[i] = math.Abs(o[i])
			}
			if d > 3 {
				e[1] = c[1]                  // a zero difference
				o[2] = math.Abs(e[2] - c[2]) // δ = o: min's tie
			}
			g0 := [3][]float64{vec(d), vec(d), vec(d)}
			restore := use(levelGo)
			want := [3][]float64{slices.Clone(g0[0]), slices.Clone(g0[1]), slices.Clone(g0[2])}
			f(want[0], want[1], want[2], e, c, o)
			restore()
			eachLevel(t, func(t *testing.T) {
				got := [3][]float64{slices.Clone(g0[0]), slices.Clone(g0[1]), slices.Clone(g0[2])}
				f(got[0], got[1], got[2], e, c, o)
				for k := range got {
					if !sameSlices(got[k], want[k]) {
						t.Fatalf("%s d=%d: gradient %d differs from the pure-Go loop", name, d, k)
					}
				}
			})
		}
	}

	// The loops against central differences, one dimension at a time.
	dist := func(e, c, o float64) (l1, box float64) {
		delta := math.Abs(e - c)
		return delta, max(delta-o, 0) + 0.02*min(delta, o)
	}
	restore := use(levelGo)
	defer restore()
	const h = 1e-6
	for range 500 {
		e, c, o := r.NormFloat64(), r.NormFloat64(), math.Abs(r.NormFloat64())
		if math.Abs(math.Abs(e-c)-o) < 10*h || math.Abs(e-c) < 10*h {
			continue // a kink within the step
		}
		ge, gc, gO := []float64{0}, []float64{0}, []float64{0}
		BoxGrad(ge, gc, gO, []float64{e}, []float64{c}, []float64{o}, 0.7, 0.02)
		le, lq := []float64{0}, []float64{0}
		L1Grad(le, lq, []float64{e}, []float64{c}, 0.7)
		fd := func(f func(e, c, o float64) float64, de, dc, do float64) float64 {
			return 0.7 * (f(e+de, c+dc, o+do) - f(e-de, c-dc, o-do)) / (2 * h)
		}
		l1 := func(e, c, o float64) float64 { v, _ := dist(e, c, o); return v }
		box := func(e, c, o float64) float64 { _, v := dist(e, c, o); return v }
		for _, x := range []struct {
			name      string
			got, want float64
		}{
			{"L1 ∂e", le[0], fd(l1, h, 0, 0)}, {"L1 ∂q", lq[0], fd(l1, 0, h, 0)},
			{"Box ∂e", ge[0], fd(box, h, 0, 0)}, {"Box ∂c", gc[0], fd(box, 0, h, 0)}, {"Box ∂o", gO[0], fd(box, 0, 0, h)},
		} {
			if math.Abs(x.got-x.want) > 1e-6 {
				t.Fatalf("%s at e=%g c=%g o=%g: %g, finite difference %g", x.name, e, c, o, x.got, x.want)
			}
		}
	}
}
