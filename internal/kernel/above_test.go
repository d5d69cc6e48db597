package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAbove: every level finds exactly the pure-Go loop's indices, for
// lengths around the vector width, NaNs and infinities, and thresholds
// that no element, some elements and every element passes.
func TestAbove(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	eachLevel(t, func(t *testing.T) {
		for _, n := range []int{0, 1, 15, 16, 17, 31, 33, 100, 14505} {
			xs := randSlice(r, n)
			for i := range xs {
				switch r.IntN(20) {
				case 0:
					xs[i] = nan
				case 1:
					xs[i] = inf
				case 2:
					xs[i] = -inf
				}
			}
			for _, th := range []float32{-inf, -1, 0, 0.5, 3, inf, nan} {
				want := aboveGo(nil, xs, th)
				if c := CountAbove(xs, th); c != len(want) {
					t.Fatalf("n=%d t=%g: CountAbove %d, want %d", n, th, c, len(want))
				}
				got := Above([]int32{-7}, xs, th)
				if len(got) == 0 || got[0] != -7 || !slices.Equal(got[1:], want) {
					t.Fatalf("n=%d t=%g: %d indices, want the loop's %d (dst kept: %v)", n, th, len(got)-1, len(want), len(got) > 0 && got[0] == -7)
				}
				for _, i := range want {
					if !(xs[i] > th) {
						t.Fatalf("n=%d t=%g: index %d (%g) is not above", n, th, i, xs[i])
					}
				}
				vals := valuesAbove([]float32{-7}, xs, th)
				if wantVals := valuesAboveGo([]float32{-7}, xs, th); !slices.Equal(vals, wantVals) {
					t.Fatalf("n=%d t=%g: values %v, want %v", n, th, vals, wantVals)
				}
			}
			// Thresholds of a query's answers: among the values, repeated,
			// NaN, infinite; one alone, and none.
			for _, ts := range [][]float32{nil, {0.5}, {nan}, {nan, nan}, {0.5, -1, 3, 0.5, nan, inf, -inf}, xs[:min(n, 40)]} {
				counts := make([]int, len(ts))
				CountAboveEach(counts, xs, ts)
				for i, th := range ts {
					if want := countAboveGo(xs, th); counts[i] != want {
						t.Fatalf("n=%d CountAboveEach threshold %d (%g): %d, want %d", n, i, th, counts[i], want)
					}
				}
			}
		}
	})
}

func BenchmarkAbove(b *testing.B) {
	const n = 14505
	r := rand.New(rand.NewPCG(1, 1))
	xs := randSlice(r, n)
	dst := make([]int32, 0, n)
	benchLevels(b, func(b *testing.B) {
		// 3 % of the entities above, as for a trained model's lowest answer.
		th := float32(1.88)
		for b.Loop() {
			dst = Above(dst[:0], xs, th)
		}
		b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gvalues/s")
	})
}

// BenchmarkCountAboveEach counts the entities above each of 8 answers of a
// query, the answers' scores drawn from the top 3 % (a trained model) or
// from all scores (an untrained one): one pass per answer, or one
// compaction and passes over what it kept.
func BenchmarkCountAboveEach(b *testing.B) {
	const n = 14505
	r := rand.New(rand.NewPCG(1, 1))
	xs := randSlice(r, n)
	sorted := slices.Sorted(slices.Values(xs))
	for _, c := range []struct {
		name string
		from int // the answers' scores from sorted[from:]
	}{{"trained", n - n*3/100}, {"untrained", 0}} {
		ts := make([]float32, 8)
		for i := range ts {
			ts[i] = sorted[c.from+r.IntN(n-c.from)]
		}
		counts := make([]int, len(ts))
		b.Run(c.name, func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				for b.Loop() {
					CountAboveEach(counts, xs, ts)
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ts)), "ns/answer")
			})
		})
		b.Run(c.name+"/pass-per-answer", func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				for b.Loop() {
					for i, t := range ts {
						counts[i] = CountAbove(xs, t)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(ts)), "ns/answer")
			})
		})
	}
}
