package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestConeHalves checks the twins against the math package and every
// level against the twins, bit for bit.
func TestConeHalves(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	n := 4003
	x := make([]float64, n)
	for i := range x {
		// Table values of every scale, both signs, and the series' edge.
		x[i] = math.Copysign(math.Exp(r.Float64()*16-12), r.Float64()-0.5)
	}
	x[0], x[1], x[2], x[3] = 0, math.Copysign(0, -1), 1e-300, 50
	const rho = 0.7
	// The twins against math.Tanh, math.Sincos and math.Exp.
	for _, v := range x {
		th := tanhTwin(v / rho)
		if want := math.Tanh(v / rho); math.Abs(th-want) > 2*ulp(want) {
			t.Fatalf("tanhTwin(%g) = %g, math.Tanh %g (%g ulps)", v/rho, th, want, math.Abs(th-want)/ulp(want))
		}
		u := th * math.Pi / 2
		s, c := sincosTwin(u)
		ws, wc := math.Sincos(u)
		if math.Abs(s-ws) > 4*ulp(ws)+1e-300 || math.Abs(c-wc) > 2e-16 {
			t.Fatalf("sincosTwin(%g) = %g, %g; math.Sincos %g, %g", u, s, c, ws, wc)
		}
	}
	for range 10000 {
		v := -60 * r.Float64()
		if got, want := expm1Twin(v), math.Expm1(v); math.Abs(got-want) > 2*ulp(want) {
			t.Fatalf("expm1Twin(%g) = %g, math.Expm1 %g", v, got, want)
		}
	}
	eachLevel(t, func(t *testing.T) {
		for _, m := range []int{1, 7, 8, 9, 400, n} {
			ws, wc, wd := make([]float64, m), make([]float64, m), make([]float64, m)
			for i, v := range x[:m] {
				th := tanhTwin(v / rho)
				ws[i], wc[i] = sincosTwin(th * (math.Pi / 2))
				wd[i] = math.Pi * math.FMA(-th, th, 1) / rho
			}
			s, c, d := make([]float64, m), make([]float64, m), make([]float64, m)
			ConeHalves(s, c, d, x[:m], rho)
			if !sameSlices(s, ws) || !sameSlices(c, wc) || !sameSlices(d, wd) {
				t.Fatalf("n=%d: the level differs from the twins", m)
			}
			ConeHalves(s, c, nil, x[:m], rho) // no derivative asked
		}
	})
}

// ulp is the spacing of float64 values at x.
func ulp(x float64) float64 {
	x = math.Abs(x)
	return math.Nextafter(x, math.Inf(1)) - x
}
