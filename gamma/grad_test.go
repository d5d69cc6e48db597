package gamma

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gammae/gammae/internal/kernel"
	"github.com/gammae/gammae/query"
)

// tinyConfig is small enough to finite-difference every parameter.
func tinyConfig(mode Union) Config {
	return Config{
		Entities: 9, Relations: 4, Dim: 4, Hidden: 5, Layers: 2,
		Gamma: 6, Epsilon: 0.07, InitRange: 0.6, Union: mode,
	}
}

// randomBatch draws rows queries of each shape with n negatives.
func randomBatch[T kernel.Float](t *testing.T, m *Model[T], shapes []string, rows, n int, rng *rand.Rand) *Batch {
	t.Helper()
	b := &Batch{Negatives: n}
	for _, s := range shapes {
		g := Group{Program: mustCompile(t, s, m.cfg.Mode())}
		p := g.Program
		for r := 0; r < rows; r++ {
			g.IDs = append(g.IDs, randomIDs(p, m.cfg, rng)...)
			b.Positive = append(b.Positive, int32(rng.IntN(m.cfg.Entities)))
			for j := 0; j < n; j++ {
				b.Negative = append(b.Negative, int32(rng.IntN(m.cfg.Entities)))
			}
			b.Weight = append(b.Weight, 0.2+rng.Float64())
		}
		b.Groups = append(b.Groups, g)
	}
	return b
}

// shareNegatives turns b's per-row negatives into k shared by every row
// (Objective "shared"), duplicates and positives among them as they fall.
func shareNegatives(b *Batch, k int) {
	b.Shared, b.Negative = b.Negative[:k], nil
}

// excludeSome gives every row of b k of its negatives (shared or not) and
// its positive to exclude (the positive must stay a candidate all the
// same).
func excludeSome(b *Batch, k int, rng *rand.Rand) {
	pool := b.Shared
	if len(pool) == 0 {
		pool = b.Negative
	}
	b.Exclude = make([][]int32, len(b.Positive))
	for r, p := range b.Positive {
		ex := []int32{p}
		for range k {
			ex = append(ex, pool[rng.IntN(len(pool))])
		}
		b.Exclude[r] = ex
	}
}

// trainStep runs a training forward and backward pass of b on a new
// workspace of m, from zeroed gradients, and returns the loss and a copy of
// every gradient.
func trainStep[T kernel.Float](t *testing.T, m *Model[T], b *Batch, rng *rand.Rand) (Loss, [][]T) {
	t.Helper()
	m.ZeroGrad()
	l, gs, _ := stepFrom(t, m, b, rng)
	return l, gs
}

// stepFrom is trainStep from the gradients as they are; it also returns
// the workspace.
func stepFrom[T kernel.Float](t *testing.T, m *Model[T], b *Batch, rng *rand.Rand) (Loss, [][]T, *Workspace[T]) {
	t.Helper()
	ws := m.NewWorkspace()
	l, gs := stepOn(t, m, ws, b, rng)
	return l, gs, ws
}

// stepOn is a training step of b on the workspace ws of m.
func stepOn[T kernel.Float](t *testing.T, m *Model[T], ws *Workspace[T], b *Batch, rng *rand.Rand) (Loss, [][]T) {
	t.Helper()
	l, err := ws.Forward(b, rng)
	if err != nil {
		t.Fatal(err)
	}
	if err := ws.Backward(); err != nil {
		t.Fatal(err)
	}
	var gs [][]T
	for _, g := range m.Grads() {
		gs = append(gs, slices.Clone(g.Data))
	}
	return l, gs
}

// sameSteps fails unless two training steps of m gave the same loss and
// gradients, bit for bit.
func sameSteps[T kernel.Float](t *testing.T, m *Model[T], l1, l2 Loss, g1, g2 [][]T, what string) {
	t.Helper()
	if l1 != l2 {
		t.Fatalf("loss %v, %s %v", l1, what, l2)
	}
	for i := range g1 {
		for j := range g1[i] {
			if g1[i][j] != g2[i][j] {
				t.Fatalf("%s[%d]: %v, %s %v", m.params[i].Name, j, g1[i][j], what, g2[i][j])
			}
		}
	}
}

