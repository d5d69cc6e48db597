package gamma

import (
	"math"
	"math/rand/v2"
	"testing"
)

// naiveLogit scores entity e against row b of an embedding straight from
// the definition: γ − Σ_d |KL|, per component, combined per union mode.
func naiveLogit(m *Model[float64], e Embedding[float64], b, ent int) float64 {
	d := m.cfg.Dim
	tab := m.params[m.entity].Data[ent*2*d:]
	k := e.Components()
	dist := make([]float64, k)
	theta := make([]float64, k)
	for c := 0; c < k; c++ {
		for j := 0; j < d; j++ {
			dist[c] += math.Abs(KL(reg(tab[j]), reg(tab[d+j]), e.Alpha[c][b*d+j], e.Beta[c][b*d+j]))
		}
		theta[c] = e.Theta(c, b)
	}
	D := dist[0]
	switch {
	case k > 1 && e.mode == UnionDNF:
		for _, v := range dist {
			D = min(D, v)
		}
	case k > 1:
		s := 0.0
		for c := range dist {
			s += theta[c] * math.Exp(-dist[c])
		}
		D = -math.Log(s)
	}
	return m.cfg.Gamma - D
}

// TestScoreAll compares ScoreAll, and the training path's candidate
// logits, with the naive per-entity KL loop.
func TestScoreAll(t *testing.T) {
	cases := []struct {
		mode  Union
		shape string
	}{
		{UnionMoment, "(e,(r,r))"},
		{UnionMoment, "((e,(r,)),(e,(r,n)))"},
		{UnionMoment, "(((e,(r,)),(e,(r,)),(u,)),(r,))"},
		{UnionDNF, "(((e,(r,)),(e,(r,)),(u,)),(r,))"},
		{UnionMixture, "((e,(r,)),((e,(r,)),(e,(r,)),(u,)))"},
		{UnionDM, "((e,(r,)),(e,(r,)),(u,))"},
	}
	for i, c := range cases {
		cfg := tinyConfig(c.mode)
		cfg.Entities = 23
		rng := rand.New(rand.NewPCG(uint64(i), 3))
		m, err := New[float64](cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		b := randomBatch(t, m, []string{c.shape}, 5, 6, rng)
		ws := m.NewWorkspace()
		if _, err := ws.Forward(b, nil); err != nil {
			t.Fatal(err)
		}
		train := append([]float64(nil), ws.train.logits...)
		e, err := ws.Embed(b.Groups[0].Program, b.Groups[0].IDs)
		if err != nil {
			t.Fatal(err)
		}
		all := make([]float64, e.Rows*cfg.Entities)
		if err := ws.ScoreAll(e, all); err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for r := 0; r < e.Rows; r++ {
			for ent := 0; ent < cfg.Entities; ent++ {
				want := naiveLogit(m, e, r, ent)
				got := all[r*cfg.Entities+ent]
				worst = max(worst, math.Abs(got-want)/max(1, math.Abs(want)))
			}
			cands := append([]int32{b.Positive[r]}, b.Negative[r*b.Negatives:(r+1)*b.Negatives]...)
			for j, ent := range cands {
				got, want := train[r*(b.Negatives+1)+j], all[r*cfg.Entities+int(ent)]
				if math.Abs(got-want) > 1e-12*max(1, math.Abs(want)) {
					t.Errorf("%s %s row %d entity %d: training logit %v, ScoreAll %v", c.mode, c.shape, r, ent, got, want)
				}
			}
		}
		if worst > 1e-12 {
			t.Errorf("%s %s: ScoreAll differs from the naive KL loop by %g", c.mode, c.shape, worst)
		}
	}
}

// TestScoreAllCache checks that ScoreAll reuses the entity features until
// ParamsChanged, and recomputes them after.
func TestScoreAllCache(t *testing.T) {
	m, err := New[float64](tinyConfig(UnionMoment), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	ws := m.NewWorkspace()
	b := randomBatch(t, m, []string{"(e,(r,))"}, 1, 1, rand.New(rand.NewPCG(2, 2)))
	// An entity other than the anchor, whose raw row is not cached.
	target := (int(b.Groups[0].IDs[0]) + 1) % m.cfg.Entities
	score := func() float64 {
		e, err := ws.Embed(b.Groups[0].Program, b.Groups[0].IDs)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float64, m.cfg.Entities)
		if err := ws.ScoreAll(e, out); err != nil {
			t.Fatal(err)
		}
		return out[target]
	}
	before := score()
	ent := m.params[m.entity].Data
	for j := 0; j < 2*m.cfg.Dim; j++ {
		ent[target*2*m.cfg.Dim+j] += 0.1
	}
	if got := score(); got != before {
		t.Fatalf("score changed without ParamsChanged: cache not used")
	}
	m.ParamsChanged()
	if got := score(); got == before {
		t.Fatalf("score unchanged after ParamsChanged")
	}
}

// TestInferenceFloat32 checks float32 inference (embedding and ScoreAll)
// against float64 for one row (the small matrix path) and several (the
// packed weights and features), and that repeated calls reuse the packs
// until ParamsChanged.
func TestInferenceFloat32(t *testing.T) {
	cfg, m64, m32, rng := twinModels(t, 300, 40, 70, 9)
	b := randomBatch(t, m64, []string{"((e,(r,)),(e,(r,n)))", "(e,(r,r,r))"}, 7, 3, rng)
	ws64, ws32 := m64.NewWorkspace(), m32.NewWorkspace()
	for _, g := range b.Groups {
		for _, rows := range []int{1, 7} {
			ids := g.IDs[:rows*g.Program.Slots()]
			e64, err := ws64.Embed(g.Program, ids)
			if err != nil {
				t.Fatal(err)
			}
			want := make([]float64, rows*cfg.Entities)
			if err := ws64.ScoreAll(e64, want); err != nil {
				t.Fatal(err)
			}
			for rep := 0; rep < 2; rep++ {
				e32, err := ws32.Embed(g.Program, ids)
				if err != nil {
					t.Fatal(err)
				}
				got := make([]float32, rows*cfg.Entities)
				if err := ws32.ScoreAll(e32, got); err != nil {
					t.Fatal(err)
				}
				for i, w := range want {
					if math.Abs(float64(got[i])-w) > 1e-4*max(1, math.Abs(w)) {
						t.Fatalf("%s rows=%d rep %d: logit %d = %g, float64 %g", g.Program.Shape(), rows, rep, i, got[i], w)
					}
				}
			}
		}
	}
	if len(m32.packs) == 0 {
		t.Error("no packed weights after inference of several rows")
	}
	if m32.halves == nil {
		t.Error("no relation halves after inference")
	}
	m32.ParamsChanged()
	if m32.packs != nil || m32.feats != nil || m32.halves != nil {
		t.Error("ParamsChanged kept packed weights, features or relation halves")
	}
}

// TestScoreAllUnionsFloat32: the float32 combining of union components
// (vectorised exp and log for the mixture, split over goroutines on a
// table this large) gives the float64 model's logits.
func TestScoreAllUnionsFloat32(t *testing.T) {
	for i, mode := range []Union{UnionMixture, UnionDNF} {
		cfg := tinyConfig(mode)
		cfg.Entities = 3000
		rng := rand.New(rand.NewPCG(uint64(i), 11))
		m64, m32 := twins(t, cfg, rng)
		g := randomBatch(t, m64, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))"}, 24, 2, rng).Groups[0]
		e64, err := m64.NewWorkspace().Embed(g.Program, g.IDs)
		if err != nil {
			t.Fatal(err)
		}
		ws32 := m32.NewWorkspace()
		e32, err := ws32.Embed(g.Program, g.IDs)
		if err != nil {
			t.Fatal(err)
		}
		want := make([]float64, e64.Rows*cfg.Entities)
		if err := m64.NewWorkspace().ScoreAll(e64, want); err != nil {
			t.Fatal(err)
		}
		got := make([]float32, len(want))
		if err := ws32.ScoreAll(e32, got); err != nil {
			t.Fatal(err)
		}
		for j, w := range want {
			if math.Abs(float64(got[j])-w) > 1e-4*max(1, math.Abs(w)) {
				t.Fatalf("%s logit %d: %g in float32, %g in float64", mode, j, got[j], w)
			}
		}
	}
}

