package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The helpers use no fused multiply-add, so every level must equal the
// reference bit for bit (Dot excepted: it sums in lanes).

var helperSizes = []int{0, 1, 7, 16, 17, 33, 100, 1000, 70_001}

func withNaN(s []float32) []float32 {
	if len(s) > 3 {
		s[3] = float32(math.NaN())
	}
	return s
}

func equalBits[T Float](t *testing.T, name string, got, want []T) {
	t.Helper()
	for i := range want {
		if !sameBits(got[i], want[i]) {
			t.Fatalf("%s: element %d = %g, want %g", name, i, got[i], want[i])
		}
	}
}

func TestHelpers(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, n := range helperSizes {
			r := rand.New(rand.NewPCG(uint64(n), 4))
			x, y := withNaN(randSlice(r, n)), randSlice(r, n)

			got, want := slices.Clone(y), slices.Clone(y)
			Axpy(float32(-0.7), x, got)
			axpyRef(float32(-0.7), x, want)
			equalBits(t, "Axpy", got, want)

			got, want = slices.Clone(x), slices.Clone(x)
			Scale(float32(1.3), got)
			scaleRef(float32(1.3), want)
			equalBits(t, "Scale", got, want)

			got, want = slices.Clone(y), slices.Clone(y)
			ReLUBackward(got, x)
			reluBackwardRef(want, x)
			equalBits(t, "ReLUBackward", got, want)

			a, b := randSlice(r, n), randSlice(r, n)
			d, dr := Dot(a, b), dotRef(to64(a), to64(b))
			var bound float64
			for i := range a {
				bound += math.Abs(float64(a[i]) * float64(b[i]))
			}
			if math.Abs(float64(d)-dr) > float64(n)*0x1p-24*bound {
				t.Fatalf("Dot(n=%d) = %g, want %g", n, d, dr)
			}
		}
	})
}

func TestMatrixHelpers(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		for _, s := range [][2]int{{0, 5}, {1, 1}, {3, 17}, {7, 33}, {64, 1600}, {513, 40}, {5, 3000}} {
			rows, cols := s[0], s[1]
			r := rand.New(rand.NewPCG(uint64(rows), uint64(cols)))
			c, bias := withNaN(randSlice(r, rows*cols)), randSlice(r, cols)

			got, want := slices.Clone(c), slices.Clone(c)
			AddBias(got, bias, rows, cols)
			addBiasRef(want, bias, rows, cols, false)
			equalBits(t, "AddBias", got, want)

			got, want = slices.Clone(c), slices.Clone(c)
			AddBiasReLU(got, bias, rows, cols)
			addBiasRef(want, bias, rows, cols, true)
			equalBits(t, "AddBiasReLU", got, want)
			if rows*cols > 4 && got[3] == got[3] {
				t.Fatalf("AddBiasReLU turned NaN into %g", got[3])
			}

			shift := randSlice(r, rows)
			for _, a := range []float32{1, -1, 0.5} {
				got, want = slices.Clone(c), slices.Clone(c)
				AffineRows(got, bias, rows, cols, a, shift)
				for i := range rows {
					affineRef(want[i*cols:(i+1)*cols], bias, a, shift[i])
				}
				equalBits(t, "AffineRows", got, want)
			}

			sums, wantSums := randSlice(r, cols), make([]float32, cols)
			for _, w := range []int{1, 3} {
				withWorkers(w, func() { SumRows(sums, c, rows, cols) })
				sumRowsRef(wantSums, c, rows, cols)
				equalBits(t, "SumRows", sums, wantSums)
			}
		}
	})
}

func TestHelperPanics(t *testing.T) {
	for name, f := range map[string]func(){
		"Axpy":       func() { Axpy(1, make([]float32, 3), make([]float32, 2)) },
		"CopyStream": func() { CopyStream(make([]float32, 3), make([]float32, 2)) },
		"AddBias":    func() { AddBias(make([]float32, 6), make([]float32, 2), 2, 3) },
		"AffineRows": func() { AffineRows(make([]float32, 6), make([]float32, 3), 2, 3, 1, make([]float32, 1)) },
		"SumRows":    func() { SumRows(make([]float64, 3), make([]float64, 5), 2, 3) },
		"Lgamma":     func() { Lgamma(make([]float32, 3), make([]float32, 4)) },
	} {
		t.Run(name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			f()
		})
	}
}

// TestCopyStream: every level copies exactly, whatever the destination's
// alignment and the length (the non-temporal path needs whole 64-byte
// lines on a line boundary; the rest falls back to copy), and leaves the
// floats around the destination alone.
func TestCopyStream(t *testing.T) {
	eachLevel(t, func(t *testing.T) {
		r := rand.New(rand.NewPCG(9, 9))
		// A large allocation starts on a page, so offsets 0 and 16 are on
		// a cache line and the others are not.
		buf := make([]float32, 1<<16)
		for _, n := range []int{0, 1, 15, 16, 17, 800, 1600, 3203} {
			for _, off := range []int{0, 1, 3, 16, 17} {
				src := randSlice(r, n)
				for i := range buf {
					buf[i] = -1
				}
				CopyStream(buf[off:off+n], src)
				for i, v := range buf[:off+n+32] {
					want := float32(-1)
					if i >= off && i < off+n {
						want = src[i-off]
					}
					if math.Float32bits(v) != math.Float32bits(want) {
						t.Fatalf("n=%d off=%d: buf[%d] = %v, want %v", n, off, i, v, want)
					}
				}
			}
		}
		f64 := []float64{1, 2}
		CopyStream(f64, []float64{3, 4})
		if f64[0] != 3 || f64[1] != 4 {
			t.Errorf("float64 copy: %v", f64)
		}
	})
}
