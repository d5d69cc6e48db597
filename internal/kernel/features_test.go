package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

const featLo, featHi = 0.15, 1e9 // the model's regulariser bounds

// featureInputs are raw embedding values whose regularised a = x+1 spans
// the clamp's lower edge, the grid of the special functions and large
// values; xb the same shuffled.
func featureInputs(n int) (xa, xb []float32) {
	r := rand.New(rand.NewPCG(3, 4))
	grid := specialGrid(256)
	for len(xa) < n {
		for _, g := range grid {
			xa = append(xa, g-1)
		}
		xa = append(xa, -2, -0.85, float32(math.Nextafter32(-0.85, 0)), float32(math.Nextafter32(-0.85, -1)), 0, 1e9)
	}
	xa = xa[:n]
	xb = append([]float32(nil), xa...)
	r.Shuffle(len(xb), func(i, j int) { xb[i], xb[j] = xb[j], xb[i] })
	return xa, xb
}

// TestGammaFeaturesSpec checks the twin against the composition the model
// uses in float64. The twin's arithmetic is float32, so an element is held
// to a few float32 roundings of the terms it is made of (ψ(a) cancels
// against ln b in f1 and against the shift near its root).
func TestGammaFeaturesSpec(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func(f1, f2, xa, xb []float32, lo, hi float32) float32
		ent  func(a float32) float32
	}{
		{"twin", featuresTwin, func(a float32) float32 { _, e := psiEnt32(a); return e }},
		{"go", featuresGo, func(a float32) float32 {
			p, l := psiLgamma64(float64(a))
			return float32(float64(a)*p - l - float64(a))
		}},
	} {
		t.Run(c.name, func(t *testing.T) { checkFeatureSpec(t, c.f, c.ent) })
	}
}

func checkFeatureSpec(t *testing.T, features func(f1, f2, xa, xb []float32, lo, hi float32) float32, entity func(a float32) float32) {
	xa, xb := featureInputs(20000)
	n := len(xa)
	f1, f2 := make([]float32, n), make([]float32, n)
	got := features(f1, f2, xa, xb, featLo, featHi)
	want, scale := 0.0, 0.0
	var worst [3]float64
	for i := range xa {
		a, b := float64(clampReg(xa[i], featLo, featHi)), float64(clampReg(xb[i], featLo, featHi))
		lg, _ := math.Lgamma(a)
		psi := digamma64(a)
		ent := a*psi - lg - a
		if a >= 1e4 { // the float64 difference itself cancels there
			ent = 0.5*math.Log(a) + entC - 1/(6*a)
		}
		want += ent
		scale += math.Abs(ent)
		e32 := entity(float32(a))
		for k, c := range []struct {
			name             string
			got, want, scale float64
		}{
			{"f1", float64(f1[i]), math.Log(b) - psi, math.Abs(math.Log(b)) + math.Abs(psi) + 8*shiftSum(a)},
			{"f2", float64(f2[i]), a / b, a / b},
			{"entity term", float64(e32), ent, math.Abs(ent) + 8*a*shiftSum(a) + math.Abs(lg)*float64(min(a, 8)/8)},
		} {
			err := math.Abs(c.got-c.want) / max(1e-30, c.scale)
			worst[k] = max(worst[k], err)
			if err > 4e-7 {
				t.Fatalf("%s at a=%g b=%g: %g, want %g (error %.2g of the terms' scale %g)", c.name, a, b, c.got, c.want, err, c.scale)
			}
		}
	}
	t.Logf("largest errors relative to the terms' scale: f1 %.2g, f2 %.2g, entity term %.2g", worst[0], worst[1], worst[2])
	if err := math.Abs(float64(got)-want) / scale; err > 2e-7 {
		t.Errorf("sum %g, want %g (error %.2g of the terms' scale)", got, want, err)
	}
}

