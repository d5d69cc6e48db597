package train

import (
	"context"
	"fmt"
	"os"
	"testing"

	"github.com/gammae/gammae/dataset"
)

// BenchmarkIteration times training iterations (3 steps of the paper's
// batch 512 × 128 negatives) on the dataset named by GAMMAE_BENCH_DATA
// (skipped without it), at d/h/L from GAMMAE_BENCH_SIZE ("400,800,2",
// default "800,1600,4").
func BenchmarkIteration(b *testing.B) {
	path := os.Getenv("GAMMAE_BENCH_DATA")
	if path == "" {
		b.Skip("set GAMMAE_BENCH_DATA to a .gqd dataset")
	}
	d, err := dataset.Load(path)
	if err != nil {
		b.Fatal(err)
	}
	cfg, _ := Preset("fb15k-237")
	size := os.Getenv("GAMMAE_BENCH_SIZE")
	if size == "" {
		size = "800,1600,4"
	}
	if _, err := fmt.Sscanf(size, "%d,%d,%d", &cfg.Dim, &cfg.Hidden, &cfg.Layers); err != nil {
		b.Fatalf("GAMMAE_BENCH_SIZE=%q: want d,h,L", size)
	}
	cfg.Steps = 1 << 30 // no lr drop (an Adam reset) inside the timing
	// One run: the first iteration allocates and first-touches every buffer
	// and the optimiser state, so the timer starts when it ends.
	opts := Options{MaxIterations: b.N + 1, OnIteration: func(it int, _ float64) {
		if it == 1 {
			b.ResetTimer()
		}
	}}
	if _, err := Run(context.Background(), cfg, d, opts); err != nil {
		b.Fatal(err)
	}
}
