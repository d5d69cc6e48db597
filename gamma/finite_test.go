package gamma

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// gradStates are the states a Backward can begin from, each with its way
// to set it up.
var gradStates = []struct {
	name  string
	setup func(m *Model[float64])
}{
	{"ZeroGrad", func(m *Model[float64]) { m.ZeroGrad() }},
	{"GradsZeroed", func(m *Model[float64]) { m.ZeroGrad(); m.GradsZeroed() }},
	// What an optimiser that zeroes all but the entity gradient leaves:
	// the table's gradient is garbage, NaN included.
	{"EntityGradStale", func(m *Model[float64]) {
		m.ZeroGrad()
		g := m.grad(m.entity)
		for i := range g {
			g[i] = float64(i%7) - 3
		}
		g[0], g[len(g)-1] = math.NaN(), math.Inf(1)
		m.EntityGradStale()
	}},
}

// TestBackwardOverwritesStaleEntityGrad: from every starting state, a
// Backward gives the gradients of a Backward from zero, bit for bit; the
// entity rows no candidate reaches included.
func TestBackwardOverwritesStaleEntityGrad(t *testing.T) {
	cfg := tinyConfig(UnionMoment)
	cfg.Entities, cfg.Dim = 300, 8
	m := mustNew64(t, cfg)
	// Few candidates, so that many rows (the first and last included) are
	// reached by none.
	b := randomBatch(t, m, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 6, 3, rand.New(rand.NewPCG(5, 5)))
	l0, g0 := trainStep(t, m, b, nil)
	for _, st := range gradStates {
		st.setup(m)
		l, gs, ws := stepFrom(t, m, b, nil)
		sameSteps(t, m, l0, l, g0, gs, "from "+st.name)
		if name := ws.GradNonFinite(); name != "" {
			t.Errorf("from %s: GradNonFinite = %q, want none", st.name, name)
		}
	}
}

// TestGradNonFinite: a NaN or an infinity is found wherever Backward put
// it: in a candidate's entity row (checked as it is written), in an
// anchor's row, or in another parameter's gradient; and, after a
// Backward that added to the table, anywhere in it.
func TestGradNonFinite(t *testing.T) {
	cfg := tinyConfig(UnionMoment)
	cfg.Entities, cfg.Dim = 300, 8
	m := mustNew64(t, cfg)
	b := randomBatch(t, m, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 6, 3, rand.New(rand.NewPCG(6, 6)))
	ws := m.NewWorkspace()
	step := func(poke func()) string {
		t.Helper()
		if _, err := ws.Forward(b, nil); err != nil {
			t.Fatal(err)
		}
		if err := ws.Backward(); err != nil {
			t.Fatal(err)
		}
		if poke != nil {
			poke()
		}
		return ws.GradNonFinite()
	}
	entity := m.params[m.entity].Name
	d := cfg.Dim
	anchor := int(b.Groups[0].IDs[0]) // slot 0 of "(e,(r,r))" is its anchor

	m.EntityGradStale()
	if got := step(nil); got != "" {
		t.Fatalf("clean step: %q", got)
	}

	testHookEntityGrad = func(df any) { df.([]float64)[1] = math.NaN() }
	m.EntityGradStale()
	got := step(nil)
	testHookEntityGrad = nil
	if got != entity {
		t.Errorf("NaN in a candidate's row: %q, want %q", got, entity)
	}

	m.EntityGradStale()
	if got := step(func() { m.grads[m.entity][anchor*2*d+3] = math.Inf(-1) }); got != entity {
		t.Errorf("infinity in an anchor's row: %q, want %q", got, entity)
	}

	other := m.projA[0].w
	m.ZeroGrad()
	if got := step(func() { m.grads[other][len(m.grads[other])-1] = math.NaN() }); got != m.params[other].Name {
		t.Errorf("NaN in %s: %q", m.params[other].Name, got)
	}
	m.grads[other][len(m.grads[other])-1] = 0

	// Accumulating (no zeroing since the last step): the whole table is read.
	var row int
	for row = 0; slices.Contains(b.Groups[0].IDs, int32(row)); row++ {
	}
	if got := step(func() { m.grads[m.entity][row*2*d] = math.NaN() }); got != entity {
		t.Errorf("NaN in the table after an accumulating Backward: %q, want %q", got, entity)
	}

	// Squares past the range count as overflow.
	m.ZeroGrad()
	if got := step(func() { m.grads[other][0] = 1e200 }); got != m.params[other].Name {
		t.Errorf("1e200 in %s: %q", m.params[other].Name, got)
	}
}
