package train

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/kg"
)

// TestDecayWeights: (degree + 1)^P over out- and in-edges, mean 1.
func TestDecayWeights(t *testing.T) {
	// Degrees (out + in): 0 → 3, 1 → 2, 2 → 1, 3 → 0.
	g, err := kg.NewGraph(4, 2, []kg.Triple{{H: 0, R: 0, T: 1}, {H: 0, R: 1, T: 1}, {H: 0, R: 0, T: 2}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		power float64
		want  []float64
	}{
		{0, []float64{1, 1, 1, 1}},
		{1, []float64{4 / 2.5, 3 / 2.5, 2 / 2.5, 1 / 2.5}},
		{-1, []float64{0.25 / (25.0 / 48), (1.0 / 3) / (25.0 / 48), 0.5 / (25.0 / 48), 1 / (25.0 / 48)}},
	} {
		got := decayWeights(g, c.power)
		for e := range got {
			if math.Abs(got[e]-c.want[e]) > 1e-12 {
				t.Errorf("power %g: weights %v, want %v", c.power, got, c.want)
				break
			}
		}
	}
}

// TestShrinkEntities: the per-row shrink, then Adam's step, gives the bits
// of Adam's own per-tensor shrink where every weight is 1, and scales each
// row by its own factor otherwise.
func TestShrinkEntities(t *testing.T) {
	newTrainer := func(w []float64) *trainer {
		mc := gamma.Config{Entities: 5, Relations: 2, Dim: 4, Hidden: 8, Layers: 2, Gamma: 12, Epsilon: 0.07, Union: gamma.UnionMoment}
		m, err := gamma.New[float32](mc, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		cfg := tinyConfig()
		cfg.LR, cfg.EntityDecay = 0.01, 20
		tr := &trainer{cfg: cfg, model: m, decayW: w}
		tr.opt = adam[float32](&tr.cfg)
		_, grads := m.Tensors()
		for _, g := range grads {
			for j := range g {
				g[j] = float32(j%7) - 3
			}
		}
		return tr
	}
	ones := newTrainer([]float64{1, 1, 1, 1, 1})
	ones.setShrink()
	ones.shrinkEntities()
	adamOwn := newTrainer(nil)
	adamOwn.setShrink()
	for _, tr := range []*trainer{ones, adamOwn} {
		if err := tr.opt.Step(tr.model.Tensors()); err != nil {
			t.Fatal(err)
		}
	}
	pa, _ := ones.model.Tensors()
	pb, _ := adamOwn.model.Tensors()
	for i := range pa {
		if !slices.Equal(pa[i], pb[i]) {
			t.Errorf("parameter %d: the per-row shrink with weights 1 differs from Adam's shrink", i)
		}
	}

	w := []float64{0.5, 1, 1.5, 2, 0}
	tr := newTrainer(w)
	e := tr.model.EntityParam()
	before := slices.Clone(tr.model.Params()[e].Data)
	tr.shrinkEntities()
	after := tr.model.Params()[e].Data
	cols := len(before) / len(w)
	for i, v := range before {
		f := float32(1 - 0.01*20*w[i/cols])
		if after[i] != v*f {
			t.Fatalf("entity %d value %d: %v after the shrink, want %v·%v", i/cols, i%cols, after[i], v, f)
		}
	}
}

// TestEntityDecayPower: a run with the weighted decay trains and resumes
// exactly, and a weight that would shrink a row to zero or less is an
// error naming the decay.
func TestEntityDecayPower(t *testing.T) {
	d := tinyDataset(t)
	cfg := tinyConfig()
	cfg.EntityDecay, cfg.EntityDecayPower = 5, 1
	testResumeIsExact(t, d, cfg)

	cfg.LR, cfg.EntityDecay = 0.01, 90 // the mean entity's shrink 0.1: a hub's below 0
	if _, err := Run(context.Background(), cfg, d, Options{}); err == nil || !strings.Contains(err.Error(), "the most connected entity's shrink") {
		t.Errorf("decay past 1 for the hubs: error %v", err)
	}
}
