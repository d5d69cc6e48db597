package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

func rand64(r *rand.Rand, n int) []float64 {
	s := make([]float64, n)
	for i := range s {
		s[i] = r.NormFloat64()
	}
	return s
}

// TestRows64: every level's row scores are the pure-Go loops' up to the
// order of the sums, for widths with and without a tail.
func TestRows64(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, d := range []int{3, 8, 13, 400} {
			r := rand.New(rand.NewPCG(uint64(d), 1))
			const n = 17
			tab, tab2, tab3, tab4 := rand64(r, n*d), rand64(r, n*d), rand64(r, n*d), rand64(r, n*d)
			q := make([][]float64, 9)
			for i := range q {
				q[i] = rand64(r, d)
			}
			pos := func(x []float64) []float64 { // offsets, bases: ≥ 0
				y := make([]float64, len(x))
				for i, v := range x {
					y[i] = math.Abs(v)
				}
				return y
			}
			for _, c := range []struct {
				name      string
				fast, ref func(dst []float64)
			}{
				{"L1Rows", func(dst []float64) { L1Rows(dst, tab, q[0], 24) }, func(dst []float64) { l1RowsGo(dst, tab, q[0], 24) }},
				{"BoxRows", func(dst []float64) { BoxRows(dst, tab, q[0], pos(q[1]), 0.02, 24) },
					func(dst []float64) { boxRowsGo(dst, tab, q[0], pos(q[1]), 0.02, 24) }},
				{"BetaRows", func(dst []float64) { BetaRows(dst, tab, tab2, tab3, tab4, q[0], pos(q[1]), pos(q[2]), 60) },
					func(dst []float64) { betaRowsGo(dst, tab, tab2, tab3, tab4, q[0], pos(q[1]), pos(q[2]), 60) }},
				{"ConeRows", func(dst []float64) {
					ConeRows(dst, tab, tab2, q[0], q[1], q[2], q[3], q[4], q[5], pos(q[6]), 0.02, 0.7, 30)
				}, func(dst []float64) {
					coneRowsGo(dst, tab, tab2, q[0], q[1], q[2], q[3], q[4], q[5], pos(q[6]), 0.02, 0.7, 30)
				}},
			} {
				got, want := make([]float64, n), make([]float64, n)
				c.fast(got)
				c.ref(want)
				for e := range want {
					if math.Abs(got[e]-want[e]) > 1e-12*(1+math.Abs(want[e])) {
						t.Errorf("%s d=%d row %d: %.17g, want %.17g", c.name, d, e, got[e], want[e])
					}
				}
			}
		}
	})
}

func TestRows64Panics(t *testing.T) {
	for name, f := range map[string]func(){
		"L1Rows":  func() { L1Rows(make([]float64, 2), make([]float64, 5), make([]float64, 3), 0) },
		"BoxRows": func() { BoxRows(make([]float64, 2), make([]float64, 6), make([]float64, 3), make([]float64, 2), 0, 0) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic on wrong lengths", name)
				}
			}()
			f()
		}()
	}
}

// BenchmarkRows64 scores one query against FB15k-237's 14,505 entities at
// d = 400 (BetaE's sizes).
func BenchmarkRows64(b *testing.B) {
	const n, d = 14505, 400
	r := rand.New(rand.NewPCG(1, 1))
	tab, tab2, tab3, tab4 := rand64(r, n*d), rand64(r, n*d), rand64(r, n*d), rand64(r, n*d)
	q0, q1, q2 := rand64(r, d), rand64(r, d), rand64(r, d)
	dst := make([]float64, n)
	benchLevels(b, func(b *testing.B) {
		for _, c := range []struct {
			name string
			f    func()
		}{
			{"L1Rows", func() { L1Rows(dst, tab, q0, 24) }},
			{"BetaRows", func() { BetaRows(dst, tab, tab2, tab3, tab4, q0, q1, q2, 60) }},
		} {
			b.Run(c.name, func(b *testing.B) {
				for b.Loop() {
					c.f()
				}
				b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/query")
				b.ReportMetric(0, "ns/op")
			})
		}
	})
}