// shiftSum is Σ 1/(a+i), i < 8, the size of the recurrence shift of ψ(a)
// for a below specialT (0 above).
func shiftSum(a float64) float64 {
	if a >= specialT {
		return 0
	}
	s := 0.0
	for i := range 8 {
		s += 1 / (a + float64(i))
	}
	return s
}

// TestGammaFeaturesLevels checks every vector level against the twin, at
// lengths around the vector widths.
func TestGammaFeaturesLevels(t *testing.T) {
	xa, xb := featureInputs(1000)
	eachLevel(t, func(t *testing.T) {
		if cur.level == levelGo {
			t.Skip("the pure-Go level is float64 arithmetic, checked against the specification")
		}
		for _, n := range []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 31, 32, 33, 40, 48, 200, 400, 1000} {
			w1, w2 := make([]float32, n), make([]float32, n)
			want := featuresTwin(w1, w2, xa[:n], xb[:n], featLo, featHi)
			// Sentinels past n: the masked tails must not write there.
			g1, g2 := sentinels(n, 16), sentinels(n, 16)
			got := GammaFeatures(g1, g2, xa[:n], xb[:n], featLo, featHi)
			checkSentinels(t, n, g1, g2)
			if u := ulps(got, want); u > 1 {
				t.Errorf("n=%d: sum %g, twin %g (%g ulps)", n, got, want, u)
			}
			for i := range n {
				if ulps(g1[i], w1[i]) > 1 || ulps(g2[i], w2[i]) > 1 {
					t.Fatalf("n=%d element %d (xa %g, xb %g): (%g, %g), twin (%g, %g)", n, i, xa[i], xb[i], g1[i], g2[i], w1[i], w2[i])
				}
			}
		}
	})
}

// TestGammaFeaturesGrad checks the twin's and the pure-Go level's gradient
// against central differences of the float64 features (away from the
// clamp's edges) and every vector level against the twin.
func TestGammaFeaturesGrad(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	feat := func(xa, xb float64) (f1, f2, e float64) {
		a, b := xa+1, xb+1
		psi := digamma64(a)
		lg, _ := math.Lgamma(a)
		return log64(b) - psi, a / b, a*psi - lg - a
	}
	for range 2000 {
		xa, xb := math.Exp(r.Float64()*12-5)-0.8, math.Exp(r.Float64()*12-5)-0.8
		u, v, ge := r.NormFloat64(), r.NormFloat64(), r.NormFloat64()
		loss := func(xa, xb float64) float64 {
			f1, f2, e := feat(xa, xb)
			return u*f1 + v*f2 + ge*e
		}
		fa, fb := float32(xa), float32(xb)
		xa, xb = float64(fa), float64(fb)
		h := 1e-6 * max(1, xa+1)
		da := (loss(xa+h, xb) - loss(xa-h, xb)) / (2 * h)
		h = 1e-6 * max(1, xb+1)
		db := (loss(xa, xb+h) - loss(xa, xb-h)) / (2 * h)
		scale := math.Abs(u) + math.Abs(v) + math.Abs(ge)
		for _, grad := range []func(g1, g2, xa, xb []float32, ge, lo, hi float32){featuresGradTwin, featuresGradGo} {
			g1, g2 := []float32{float32(u)}, []float32{float32(v)}
			grad(g1, g2, []float32{fa}, []float32{fb}, float32(ge), featLo, featHi)
			for _, c := range []struct {
				name      string
				got, want float64
			}{{"∂xa", float64(g1[0]), da}, {"∂xb", float64(g2[0]), db}} {
				if err := math.Abs(c.got-c.want) / max(scale, math.Abs(c.want)); err > 1e-5 {
					t.Fatalf("%s at xa=%g xb=%g: %g, finite difference %g", c.name, xa, xb, c.got, c.want)
				}
			}
		}
	}
	// The clamp stops the gradient, inclusive bounds passing it.
	edge := float32(featHi) // +1 rounds back to the bound
	if edge+1 != featHi {
		t.Fatalf("test setup: %g + 1 is not the bound", edge)
	}
	g1, g2 := []float32{1, 1, 1}, []float32{1, 2, 1}
	featuresGradTwin(g1, g2, []float32{-0.9, edge, 0.5}, []float32{-2, edge, 1}, 1, featLo, featHi)
	if g1[0] != 0 || g2[0] != 0 || g1[1] == 0 || g2[1] == 0 || g1[2] == 0 || g2[2] == 0 {
		t.Errorf("clamp gradients: %v %v, want zero only in the first column", g1, g2)
	}

	xa, xb := featureInputs(1000)
	eachLevel(t, func(t *testing.T) {
		if cur.level == levelGo {
			t.Skip("the pure-Go level is float64 arithmetic, checked against the specification")
		}
		for _, n := range []int{1, 3, 4, 5, 8, 9, 17, 40, 200, 400, 1000} {
			u, v := append(randSlice(r, n), sentinels(0, 16)...)[:n], append(randSlice(r, n), sentinels(0, 16)...)[:n]
			w1, w2 := append([]float32(nil), u...), append([]float32(nil), v...)
			featuresGradTwin(w1, w2, xa[:n], xb[:n], 0.7, featLo, featHi)
			GammaFeaturesGrad(u, v, xa[:n], xb[:n], 0.7, featLo, featHi)
			checkSentinels(t, n, u, v)
			for i := range n {
				if ulps(u[i], w1[i]) > 1 || ulps(v[i], w2[i]) > 1 {
					t.Fatalf("n=%d element %d (xa %g, xb %g): (%g, %g), twin (%g, %g)", n, i, xa[i], xb[i], u[i], v[i], w1[i], w2[i])
				}
			}
		}
	})
}

func TestGammaFeaturesPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("no panic for mismatched lengths")
		}
	}()
	GammaFeatures(make([]float32, 2), make([]float32, 3), make([]float32, 2), make([]float32, 2), featLo, featHi)
}

// BenchmarkGammaFeatures times one FB15k-237 step's distinct candidates at
// d = 400 (14505 rows): the fused kernel against the composition it replaces.
func BenchmarkGammaFeatures(b *testing.B) {
	const d, rows = 400, 14505
	xa, xb := featureInputs(d)
	f1, f2 := make([]float32, d), make([]float32, d)
	benchLevels(b, func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			for range rows {
				GammaFeatures(f1, f2, xa, xb, featLo, featHi)
			}
		}
		report(b, float64(d*rows)*float64(b.N)/1e6, cpuTime()-c0, "Mvalues")
	})
}

// BenchmarkGammaFeaturesGrad times the gradient of the same rows.
func BenchmarkGammaFeaturesGrad(b *testing.B) {
	const d, rows = 400, 14505
	xa, xb := featureInputs(d)
	r := rand.New(rand.NewPCG(7, 8))
	u, v := randSlice(r, d), randSlice(r, d)
	g1, g2 := make([]float32, d), make([]float32, d)
	benchLevels(b, func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			for range rows {
				copy(g1, u)
				copy(g2, v)
				GammaFeaturesGrad(g1, g2, xa, xb, 0.7, featLo, featHi)
			}
		}
		report(b, float64(d*rows)*float64(b.N)/1e6, cpuTime()-c0, "Mvalues")
	})
}

const sentinel = -12345

// sentinels returns a slice of length n whose capacity holds extra more
// elements set to sentinel.
func sentinels(n, extra int) []float32 {
	s := make([]float32, n+extra)
	for i := n; i < len(s); i++ {
		s[i] = sentinel
	}
	return s[:n]
}

// checkSentinels reports a write past n into the slices' capacity.
func checkSentinels(t *testing.T, n int, slices ...[]float32) {
	t.Helper()
	for k, s := range slices {
		for i, x := range s[n:cap(s)] {
			if x != sentinel {
				t.Fatalf("n=%d: slice %d written past its length at %d: %g", n, k, n+i, x)
			}
		}
	}
}
