package gamma

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestBackwardOverZeroedGrads checks the two ways Backward puts the entity
// table's gradient down: written over gradients known to be zero
// (ZeroGrad) it equals the sum into gradients zeroed behind the model's
// back; and after a Backward the gradients are no longer known to be zero,
// so a second one adds to them (twice the first, to rounding).
func TestBackwardOverZeroedGrads(t *testing.T) {
	for _, o := range []Objective{{}, {Kind: "all"}} {
		t.Run(o.Kind, func(t *testing.T) { backwardOverZeroedGrads(t, o) })
	}
}

func backwardOverZeroedGrads(t *testing.T, o Objective) {
	_, m64, m, _ := twinModels(t, 60, 24, 40, 7)
	b := randomBatch(t, m64, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 30, 8, rand.New(rand.NewPCG(7, 7)))
	b.Objective = o
	step := func() {
		t.Helper()
		ws := m.NewWorkspace()
		if _, err := ws.Forward(b, nil); err != nil {
			t.Fatal(err)
		}
		if err := ws.Backward(); err != nil {
			t.Fatal(err)
		}
	}
	grads := func() [][]float32 {
		var gs [][]float32
		for _, g := range m.Grads() {
			gs = append(gs, append([]float32(nil), g.Data...))
		}
		return gs
	}
	m.ZeroGrad()
	step()
	written := grads()
	for _, g := range m.Grads() { // zero, but not known to be
		clear(g.Data)
	}
	step()
	added := grads()
	step()
	twice := grads()
	for i := range written {
		scale := 0.0 // rounding of the sums is relative to the tensor's size
		for _, w := range written[i] {
			scale = max(scale, math.Abs(float64(w)))
		}
		for j, w := range written[i] {
			if added[i][j] != w { // +0 and −0 compare equal
				t.Fatalf("%s[%d]: %g written, %g added", m.params[i].Name, j, w, added[i][j])
			}
			if d := math.Abs(float64(twice[i][j] - 2*w)); d > 1e-5*scale {
				t.Fatalf("%s[%d]: %g after two steps, want twice %g", m.params[i].Name, j, twice[i][j], w)
			}
		}
	}
}
