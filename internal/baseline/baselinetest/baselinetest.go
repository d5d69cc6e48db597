// Package baselinetest holds the checks every baseline's tests run: parity
// with the authors' reference vectors (and that a wrong reference number
// fails it), finite-difference gradients, and refused bad input.
package baselinetest

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gammae/gammae/internal/reftest"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/query"
)

// Parity checks m against the reference r within 1e-6 relative, then that
// the check fails when one logit or one gradient of the reference is off
// by 1e-3 relative.
func Parity(t *testing.T, r *reftest.Reference, m reftest.Embedder) {
	t.Helper()
	bad, worst := r.Parity(m, 1e-6)
	for _, b := range bad {
		t.Error(b)
	}
	t.Logf("%s: largest relative error %.2g over %d queries and one train step", r.Path, worst, len(r.Queries))
	if len(bad) > 0 {
		return
	}
	for _, corrupt := range []struct {
		what string
		f    func()
	}{
		{"a logit", func() { r.Queries[len(r.Queries)-1].Logits[3] *= 1.001 }},
		{"a gradient", func() {
			g := r.TrainStep.Grads[r.Params[0].Name]
			for i := range g {
				if g[i] != 0 {
					g[i] *= 1.001
					return
				}
			}
		}},
	} {
		corrupt.f()
		if bad, _ := r.Parity(m, 1e-6); len(bad) == 0 {
			t.Errorf("parity passes with %s of the reference changed by 1e-3", corrupt.what)
		}
	}
}

// Random grounds a structure's template with random ids.
func Random(shape string, entities, relations int, rng *rand.Rand) query.Node {
	s, ok := query.Lookup(shape)
	if ok {
		shape = s.Shape
	}
	tmpl, err := query.Template(shape)
	if err != nil {
		panic(err)
	}
	var fill func(n query.Node) query.Node
	fill = func(n query.Node) query.Node {
		switch n := n.(type) {
		case query.Anchor:
			return query.Anchor{Entity: int32(rng.IntN(entities))}
		case query.Projection:
			return query.Projection{Relation: int32(rng.IntN(relations)), Arg: fill(n.Arg)}
		case query.Negation:
			return query.Negation{Arg: fill(n.Arg)}
		case query.Intersection:
			args := make([]query.Node, len(n.Args))
			for i, a := range n.Args {
				args[i] = fill(a)
			}
			return query.Intersection{Args: args}
		case query.Union:
			args := make([]query.Node, len(n.Args))
			for i, a := range n.Args {
				args[i] = fill(a)
			}
			return query.Union{Args: args}
		}
		return n
	}
	return fill(tmpl)
}

// FiniteDifferences checks m.Gradient against central differences of the
// loss for every parameter entry, on a batch with two queries of each
// structure (and the DNF unions): with the authors' loss, and then, for a
// model whose loss can be chosen, with the softmax loss.
func FiniteDifferences(t *testing.T, m qe.Model, structures []string, entities, relations int) {
	t.Helper()
	finiteDifferences(t, m, structures, entities, relations)
	if o, ok := m.(qe.Objectived); ok {
		if err := o.SetObjective(qe.Objective{Kind: "softmax", Temperature: 0.7}); err != nil {
			t.Fatal(err)
		}
		finiteDifferences(t, m, structures, entities, relations)
		if err := o.SetObjective(qe.Objective{}); err != nil {
			t.Fatal(err)
		}
	}
}

func finiteDifferences(t *testing.T, m qe.Model, structures []string, entities, relations int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(5, 6))
	var batch []qe.Example
	for _, s := range append(append([]string(nil), structures...), "2u-DNF", "up-DNF") {
		for range 2 {
			negs := []int32{int32(rng.IntN(entities)), int32(rng.IntN(entities)), int32(rng.IntN(entities))}
			batch = append(batch, qe.Example{Query: Random(s, entities, relations, rng), Positive: int32(rng.IntN(entities)),
				Negatives: negs, Weight: 0.2 + rng.Float64()})
		}
	}
	grads := qe.LikeParams(m.Params())
	if _, err := m.Gradient(batch, grads); err != nil {
		t.Fatal(err)
	}
	loss := func() float64 {
		l, err := m.Gradient(batch, qe.LikeParams(m.Params()))
		if err != nil {
			t.Fatal(err)
		}
		return l.Loss
	}
	const h = 1e-6
	for i, p := range m.Params() {
		for j := range p.Data {
			v := p.Data[j]
			p.Data[j] = v + h
			up := loss()
			p.Data[j] = v - h
			down := loss()
			p.Data[j] = v
			want := (up - down) / (2 * h)
			if got := grads[i].Data[j]; math.Abs(got-want) > 2e-6*math.Max(1, math.Abs(want)) {
				t.Errorf("d loss / d %s[%d] = %.9g, finite differences %.9g", p.Name, j, got, want)
			}
		}
	}
}

