package kernel

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// Benchmarks compare the levels (and the reference) in one run. GFLOP/s and
// values/s are wall-clock rates with all GOMAXPROCS goroutines; the
// "/cpu-s" rates divide by the CPU time used instead, which stays honest
// when other processes share the cores (twice the per-CPU rate is what two
// idle cores would give if the kernel scales).

func benchLevels(b *testing.B, f func(b *testing.B)) {
	for _, im := range impls {
		b.Run(im.level.String(), func(b *testing.B) {
			defer use(im.level)()
			f(b)
		})
	}
}

// BenchmarkGemm runs the model's shapes. The MLP products of a training
// iteration (fb15k-237 preset), fwd x·Wᵀ (NT), dX dy·W (NN), dW dyᵀ·x
// (TN): at d=400 (h=800) each net's products run on one core (GemmSerial)
// beside the other net's, at d=800 (h=1600) on all cores; 1227 rows is a
// batch's first projection level. Then scoring a block of 128 (or 32)
// queries against all FB15k-237 entities with the entity matrix stored
// either way.
func BenchmarkGemm(b *testing.B) {
	for _, s := range []struct {
		name    string
		serial  bool
		ta, tb  bool
		m, n, k int
	}{
		{"d400_fwd_NT_1227x800x800", true, false, true, 1227, 800, 800},
		{"d400_dX_NN_1227x800x800", true, false, false, 1227, 800, 800},
		{"d400_dW_TN_800x800x1227", true, true, false, 800, 800, 1227},
		{"d400_fwd_NT_512x800x800", true, false, true, 512, 800, 800},
		{"d400_fwd_NT_1227x800x400", true, false, true, 1227, 800, 400},
		{"d800_fwd_NT_512x1600x1600", false, false, true, 512, 1600, 1600},
		{"d800_dX_NN_512x1600x1600", false, false, false, 512, 1600, 1600},
		{"d800_dW_TN_1600x1600x512", false, true, false, 1600, 1600, 512},
		{"d800_fwd_NT_1227x1600x1600", false, false, true, 1227, 1600, 1600},
		{"d800_serial_fwd_NT_339x1600x1600", true, false, true, 339, 1600, 1600},
		{"d800_serial_dX_NN_339x1600x1600", true, false, false, 339, 1600, 1600},
		{"d800_serial_dW_TN_1600x1600x339", true, true, false, 1600, 1600, 339},
		{"score_NN_128x14505x1600", false, false, false, 128, 14505, 1600},
		{"score_NT_128x14505x1600", false, false, true, 128, 14505, 1600},
		{"score_NN_32x14505x1600", false, false, false, 32, 14505, 1600},
		{"score_NT_32x14505x1600", false, false, true, 32, 14505, 1600},
	} {
		r := rand.New(rand.NewPCG(1, 1))
		a, bm, c := randSlice(r, s.m*s.k), randSlice(r, s.k*s.n), make([]float32, s.m*s.n)
		lda, ldb := s.k, s.n
		if s.ta {
			lda = s.m
		}
		if s.tb {
			ldb = s.k
		}
		gemm := Gemm[float32]
		if s.serial {
			gemm = GemmSerial[float32]
		}
		flop := 2 * float64(s.m) * float64(s.n) * float64(s.k)
		b.Run(s.name, func(b *testing.B) {
			benchLevels(b, func(b *testing.B) {
				c0 := cpuTime()
				for b.Loop() {
					gemm(s.ta, s.tb, s.m, s.n, s.k, 1, a, lda, bm, ldb, 0, c, s.n)
				}
				report(b, flop*float64(b.N)/1e9, cpuTime()-c0, "GFLOP")
			})
		})
	}
}

// report sets the metrics unit/s (wall clock) and unit/cpu-s for work
// units done in b's loop, which used cpu of CPU time.
func report(b *testing.B, work float64, cpu time.Duration, unit string) {
	b.ReportMetric(work/b.Elapsed().Seconds(), unit+"/s")
	if cpu > 0 {
		b.ReportMetric(work/cpu.Seconds(), unit+"/cpu-s")
	}
	b.ReportMetric(0, "ns/op")
}

func benchMap(b *testing.B, lo, hi float64, fast func(dst, x []float32), ref func(dst, x []float32)) {
	const n = 1 << 20
	r := rand.New(rand.NewPCG(2, 2))
	x, dst := make([]float32, n), make([]float32, n)
	for i := range x {
		x[i] = float32(math.Exp(math.Log(lo) + r.Float64()*(math.Log(hi)-math.Log(lo))))
	}
	b.Run("ref", func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			ref(dst, x)
		}
		report(b, float64(n)*float64(b.N)/1e6, cpuTime()-c0, "Mvalues")
	})
	benchLevels(b, func(b *testing.B) {
		for _, w := range []int{1, 0} {
			b.Run(fmt.Sprintf("workers=%d", cmp.Or(w, workers())), func(b *testing.B) {
				c0 := cpuTime()
				withWorkers(w, func() {
					for b.Loop() {
						fast(dst, x)
					}
				})
				report(b, float64(n)*float64(b.N)/1e6, cpuTime()-c0, "Mvalues")
			})
		}
	})
}

