package gamma

import (
	"math/rand/v2"
	"testing"
)

// TestTrainPacksFollowParams checks that a training step after the
// parameters changed multiplies by the new weights: the weight blocks
// packed for the previous step are packed again, into the same storage,
// and the loss and every gradient are those of a model built from the new
// parameters. The batch's levels have many rows, a few (the blocked and
// the packed small kernels) and one (the unpacked path).
func TestTrainPacksFollowParams(t *testing.T) {
	cfg, m64, m, _ := twinModels(t, 60, 24, 40, 5)
	shapes := []string{"(e,(r,r,r))", "((e,(r,)),(e,(r,)),(e,(r,n)))"}
	b := randomBatch(t, m64, shapes, 40, 4, rand.New(rand.NewPCG(5, 6)))
	one := randomBatch(t, m64, []string{"((e,(r,)),(e,(r,)))"}, 1, 4, rand.New(rand.NewPCG(7, 8)))
	b.Groups = append(b.Groups, one.Groups...)
	b.Positive, b.Negative = append(b.Positive, one.Positive...), append(b.Negative, one.Negative...)
	b.Weight = append(b.Weight, one.Weight...)
	step := func(m *Model[float32]) (Loss, [][]float32) {
		return trainStep(t, m, b, rand.New(rand.NewPCG(1, 1)))
	}
	step(m) // packs the weights
	if len(m.tpacks) == 0 {
		t.Fatal("a float32 training step packed no weights")
	}
	for _, p := range m.Params() { // an "optimiser step"
		for i := range p.Data {
			p.Data[i] *= 1.01
		}
	}
	m.ParamsChanged()
	l, gs := step(m)
	fresh, err := Load[float32](cfg, m.Params())
	if err != nil {
		t.Fatal(err)
	}
	wl, wgs := step(fresh)
	sameSteps(t, m, l, wl, gs, wgs, "fresh model")
}

// TestProjectionDropoutTrainingOnly checks that projection dropout changes
// the training loss and leaves inference as it is.
func TestProjectionDropoutTrainingOnly(t *testing.T) {
	cfg := tinyConfig(UnionMoment)
	plain, err := New[float64](cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ProjectionDropout = 0.5
	dropped, err := New[float64](cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	b := randomBatch(t, plain, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 4, 4, rand.New(rand.NewPCG(3, 4)))
	lp, err := plain.NewWorkspace().Forward(b, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	wd := dropped.NewWorkspace()
	ld, err := wd.Forward(b, rand.New(rand.NewPCG(5, 6)))
	if err != nil {
		t.Fatal(err)
	}
	if lp.Loss == ld.Loss {
		t.Errorf("projection dropout 0.5 left the training loss at %v", lp.Loss)
	}
	if _, err := wd.Forward(b, nil); err == nil {
		t.Error("projection dropout without a random source: no error")
	}
	for _, g := range b.Groups {
		ep, err := plain.NewWorkspace().Embed(g.Program, g.IDs)
		if err != nil {
			t.Fatal(err)
		}
		ed, err := dropped.NewWorkspace().Embed(g.Program, g.IDs)
		if err != nil {
			t.Fatal(err)
		}
		for k := range ep.Alpha {
			for i := range ep.Alpha[k] {
				if ep.Alpha[k][i] != ed.Alpha[k][i] || ep.Beta[k][i] != ed.Beta[k][i] {
					t.Fatalf("inference with projection dropout differs at component %d, value %d", k, i)
				}
			}
		}
	}
}

// TestProjectionDropoutRoot checks that dropout at the roots only leaves
// the queries without a last projection (2i: its projections feed the
// intersection) as they are and drops in those with one (1p, 2p).
func TestProjectionDropoutRoot(t *testing.T) {
	cfg := tinyConfig(UnionMoment)
	plain, err := New[float64](cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	cfg.ProjectionDropout, cfg.ProjectionDropoutRoot = 0.5, true
	dropped, err := New[float64](cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		shape string
		drops bool
	}{
		{"((e,(r,)),(e,(r,)))", false},
		{"((e,(r,)),(e,(r,n)))", false},
		{"(e,(r,))", true},
		{"(e,(r,r))", true},
	} {
		b := randomBatch(t, plain, []string{c.shape}, 4, 4, rand.New(rand.NewPCG(3, 4)))
		lp, err := plain.NewWorkspace().Forward(b, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		ld, err := dropped.NewWorkspace().Forward(b, rand.New(rand.NewPCG(5, 6)))
		if err != nil {
			t.Fatal(err)
		}
		if (lp.Loss != ld.Loss) != c.drops {
			t.Errorf("%s: training loss %v without dropout, %v with it at the roots; want them to differ: %v", c.shape, lp.Loss, ld.Loss, c.drops)
		}
	}
}
