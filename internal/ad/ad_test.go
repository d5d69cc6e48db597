package ad

import (
	"math"
	"math/rand/v2"
	"testing"
)

// composite exercises every operation on two rows: it builds one value
// per row from params p (a [3,4] weight, its bias, a [2,4] table) and the
// candidates' distances to it, on a fresh tape.
func composite(t *Tape, w, b, e *Param) V {
	t.SetRows(2)
	x, y := t.Gather(e, []int32{0, 1}), t.Gather(e, []int32{1, 1})
	h := t.ReLU(t.Linear(x, w, b))                      // 3
	h2 := t.Tanh(t.Linear(t.Affine(y, 0.5, 0.1), w, b)) // 3
	att := t.SoftmaxOver([]V{h, h2})
	mix := t.SumOver([]V{t.Mul(att[0], h), t.Mul(att[1], h2)})
	pos := t.Clamp(t.Affine(t.Sigmoid(mix), 2, 0.3), 0.05, 1e9) // > 0
	lg := t.Lgamma(pos)
	dg := t.Digammas(t.Recip(t.Affine(pos, 1, 0.5)))
	mn := t.MinOver([]V{h, h2, mix})
	m2 := t.Min2(t.Abs(mix), t.Sin(t.Cos(h2)))
	at := t.Atan(t.Div(mn, t.Affine(t.Abs(h), 1, 1)))
	cat := t.Concat(t.Sub(lg, dg), t.Add(m2, at), t.MeanOver([]V{h, mix}), t.Zeros(1))
	sl := t.Slice(cat, 1, 8)
	s := t.ScaleBy(t.Mask(sl, []float64{1, 0, 2, 1, 1, 0.5, 1, 1, 1, 1, 0, 2, 1, 3}), t.Slice(t.Gather(e, []int32{1, 0}), 2, 3))
	q := t.Concat(t.Sum(s), mix) // 4 wide, the candidates' width
	l1 := t.L1Dist(e, []int32{0, 1, 1, 1, 0, 0}, q)
	box := t.BoxDist(e, []int32{1, 0, 0, 1, 1, 0}, q, t.Abs(t.Affine(q, 0.3, 0.2)), 0.02)
	return t.MaxOver([]V{t.Add(l1, box), t.Affine(t.Sub(l1, box), -1, 0)})
}

// weighted is Σ c·v with fixed weights c, a scalar of a multi-row value.
func weighted(v []float64) float64 {
	s := 0.0
	for i, x := range v {
		s += x * float64(i+1) / 3
	}
	return s
}

func params(seed uint64) (w, b, e *Param) {
	r := rand.New(rand.NewPCG(seed, 2))
	mk := func(name string, rows, cols int) *Param {
		p := &Param{Name: name, Rows: rows, Cols: cols, Data: make([]float64, rows*cols), Grad: make([]float64, rows*cols)}
		for i := range p.Data {
			p.Data[i] = r.Float64()*2 - 1
		}
		return p
	}
	return mk("w", 3, 4), mk("b", 1, 3), mk("e", 2, 4)
}

// backward records composite and runs its backward pass from weighted.
func backward(tape *Tape, w, b, e *Param) {
	out := composite(tape, w, b, e)
	g := tape.G(out)
	for i := range g {
		g[i] = float64(i+1) / 3
	}
	tape.Backward()
}

func TestGradientsFiniteDifferences(t *testing.T) {
	w, b, e := params(1)
	backward(NewTape(false), w, b, e)
	f := func() float64 {
		tt := NewTape(true)
		return weighted(tt.Val(composite(tt, w, b, e)))
	}
	const h = 1e-6
	for _, p := range []*Param{w, b, e} {
		for i := range p.Data {
			v := p.Data[i]
			p.Data[i] = v + h
			up := f()
			p.Data[i] = v - h
			down := f()
			p.Data[i] = v
			want := (up - down) / (2 * h)
			if math.Abs(p.Grad[i]-want) > 1e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("d/d%s[%d] = %.9g, finite differences %.9g", p.Name, i, p.Grad[i], want)
			}
		}
	}
}

// TestFloat32Products checks the float32 linear layers against float64:
// the same values and gradients up to float32 rounding.
func TestFloat32Products(t *testing.T) {
	w, b, e := params(3)
	backward(NewTape(false), w, b, e)
	w2, b2, e2 := params(3)
	tape := NewTape(false)
	tape.SetFloat32(NewWeights32())
	backward(tape, w2, b2, e2)
	for k, pair := range [][2]*Param{{w, w2}, {b, b2}, {e, e2}} {
		for i := range pair[0].Grad {
			if d := math.Abs(pair[0].Grad[i] - pair[1].Grad[i]); d > 1e-4*math.Max(1, math.Abs(pair[0].Grad[i])) {
				t.Errorf("param %d [%d]: gradient %.9g in float64, %.9g with float32 products", k, i, pair[0].Grad[i], pair[1].Grad[i])
			}
		}
	}
}

func TestDigamma(t *testing.T) {
	for _, tc := range []struct{ x, psi, tri float64 }{
		{1, -0.5772156649015329, math.Pi * math.Pi / 6},
		{0.5, -1.9635100260214235, math.Pi * math.Pi / 2},
		{1e-3, -1000.5755719318103, 1000001.6425332422},
	} {
		if got := Digamma(tc.x); math.Abs(got-tc.psi) > 1e-13*math.Max(1, math.Abs(tc.psi)) {
			t.Errorf("ψ(%g) = %.17g, want %.17g", tc.x, got, tc.psi)
		}
		if got := Trigamma(tc.x); math.Abs(got-tc.tri) > 1e-12*math.Max(1, math.Abs(tc.tri)) {
			t.Errorf("ψ'(%g) = %.17g, want %.17g", tc.x, got, tc.tri)
		}
	}
	// The recurrences ψ(x+1) = ψ(x) + 1/x, ψ'(x+1) = ψ'(x) − 1/x² across
	// the switch to the asymptotic series.
	for _, x := range []float64{9.3, 9.999, 25, 1e4} {
		if d := Digamma(x+1) - Digamma(x) - 1/x; math.Abs(d) > 1e-13 {
			t.Errorf("ψ(%g+1) − ψ(%g) − 1/x = %g", x, x, d)
		}
		if d := Trigamma(x+1) - Trigamma(x) + 1/(x*x); math.Abs(d) > 1e-14 {
			t.Errorf("ψ'(%g+1) − ψ'(%g) + 1/x² = %g", x, x, d)
		}
	}
}
