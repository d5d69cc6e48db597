package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// sigmoidInputs are logits over the range a model produces, the ends where
// σ saturates, and infinities.
func sigmoidInputs(n int) []float32 {
	r := rand.New(rand.NewPCG(9, 9))
	x := []float32{0, -0.0, 1e-30, -90, -89, 17, 18, 100, -100, float32(math.Inf(1)), float32(math.Inf(-1))}
	for len(x) < n {
		x = append(x, float32(r.NormFloat64()*20))
	}
	return x[:n]
}

// TestSigmoidSum: the twin and the pure-Go level against the float64 sum,
// every vector level against the twin at lengths around the vector widths,
// each with and without a shift.
func TestSigmoidSum(t *testing.T) {
	x := sigmoidInputs(5000)
	for _, shift := range []float32{0, -3.25, 7} {
		want := 0.0
		for _, v := range x {
			want += 1 / (1 + math.Exp(-float64(v)-float64(shift)))
		}
		for name, f := range map[string]func([]float32, uint32) float64{"twin": sigmoidSumTwin, "go": sigmoidSumGo} {
			if got := f(x, math.Float32bits(-shift)); math.Abs(got-want) > 1e-6*want {
				t.Errorf("shift %v, %s: %v, want %v", shift, name, got, want)
			}
		}
		eachLevel(t, func(t *testing.T) {
			for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 33, 5000} {
				got, twin := SigmoidSum(x[:n], shift), sigmoidSumTwin(x[:n], math.Float32bits(-shift))
				if cur.level != levelGo && got != twin {
					t.Errorf("shift %v, n=%d: %v, twin %v", shift, n, got, twin)
				}
				if math.Abs(got-twin) > 1e-6*max(1, twin) {
					t.Errorf("shift %v, n=%d: %v, twin %v", shift, n, got, twin)
				}
			}
		})
	}
}

// BenchmarkSigmoidSum times one query's estimate over FB15k-237's entities.
func BenchmarkSigmoidSum(b *testing.B) {
	x := sigmoidInputs(14505)
	benchLevels(b, func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			SigmoidSum(x, 0)
		}
		report(b, float64(len(x))*float64(b.N)/1e6, cpuTime()-c0, "Mvalues")
	})
}