// randomIDs fills a row of slots: entities for anchors, relations for
// projections.
func randomIDs(p *Program, c Config, rng *rand.Rand) []int32 {
	ids := make([]int32, p.slots)
	for _, in := range p.instrs {
		switch in.kind {
		case opAnchor:
			ids[in.slot] = int32(rng.IntN(c.Entities))
		case opProject:
			ids[in.slot] = int32(rng.IntN(c.Relations))
		}
	}
	return ids
}

// TestGradients compares every parameter's gradient with central finite
// differences of the loss, for every operator and union mode.
func TestGradients(t *testing.T) {
	cases := []struct {
		mode    Union
		shapes  []string
		dropout float64
		live    []string // parameters that must get a non-zero gradient
		repeat  bool     // rows 0 and 1 of every group the same query, and shared first projections across groups
		obj     Objective
		exclude bool    // rows exclude their positive and three random entities (Batch.Exclude)
		pdrop   float64 // projection dropout
		proot   bool    // the projection dropout at the roots only
	}{
		{UnionMoment, []string{"(e,(r,))"}, 0, []string{"entity_embedding", "beta_embedding", "projection_net.layerr0.weight"}, false, Objective{}, false, 0, false},
		{UnionMoment, []string{"(e,(r,r,r))", "(e,(r,))"}, 0, []string{"projection_net.layer2.weight"}, false, Objective{}, false, 0, false},
		{UnionMoment, []string{"((e,(r,)),(e,(r,)),(e,(r,)))"}, 0, []string{"center_net.layer_alpha1.weight", "center_net.layer_beta2.weight"}, false, Objective{}, false, 0, false},
		{UnionMoment, []string{"((e,(r,)),(e,(r,n)))"}, 0, []string{"center_net.layer_beta1.weight"}, false, Objective{}, false, 0, false},
		{UnionMoment, []string{"((e,(r,r,n)),(e,(r,)))"}, 0, []string{"center_net.layer_alpha2.weight"}, false, Objective{}, false, 0, false},
		{UnionMoment, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))"}, 0, []string{"union_net.layer_alpha1.weight", "union_net.layer_beta3.weight"}, false, Objective{}, false, 0, false},
		{UnionMoment, []string{"((e,(r,)),(e,(r,)),(u,))"}, 0.3, []string{"union_net.layer_alpha3.weight", "union_net.layer_beta2.weight"}, false, Objective{}, false, 0, false},
		{UnionMoment, []string{"(((e,(r,n)),(e,(r,n))),(n,r))"}, 0, []string{"center_net.layer_alpha1.weight"}, false, Objective{}, false, 0, false},
		{UnionDNF, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))"}, 0, []string{"projection_net.layer1.weight"}, false, Objective{}, false, 0, false},
		{UnionDNF, []string{"((e,(r,)),((e,(r,)),(e,(r,)),(u,)))"}, 0, []string{"center_net.layer_alpha1.weight"}, false, Objective{}, false, 0, false},
		{UnionDNF, []string{"(((e,(r,)),(e,(r,)),(u,)),(n,))"}, 0, []string{"center_net.layer_beta1.weight"}, false, Objective{}, false, 0, false},
		{UnionMixture, []string{"((e,(r,)),(e,(r,)),(u,))"}, 0, []string{"mixture_net.weight"}, false, Objective{}, false, 0, false},
		{UnionMixture, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))", "(e,(r,))"}, 0, []string{"mixture_net.weight"}, false, Objective{}, false, 0, false},
		{UnionMixture, []string{"((e,(r,)),((e,(r,)),(e,(r,)),(u,)))"}, 0, []string{"mixture_net.weight", "center_net.layer_alpha1.weight"}, false, Objective{}, false, 0, false},
		{UnionDM, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))"}, 0, []string{"center_net.layer_alpha1.weight"}, false, Objective{}, false, 0, false},
		// The nets run once per distinct first projection (projBatch.collect).
		{UnionMoment, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 0, []string{"projection_net.layer1.weight"}, true, Objective{}, false, 0, false},
		{UnionMoment, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 0, []string{"entity_embedding"}, false, Objective{Kind: "softmax", Temperature: 2}, false, 0, false},
		{UnionMixture, []string{"((e,(r,)),(e,(r,)),(u,))"}, 0, []string{"mixture_net.weight"}, false, Objective{Kind: "softmax"}, false, 0, false},
		{UnionMoment, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 0, []string{"entity_embedding", "projection_net.layer1.weight"}, false, Objective{Kind: "all"}, false, 0, false},
		{UnionMixture, []string{"((e,(r,)),((e,(r,)),(e,(r,)),(u,)))"}, 0, []string{"mixture_net.weight"}, false, Objective{Kind: "all", Temperature: 3}, false, 0, false},
		{UnionDNF, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))"}, 0, []string{"projection_net.layer1.weight"}, false, Objective{Kind: "all"}, false, 0, false},
		{UnionMoment, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 0, []string{"entity_embedding", "projection_net.layer1.weight"}, false, Objective{Kind: "shared"}, false, 0, false},
		{UnionMixture, []string{"((e,(r,)),((e,(r,)),(e,(r,)),(u,)))"}, 0, []string{"mixture_net.weight"}, false, Objective{Kind: "shared", Temperature: 2}, false, 0, false},
		{UnionMoment, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 0, []string{"entity_embedding", "projection_net.layer1.weight"}, false, Objective{Kind: "shared"}, true, 0, false},
		{UnionDNF, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))"}, 0, []string{"projection_net.layer1.weight"}, false, Objective{Kind: "all", Temperature: 2}, true, 0, false},
		// The sigmoid term beside the cross-entropy.
		{UnionDNF, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))", "(e,(r,n))"}, 0, []string{"projection_net.layer1.weight", "entity_embedding"}, false, Objective{Kind: "shared", Sigmoid: 1.5}, true, 0, false},
		{UnionMoment, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 0, []string{"entity_embedding"}, false, Objective{Kind: "all", Temperature: 2, Sigmoid: 0.5}, false, 0, false},
		// Label smoothing.
		{UnionMoment, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 0, []string{"entity_embedding", "projection_net.layer1.weight"}, false, Objective{Kind: "shared", Temperature: 2, Smoothing: 0.2}, true, 0, false},
		{UnionDNF, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))"}, 0, []string{"projection_net.layer1.weight"}, false, Objective{Kind: "all", Smoothing: 0.1, Sigmoid: 0.5}, true, 0, false},
		{UnionMoment, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 0, []string{"entity_embedding", "projection_net.layer1.weight"}, false, Objective{Kind: "shared", Temperature: 2, Smoothing: 0.2, AnswerTargets: true}, true, 0, false},
		{UnionDNF, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))"}, 0, []string{"entity_embedding"}, false, Objective{Kind: "all", AnswerTargets: true, Sigmoid: 0.5}, true, 0, false},
		// Projection dropout: both hidden layers of the nets, over repeated
		// first projections too.
		{UnionMoment, []string{"(e,(r,r,r))", "((e,(r,)),(e,(r,n)))"}, 0, []string{"projection_net.layer1.weight", "projection_net.layer2.weight", "entity_embedding"}, false, Objective{Kind: "shared", Smoothing: 0.2}, false, 0.3, false},
		{UnionMoment, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 0.2, []string{"projection_net.layer1.weight", "projection_net.layer0.weight"}, true, Objective{}, false, 0.5, false},
		// Projection dropout at the roots only: a chain's last hop and 1p
		// drop, the intersections' and negations' inputs do not; a 1p
		// projection repeated as a 2in branch (not shared: one drops).
		{UnionMoment, []string{"(e,(r,))", "((e,(r,)),(e,(r,n)))"}, 0, []string{"projection_net.layer1.weight", "projection_net.layer0.weight", "entity_embedding"}, true, Objective{Kind: "shared", Smoothing: 0.2}, false, 0.5, true},
		{UnionMoment, []string{"(e,(r,r,r))", "((e,(r,)),(e,(r,)))"}, 0, []string{"projection_net.layer2.weight"}, false, Objective{}, false, 0.3, true},
		{UnionDNF, []string{"(((e,(r,)),(e,(r,)),(u,)),(r,))", "((e,(r,r)),(e,(r,)))"}, 0, []string{"projection_net.layer1.weight"}, false, Objective{}, false, 0.3, true},
	}
	for i, c := range cases {
		t.Run(fmt.Sprintf("%d-%s", i, c.mode), func(t *testing.T) {
			cfg := tinyConfig(c.mode)
			cfg.UnionDropout, cfg.ProjectionDropout, cfg.ProjectionDropoutRoot = c.dropout, c.pdrop, c.proot
			rng := rand.New(rand.NewPCG(uint64(i), 7))
			m, err := New[float64](cfg, rng)
			if err != nil {
				t.Fatal(err)
			}
			b := randomBatch(t, m, c.shapes, 4, 4, rng)
			b.Objective = c.obj
			if c.obj.Kind == "shared" {
				shareNegatives(b, 5)
			}
			if c.exclude {
				excludeSome(b, 3, rng)
			}
			if c.repeat {
				for _, g := range b.Groups {
					s := g.Program.Slots()
					copy(g.IDs[s:2*s], g.IDs[:s])
				}
				// Row 2's first projection of the second group (slots e, r)
				// is that of the first group's row 2, and its second that of
				// its first.
				g0, g1 := b.Groups[0], b.Groups[1]
				s0, s1 := g0.Program.Slots(), g1.Program.Slots()
				copy(g1.IDs[2*s1:2*s1+2], g0.IDs[2*s0:2*s0+2])
				copy(g1.IDs[2*s1+2:2*s1+4], g1.IDs[2*s1:2*s1+2])
			}
			ws := m.NewWorkspace()
			// The same dropout masks in every evaluation.
			lossAt := func() float64 {
				l, err := ws.Forward(b, rand.New(rand.NewPCG(11, 12)))
				if err != nil {
					t.Fatal(err)
				}
				return l.Loss
			}
			lossAt()
			if pb := ws.proj[1]; c.repeat && (pb.urows > pb.rows-4 || pb.rows != 12) {
				t.Fatalf("first projections: %d distinct of %d, want at most 8 of 12", pb.urows, pb.rows)
			}
			// A root (1p) and another row (a 2in branch) with the same
			// anchor and relation stay apart: only the root drops.
			if pb := ws.proj[1]; c.repeat && c.proot && pb.urows != 8 {
				t.Fatalf("first projections at the roots only: %d distinct of %d, want 8", pb.urows, pb.rows)
			}
			m.ZeroGrad()
			if err := ws.Backward(); err != nil {
				t.Fatal(err)
			}
			grads := m.Grads()
			for _, name := range c.live {
				g := grads[m.index(name)].Data
				nonzero := 0
				for _, v := range g {
					if v != 0 {
						nonzero++
					}
				}
				if nonzero == 0 {
					t.Errorf("%s: gradient is zero; the case does not exercise it", name)
				}
			}
			const h = 1e-6
			checked, worst := 0, 0.0
			for pi, p := range m.Params() {
				g := grads[pi].Data
				for j := range p.Data {
					x := p.Data[j]
					p.Data[j] = x + h
					up := lossAt()
					p.Data[j] = x - h
					down := lossAt()
					p.Data[j] = x
					num := (up - down) / (2 * h)
					var ana float64
					if g != nil {
						ana = g[j]
					}
					e := math.Abs(num-ana) / max(1e-3, math.Abs(num), math.Abs(ana))
					worst = max(worst, e)
					if e > 1e-4 && math.Abs(num-ana) > 1e-8 {
						t.Errorf("%s[%d]: analytic %.9g, numeric %.9g", p.Name, j, ana, num)
					}
					checked++
				}
			}
			t.Logf("%d entries, worst relative error %.2g", checked, worst)
		})
	}
}