// TestPackedWeightsFollowParams checks that inference after a training
// step uses the current weights: after the parameters change and
// ParamsChanged, the scores of several rows (packed weights and features)
// are those of a model built from the new parameters.
func TestPackedWeightsFollowParams(t *testing.T) {
	cfg, m64, m, rng := twinModels(t, 60, 24, 40, 4)
	b := randomBatch(t, m64, []string{"(e,(r,r))"}, 6, 4, rng)
	g := b.Groups[0]
	scores := func(m *Model[float32]) []float32 {
		ws := m.NewWorkspace()
		e, err := ws.Embed(g.Program, g.IDs)
		if err != nil {
			t.Fatal(err)
		}
		out := make([]float32, e.Rows*cfg.Entities)
		if err := ws.ScoreAll(e, out); err != nil {
			t.Fatal(err)
		}
		return out
	}
	scores(m)                      // packs the weights and features
	for _, p := range m.Params() { // an "optimiser step"
		for i := range p.Data {
			p.Data[i] *= 1.01
		}
	}
	m.ParamsChanged()
	got := scores(m)
	fresh, err := Load[float32](cfg, m.Params())
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range scores(fresh) {
		if got[i] != want {
			t.Fatalf("score %d after the update: %g, fresh model %g", i, got[i], want)
		}
	}
}

