package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// adamFormula is one Adam step written out from torch's update in float64.
func adamFormula(p, g, m, v float64, h AdamParams) (float64, float64, float64) {
	m = m*h.Beta1 + (1-h.Beta1)*g
	v = v*h.Beta2 + (1-h.Beta2)*(g*g)
	bc1 := 1 - math.Pow(h.Beta1, float64(h.Step))
	bc2 := 1 - math.Pow(h.Beta2, float64(h.Step))
	p -= h.LR / bc1 * (m / (math.Sqrt(v)/math.Sqrt(bc2) + h.Eps))
	return p, m, v
}

func adamInputs(r *rand.Rand, n int) (p, g, m, v []float32) {
	p, g, m, v = randSlice(r, n), randSlice(r, n), randSlice(r, n), randSlice(r, n)
	for i := range v {
		v[i] *= v[i]
		switch i % 5 {
		case 1:
			g[i] = 0
		case 2:
			g[i] *= 1e-20
		case 3:
			g[i] *= 1e15
		}
	}
	return
}

// TestAdam: every level gives the scalar loop's bits, whatever the split,
// and the scalar loop is the formula.
func TestAdam(t *testing.T) {
	steps := []AdamParams{
		{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 1},
		{LR: 0.05, Beta1: 0.8, Beta2: 0.99, Eps: 1e-6, Step: 1234},
	}
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 7, 16, 17, 100, 70_001} {
			for _, h := range steps {
				r := rand.New(rand.NewPCG(uint64(n), uint64(h.Step)))
				p, g, m, v := adamInputs(r, n)
				wp, wm, wv := slices.Clone(p), slices.Clone(m), slices.Clone(v)
				k := adamScalars[float32](h)
				adamRef(wp, g, wm, wv, &k)
				for _, w := range []int{1, 3} {
					gp, gm, gv := slices.Clone(p), slices.Clone(m), slices.Clone(v)
					withWorkers(w, func() { Adam(gp, g, gm, gv, h) })
					name := fmt.Sprintf("n=%d step=%d workers=%d", n, h.Step, w)
					equalBits(t, name+" p", gp, wp)
					equalBits(t, name+" m", gm, wm)
					equalBits(t, name+" v", gv, wv)
				}
				// float64 (the baselines' parameters): the float64 loop's bits.
				p64, g64, m64, v64 := to64(p), to64(g), to64(m), to64(v)
				wp64, wm64, wv64 := slices.Clone(p64), slices.Clone(m64), slices.Clone(v64)
				k64 := adamScalars[float64](h)
				adamRef(wp64, g64, wm64, wv64, &k64)
				Adam(p64, g64, m64, v64, h)
				name := fmt.Sprintf("float64 n=%d step=%d", n, h.Step)
				equalBits(t, name+" p", p64, wp64)
				equalBits(t, name+" m", m64, wm64)
				equalBits(t, name+" v", v64, wv64)
			}
		}
	})
	for _, h := range steps {
		r := rand.New(rand.NewPCG(5, 5))
		p32, g32, m32, v32 := adamInputs(r, 70_001)
		p, g, m, v := to64(p32), to64(g32), to64(m32), to64(v32)
		p0, m0, v0 := slices.Clone(p), slices.Clone(m), slices.Clone(v)
		Adam(p, g, m, v, h)
		for i := range p {
			wp, wm, wv := adamFormula(p0[i], g[i], m0[i], v0[i], h)
			if math.Abs(p[i]-wp) > 1e-15*math.Abs(wp) || math.Abs(m[i]-wm) > 1e-15*math.Abs(wm) || math.Abs(v[i]-wv) > 1e-15*math.Abs(wv) {
				t.Fatalf("float64 element %d: p, m, v = %v, %v, %v; want %v, %v, %v", i, p[i], m[i], v[i], wp, wm, wv)
			}
		}
	}
}

// TestAdamZeroGrad: with ZeroGrad the step is the same and leaves the
// gradient zero, on every level, split or not, float32 and float64.
func TestAdamZeroGrad(t *testing.T) {
	h := AdamParams{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 3}
	hz := h
	hz.ZeroGrad = true
	t.Run("float32", func(t *testing.T) {
		adamAgainst(t, 9, func(p, g, m, v []float32) { Adam(p, g, m, v, hz) },
			func(p, g, m, v []float32) { Adam(p, g, m, v, h); clear(g) })
	})
	t.Run("float64", func(t *testing.T) {
		adamAgainst(t, 9, func(p, g, m, v []float64) { Adam(p, g, m, v, hz) },
			func(p, g, m, v []float64) { Adam(p, g, m, v, h); clear(g) })
	})
}

