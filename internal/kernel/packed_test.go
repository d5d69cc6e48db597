package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestGemmPacked checks GemmPacked and GemmPackedSerial against Gemm's
// blocked path bit for bit, on every level and for every case without
// transposed A (half of them packed with PackBInto over stale panels), and
// the result against the float64 reference.
func TestGemmPacked(t *testing.T) {
	defer func(v int) { gemmSmallM = v }(gemmSmallM)
	eachLevel(t, func(t *testing.T) {
		for i, tc := range gemmCases() {
			if tc.ta {
				continue
			}
			t.Run(tc.String(), func(t *testing.T) {
				r := rand.New(rand.NewPCG(uint64(i), 2))
				a, lda, b, ldb, c, ldc := tc.operands(r)
				want := slices.Clone(c)
				gemmSmallM = 0
				Gemm(false, tc.tb, tc.m, tc.n, tc.k, tc.alpha, a, lda, b, ldb, tc.beta, want, ldc)
				gemmSmallM = 16
				c0 := slices.Clone(c)
				p := PackB(tc.tb, tc.k, tc.n, b, ldb)
				if i%2 == 1 { // packed again into used storage, as training does
					for j := range p.panels {
						p.panels[j] = float32(math.NaN())
					}
					old := p.panels
					if p = PackBInto(p, tc.tb, tc.k, tc.n, b, ldb); len(p.panels) > 0 && &p.panels[0] != &old[0] {
						t.Fatal("PackBInto did not reuse the storage")
					}
				}
				serial := slices.Clone(c)
				GemmPacked(tc.m, tc.alpha, a, lda, p, tc.beta, c, ldc)
				GemmPackedSerial(tc.m, tc.alpha, a, lda, p, tc.beta, serial, ldc)
				for j := range c {
					if c[j] != want[j] && !(c[j] != c[j] && want[j] != want[j]) {
						t.Fatalf("element %d: %g, blocked path %g", j, c[j], want[j])
					}
					if serial[j] != want[j] && !(serial[j] != serial[j] && want[j] != want[j]) {
						t.Fatalf("serial: element %d: %g, blocked path %g", j, serial[j], want[j])
					}
				}
				if err := checkGemmCase(tc, a, lda, b, ldb, c0, c, ldc); err != nil {
					t.Fatal(err)
				}
			})
		}
	})
}

// TestGemmPackedOtherLevel uses B packed on one level from another: the
// call falls back to Gemm with the operand as given.
func TestGemmPackedOtherLevel(t *testing.T) {
	if len(impls) < 2 {
		t.Skip("one level in this build")
	}
	r := rand.New(rand.NewPCG(7, 7))
	const m, n, k = 5, 70, 300
	a, b := randSlice(r, m*k), randSlice(r, n*k)
	p := PackB(true, k, n, b, k) // on the best level
	defer use(impls[0].level)()
	got, want := make([]float32, m*n), make([]float32, m*n)
	GemmPacked(m, 1, a, k, p, 0, got, n)
	Gemm(false, true, m, n, k, 1, a, k, b, k, 0, want, n)
	if !slices.Equal(got, want) {
		t.Error("fallback differs from Gemm")
	}
}

// BenchmarkGemmPacked runs the serving shapes of BenchmarkGemmSmall
// (Bᵀ stored n × k) with B packed once: a few query rows against a layer's
// weights or all FB15k-237 entity features.
func BenchmarkGemmPacked(b *testing.B) {
	for _, n := range []int{1600, 14505} {
		for _, m := range []int{1, 4, 8, 16} {
			const k = 1600
			r := rand.New(rand.NewPCG(1, 1))
			a, bm, c := randSlice(r, m*k), randSlice(r, k*n), make([]float32, m*n)
			b.Run(fmt.Sprintf("NT_%dx%dx%d", m, n, k), func(b *testing.B) {
				benchLevels(b, func(b *testing.B) {
					p := PackB(true, k, n, bm, k)
					c0 := cpuTime()
					for b.Loop() {
						GemmPacked(m, 1, a, k, p, 0, c, n)
					}
					report(b, 2*float64(m*k*n)*float64(b.N)/1e9, cpuTime()-c0, "GFLOP")
					b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/call")
				})
			})
		}
	}
}