// twinModels returns a random float64 model of the given sizes and its
// float32 copy, with the random source that made it.
func twinModels(t *testing.T, entities, dim, hidden int, seed uint64) (Config, *Model[float64], *Model[float32], *rand.Rand) {
	t.Helper()
	cfg := tinyConfig(UnionMoment)
	cfg.Entities, cfg.Dim, cfg.Hidden = entities, dim, hidden
	rng := rand.New(rand.NewPCG(seed, seed))
	m64, m32 := twins(t, cfg, rng)
	return cfg, m64, m32, rng
}

// twins returns a random float64 model of cfg drawn from rng and its
// float32 copy.
func twins(t *testing.T, cfg Config, rng *rand.Rand) (*Model[float64], *Model[float32]) {
	t.Helper()
	m64, err := New[float64](cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	m32, err := Load[float32](cfg, m64.Params())
	if err != nil {
		t.Fatal(err)
	}
	return m64, m32
}

// TestScoreAllBF16: with bfloat16 products the logits are the float32
// ones up to the operands' rounding (2⁻⁸ relative, on the distance's dot
// product of inner size 2d), for every union mode; precision is checked.
func TestScoreAllBF16(t *testing.T) {
	for i, mode := range []Union{UnionMoment, UnionMixture, UnionDNF} {
		cfg := tinyConfig(mode)
		cfg.Entities, cfg.Dim = 40, 16
		rng := rand.New(rand.NewPCG(uint64(i), 5))
		m, err := New[float32](cfg, rng)
		if err != nil {
			t.Fatal(err)
		}
		b := randomBatch(t, m, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))"}, 9, 2, rng)
		ws := m.NewWorkspace()
		e, err := ws.Embed(b.Groups[0].Program, b.Groups[0].IDs)
		if err != nil {
			t.Fatal(err)
		}
		fp32 := make([]float32, e.Rows*cfg.Entities)
		if err := ws.ScoreAll(e, fp32); err != nil {
			t.Fatal(err)
		}
		if err := m.SetPrecision("bf16"); err != nil || m.Precision() != "bf16" {
			t.Fatalf("SetPrecision(bf16): %v, %s", err, m.Precision())
		}
		bf16 := make([]float32, len(fp32))
		if err := ws.ScoreAll(e, bf16); err != nil {
			t.Fatal(err)
		}
		differ := false
		for j := range fp32 {
			// The dot product's terms are at most a few times the logit's
			// distance: 3 % of it, plus a little, bounds 2⁻⁷ of the terms.
			if d := math.Abs(float64(fp32[j] - bf16[j])); d > 0.03*math.Abs(cfg.Gamma-float64(fp32[j]))+0.05 {
				t.Errorf("%s logit %d: %g in fp32, %g with bf16 products", mode, j, fp32[j], bf16[j])
			}
			differ = differ || fp32[j] != bf16[j]
		}
		if !differ {
			t.Errorf("%s: bf16 logits equal fp32's to the bit: bf16 not used", mode)
		}
		// Embedding in bf16 rounds the MLPs' operands too: the embedding
		// moves within their rounding, and so do the logits.
		e16, err := ws.Embed(b.Groups[0].Program, b.Groups[0].IDs)
		if err != nil {
			t.Fatal(err)
		}
		both := make([]float32, len(fp32))
		if err := ws.ScoreAll(e16, both); err != nil {
			t.Fatal(err)
		}
		moved := false
		for j := range fp32 {
			if d := math.Abs(float64(fp32[j] - both[j])); d > 0.06*math.Abs(cfg.Gamma-float64(fp32[j]))+0.1 {
				t.Errorf("%s logit %d: %g in fp32, %g with a bf16 embedding", mode, j, fp32[j], both[j])
			}
			moved = moved || both[j] != bf16[j]
		}
		if !moved {
			t.Errorf("%s: the bf16 embedding did not move a logit: bf16 products not used", mode)
		}
		m.SetPrecision("fp32")
	}
	m64, err := New[float64](tinyConfig(UnionMoment), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	if err := m64.SetPrecision("bf16"); err == nil {
		t.Error("a float64 model accepted bf16 scoring")
	}
	if err := m64.SetPrecision("fp8"); err == nil {
		t.Error("precision fp8 accepted")
	}
}
