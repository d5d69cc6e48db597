package optim

import (
	"math"
	"slices"
	"testing"

	"github.com/gammae/gammae/internal/kernel"
)

// adamRef is Adam written from the paper's formulas in float64.
func adamRef(p, g []float64, steps int, lr float64) []float64 {
	p = append([]float64(nil), p...)
	m := make([]float64, len(p))
	v := make([]float64, len(p))
	for t := 1; t <= steps; t++ {
		for i := range p {
			m[i] = 0.9*m[i] + 0.1*g[i]
			v[i] = 0.999*v[i] + 0.001*g[i]*g[i]
			mh := m[i] / (1 - math.Pow(0.9, float64(t)))
			vh := math.Sqrt(v[i]) / math.Sqrt(1-math.Pow(0.999, float64(t)))
			p[i] -= lr * mh / (vh + 1e-8)
		}
	}
	return p
}

func TestAdamMatchesFormula(t *testing.T) {
	cases := []struct {
		name  string
		p, g  []float64
		steps int
	}{
		{"one step", []float64{1, -2, 0.5}, []float64{0.5, -3, 0}, 1},
		{"three steps", []float64{1, -2, 0.5}, []float64{0.5, -3, 1e-9}, 3},
	}
	for _, c := range cases {
		a := NewAdam[float64](0.1)
		p := append([]float64(nil), c.p...)
		for s := 0; s < c.steps; s++ {
			if err := a.Step([][]float64{p}, [][]float64{c.g}); err != nil {
				t.Fatal(err)
			}
		}
		want := adamRef(c.p, c.g, c.steps, 0.1)
		for i := range p {
			if math.Abs(p[i]-want[i]) > 1e-12 {
				t.Errorf("%s: p[%d] = %v, want %v", c.name, i, p[i], want[i])
			}
		}
	}
	// The first step moves every coordinate with a gradient by ≈ lr.
	p := []float64{1}
	NewAdam[float64](0.1).Step([][]float64{p}, [][]float64{{0.5}})
	if math.Abs(p[0]-0.9) > 1e-7 {
		t.Errorf("first step from 1 with g=0.5: %v, want ≈ 0.9", p[0])
	}
}

// TestAdamNilGrad: a parameter without a gradient is untouched and keeps
// no state; reached later, it starts its own bias correction, as torch's
// per-parameter step counts do.
func TestAdamNilGrad(t *testing.T) {
	a := NewAdam[float64](0.1)
	p0, p1 := []float64{1}, []float64{1}
	for s := 0; s < 3; s++ {
		if err := a.Step([][]float64{p0, p1}, [][]float64{{0.5}, nil}); err != nil {
			t.Fatal(err)
		}
	}
	if p1[0] != 1 {
		t.Fatalf("parameter without gradient moved to %v", p1[0])
	}
	if st := a.State(); st.Steps[1] != 0 || st.M[1] != nil {
		t.Fatalf("state kept for a parameter without gradient: %+v", st)
	}
	a.Step([][]float64{p0, p1}, [][]float64{{0.5}, {0.5}})
	if want := adamRef([]float64{1}, []float64{0.5}, 1, 0.1)[0]; math.Abs(p1[0]-want) > 1e-12 {
		t.Errorf("late parameter after its first step: %v, want %v", p1[0], want)
	}
	if st := a.State(); st.Steps[0] != 4 || st.Steps[1] != 1 {
		t.Errorf("steps %v, want [4 1]", st.Steps)
	}
}

// TestAdamZeroGrads: with ZeroGrads every applied gradient is zero after
// the step but those KeepGrads marks; the update is the same either way.
func TestAdamZeroGrads(t *testing.T) {
	run := func(zero bool, keep []bool) ([][]float64, [][]float64) {
		a := NewAdam[float64](0.1)
		a.ZeroGrads, a.KeepGrads = zero, keep
		p := [][]float64{{1, 2}, {3}, {4}}
		g := [][]float64{{0.5, -1}, {2}, {0.25}}
		if err := a.Step(p, g); err != nil {
			t.Fatal(err)
		}
		return p, g
	}
	p0, g0 := run(false, nil)
	p1, g1 := run(true, []bool{false, true})
	for i := range p0 {
		for j := range p0[i] {
			if p0[i][j] != p1[i][j] {
				t.Fatalf("parameter %d[%d]: %v with ZeroGrads, %v without", i, j, p1[i][j], p0[i][j])
			}
			want := g0[i][j]
			if i != 1 {
				want = 0
			}
			if g1[i][j] != want {
				t.Errorf("gradient %d[%d] after the step: %v, want %v", i, j, g1[i][j], want)
			}
		}
	}
}

