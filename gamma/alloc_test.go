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
		ws := m.NewWorkspace()
		m.ZeroGrad()
		l, err := ws.Forward(b, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ws.Backward(); err != nil {
			t.Fatal(err)
		}
		var gs [][]float64
		for _, g := range m.Grads() {
			gs = append(gs, append([]float64(nil), g.Data...))
		}
		return l, gs
	}
	l1, g1 := run(1)
	l4, g4 := run(4)
	if l1 != l4 {
		t.Fatalf("loss %v on one core, %v on four", l1, l4)
	}
	for i := range g1 {
		for j := range g1[i] {
			if g1[i][j] != g4[i][j] {
				t.Fatalf("%s[%d]: %v on one core, %v on four", m.params[i].Name, j, g1[i][j], g4[i][j])
			}
		}
	}
}