// The special functions over 1M values log-uniform in [0.1, 1e4]; ref is
// the float64 reference (math.Lgamma for lgamma) on one goroutine.
// BenchmarkMicroKernel runs each level's register kernel alone over one
// row panel of A (read in place) and a block of 512 packed columns of B,
// k = 256, on one goroutine: the operands stay in L1 and L2, so this is
// the kernel's peak on this core (ENGINE-NOTES: 116 GFLOP/s per core).
// Compare it with BenchmarkGemm's shapes, where the operands are cold.
func BenchmarkMicroKernel(b *testing.B) {
	const kc, n = 256, 512
	benchLevels(b, func(b *testing.B) {
		kern := cur.gemm
		r := rand.New(rand.NewPCG(1, 1))
		a, bp := randSlice(r, kern.mr*kc), randSlice(r, kc*n)
		c := make([]float32, kern.mr*n)
		for b.Loop() {
			for j := 0; j < n; j += kern.nr {
				kern.micro(kc, a, kc, 1, bp[j*kc:], kern.nr, c[j:], n, true)
			}
		}
		b.ReportMetric(2*float64(kern.mr*n*kc)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		b.ReportMetric(0, "ns/op")
	})
}

func BenchmarkLgamma(b *testing.B)   { benchMap(b, 0.1, 1e4, Lgamma[float32], lgammaRef[float32]) }
func BenchmarkDigamma(b *testing.B)  { benchMap(b, 0.1, 1e4, Digamma[float32], digammaRef[float32]) }
func BenchmarkTrigamma(b *testing.B) { benchMap(b, 0.1, 1e4, Trigamma[float32], trigammaRef[float32]) }
func BenchmarkExp(b *testing.B)      { benchMap(b, 0.01, 80, Exp[float32], expRef[float32]) }
func BenchmarkLog(b *testing.B)      { benchMap(b, 1e-6, 1e6, Log[float32], logRef[float32]) }

// BenchmarkGemmSmall runs the serving shapes: a few query rows against a
// layer's weights (1600×1600) or all FB15k-237 entity features
// (14505×1600), B stored n×k (NT) as the model keeps them, or k×n (NN).
// GB/s counts the bytes of B, which every call streams once.
func BenchmarkGemmSmall(b *testing.B) {
	for _, tb := range []bool{true, false} {
		for _, n := range []int{1600, 14505} {
			for _, m := range []int{1, 4, 8, 16} {
				const k = 1600
				r := rand.New(rand.NewPCG(1, 1))
				a, bm, c := randSlice(r, m*k), randSlice(r, k*n), make([]float32, m*n)
				ldb, name := n, "NN"
				if tb {
					ldb, name = k, "NT"
				}
				b.Run(fmt.Sprintf("%s_%dx%dx%d", name, m, n, k), func(b *testing.B) {
					benchLevels(b, func(b *testing.B) {
						c0 := cpuTime()
						for b.Loop() {
							Gemm(false, tb, m, n, k, 1, a, k, bm, ldb, 0, c, n)
						}
						report(b, 4*float64(k*n)*float64(b.N)/1e9, cpuTime()-c0, "GB")
						b.ReportMetric(b.Elapsed().Seconds()*1e3/float64(b.N), "ms/call")
					})
				})
			}
		}
	}
}

// BenchmarkCopyStream writes the rows of a 46 MB table (FB15k-237's
// entity gradient at d = 400) from one row in cache, as entityBackward
// does: the non-temporal stores of the vector levels against copy (the
// go level).
func BenchmarkCopyStream(b *testing.B) {
	const rows, width = 14505, 800
	dst, src := make([]float32, rows*width), make([]float32, width)
	benchLevels(b, func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			for r := range rows {
				CopyStream(dst[r*width:(r+1)*width], src)
			}
		}
		report(b, float64(rows*width*4)*float64(b.N)/1e9, cpuTime()-c0, "GB")
	})
}

// BenchmarkDropout times the projection dropout's mask on one hidden
// activation of a training batch (1,024 rows of width 400), per level.
func BenchmarkDropout(b *testing.B) {
	x := make([]float32, 1024*400)
	for i := range x {
		x[i] = 1
	}
	state := uint64(1)
	benchLevels(b, func(b *testing.B) {
		c0 := cpuTime()
		for b.Loop() {
			Dropout(x, 0.1, &state)
		}
		report(b, float64(len(x))*float64(b.N)/1e9, cpuTime()-c0, "Gunits")
	})
}