// adamAgainst runs, on every level, split over one goroutine or three,
// a variant of the step on inputs of several lengths and want on copies
// of them, and compares p, g, m and v to the bit.
func adamAgainst[T Float](t *testing.T, seed uint64, variant, want func(p, g, m, v []T)) {
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{1, 17, 70_001} {
			for _, w := range []int{1, 3} {
				r := rand.New(rand.NewPCG(uint64(n), seed))
				p32, g32, m32, v32 := adamInputs(r, n)
				p, g, m, v := asFloat[T](p32), asFloat[T](g32), asFloat[T](m32), asFloat[T](v32)
				wp, wg, wm, wv := slices.Clone(p), slices.Clone(g), slices.Clone(m), slices.Clone(v)
				withWorkers(w, func() {
					want(wp, wg, wm, wv)
					variant(p, g, m, v)
				})
				name := fmt.Sprintf("n=%d workers=%d", n, w)
				equalBits(t, name+" p", p, wp)
				equalBits(t, name+" g", g, wg)
				equalBits(t, name+" m", m, wm)
				equalBits(t, name+" v", v, wv)
			}
		}
	})
}

func asFloat[T Float](x []float32) []T {
	out := make([]T, len(x))
	for i, v := range x {
		out[i] = T(v)
	}
	return out
}

// TestAdamAll: one pass over several tensors of mixed sizes and step
// counts gives each tensor the bits of Adam on it alone.
func TestAdamAll(t *testing.T) {
	sizes := []int{70_001, 3, 0, 64 << 10, 1, 200_000}
	eachLevel(t, func(t *testing.T) {
		for _, w := range []int{1, 3} {
			r := rand.New(rand.NewPCG(7, uint64(w)))
			var ts []AdamTensor[float32]
			var want [][3][]float32
			for i, n := range sizes {
				p, g, m, v := adamInputs(r, n)
				h := AdamParams{LR: 1e-3 * float64(i+1), Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 1 + 7*i, ZeroGrad: i%2 == 0}
				wp, wm, wv := slices.Clone(p), slices.Clone(m), slices.Clone(v)
				Adam(wp, slices.Clone(g), wm, wv, h)
				want = append(want, [3][]float32{wp, wm, wv})
				ts = append(ts, AdamTensor[float32]{P: p, G: g, M: m, V: v, AdamParams: h})
			}
			withWorkers(w, func() { AdamAll(ts) })
			for i, tt := range ts {
				name := fmt.Sprintf("workers=%d tensor %d (n=%d)", w, i, sizes[i])
				equalBits(t, name+" p", tt.P, want[i][0])
				equalBits(t, name+" m", tt.M, want[i][1])
				equalBits(t, name+" v", tt.V, want[i][2])
				if tt.ZeroGrad && slices.ContainsFunc(tt.G, func(x float32) bool { return x != 0 }) {
					t.Errorf("%s: gradient not zeroed", name)
				}
			}
		}
	})
}

func TestAdamPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	Adam(make([]float32, 3), make([]float32, 3), make([]float32, 2), make([]float32, 3), AdamParams{})
}

// BenchmarkAdam runs a step over the FB15k-237 entity table at d = 800
// (14505 × 1600 values, about NELL995's at d = 200): the vector levels
// against the scalar loop, and a decoupled decay as a pass of its own
// against the same decay in the step's pass.
func BenchmarkAdam(b *testing.B) {
	const n = 14505 * 1600
	r := rand.New(rand.NewPCG(1, 1))
	p, g, m, v := randSlice(r, n), randSlice(r, n), randSlice(r, n), randSlice(r, n)
	for i := range v {
		v[i] *= v[i]
	}
	h := AdamParams{LR: 1e-4, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 10}
	hs := h
	hs.Shrink = 1 - 1e-4*0.05
	// plain: the step alone; decay=scale: a decoupled decay as a Scale
	// pass before it; decay=shrink: the same decay in the step's pass.
	for _, c := range []struct {
		name  string
		scale bool
		h     AdamParams
	}{{"plain", false, h}, {"decay=scale", true, h}, {"decay=shrink", false, hs}} {
		b.Run(c.name, func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				c0 := cpuTime()
				for b.Loop() {
					if c.scale {
						Scale(float32(hs.Shrink), p)
					}
					Adam(p, g, m, v, c.h)
				}
				report(b, float64(n)*float64(b.N)/1e6, cpuTime()-c0, "Mvalues")
			})
		})
	}
}

// TestAdamShrink: a step with Shrink gives the bits of Scale by the same
// factor followed by the plain step, on every level, split or not,
// float32 and float64.
func TestAdamShrink(t *testing.T) {
	const shrink = float32(1 - 1e-3*0.05)
	h := AdamParams{LR: 1e-3, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, Step: 3}
	hs := h
	hs.Shrink = float64(shrink)
	t.Run("float32", func(t *testing.T) {
		adamAgainst(t, 11, func(p, g, m, v []float32) { Adam(p, g, m, v, hs) },
			func(p, g, m, v []float32) { Scale(shrink, p); Adam(p, g, m, v, h) })
	})
	t.Run("float64", func(t *testing.T) {
		adamAgainst(t, 11, func(p, g, m, v []float64) { Adam(p, g, m, v, hs) },
			func(p, g, m, v []float64) { Scale(float64(shrink), p); Adam(p, g, m, v, h) })
	})
}
