package gamma

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/gammae/gammae/internal/cputime"
	"github.com/gammae/gammae/optim"
)

// cpuTime is the process's CPU time, for the per-CPU-second rates.
var cpuTime = cputime.Process

// pathShapes and otherShapes are the two kinds of training batches: path
// queries, and the intersection and negation structures.
var (
	pathShapes  = []string{"(e,(r,))", "(e,(r,r))", "(e,(r,r,r))"}
	otherShapes = []string{
		"((e,(r,)),(e,(r,)))", "((e,(r,)),(e,(r,)),(e,(r,)))", // 2i 3i
		"((e,(r,)),(e,(r,n)))", "((e,(r,)),(e,(r,)),(e,(r,n)))", // 2in 3in
		"(((e,(r,)),(e,(r,n))),(r,))", "((e,(r,r)),(e,(r,n)))", "((e,(r,r,n)),(e,(r,)))", // inp pin pni
	}
)

// BenchmarkTrainStep times one optimiser step (forward, backward, Adam) on
// a FB15k-237-sized model with a batch of 512 path queries (1p/2p/3p) and
// 128 negatives each, in float32.
func BenchmarkTrainStep(b *testing.B) { benchTrainStep(b, pathShapes) }

// BenchmarkTrainStepOther is BenchmarkTrainStep on a batch of the
// intersection and negation structures (2i/3i/2in/3in/inp/pin/pni).
func BenchmarkTrainStepOther(b *testing.B) { benchTrainStep(b, otherShapes) }

func benchTrainStep(b *testing.B, shapes []string) {
	for _, size := range []struct{ d, h, l int }{{400, 800, 2}, {800, 1600, 4}} {
		b.Run(fmt.Sprintf("d=%d,h=%d,L=%d", size.d, size.h, size.l), func(b *testing.B) {
			cfg := DefaultConfig(14505, 474)
			cfg.Dim, cfg.Hidden, cfg.Layers = size.d, size.h, size.l
			rng := rand.New(rand.NewPCG(1, 2))
			m, err := New[float32](cfg, rng)
			if err != nil {
				b.Fatal(err)
			}
			batch := benchBatch(b, m, shapes, 512, 128, rng)
			ws := m.NewWorkspace()
			opt := optim.NewAdam[float32](1e-4)
			params := make([][]float32, len(m.Params()))
			for i, p := range m.Params() {
				params[i] = p.Data
			}
			grads := make([][]float32, len(params))
			step := func() {
				if _, err := ws.Forward(batch, rng); err != nil {
					b.Fatal(err)
				}
				m.ZeroGrad()
				if err := ws.Backward(); err != nil {
					b.Fatal(err)
				}
				for i, g := range m.Grads() {
					grads[i] = g.Data
				}
				if err := opt.Step(params, grads); err != nil {
					b.Fatal(err)
				}
				m.ParamsChanged()
			}
			step() // settle buffer sizes
			b.ResetTimer()
			c0 := cpuTime()
			for i := 0; i < b.N; i++ {
				step()
			}
			// CPU time per step stays honest when other processes share
			// the cores; on two idle cores the wall time is about half.
			if c := cpuTime() - c0; c > 0 {
				b.ReportMetric(c.Seconds()/float64(b.N), "cpu-s/op")
			}
		})
	}
}

func benchBatch(b *testing.B, m *Model[float32], shapes []string, rows, negs int, rng *rand.Rand) *Batch {
	batch := &Batch{Negatives: negs}
	for i, s := range shapes {
		p := mustCompile(b, s, m.cfg.Mode())
		n := rows / len(shapes)
		if i < rows%len(shapes) {
			n++
		}
		g := Group{Program: p}
		for r := 0; r < n; r++ {
			g.IDs = append(g.IDs, randomIDs(p, m.cfg, rng)...)
			batch.Positive = append(batch.Positive, int32(rng.IntN(m.cfg.Entities)))
			for j := 0; j < negs; j++ {
				batch.Negative = append(batch.Negative, int32(rng.IntN(m.cfg.Entities)))
			}
			batch.Weight = append(batch.Weight, 0.1)
		}
		batch.Groups = append(batch.Groups, g)
	}
	return batch
}

// BenchmarkScoreAllUnion times scoring 64 2u queries against all entities
// of a FB15k-237-sized model (d=200), per union mode: the mixture's
// combining of the components should cost about DNF's, not a multiple.
func BenchmarkScoreAllUnion(b *testing.B) {
	for _, mode := range []Union{UnionMoment, UnionDNF, UnionMixture} {
		b.Run(string(mode), func(b *testing.B) {
			cfg := DefaultConfig(14505, 474)
			cfg.Dim, cfg.Hidden, cfg.Union = 200, 400, mode
			rng := rand.New(rand.NewPCG(1, 2))
			m, err := New[float32](cfg, rng)
			if err != nil {
				b.Fatal(err)
			}
			g := benchBatch(b, m, []string{"((e,(r,)),(e,(r,)),(u,))"}, 64, 1, rng).Groups[0]
			ws := m.NewWorkspace()
			e, err := ws.Embed(g.Program, g.IDs)
			if err != nil {
				b.Fatal(err)
			}
			dst := make([]float32, e.Rows*cfg.Entities)
			if err := ws.ScoreAll(e, dst); err != nil { // entity features, buffers
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if err := ws.ScoreAll(e, dst); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRowLossShared times the shared loss's per-row work (softmax
// cross-entropy with label smoothing) on a batch of 512 rows of 2,561
// candidates (2,048 shared negatives and the 512 positives, as fast-long
// trains), without and with the sigmoid term.
func BenchmarkRowLossShared(b *testing.B) {
	for _, sig := range []float64{0, 0.3} {
		b.Run(fmt.Sprintf("sigmoid=%g", sig), func(b *testing.B) {
			t := syntheticRows[float32](Objective{Kind: "shared", Smoothing: 0.2, Sigmoid: sig}, 512, 2561, 3)
			c0 := cpuTime()
			for b.Loop() {
				t.rowLosses()
			}
			if c := cpuTime() - c0; c > 0 {
				b.ReportMetric(c.Seconds()/float64(b.N)*1e3, "cpu-ms/op")
			}
		})
	}
}