// Errors checks that bad input is refused with a clear error: ids out of
// range, a wrong score buffer, and (unless negation) negation queries.
func Errors(t *testing.T, m qe.Model, negation bool) {
	t.Helper()
	n := 0
	for _, p := range m.Params() {
		if p.Name == "entity_embedding" {
			n = p.Shape[0]
		}
	}
	one := query.Projection{Relation: 0, Arg: query.Anchor{Entity: 1}}
	for _, tc := range []struct {
		q    query.Node
		dst  int
		want string
	}{
		{query.Projection{Relation: 0, Arg: query.Anchor{Entity: int32(n)}}, n, "entity"},
		{query.Projection{Relation: 99, Arg: query.Anchor{Entity: 0}}, n, "relation 99"},
		{one, n - 1, "scores"},
	} {
		err := m.Scores(tc.q, make([]float64, tc.dst))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Scores(%s, %d): error %v, want one about %q", query.Shape(tc.q), tc.dst, err, tc.want)
		}
	}
	neg := query.Intersection{Args: []query.Node{one, query.Negation{Arg: one}}}
	err := m.Scores(neg, make([]float64, n))
	if negation && err != nil {
		t.Errorf("negation query: %v", err)
	}
	if !negation && (err == nil || !strings.Contains(err.Error(), "no negation")) {
		t.Errorf("negation query: error %v, want a refusal", err)
	}
	grads := qe.LikeParams(m.Params())
	if _, err := m.Gradient([]qe.Example{{Query: one, Positive: int32(n), Negatives: []int32{0}, Weight: 1}}, grads); err == nil {
		t.Error("a positive entity out of range was accepted")
	}
}

// Scorer is a model with both scoring paths.
type Scorer interface {
	qe.Model
	TapeScores(q query.Node, dst []float64) error
}

// FastScores checks the model's direct scoring of all entities against
// the recorded operations on random queries of every structure (unions
// included), before and after its parameters change.
func FastScores(t *testing.T, m Scorer, structures []string, entities, relations int) {
	t.Helper()
	rng := rand.New(rand.NewPCG(8, 9))
	check := func() {
		for _, s := range append(append([]string(nil), structures...), "2u-DNF", "up-DNF", "ip", "pi") {
			q := Random(s, entities, relations, rng)
			fast, slow := make([]float64, entities), make([]float64, entities)
			if err := m.Scores(q, fast); err != nil {
				t.Fatal(err)
			}
			if err := m.TapeScores(q, slow); err != nil {
				t.Fatal(err)
			}
			for e := range fast {
				if math.Abs(fast[e]-slow[e]) > 1e-9*math.Max(1, math.Abs(slow[e])) {
					t.Errorf("%s: entity %d scored %.15g directly, %.15g on the tape", s, e, fast[e], slow[e])
					break
				}
			}
		}
	}
	check()
	for _, p := range m.Params() {
		for i := range p.Data {
			p.Data[i] += 0.01 * (rng.Float64() - 0.5)
		}
	}
	m.ParamsChanged()
	check()
}

// mixedBatch is three queries of each structure (and the DNF unions), with
// two or three negatives, in an interleaved order.
func mixedBatch(structures []string, entities, relations int, rng *rand.Rand) []qe.Example {
	var batch []qe.Example
	for range 3 {
		for _, s := range append(append([]string(nil), structures...), "2u-DNF", "up-DNF") {
			negs := make([]int32, 2+rng.IntN(2))
			for i := range negs {
				negs[i] = int32(rng.IntN(entities))
			}
			batch = append(batch, qe.Example{Query: Random(s, entities, relations, rng), Positive: int32(rng.IntN(entities)),
				Negatives: negs, Weight: 0.2 + rng.Float64()})
		}
	}
	return batch
}

