package answer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/gammae/gammae/exact"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/gqe"
	"github.com/gammae/gammae/qlang"
	"github.com/gammae/gammae/query"
	"github.com/gammae/gammae/serve"
)

// reference scores q the plain way: its own program and workspace.
func reference(t *testing.T, e *Engine, q query.Node) (scores []float32, entropy float64) {
	t.Helper()
	p, err := gamma.Compile(q, e.model.Config().Mode())
	if err != nil {
		t.Fatal(err)
	}
	ws := e.model.NewWorkspace()
	emb, err := ws.Embed(p, query.Slots(q))
	if err != nil {
		t.Fatal(err)
	}
	entropy = embeddingEntropy(emb, 0)
	scores = make([]float32, e.model.Config().Entities)
	if err := ws.ScoreAll(emb, scores); err != nil {
		t.Fatal(err)
	}
	return scores, entropy
}

func close32(a, b float64) bool { return math.Abs(a-b) <= 1e-5*(1+math.Abs(b)) }

// checkResult compares a result with the reference scores and exact
// execution of q.
func checkResult(t *testing.T, e *Engine, q query.Node, k int, r *Result) {
	t.Helper()
	scores, entropy := reference(t, e, q)
	obs, err := exact.Execute(e.kg.Test, q)
	if err != nil {
		t.Fatal(err)
	}
	want := TopK(scores, k)
	if len(r.Answers) != len(want) {
		t.Fatalf("%s: %d answers, want %d", r.Query, len(r.Answers), len(want))
	}
	for i, a := range r.Answers {
		if a.Rank != i+1 || a.ID != want[i] || !close32(a.Score, float64(scores[want[i]])) {
			t.Errorf("%s: answer %d = %+v, want #%d score %v", r.Query, i, a, want[i], scores[want[i]])
		}
		if a.Observed != obs.Has(a.ID) || a.Name != e.kg.Entities.Names[a.ID] {
			t.Errorf("%s: answer %+v: observed/name wrong (exact: %v)", r.Query, a, obs.Has(a.ID))
		}
	}
	if r.ObservedAnswers != obs.Len() {
		t.Errorf("%s: %d observed answers, want %d", r.Query, r.ObservedAnswers, obs.Len())
	}
	if est := expectedCount(scores, e.info.Calibration.For(structureName(q))); r.EstimatedAnswers == nil || !close32(r.Entropy, entropy) || !close32(*r.EstimatedAnswers, est) {
		t.Errorf("%s: entropy %v, estimated %v; want %v, %v", r.Query, r.Entropy, r.EstimatedAnswers, entropy, est)
	}
	if r.Structure != structureName(q) || r.Query != e.resolver.Format(q) || r.Explain != e.resolver.FormatTree(q) {
		t.Errorf("result header %q %q %q", r.Structure, r.Query, r.Explain)
	}
}

var tinyQueries = []struct{ text, structure string }{
	{"p(ann, knows)", "1p"},
	{"?y : exists x . knows(ann, x) & knows(x, ?y)", "2p"},
	{"p(ann, knows, knows, knows)", "3p"},
	{"i(p(bob, knows), p(cat, knows))", "2i"},
	{"i(p(bob, knows), n(p(eve, -knows)))", "2in"},
	{"?y : knows(bob, ?y) | knows(cat, ?y)", "2u-DNF"},
	{"p(u(p(ann, knows), p(eve, likes)), -knows)", "up-DNF"},
	{"i(p(ann, likes), p(fay, lives), p(Roma, -near))", "3i"},
}

func TestAnswer(t *testing.T) {
	for _, mode := range []gamma.Union{gamma.UnionMoment, gamma.UnionDNF, gamma.UnionMixture, gamma.UnionDM} {
		e := tinyEngine(t, mode)
		for _, c := range tinyQueries {
			for _, k := range []int{1, 3, 100} {
				t.Run(fmt.Sprintf("%s/%s/k=%d", mode, c.structure, k), func(t *testing.T) {
					q, err := e.Parse(c.text)
					if err != nil {
						if strings.Contains(c.text, "Roma") {
							return // Roma is ambiguous: covered by TestAnswerErrors
						}
						t.Fatal(err)
					}
					r, err := e.AnswerQuery(context.Background(), q, k)
					if err != nil {
						t.Fatal(err)
					}
					if r.Structure != c.structure {
						t.Errorf("structure %q, want %q", r.Structure, c.structure)
					}
					checkResult(t, e, q, k, r)
				})
			}
		}
	}
}

func TestAnswerErrors(t *testing.T) {
	e := tinyEngine(t, gamma.UnionMoment)
	for _, c := range []struct {
		text      string
		line, col int
		msg       string
	}{
		{"p(ann, knowz)", 1, 8, `unknown relation "knowz"`},
		{"p(zed, knows)", 1, 3, `unknown entity "zed"`},
		{"i(p(ann, likes), p(Roma, -near))", 1, 20, `ambiguous`},
		{"p(ann, knows", 1, 13, "expected ')'"},
		{"?y :\n  knows(ann, ?y) &", 2, 19, "expected"},
	} {
		_, err := e.Answer(context.Background(), c.text, 5)
		var pe serve.Positioner
		if !errors.As(err, &pe) {
			t.Errorf("%q: error %v has no position", c.text, err)
			continue
		}
		line, col := pe.Position()
		if line != c.line || col != c.col || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%q: error at %d:%d %q, want %d:%d containing %q", c.text, line, col, err, c.line, c.col, c.msg)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Answer(ctx, "p(ann, knows)", 5); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled context: error %v", err)
	}
}

