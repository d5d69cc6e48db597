package gamma

import (
	"math/rand/v2"
	"runtime"
	"testing"
)

// TestStepAllocations checks that a training step does not allocate per
// query: once buffer sizes have settled, a step of 32 queries allocates no
// more than a step of 8 (only per-call goroutine bookkeeping remains: the
// parallel loops, the α and β nets run side by side, the halves of values
// handled concurrently). It runs in float64, whose kernels are the
// allocation-free reference loops, so it counts this package only.
func TestStepAllocations(t *testing.T) {
	cfg := tinyConfig(UnionMoment)
	cfg.UnionDropout = 0.1
	rng := rand.New(rand.NewPCG(1, 2))
	m := mustNew64(t, cfg)
	shapes := []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))", "((e,(r,)),(e,(r,)),(u,))"}
	count := func(rows int) float64 {
		b := randomBatch(t, m, shapes, rows, 4, rng)
		ws := m.NewWorkspace()
		step := func() {
			if _, err := ws.Forward(b, rng); err != nil {
				t.Fatal(err)
			}
			if err := ws.Backward(); err != nil {
				t.Fatal(err)
			}
		}
		step()
		return testing.AllocsPerRun(5, step)
	}
	small, large := count(8), count(32)
	t.Logf("allocations per step: %v with 8 queries per structure, %v with 32", small, large)
	if large > small || small > 40 {
		t.Errorf("allocations per step: %v with 8 queries per structure, %v with 32", small, large)
	}
}

// TestParallelDeterministic checks that splitting the package's loops over
// several cores, and running the α and β nets side by side, changes no bit
// of the loss or the gradients.
func TestParallelDeterministic(t *testing.T) {
	cfg := tinyConfig(UnionMixture)
	cfg.Entities, cfg.Dim = 700, 8
	m := mustNew64(t, cfg)
	b := randomBatch(t, m, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))", "((e,(r,)),(e,(r,)),(u,))"}, 48, 16, rand.New(rand.NewPCG(4, 4)))
	run := func(procs int) (Loss, [][]float64) {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		return trainStep(t, m, b, nil)
	}
	l1, g1 := run(1)
	l4, g4 := run(4)
	sameSteps(t, m, l1, l4, g1, g4, "on four cores")
}

// TestSlightlyLargerBatchReusesBuffers checks that the workspace's buffers
// have room to spare: a training step on a batch a few rows larger than
// the last one allocates no buffer again (training batches' row counts
// vary from step to step).
func TestSlightlyLargerBatchReusesBuffers(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector makes sync.Pool drop the kernels' scratch")
	}
	cfg := tinyConfig(UnionMoment)
	cfg.Entities, cfg.Dim, cfg.Hidden = 300, 32, 64
	rng := rand.New(rand.NewPCG(3, 4))
	m, err := Load[float32](cfg, mustNew64(t, cfg).Params())
	if err != nil {
		t.Fatal(err)
	}
	shapes := []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))", "((e,(r,)),(e,(r,)),(u,))"}
	const n = 16
	big := randomBatch(t, m, shapes, 44, n, rng)
	// The same programs with the first 40 rows of each structure.
	small := &Batch{Negatives: n}
	for gi, g := range big.Groups {
		row0, slots := gi*44, len(g.IDs)/44
		small.Groups = append(small.Groups, Group{Program: g.Program, IDs: g.IDs[:40*slots]})
		small.Positive = append(small.Positive, big.Positive[row0:row0+40]...)
		small.Negative = append(small.Negative, big.Negative[row0*n:(row0+40)*n]...)
		small.Weight = append(small.Weight, big.Weight[row0:row0+40]...)
	}
	// One core: the kernels' pooled scratch is then a single one.
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ws := m.NewWorkspace()
	step := func(b *Batch) uint64 {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := ws.Forward(b, rng); err != nil {
			t.Fatal(err)
		}
		if err := ws.Backward(); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		return after.TotalAlloc - before.TotalAlloc
	}
	step(small)
	if got := step(big); got > 64<<10 {
		t.Errorf("a step of 44 rows per structure after one of 40 allocated %d bytes", got)
	}
}