// TestAdamShrink: Shrink gives the values of scaling the parameters first
// (kernel.Scale) and stepping after, for parameters with a gradient and
// for one without (scaled all the same), and leaves the others alone;
// float32 and float64, over two steps.
func TestAdamShrink(t *testing.T) {
	t.Run("float32", checkShrink[float32])
	t.Run("float64", checkShrink[float64])
}

func checkShrink[T kernel.Float](t *testing.T) {
	shrink := []float64{float64(float32(1 - 1e-3*0.05)), 0, 0.9}
	p := [][]T{{1, -2, 0.5, 3, 7, -1, 2, 2, 9}, {3}, {4, -4}}
	g := [][]T{{0.5, -1, 0, 1e-3, 2, 1, -1, 0.25, 0}, {2}, nil}
	want := [][]T{slices.Clone(p[0]), slices.Clone(p[1]), slices.Clone(p[2])}
	a, b := NewAdam[T](0.1), NewAdam[T](0.1)
	a.Shrink = shrink
	for range 2 {
		if err := a.Step(p, g); err != nil {
			t.Fatal(err)
		}
		for i, f := range shrink {
			if f != 0 {
				kernel.Scale(T(f), want[i])
			}
		}
		if err := b.Step(want, g); err != nil {
			t.Fatal(err)
		}
	}
	for i := range p {
		for j := range p[i] {
			if p[i][j] != want[i][j] {
				t.Errorf("parameter %d[%d]: %v with Shrink, %v scaled then stepped", i, j, p[i][j], want[i][j])
			}
		}
	}
	if p[2][0] != T(4)*T(0.9)*T(0.9) {
		t.Errorf("parameter without a gradient: %v, want 4·0.9·0.9", p[2][0])
	}
}

func TestAdamResetAndState(t *testing.T) {
	g := [][]float32{{0.3, -0.2}, {1}}
	run := func(a *Adam[float32], p [][]float32, steps int) {
		for s := 0; s < steps; s++ {
			if err := a.Step(p, g); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Saving and restoring the state mid-run changes nothing.
	a := NewAdam[float32](0.01)
	p := [][]float32{{1, 2}, {3}}
	run(a, p, 2)
	saved := a.State()
	b := NewAdam[float32](0.01)
	if err := b.SetState(saved, []int{2, 1}); err != nil {
		t.Fatal(err)
	}
	q := [][]float32{append([]float32(nil), p[0]...), append([]float32(nil), p[1]...)}
	run(a, p, 2)
	run(b, q, 2)
	for i := range p {
		for j := range p[i] {
			if p[i][j] != q[i][j] {
				t.Fatalf("restored optimiser diverged: %v vs %v", p, q)
			}
		}
	}
	// Reset: the next step is a first step again.
	a.Reset()
	for i, st := 0, a.State(); i < len(st.Steps); i++ {
		if st.Steps[i] != 0 || slices.ContainsFunc(st.M[i], nonZero) || slices.ContainsFunc(st.V[i], nonZero) {
			t.Fatalf("state after Reset: %+v", st)
		}
	}
	before := p[1][0]
	run(a, p, 1)
	if d := before - p[1][0]; math.Abs(float64(d)-0.01) > 1e-6 {
		t.Errorf("first step after Reset moved %v, want ≈ lr", d)
	}
}

func nonZero(v float32) bool { return v != 0 }

func TestAdamErrors(t *testing.T) {
	a := NewAdam[float64](0.1)
	cases := []struct {
		name    string
		p, g    [][]float64
		prepare func()
	}{
		{"count", [][]float64{{1}}, [][]float64{{1}, {1}}, nil},
		{"size", [][]float64{{1, 2}}, [][]float64{{1}}, nil},
		{"changed count", [][]float64{{1}, {1}}, [][]float64{{1}, {1}}, func() { a.Step([][]float64{{1}}, [][]float64{{1}}) }},
	}
	for _, c := range cases {
		a.Reset()
		if c.prepare != nil {
			c.prepare()
		}
		if err := a.Step(c.p, c.g); err == nil {
			t.Errorf("%s: no error", c.name)
		}
	}
	if err := a.SetState(State[float64]{Steps: []int{1}, M: [][]float64{{1}}, V: [][]float64{{1, 2}}}, []int{1}); err == nil {
		t.Error("SetState with mismatched moments: no error")
	}
	if err := a.SetState(State[float64]{Steps: []int{1}}, []int{1}); err == nil {
		t.Error("SetState with missing moments: no error")
	}
}