func mustNew64(t *testing.T, c Config) *Model[float64] {
	t.Helper()
	m, err := New[float64](c, rand.New(rand.NewPCG(9, 9)))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustTemplate(t testing.TB, shape string) query.Node {
	t.Helper()
	n, err := query.Template(shape)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// mustCompile compiles a benchmark shape for a union mode.
func mustCompile(t testing.TB, shape string, mode Union) *Program {
	t.Helper()
	p, err := Compile(mustTemplate(t, shape), mode)
	if err != nil {
		t.Fatalf("%s %s: %v", shape, mode, err)
	}
	return p
}

// TestObjectives checks each loss's gradient with respect to a row's
// logits: central differences of the loss, with the adversarial weights
// held at their values (they are constants of its gradient), and the
// adversarial loss at inverse temperature 0 equal to the reference's.
func TestObjectives(t *testing.T) {
	logits := []float64{1.3, -0.4, 2.1, 0.2, -3}
	rowLoss := func(o Objective, l []float64) (float64, []float64) {
		ts := trainState[float64]{rows: 1, cols: len(l), weight: []float64{0.7}, sw: 1.4, objective: o,
			logits: slices.Clone(l), dlogits: make([]float64, len(l)), pos: make([]float64, 1), neg: make([]float64, 1)}
		ts.rowLoss(0)
		return -(ts.pos[0] + ts.neg[0]) / 2, ts.dlogits
	}
	frozen := func(alpha float64, l []float64) float64 { // adversarial, weights from logits
		z, m := 0.0, math.Inf(-1)
		for _, v := range logits[1:] {
			m = math.Max(m, alpha*v)
		}
		for _, v := range logits[1:] {
			z += math.Exp(alpha*v - m)
		}
		loss := -0.5 * 0.5 * logSigmoid(l[0])
		for j := 1; j < len(l); j++ {
			loss -= 0.5 * 0.5 * math.Exp(alpha*logits[j]-m) / z * logSigmoid(-l[j])
		}
		return loss
	}
	for _, o := range []Objective{{}, {Kind: "softmax"}, {Kind: "softmax", Temperature: 0.5}, {Kind: "adversarial", Temperature: 1.5}} {
		_, dl := rowLoss(o, logits)
		for j := range logits {
			up, down := slices.Clone(logits), slices.Clone(logits)
			up[j] += 1e-6
			down[j] -= 1e-6
			var lu, ld float64
			if o.Kind == "adversarial" {
				lu, ld = frozen(o.Temperature, up), frozen(o.Temperature, down)
			} else {
				lu, _ = rowLoss(o, up)
				ld, _ = rowLoss(o, down)
			}
			if num := (lu - ld) / 2e-6; math.Abs(num-dl[j]) > 1e-7 {
				t.Errorf("%+v: d loss / d logit %d = %.9g, numeric %.9g", o, j, dl[j], num)
			}
		}
	}
	ref, dref := rowLoss(Objective{}, logits)
	adv, dadv := rowLoss(Objective{Kind: "adversarial", Temperature: 1e-300}, logits)
	if math.Abs(ref-adv) > 1e-12 || !slices.EqualFunc(dref, dadv, func(a, b float64) bool { return math.Abs(a-b) < 1e-12 }) {
		t.Errorf("adversarial at inverse temperature ~0: loss %v, gradient %v; reference %v, %v", adv, dadv, ref, dref)
	}
	if err := (Objective{Kind: "focal"}).Validate(); err == nil {
		t.Error("an unknown loss was accepted")
	}
}

func logSigmoid(x float64) float64 { return -math.Log1p(math.Exp(-x)) }

// TestTrainBF16: a training step with bfloat16 products (the MLPs'
// forward, input-gradient and weight-gradient products, and with the
// dense objectives the distances to the candidates and their gradients)
// gives the float32 step's loss and gradients up to the operands'
// rounding.
func TestTrainBF16(t *testing.T) {
	for _, kind := range []string{"", "shared", "all"} {
		t.Run(cmp.Or(kind, "sigmoid"), func(t *testing.T) { trainBF16(t, Objective{Kind: kind}) })
	}
}

func trainBF16(t *testing.T, o Objective) {
	cfg := tinyConfig(UnionMoment)
	cfg.Entities, cfg.Dim, cfg.Hidden = 30, 16, 40
	mk := func() *Model[float32] {
		m, err := New[float32](cfg, rand.New(rand.NewPCG(4, 4)))
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	m32, m16 := mk(), mk()
	if err := m16.SetPrecision("bf16"); err != nil {
		t.Fatal(err)
	}
	shapes := []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))", "(((e,(r,)),(e,(r,)),(u,)),(r,))"}
	b32 := randomBatch(t, m32, shapes, 6, 5, rand.New(rand.NewPCG(8, 8)))
	b16 := randomBatch(t, m16, shapes, 6, 5, rand.New(rand.NewPCG(8, 8)))
	for _, b := range []*Batch{b32, b16} {
		b.Objective = o
		if o.Kind == "shared" {
			shareNegatives(b, 12)
		}
	}
	l32, g32 := trainStep(t, m32, b32, nil)
	l16, g16 := trainStep(t, m16, b16, nil)
	if l32.Loss == l16.Loss {
		t.Error("the same loss to the bit: bf16 products not used")
	}
	if math.Abs(l32.Loss-l16.Loss) > 1e-2*math.Abs(l32.Loss) {
		t.Errorf("loss %v in fp32, %v with bf16 products", l32.Loss, l16.Loss)
	}
	// Elementwise, a gradient near a ReLU's kink or a cancellation can move
	// far; each tensor's gradient as a whole points the same way.
	// The attention nets' last biases have an exact gradient of zero (a
	// softmax does not see them): rounding noise, left out.
	norm := func(g []float32) float64 {
		s := 0.0
		for _, v := range g {
			s += float64(v) * float64(v)
		}
		return math.Sqrt(s)
	}
	largest := 0.0
	for _, g := range g32 {
		largest = max(largest, norm(g))
	}
	worst := 1.0
	for i, g := range g32 {
		if norm(g) < 1e-3*largest {
			continue
		}
		var dot, n32, n16 float64
		for j, v := range g {
			dot += float64(v) * float64(g16[i][j])
			n32 += float64(v) * float64(v)
			n16 += float64(g16[i][j]) * float64(g16[i][j])
		}
		cos := dot / math.Sqrt(n32*n16)
		worst = min(worst, cos)
		if cos < 0.9 {
			t.Errorf("%s: cosine %.3f between the fp32 and bf16 gradients", m32.Params()[i].Name, cos)
		}
	}
	t.Logf("loss %.6g (fp32) / %.6g (bf16); smallest gradient cosine %.4f", l32.Loss, l16.Loss, worst)
}

// TestGemmDense: the dense objectives' products are the bfloat16 kernel's
// when the model's products are bf16, the float32 kernel's otherwise.
func TestGemmDense(t *testing.T) {
	rng := rand.New(rand.NewPCG(6, 6))
	const rows, n, k = 9, 37, 20
	a, b := make([]float32, rows*k), make([]float32, n*k)
	for i := range a {
		a[i] = float32(rng.NormFloat64())
	}
	for i := range b {
		b[i] = float32(rng.NormFloat64())
	}
	m, err := New[float32](tinyConfig(UnionMoment), rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []Precision{"fp32", "bf16"} {
		if err := m.SetPrecision(p); err != nil {
			t.Fatal(err)
		}
		got, want := make([]float32, rows*n), make([]float32, rows*n)
		m.gemmDense(false, true, rows, n, k, a, k, b, k, got, n)
		if p == "bf16" {
			kernel.GemmBF16(false, true, rows, n, k, a, k, b, k, 0, want, n)
		} else {
			kernel.Gemm(false, true, rows, n, k, 1, a, k, b, k, 0, want, n)
		}
		for i := range got {
			if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%s: c[%d] = %g, the kernel gives %g", p, i, got[i], want[i])
			}
		}
	}
}
