package calibrate

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gammae/gammae/internal/kernel"
)

// TestCountShift: the shift makes the row's estimate its count, for rows
// in the tail (few answers among many), saturated rows, and the bounds.
func TestCountShift(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	row := func(n int, mean, sd float64) []float32 {
		x := make([]float32, n)
		for i := range x {
			x[i] = float32(mean + sd*r.NormFloat64())
		}
		return x
	}
	tests := []struct {
		name  string
		row   []float32
		count float64
	}{
		{"tail", row(14505, -12, 3), 7},
		{"tail, overshooting", row(14505, -4, 3), 20},
		{"wide", row(14505, 0, 20), 300},
		{"saturated", row(1000, 8, 1), 990},
		{"one answer", row(14505, -20, 6), 1},
		{"far below", row(500, -50, 1), 3},
		{"underflowed", row(500, -95, 0.5), 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := CountShift(tt.row, tt.count)
			got := kernel.SigmoidSum(tt.row, float32(b))
			if math.Abs(math.Log(got/tt.count)) > 2e-3 {
				t.Errorf("shift %v: estimate %v, want %v", b, got, tt.count)
			}
		})
	}
	if b := CountShift(row(500, -200, 1), 3); b != MaxShift {
		t.Errorf("beyond the bound: %v, want %v", b, MaxShift)
	}
	if b := CountShift(row(10, 0, 1), 10); b != MaxShift {
		t.Errorf("every entity an answer: %v, want %v", b, MaxShift)
	}
	if b := CountShift(row(10, 0, 1), 0); !math.IsNaN(b) {
		t.Errorf("no answers: %v, want NaN", b)
	}
}
