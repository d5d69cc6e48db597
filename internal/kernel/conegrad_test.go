package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// coneArgs are ConeGrad's operands for entity axes e, query axes a and
// apertures g (DAxis 1: the entity gradient is d/de).
func coneArgs(e, a, g []float64, G, cen float64) *ConeGradArgs {
	d := len(e)
	x := &ConeGradArgs{G: G, Cen: cen}
	for _, p := range []*[]float64{&x.Sin, &x.Cos, &x.DAxis, &x.SA, &x.CA, &x.S1, &x.C1, &x.S2, &x.C2, &x.SG, &x.CG, &x.GE, &x.GA, &x.GG} {
		*p = make([]float64, d)
	}
	for i := range d {
		x.Sin[i], x.Cos[i] = math.Sincos(e[i] / 2)
		x.SA[i], x.CA[i] = math.Sincos(a[i] / 2)
		x.S1[i], x.C1[i] = math.Sincos((a[i] - g[i]) / 2)
		x.S2[i], x.C2[i] = math.Sincos((a[i] + g[i]) / 2)
		x.SG[i], x.CG[i] = math.Sincos(g[i] / 2)
		x.DAxis[i] = 1
	}
	return x
}

// coneDist is ConE's distance of one dimension, from the angles.
func coneDist(e, a, g, cen float64) float64 {
	toAxis, base := math.Abs(math.Sin((e-a)/2)), math.Abs(math.Sin(g/2))
	out := 0.0
	if toAxis >= base {
		out = min(math.Abs(math.Sin((e-a+g)/2)), math.Abs(math.Sin((e-a-g)/2)))
	}
	return out + cen*min(toAxis, base)
}

func TestConeGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(9, 10))
	angles := func(d int, scale float64) []float64 {
		s := make([]float64, d)
		for i := range s {
			s[i] = (2*r.Float64() - 1) * scale
		}
		return s
	}
	eachLevel(t, func(t *testing.T) {
		for _, d := range []int{1, 7, 8, 9, 16, 400, 403} {
			e, a, g := angles(d, math.Pi), angles(d, math.Pi), angles(d, math.Pi)
			if d > 4 {
				g[1] = 0           // a zero aperture: sign(0) and a tie of the inside min
				e[2], a[2] = 1, 1  // the entity on the axis
				e[3] = a[3] + g[3] // on the cone's edge
			}
			x := coneArgs(e, a, g, r.NormFloat64(), 0.02)
			for _, p := range []*[]float64{&x.GE, &x.GA, &x.GG} {
				*p = angles(d, 1)
			}
			want, got := *x, *x
			want.GE, want.GA, want.GG = slices.Clone(x.GE), slices.Clone(x.GA), slices.Clone(x.GG)
			got.GE, got.GA, got.GG = slices.Clone(x.GE), slices.Clone(x.GA), slices.Clone(x.GG)
			coneGradGo(&want, 0)
			ConeGrad(&got)
			for k, p := range [][2][]float64{{want.GE, got.GE}, {want.GA, got.GA}, {want.GG, got.GG}} {
				if !sameSlices(p[0], p[1]) {
					t.Fatalf("d=%d: gradient %d is %v, the specification's %v", d, k, p[1], p[0])
				}
			}
		}
	})

	// The specification against central differences of the distance.
	for range 500 {
		e, a, g := angles(1, math.Pi), angles(1, math.Pi), angles(1, math.Pi)
		const cen, G, h = 0.3, 1.7, 1e-6
		x := coneArgs(e, a, g, G, cen)
		coneGradGo(x, 0)
		f := func(e, a, g float64) float64 { return G * coneDist(e, a, g, cen) }
		for _, c := range []struct {
			name      string
			got, want float64
		}{
			{"e", x.GE[0], (f(e[0]+h, a[0], g[0]) - f(e[0]-h, a[0], g[0])) / (2 * h)},
			{"a", x.GA[0], (f(e[0], a[0]+h, g[0]) - f(e[0], a[0]-h, g[0])) / (2 * h)},
			{"g", x.GG[0], (f(e[0], a[0], g[0]+h) - f(e[0], a[0], g[0]-h)) / (2 * h)},
		} {
			if math.Abs(c.got-c.want) > 1e-5*max(1, math.Abs(c.want)) {
				// A kink within h of the point (a min's tie, the cone's
				// edge) makes the difference meaningless there.
				if k1, k2 := f(e[0]+3*h, a[0], g[0]), f(e[0]-3*h, a[0], g[0]); math.Abs((k1-k2)/(6*h)-c.want) > 1e-4 {
					continue
				}
				t.Fatalf("∂/∂%s at e=%g a=%g g=%g: %g, finite difference %g", c.name, e[0], a[0], g[0], c.got, c.want)
			}
		}
	}
}
