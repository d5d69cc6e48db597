package gamma

import (
	"math"
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

// TestDropout checks the mask's rate, that the kept units' scale keeps the
// expectation, and that a seed gives the same mask.
func TestDropout(t *testing.T) {
	for _, p := range []float64{0.05, 0.1, 0.3, 0.5} {
		const n = 1 << 17
		x, y := make([]float32, n), make([]float32, n)
		for i := range x {
			x[i], y[i] = 1, 1
		}
		s1, s2 := uint64(7), uint64(7)
		scale := dropout(x, p, &s1)
		dropout(y, p, &s2)
		dropped, sum := 0, 0.0
		for i, v := range x {
			switch {
			case v != y[i]:
				t.Fatalf("p=%v: unit %d differs between two draws from one seed", p, i)
			case v == 0:
				dropped++
			case v != scale:
				t.Fatalf("p=%v: kept unit %d is %v, want the scale %v", p, i, v, scale)
			}
			sum += float64(v)
		}
		if rate := float64(dropped) / n; math.Abs(rate-p) > 0.01 {
			t.Errorf("p=%v: dropped %.4f of the units", p, rate)
		}
		if mean := sum / n; math.Abs(mean-1) > 0.02 {
			t.Errorf("p=%v: mean after dropout %.4f, want 1", p, mean)
		}
	}
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