// TestBatch checks that batched answers equal single ones, whatever the mix
// of shapes and errors in the batch.
func TestBatch(t *testing.T) {
	for _, mode := range []gamma.Union{gamma.UnionMoment, gamma.UnionDNF} {
		e := tinyEngine(t, mode)
		var texts []string
		for _, c := range tinyQueries {
			texts = append(texts, c.text, c.text)
		}
		texts = append(texts, "p(ann, nope)")
		results, errs := e.AnswerBatch(context.Background(), texts, 4)
		for i, text := range texts {
			q, perr := e.Parse(text)
			if perr != nil {
				if errs[i] == nil || results[i] != nil {
					t.Errorf("%s: batch gives %v, %v; want the parse error %v", text, results[i], errs[i], perr)
				}
				continue
			}
			if errs[i] != nil {
				t.Fatalf("%s: %v", text, errs[i])
			}
			checkResult(t, e, q, 4, &Result{Result: *results[i], ObservedAnswers: mustCount(t, e, q)})
		}

		// AnswerQueries: the same, in the caller's goroutine.
		var qs []query.Node
		for _, c := range tinyQueries[:6] {
			q, _ := e.Parse(c.text)
			qs = append(qs, q)
		}
		rs, es := e.AnswerQueries(context.Background(), qs, 2)
		for i, q := range qs {
			if es[i] != nil {
				t.Fatal(es[i])
			}
			checkResult(t, e, q, 2, rs[i])
			// One batch: every query gets the same share of its time.
			if rs[i].TookMS <= 0 || rs[i].TookMS != rs[0].TookMS {
				t.Errorf("%s: took %v ms, first query %v ms; want equal shares > 0", rs[i].Query, rs[i].TookMS, rs[0].TookMS)
			}
		}
	}
}

func mustCount(t *testing.T, e *Engine, q query.Node) int {
	s, err := exact.Execute(e.kg.Test, q)
	if err != nil {
		t.Fatal(err)
	}
	return s.Len()
}

// TestConcurrent answers from many goroutines at once: the batcher groups
// them, and each must get its own answers.
func TestConcurrent(t *testing.T) {
	e := tinyEngine(t, gamma.UnionMoment)
	want := map[string]*serve.Result{}
	for _, c := range tinyQueries[:7] {
		r, err := e.Answer(context.Background(), c.text, 5)
		if err != nil {
			t.Fatal(err)
		}
		want[c.text] = r
	}
	var wg sync.WaitGroup
	errc := make(chan error, 64)
	for g := 0; g < 16; g++ {
		wg.Go(func() {
			for i := 0; i < 20; i++ {
				text := tinyQueries[(g+i)%7].text
				r, err := e.Answer(context.Background(), text, 5)
				if err != nil {
					errc <- err
					return
				}
				w := want[text]
				if r.Query != w.Query || len(r.Answers) != len(w.Answers) {
					errc <- fmt.Errorf("%s: got %s with %d answers", text, r.Query, len(r.Answers))
					return
				}
				for j := range r.Answers {
					if r.Answers[j].ID != w.Answers[j].ID || !close32(r.Answers[j].Score, w.Answers[j].Score) {
						errc <- fmt.Errorf("%s: answer %d = %+v, want %+v", text, j, r.Answers[j], w.Answers[j])
						return
					}
				}
			}
		})
	}
	wg.Wait()
	close(errc)
	for err := range errc {
		t.Error(err)
	}
}

// TestPrograms checks that programs are cached by shape and that the cache
// stays bounded.
func TestPrograms(t *testing.T) {
	p := programs{mode: gamma.UnionMoment}
	chain := func(n int, rel int32) query.Node {
		var q query.Node = query.Anchor{Entity: 1}
		for i := 0; i < n; i++ {
			q = query.Projection{Arg: q, Relation: rel}
		}
		return q
	}
	a, gen, err := p.get(chain(2, 0))
	if err != nil {
		t.Fatal(err)
	}
	if b, _, _ := p.get(chain(2, 3)); b != a {
		t.Error("same shape, different ids: program compiled again")
	}
	for n := 1; n <= maxPrograms+5; n++ {
		if _, _, err := p.get(chain(n, 0)); err != nil {
			t.Fatal(err)
		}
	}
	if len(p.m) > maxPrograms || p.gen == gen {
		t.Errorf("cache of %d programs, generation %d (was %d)", len(p.m), p.gen, gen)
	}
}

func TestWarm(t *testing.T) {
	e := tinyEngine(t, gamma.UnionMoment)
	if err := e.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(e.progs.m) != len(e.info.Examples) {
		t.Errorf("%d programs cached after warming with %d examples", len(e.progs.m), len(e.info.Examples))
	}
}

// TestWarmWithoutNegation: a model without negation (GQE) keeps only the
// examples it answers, and warms up with them.
func TestWarmWithoutNegation(t *testing.T) {
	k := tinyKG(t)
	m, err := gqe.New(gqe.Config{Entities: k.Entities.Len(), Relations: k.Relations.Len(), Dim: 4, Gamma: 5}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	all := Examples(k, qlang.NewDictResolver(&k.Entities, &k.Relations))
	e := NewModel(k, m, serve.Info{Dataset: "tiny"})
	negated := 0
	for _, x := range all {
		if strings.Contains(x.Query, "!") || strings.Contains(x.Query, "n(") {
			negated++
		}
	}
	if negated == 0 || len(e.Info().Examples) != len(all)-negated {
		t.Errorf("%d examples kept of %d, %d with negation", len(e.Info().Examples), len(all), negated)
	}
	if err := e.Warm(context.Background()); err != nil {
		t.Fatal(err)
	}
}
