package kernel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// bf16Values are floats that exercise every branch of toBF16: ties both
// ways, the largest finite values, infinities, NaNs of both signs and
// payloads, denormals and zeros, among random numbers.
func bf16Values(r *rand.Rand, n int) []float32 {
	special := []float32{
		1, -2, 1 + 1.0/256, 1 + 3.0/256, -(1 + 1.0/256), 1 + 1.0/256 + 1.0/4096,
		math.MaxFloat32, -math.MaxFloat32, float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0xffc00001), math.Float32frombits(0x7f800001),
		math.Float32frombits(0x00000001), math.Float32frombits(0x807fffff), 0, float32(math.Copysign(0, -1)),
	}
	xs := make([]float32, n)
	for i := range xs {
		if i%5 == 0 {
			xs[i] = special[(i/5)%len(special)]
		} else {
			xs[i] = math.Float32frombits(r.Uint32())
		}
	}
	return xs
}

// TestRoundBF16: every level's pairing of a row and of two rows gives
// pairBF16's bits, at every length (vector bodies and scalar tails).
func TestRoundBF16(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(1, 2))
		for k := range 70 {
			src := bf16Values(r, k)
			kp := (k + 1) / 2
			got := make([]uint32, kp)
			roundPairs(got, src)
			for i := range kp {
				var hi float32
				if 2*i+1 < k {
					hi = src[2*i+1]
				}
				if want := pairBF16(src[2*i], hi); got[i] != want {
					t.Fatalf("k=%d: roundPairs word %d = %#08x, want %#08x (of %#08x, %#08x)", k, i, got[i], want, math.Float32bits(src[2*i]), math.Float32bits(hi))
				}
			}
			lo, hi := bf16Values(r, k), bf16Values(r, k)
			rows := make([]uint32, k)
			for _, odd := range [][]float32{hi, nil} {
				roundRows(rows, lo, odd)
				for c := range k {
					var h float32
					if odd != nil {
						h = odd[c]
					}
					if want := pairBF16(lo[c], h); rows[c] != want {
						t.Fatalf("n=%d, hi %v: roundRows word %d = %#08x, want %#08x", k, odd != nil, c, rows[c], want)
					}
				}
			}
		}
	})
}

// TestRoundPanel: every level's rounding of 8 rows into a panel gives
// pairBF16's bits at every length and for both panels' strides, and
// leaves the words between a panel's 8 alone.
func TestRoundPanel(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(5, 6))
		for k := range 70 {
			for _, stride := range []int{bf16Rows, bf16Cols} {
				lda := k + 3
				a := bf16Values(r, (bf16Rows-1)*lda+k)
				kp := (k + 1) / 2
				dst := make([]uint32, kp*stride)
				for i := range dst {
					dst[i] = 0xdeadbeef
				}
				roundPanel(dst, stride, a, lda, k)
				for i := range kp {
					for c := range stride {
						want := uint32(0xdeadbeef)
						if c < bf16Rows {
							var hi float32
							if 2*i+1 < k {
								hi = a[c*lda+2*i+1]
							}
							want = pairBF16(a[c*lda+2*i], hi)
						}
						if got := dst[i*stride+c]; got != want {
							t.Fatalf("k=%d stride %d: word %d of row %d = %#08x, want %#08x", k, stride, i, c, got, want)
						}
					}
				}
			}
		}
	})
}

func BenchmarkPackBF16(b *testing.B) {
	const k, n = 400, 400
	w := bf16Values(rand.New(rand.NewPCG(3, 4)), k*n)
	for _, im := range impls {
		for _, trans := range []bool{false, true} {
			name := im.level.String() + "/N"
			if trans {
				name = im.level.String() + "/T"
			}
			b.Run(name, func(b *testing.B) {
				defer use(im.level)()
				var p *PackedBF16
				b.SetBytes(4 * k * n)
				for b.Loop() {
					p = PackBF16Into(p, trans, k, n, w, n)
				}
			})
		}
	}
}

// BenchmarkDenseBF16 is a shared-loss step's three bfloat16 products
// (gamma/dense.go; 560 query rows, 2,561 candidates, K = 2d = 400): the
// distances q·featᵀ, then the gradients Gᵀ·q and G·feat; and packABF16
// alone for the A operands, since packing G (rows × candidates, twice)
// costs a share of the products that grows as 1/d.
func BenchmarkDenseBF16(b *testing.B) {
	const rows, n, k = 560, 2561, 400
	r := rand.New(rand.NewPCG(5, 6))
	q, feat, g := randSlice(r, rows*k), randSlice(r, n*k), randSlice(r, rows*n)
	dist, dfeat, dq := make([]float32, rows*n), make([]float32, n*k), make([]float32, rows*k)
	benchLevels(b, func(b *testing.B) {
		if cur.bf16 == nil {
			b.Skip("no bf16 micro-kernel at this level")
		}
		products := []struct {
			name string
			f    func()
		}{
			{"dist", func() { GemmBF16Serial(false, true, rows, n, k, q, k, feat, k, 0, dist, n) }},
			{"dfeat", func() { GemmBF16Serial(true, false, n, k, rows, g, n, q, k, 0, dfeat, k) }},
			{"dq", func() { GemmBF16Serial(false, false, rows, k, n, g, n, feat, k, 0, dq, k) }},
		}
		for _, p := range products {
			b.Run(p.name, func(b *testing.B) {
				c0 := cpuTime()
				for b.Loop() {
					p.f()
				}
				report(b, 2*rows*n*k*float64(b.N)/1e9, cpuTime()-c0, "GFLOP")
			})
		}
		for _, trans := range []bool{false, true} {
			name := "packA/N"
			if trans {
				name = "packA/T"
			}
			b.Run(name, func(b *testing.B) {
				c0 := cpuTime()
				for b.Loop() {
					if trans {
						putWords(packABF16(true, n, rows, g, n))
					} else {
						putWords(packABF16(false, rows, n, g, n))
					}
				}
				report(b, 4*rows*n*float64(b.N)/1e9, cpuTime()-c0, "GB")
			})
		}
	})
}