// Batching checks that a batch's loss and gradient, computed with the
// queries of each structure embedded together, are the weighted means of
// the examples' own: no row is scored against another row's candidates.
func Batching(t *testing.T, m qe.Model, structures []string, entities, relations int) {
	t.Helper()
	batch := mixedBatch(structures, entities, relations, rand.New(rand.NewPCG(10, 11)))
	grads := qe.LikeParams(m.Params())
	l, err := m.Gradient(batch, grads)
	if err != nil {
		t.Fatal(err)
	}
	sw, want := 0.0, 0.0
	wantGrads := qe.LikeParams(m.Params())
	for _, ex := range batch {
		sw += ex.Weight
	}
	for _, ex := range batch {
		one := qe.LikeParams(m.Params())
		w := ex.Weight
		ex.Weight = 1
		li, err := m.Gradient([]qe.Example{ex}, one)
		if err != nil {
			t.Fatal(err)
		}
		want += w / sw * li.Loss
		for i := range one {
			for j, v := range one[i].Data {
				wantGrads[i].Data[j] += w / sw * v
			}
		}
	}
	if math.Abs(l.Loss-want) > 1e-9*math.Max(1, math.Abs(want)) {
		t.Errorf("batch loss %.12g, weighted mean of the examples' %.12g", l.Loss, want)
	}
	repeatable(t, m, batch, l, grads)
	for i := range grads {
		for j, v := range grads[i].Data {
			if w := wantGrads[i].Data[j]; math.Abs(v-w) > 1e-9*math.Max(1, math.Abs(w)) {
				t.Errorf("d loss / d %s[%d]: batch %.12g, weighted mean of the examples' %.12g", grads[i].Name, j, v, w)
				break
			}
		}
	}
}

// Products32 checks a model training with float32 products (fast, made
// with UseFloat32) against the same model in float64 (exact): the loss
// and every gradient agree up to float32 rounding.
func Products32(t *testing.T, exact, fast qe.Model, structures []string, entities, relations int) {
	t.Helper()
	batch := mixedBatch(structures, entities, relations, rand.New(rand.NewPCG(12, 13)))
	g64, g32 := qe.LikeParams(exact.Params()), qe.LikeParams(fast.Params())
	l64, err := exact.Gradient(batch, g64)
	if err != nil {
		t.Fatal(err)
	}
	l32, err := fast.Gradient(batch, g32)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fast.Gradient(batch[:1], qe.LikeParams(fast.Params())); err != nil {
		t.Fatal(err)
	}
	repeatable(t, fast, batch, l32, g32)
	if l64.Loss == l32.Loss {
		t.Error("the same loss to the last bit: the float32 products were not used")
	}
	if math.Abs(l64.Loss-l32.Loss) > 1e-5*math.Abs(l64.Loss) {
		t.Errorf("loss %.9g in float64, %.9g with float32 products", l64.Loss, l32.Loss)
	}
	largest := func(g qe.Tensor) float64 {
		m := 0.0
		for _, v := range g.Data {
			m = math.Max(m, math.Abs(v))
		}
		return m
	}
	global := 0.0
	for _, g := range g64 {
		global = math.Max(global, largest(g))
	}
	for i := range g64 {
		// Per tensor, but not below the rounding of the largest gradient:
		// an attention's last bias has an exact gradient of zero (the
		// softmax does not see it) and float64 noise of 1e-18.
		scale := math.Max(largest(g64[i]), 1e-6*global)
		for j, v := range g64[i].Data {
			if d := math.Abs(v - g32[i].Data[j]); d > 1e-4*scale {
				t.Errorf("d loss / d %s[%d] = %.9g in float64, %.9g with float32 products", g64[i].Name, j, v, g32[i].Data[j])
				break
			}
		}
	}
}

// Batched runs Batching on a float64 model and Products32 against a twin
// made by the same constructor with float32 products.
func Batched[M interface {
	qe.Model
	UseFloat32()
}](t *testing.T, build func() M, structures []string, entities, relations int) {
	t.Helper()
	Batching(t, build(), structures, entities, relations)
	fast := build()
	fast.UseFloat32()
	Products32(t, build(), fast, structures, entities, relations)
	float32s := func() qe.Model { m := build(); m.UseFloat32(); return m }
	Updated(t, func() qe.Model { return build() }, structures, entities, relations)
	Updated(t, float32s, structures, entities, relations)
	BatchScores(t, build(), 0, structures, entities, relations)
	BatchScores(t, fast, 1e-4, structures, entities, relations)
}

