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
