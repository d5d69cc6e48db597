package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// lossRowInputs are sigmoidInputs with entries out of the row (−Inf) among
// them.
func lossRowInputs(n int) []float32 {
	x := sigmoidInputs(n)
	for i := 5; i < n; i += 97 {
		x[i] = float32(math.Inf(-1))
	}
	return x
}

// close32 reports whether got is within tol (relative, at least absolute
// near 0) of want, NaNs and infinities alike.
func close32(got, want, tol float64) bool {
	if math.IsNaN(want) || math.IsInf(want, 0) {
		return got == want || math.IsNaN(got) && math.IsNaN(want)
	}
	return math.Abs(got-want) <= tol*max(1, math.Abs(want))
}

var lossRowLengths = []int{0, 1, 7, 8, 9, 15, 16, 17, 33, 2561}

// TestExpSum: the twin and the pure-Go level against float64, every vector
// level against the twin (bit for bit), with and without a temperature.
func TestExpSum(t *testing.T) {
	x := lossRowInputs(2561)
	for _, ab := range [][2]float32{{1, 0}, {1, 17.5}, {0.5, -3}} {
		a, b := ab[0], ab[1]
		want := make([]float64, len(x))
		wantE, wantX := 0.0, 0.0
		for i, v := range x {
			want[i] = float64(float32(math.Exp(float64(a)*float64(v) - float64(b)))) // overflows as float32 does
			wantE += want[i]
			if !math.IsInf(float64(v), -1) {
				wantX += float64(v)
			}
		}
		for name, f := range map[string]func(dst, x []float32, ab, nbb uint32) (float64, float64){"twin": expSumTwin, "go": expSumGo} {
			dst := make([]float32, len(x))
			e, s := f(dst, x, math.Float32bits(a), math.Float32bits(-b))
			if !close32(e, wantE, 1e-5) || !close32(s, wantX, 1e-9) {
				t.Errorf("a=%v b=%v, %s: sums %v %v, want %v %v", a, b, name, e, s, wantE, wantX)
			}
			for i, v := range dst {
				if !close32(float64(v), want[i], 1e-5) || math.IsInf(float64(x[i]), -1) && v != 0 {
					t.Fatalf("a=%v b=%v, %s: e^(a·%v−b) = %v, want %v", a, b, name, x[i], v, want[i])
				}
			}
		}
		eachLevel(t, func(t *testing.T) {
			for _, n := range lossRowLengths {
				got, twin := make([]float32, n), make([]float32, n)
				e, s := ExpSum(got, x[:n], a, b)
				te, ts := expSumTwin(twin, x[:n], math.Float32bits(a), math.Float32bits(-b))
				exact := cur.level != levelGo
				if exact && (e != te || s != ts || !slices.Equal(got, twin)) {
					t.Errorf("a=%v b=%v n=%d: sums %v %v, twin %v %v (or the exponentials differ)", a, b, n, e, s, te, ts)
				}
				if !close32(e, te, 1e-5) || !close32(s, ts, 1e-9) {
					t.Errorf("a=%v b=%v n=%d: sums %v %v, twin %v %v", a, b, n, e, s, te, ts)
				}
			}
		})
	}
}

// TestScaleShift: every level against the twin, bit for bit.
func TestScaleShift(t *testing.T) {
	x := lossRowInputs(2561)
	eachLevel(t, func(t *testing.T) {
		for _, n := range lossRowLengths {
			got, twin := slices.Clone(x[:n]), slices.Clone(x[:n])
			ScaleShift(got, 0.25, 1.5)
			scaleShiftTwin(twin, math.Float32bits(0.25), math.Float32bits(-1.5))
			for i := range got {
				if got[i] != twin[i] && !(got[i] != got[i] && twin[i] != twin[i]) {
					t.Fatalf("n=%d: 0.25·%v − 1.5 = %v, twin %v", n, x[i], got[i], twin[i])
				}
			}
		}
	})
	y := []float64{2, -4}
	ScaleShift(y, 0.5, 1)
	if y[0] != 0 || y[1] != -3 {
		t.Errorf("float64: %v, want [0 -3]", y)
	}
}

// TestSigmoidLoss: the twin and the pure-Go level against float64, every
// vector level against the twin (gradient and sum bit for bit); −Inf
// leaves the gradient and the sum as they were, a NaN shows in both.
func TestSigmoidLoss(t *testing.T) {
	x := lossRowInputs(2561)
	g0 := randSlice(rand.New(rand.NewPCG(5, 5)), len(x))
	const c = 0.37
	want := make([]float64, len(x))
	wantSum := 0.0
	for i, v := range x {
		u := math.Exp(min(float64(v), 80))
		want[i] = float64(g0[i]) + c*u/(1+u)
		wantSum += math.Log1p(u)
	}
	for name, f := range map[string]func(g, x []float32, cb uint32) float64{"twin": sigmoidLossTwin, "go": sigmoidLossGo} {
		g := slices.Clone(g0)
		if s := f(g, x, math.Float32bits(c)); !close32(s, wantSum, 1e-6) {
			t.Errorf("%s: sum %v, want %v", name, s, wantSum)
		}
		for i, v := range g {
			if !close32(float64(v), want[i], 1e-6) {
				t.Fatalf("%s: g[%d] = %v, want %v (x %v)", name, i, v, want[i], x[i])
			}
			if math.IsInf(float64(x[i]), -1) && v != g0[i] {
				t.Fatalf("%s: g[%d] moved from %v to %v at x = −Inf", name, i, g0[i], v)
			}
		}
	}
	xn := slices.Clone(x)
	xn[20] = float32(math.NaN())
	eachLevel(t, func(t *testing.T) {
		for _, n := range lossRowLengths {
			got, twin := slices.Clone(g0[:n]), slices.Clone(g0[:n])
			s, ts := SigmoidLoss(got, x[:n], c), sigmoidLossTwin(twin, x[:n], math.Float32bits(c))
			if cur.level != levelGo && (s != ts || !slices.Equal(got, twin)) {
				t.Errorf("n=%d: sum %v, twin %v (or the gradients differ)", n, s, ts)
			}
			if !close32(s, ts, 1e-6) {
				t.Errorf("n=%d: sum %v, twin %v", n, s, ts)
			}
		}
		g := slices.Clone(g0)
		if s := SigmoidLoss(g, xn, c); !math.IsNaN(s) || !math.IsNaN(float64(g[20])) {
			t.Errorf("a NaN logit: sum %v, gradient %v; want NaN for both", s, g[20])
		}
	})
}

// BenchmarkLossRow times one batch's row passes of the fast-long loss (512
// rows of 2,561 candidates): the softmax's exponentials and the sigmoid
// term.
func BenchmarkLossRow(b *testing.B) {
	x := sigmoidInputs(512 * 2561)
	dst, g := make([]float32, len(x)), make([]float32, len(x))
	benchLevels(b, func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			for r := 0; r < len(x); r += 2561 {
				ExpSum(dst[r:r+2561], x[r:r+2561], 1, 30)
				SigmoidLoss(g[r:r+2561], x[r:r+2561], 1e-4)
			}
		}
		report(b, float64(len(x))*float64(b.N)/1e6, cpuTime()-c0, "Mvalues")
	})
}