// Updated checks that a model whose parameters changed (ParamsChanged
// after a step) scores and differentiates as a twin built with the new
// parameters from the start, to the bit: nothing a model caches or
// recycles between steps outlives the parameters it was computed from.
func Updated(t *testing.T, build func() qe.Model, structures []string, entities, relations int) {
	t.Helper()
	stepped, fresh := build(), build()
	rng := rand.New(rand.NewPCG(12, 13))
	batch := mixedBatch(structures, entities, relations, rng)
	var queries []query.Node
	for _, s := range append(append([]string(nil), structures...), "2u-DNF", "ip") {
		queries = append(queries, Random(s, entities, relations, rng))
	}
	run := func(m qe.Model) (float64, []qe.Tensor, [][]float64) {
		grads := qe.LikeParams(m.Params())
		l, err := m.Gradient(batch, grads)
		if err != nil {
			t.Fatal(err)
		}
		scores := make([][]float64, len(queries))
		for i, q := range queries {
			scores[i] = make([]float64, entities)
			if err := m.Scores(q, scores[i]); err != nil {
				t.Fatal(err)
			}
		}
		return l.Loss, grads, scores
	}
	run(stepped) // fills the caches with the old parameters
	for _, m := range []qe.Model{stepped, fresh} {
		r := rand.New(rand.NewPCG(14, 15))
		for _, p := range m.Params() {
			for i := range p.Data {
				p.Data[i] += 0.05 * (r.Float64() - 0.5)
			}
		}
	}
	stepped.ParamsChanged()
	l, grads, scores := run(stepped)
	wl, wgrads, wscores := run(fresh)
	if l != wl {
		t.Errorf("after a parameter change: loss %.17g, a twin built with the new parameters %.17g", l, wl)
	}
	for i := range grads {
		for j, v := range grads[i].Data {
			if w := wgrads[i].Data[j]; v != w {
				t.Errorf("after a parameter change: d loss / d %s[%d] = %.17g, the twin's %.17g", grads[i].Name, j, v, w)
				break
			}
		}
	}
	for i := range scores {
		for e, v := range scores[i] {
			if w := wscores[i][e]; v != w {
				t.Errorf("after a parameter change: query %d scores entity %d %.17g, the twin %.17g", i, e, v, w)
				break
			}
		}
	}
}

// BatchScores checks ScoresBatch against Scores, query by query, on four
// random queries of each structure (and the DNF unions): to the bit
// (tol 0) or within tol of the logits' scale.
func BatchScores(t *testing.T, m qe.Model, tol float64, structures []string, entities, relations int) {
	t.Helper()
	bs, ok := m.(qe.BatchScorer)
	if !ok {
		t.Fatalf("%s does not score batches", m.Kind())
	}
	rng := rand.New(rand.NewPCG(14, 15))
	for _, s := range append(append([]string(nil), structures...), "2u-DNF", "up-DNF") {
		qs := make([]query.Node, 4)
		for i := range qs {
			qs[i] = Random(s, entities, relations, rng)
		}
		got := make([]float64, len(qs)*entities)
		if err := bs.ScoresBatch(qs, got); err != nil {
			t.Fatal(err)
		}
		want := make([]float64, entities)
		for i, q := range qs {
			if err := m.Scores(q, want); err != nil {
				t.Fatal(err)
			}
			for e, w := range want {
				if g := got[i*entities+e]; math.Abs(g-w) > tol*math.Max(1, math.Abs(w)) || (tol == 0 && g != w) {
					t.Errorf("%s query %d entity %d: %.17g in a batch, %.17g alone", s, i, e, g, w)
					break
				}
			}
		}
	}
	if err := bs.ScoresBatch([]query.Node{Random("1p", entities, relations, rng), Random("2p", entities, relations, rng)}, make([]float64, 2*entities)); err == nil {
		t.Error("a batch of two structures was accepted")
	}
}

// repeatable checks that the batch's loss and gradient, computed again
// after other batches (the tapes and their memory are kept between
// calls), are the same to the bit.
func repeatable(t *testing.T, m qe.Model, batch []qe.Example, l qe.Loss, grads []qe.Tensor) {
	t.Helper()
	again := qe.LikeParams(m.Params())
	la, err := m.Gradient(batch, again)
	if err != nil {
		t.Fatal(err)
	}
	if la.Loss != l.Loss {
		t.Errorf("the same batch again: loss %.17g, first %.17g", la.Loss, l.Loss)
	}
	for i := range grads {
		for j, v := range again[i].Data {
			if v != grads[i].Data[j] {
				t.Errorf("the same batch again: d loss / d %s[%d] = %.17g, first %.17g", grads[i].Name, j, v, grads[i].Data[j])
				break
			}
		}
	}
}
