package gamma

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestUnionUnderflowedWeights: when a branch's attention weights underflow
// (aᵢ = 0 in float32, bᵢ below 1e-20), ∂S2/∂kᵢ = oᵢ² passes 1e40. The
// union's backward must still give finite gradients (the logit's gradient
// aᵢ·(…) is 0 there), not Inf from float32 and then NaN from 0·Inf.
func TestUnionUnderflowedWeights(t *testing.T) {
	cfg := tinyConfig(UnionMoment)
	cfg.Dim, cfg.Hidden = 16, 16
	rng := rand.New(rand.NewPCG(3, 3))
	m, err := New[float32](cfg, rng)
	if err != nil {
		t.Fatal(err)
	}
	// Attention logits hundreds apart between the branches: most elements
	// have one branch's weights underflowed in both nets.
	for _, name := range []string{"union_net.layer_alpha3.weight", "union_net.layer_beta3.weight"} {
		w := m.params[m.index(name)].Data
		for i := range w {
			w[i] *= 2000
		}
	}
	m.ParamsChanged()
	b := randomBatch(t, m, []string{"((e,(r,)),(e,(r,)),(u,))", "(((e,(r,)),(e,(r,)),(u,)),(r,))"}, 16, 8, rng)
	ws := m.NewWorkspace()
	l, err := ws.Forward(b, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(l.Loss) || math.IsInf(l.Loss, 0) {
		t.Fatalf("loss %v", l.Loss)
	}
	m.ZeroGrad()
	if err := ws.Backward(); err != nil {
		t.Fatal(err)
	}
	under := 0
	for _, r := range ws.train.runs {
		for _, nd := range r.nodes {
			if u, ok := nd.(*unionNode[float32]); ok {
				for _, w := range u.wa {
					if w == 0 {
						under++
					}
				}
			}
		}
	}
	if under == 0 {
		t.Fatal("test setup: no underflowed union weight")
	}
	for _, g := range m.Grads() {
		for j, v := range g.Data {
			if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
				t.Fatalf("%s[%d] = %v (%d underflowed weights)", g.Name, j, v, under)
			}
		}
	}
}
