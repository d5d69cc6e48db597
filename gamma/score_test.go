package gamma

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/gammae/gammae/internal/kernel"
)

// TestBackwardOverZeroedGrads checks the two ways Backward puts the entity
// table's gradient down: written over gradients known to be zero
// (ZeroGrad) it equals the sum into gradients zeroed behind the model's
// back; and after a Backward the gradients are no longer known to be zero,
// so a second one adds to them (twice the first, to rounding).
func TestBackwardOverZeroedGrads(t *testing.T) {
	for _, o := range []Objective{{}, {Kind: "all"}, {Kind: "shared"}} {
		t.Run(o.Kind, func(t *testing.T) { backwardOverZeroedGrads(t, o) })
	}
}

// TestSharedAllEntities: the shared objective with every entity shared
// is the 1-vs-all objective, to the bit; with fewer, the entity rows that
// are not candidates get no gradient (and stale ones are cleared).
func TestSharedAllEntities(t *testing.T) {
	_, m64, m, _ := twinModels(t, 60, 24, 40, 7)
	b := randomBatch(t, m64, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 30, 8, rand.New(rand.NewPCG(3, 3)))
	b.Objective = Objective{Kind: "all", Temperature: 2}
	lAll, gAll := trainStep(t, m, b, nil)
	every := make([]int32, m.cfg.Entities)
	for e := range every {
		every[e] = int32(len(every) - 1 - e) // any order, some twice
	}
	sb := *b
	sb.Objective.Kind = "shared"
	sb.Negative, sb.Shared = nil, append(every, 3, 5)
	lShared, gShared := trainStep(t, m, &sb, nil)
	if lAll != lShared {
		t.Fatalf("loss %v with every entity shared, %v against all", lShared, lAll)
	}
	for i := range gAll {
		for j, v := range gAll[i] {
			if math.Float32bits(gShared[i][j]) != math.Float32bits(v) {
				t.Fatalf("%s[%d]: %g with every entity shared, %g against all", m.params[i].Name, j, gShared[i][j], v)
			}
		}
	}

	// Three shared negatives: over a stale entity gradient the step gives
	// the gradient it gives over zeroed ones (the rows of entities that
	// are no candidate cleared, not added to).
	sb.Shared = []int32{1, 2, 3}
	_, want := trainStep(t, m, &sb, nil)
	m.ZeroGrad()
	for i, g := range m.Grads() {
		if i == m.entity {
			for j := range g.Data {
				g.Data[j] = 7
			}
		}
	}
	m.EntityGradStale()
	_, got, _ := stepFrom(t, m, &sb, nil)
	for i := range want {
		for j, v := range want[i] {
			if math.Float32bits(got[i][j]) != math.Float32bits(v) {
				t.Fatalf("%s[%d]: %g over a stale gradient, %g over a zeroed one", m.params[i].Name, j, got[i][j], v)
			}
		}
	}
}

func backwardOverZeroedGrads(t *testing.T, o Objective) {
	_, m64, m, _ := twinModels(t, 60, 24, 40, 7)
	b := randomBatch(t, m64, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 30, 8, rand.New(rand.NewPCG(7, 7)))
	b.Objective = o
	if o.Kind == "shared" {
		shareNegatives(b, 20)
	}
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

// TestExcludeAnswers: answers excluded from every row against all
// entities give the loss and gradients of the shared objective whose
// candidates are all entities but those; excluding nothing, or only a
// row's positive, changes nothing; and the sampled objectives refuse
// exclusions.
func TestExcludeAnswers(t *testing.T) {
	_, m64, m, _ := twinModels(t, 60, 24, 40, 7)
	b := randomBatch(t, m64, []string{"(e,(r,r))", "((e,(r,)),(e,(r,n)))"}, 30, 8, rand.New(rand.NewPCG(5, 5)))
	b.Objective = Objective{Kind: "all", Temperature: 2}
	lPlain, gPlain := trainStep(t, m, b, nil)

	positive := map[int32]bool{}
	for _, p := range b.Positive {
		positive[p] = true
	}
	var out, kept []int32
	for e := range int32(m.cfg.Entities) {
		if !positive[e] && len(out) < 7 {
			out = append(out, e)
		} else {
			kept = append(kept, e)
		}
	}
	eb := *b
	eb.Exclude = make([][]int32, len(b.Positive))
	for r := range eb.Exclude {
		eb.Exclude[r] = []int32{b.Positive[r]}
	}
	l, g := trainStep(t, m, &eb, nil)
	if l != lPlain {
		t.Fatalf("excluding the positives: loss %v, %v without", l, lPlain)
	}
	sameSteps(t, m, l, lPlain, g, gPlain, "excluding only the positives")

	for r := range eb.Exclude {
		eb.Exclude[r] = append(eb.Exclude[r], out...)
	}
	lEx, gEx := trainStep(t, m, &eb, nil)
	sb := *b
	sb.Objective.Kind = "shared"
	sb.Negative, sb.Shared = nil, kept
	lSub, gSub := trainStep(t, m, &sb, nil)
	if math.Abs(lEx.Loss-lSub.Loss) > 1e-5*math.Abs(lSub.Loss) || math.Abs(lEx.Loss-lPlain.Loss) < 1e-4 {
		t.Fatalf("loss %v with %d entities excluded, %v with them not candidates, %v with all", lEx.Loss, len(out), lSub.Loss, lPlain.Loss)
	}
	for i := range gSub {
		scale := 1e-30
		for _, v := range gSub[i] {
			scale = max(scale, math.Abs(float64(v)))
		}
		for j, v := range gSub[i] {
			if d := math.Abs(float64(gEx[i][j] - v)); d > 1e-4*scale {
				t.Fatalf("%s[%d]: %g with the entities excluded, %g with them not candidates", m.params[i].Name, j, gEx[i][j], v)
			}
		}
	}

	b.Objective = Objective{Kind: "softmax"}
	b.Exclude = eb.Exclude
	if _, err := m.NewWorkspace().Forward(b, nil); err == nil || !strings.Contains(err.Error(), "all and shared") {
		t.Fatalf("softmax with excluded answers: error %v", err)
	}
}

// TestDenseWindowsReused: the dense objectives keep every run's distances
// in windows of one buffer; a workspace that goes on to other batches and
// objectives gives what a new workspace gives, to the bit, though the
// runs it reuses held overlapping windows in earlier steps.
func TestDenseWindowsReused(t *testing.T) {
	_, m64, m, _ := twinModels(t, 60, 24, 40, 7)
	rng := rand.New(rand.NewPCG(9, 9))
	x, y := "(e,(r,r))", "((e,(r,)),(e,(r,n)))"
	programs := map[string]*Program{} // one per shape: the workspace reuses a program's runs
	batch := func(shapes []string, rows int, o Objective) *Batch {
		b := randomBatch(t, m64, shapes, rows, 8, rng)
		for i, s := range shapes {
			if p, ok := programs[s]; ok {
				b.Groups[i].Program = p
			}
			programs[s] = b.Groups[i].Program
		}
		b.Objective = o
		if o.Kind == "shared" {
			shareNegatives(b, 20)
		}
		return b
	}
	shared, softmax := Objective{Kind: "shared"}, Objective{Kind: "softmax"}
	steps := []*Batch{
		batch([]string{x, y}, 12, shared),
		batch([]string{y}, 20, shared), // y's window now overlaps x's
		batch([]string{x, y}, 12, softmax),
		batch([]string{y, x}, 9, Objective{Kind: "all"}),
		batch([]string{x, y}, 15, softmax),
	}
	ws := m.NewWorkspace()
	for i, b := range steps {
		m.ZeroGrad()
		want, wantG := trainStep(t, m, b, nil)
		m.ZeroGrad()
		got, gotG := stepOn(t, m, ws, b, nil)
		sameSteps(t, m, want, got, wantG, gotG, "step "+string(rune('1'+i))+" on a reused workspace")
	}
}

// TestRowMax: rowMax is the largest element for every length and
// position, and NaN when the first element is.
func TestRowMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	for n := 1; n <= 19; n++ {
		for at := range n {
			l := make([]float32, n)
			for i := range l {
				l[i] = float32(-rng.Float64())
			}
			l[at] = 2
			if got := rowMax(l); got != 2 {
				t.Fatalf("n=%d, largest at %d: rowMax %g, want 2", n, at, got)
			}
		}
	}
	if got := rowMax([]float64{math.NaN(), 1, 2, 3, 4, 5}); !math.IsNaN(got) {
		t.Errorf("rowMax of a row led by NaN: %g", got)
	}
}

func BenchmarkRowMax(b *testing.B) {
	l := make([]float32, 2561)
	rng := rand.New(rand.NewPCG(2, 2))
	for i := range l {
		l[i] = float32(rng.NormFloat64())
	}
	b.SetBytes(int64(4 * len(l)))
	for b.Loop() {
		rowMax(l)
	}
}

// denseBatch is a workspace and a batch of two structures, five rows each,
// with the dense objective o (four shared negatives for "shared") and up to
// two excluded answers a row.
func denseBatch(t *testing.T, u Union, o Objective, seed uint64) (*Workspace[float64], *Batch) {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, seed))
	m := mustNew64(t, tinyConfig(u))
	b := randomBatch(t, m, []string{"((e,(r,)),(e,(r,)),(u,))", "(e,(r,r))"}, 5, 4, rng)
	b.Objective = o
	if o.Kind == "shared" {
		shareNegatives(b, 4)
	}
	excludeSome(b, 2, rng)
	return m.NewWorkspace(), b
}

// rowOf is row r's logits and its excluded candidates' columns.
func rowOf(tr *trainState[float64], r int) ([]float64, map[int32]bool) {
	skip := map[int32]bool{}
	for _, c := range tr.excl[tr.exclAt[r]:tr.exclAt[r+1]] {
		skip[c] = true
	}
	return tr.logits[r*tr.cols : (r+1)*tr.cols], skip
}

// TestDenseSigmoidTerm: Objective.Sigmoid adds λ times the reference's
// loss over each row's candidates to the cross-entropy: ½(−logσ(l₀) +
// mean_j softplus(l_j)) with j every candidate but the row's positive and
// its excluded answers, weighted as the rows are; and a sampled kind
// refuses the term.
func TestDenseSigmoidTerm(t *testing.T) {
	for _, kind := range []string{"all", "shared"} {
		t.Run(kind, func(t *testing.T) {
			ws, b := denseBatch(t, UnionDNF, Objective{Kind: kind, Temperature: 2}, 4)
			plain, err := ws.Forward(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			tr := &ws.train
			want := 0.0
			for r := range tr.rows {
				l, skip := rowOf(tr, r)
				skip[tr.posCol[r]] = true
				mean, n := 0.0, 0
				for j, v := range l[1:] {
					if !skip[int32(j)] {
						mean, n = mean+math.Log1p(math.Exp(v)), n+1
					}
				}
				want += tr.weight[r] / tr.sw * 0.5 * (-logSigmoid(l[0]) + mean/float64(n))
			}
			b.Objective.Sigmoid = 3
			with, err := ws.Forward(b, nil)
			if err != nil {
				t.Fatal(err)
			}
			if got := with.Loss - plain.Loss; math.Abs(got-3*want) > 1e-12 {
				t.Errorf("sigmoid term %.15g, want 3 × %.15g", got, want)
			}
		})
	}
	if err := (Objective{Kind: "softmax", Sigmoid: 1}).Validate(); err == nil || !strings.Contains(err.Error(), "all and shared") {
		t.Errorf("softmax with a sigmoid term: %v", err)
	}
	if err := (Objective{Kind: "shared", Sigmoid: -1}).Validate(); err == nil {
		t.Error("a negative sigmoid weight was accepted")
	}
}

// TestDenseSmoothing: label smoothing ε makes a row's loss (1−ε)·(−log
// p₀) + ε·mean_j(−log p_j) over its k candidates, the excluded answers
// out (one listed twice counted once), p the softmax of l/T over them;
// with answer targets the answers stay among the candidates and −log p₀
// becomes the mean of −log p over the positive and its other answers (one
// listed twice counted once); both are refused outside the dense kinds,
// and ε outside [0, 1).
func TestDenseSmoothing(t *testing.T) {
	for _, kind := range []string{"all", "shared"} {
		for _, targets := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/targets=%v", kind, targets), func(t *testing.T) {
				const eps, tau = 0.3, 2.0
				ws, b := denseBatch(t, UnionMoment, Objective{Kind: kind, Temperature: tau, Smoothing: eps, AnswerTargets: targets}, 5)
				listed := 0
				for r := range b.Exclude {
					if len(b.Exclude[r]) > 0 {
						b.Exclude[r] = append(b.Exclude[r], b.Exclude[r][0]) // twice listed
						listed++
					}
				}
				got, err := ws.Forward(b, nil)
				if err != nil {
					t.Fatal(err)
				}
				tr := &ws.train
				want, others := 0.0, 0
				for r := range tr.rows {
					l, answers := rowOf(tr, r)
					others += len(answers)
					z, sum, k := 0.0, 0.0, 0
					for j, v := range l[1:] {
						if targets || !answers[int32(j)] {
							z, sum, k = z+math.Exp(v/tau), sum+v/tau, k+1
						}
					}
					logZ := math.Log(z)
					lp, a := l[0]/tau-logZ, 1.0
					if targets {
						for c := range answers {
							lp, a = lp+l[1+c]/tau-logZ, a+1
						}
					}
					ce := -lp / a
					mean := -(sum/float64(k) - logZ)
					want += tr.weight[r] / tr.sw * ((1-eps)*ce + eps*mean)
				}
				if listed == 0 || others == 0 {
					t.Fatalf("the batch has %d rows with answers listed, %d other answers among the candidates: the test tests nothing", listed, others)
				}
				if math.Abs(got.Loss-want) > 1e-12 {
					t.Errorf("loss %.15g, want %.15g", got.Loss, want)
				}
			})
		}
	}
	for _, o := range []Objective{{Kind: "softmax", Smoothing: 0.1}, {Kind: "shared", Smoothing: 1}, {Kind: "all", Smoothing: -0.1}, {Kind: "softmax", AnswerTargets: true}} {
		if err := o.Validate(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// syntheticRows is a training state of rows × cols logits spread as a
// trained model's (γ = 30 minus distances, the far ones below e's float32
// range), each row with its positive's column and up to three other
// answers (unique, not the positive, as exclude leaves them), for the row
// losses alone.
func syntheticRows[T kernel.Float](o Objective, rows, cols int, seed uint64) *trainState[T] {
	rng := rand.New(rand.NewPCG(seed, seed))
	t := &trainState[T]{rows: rows, cols: cols, objective: o}
	t.logits, t.dlogits, t.sig = make([]T, rows*cols), make([]T, rows*cols), make([]T, rows*cols)
	t.pos, t.neg = make([]float64, rows), make([]float64, rows)
	t.posCol, t.exclAt = make([]int32, rows), make([]int32, rows+1)
	t.weight, t.sw = make([]float64, rows), 0
	for r := range rows {
		t.posCol[r] = int32(rng.IntN(cols - 1))
		for range rng.IntN(4) {
			if j := int32(rng.IntN(cols - 1)); j != t.posCol[r] && !slices.Contains(t.excl[t.exclAt[r]:], j) {
				t.excl = append(t.excl, j)
			}
		}
		slices.Sort(t.excl[t.exclAt[r]:])
		t.exclAt[r+1] = int32(len(t.excl))
		t.weight[r] = 0.5 + rng.Float64()
		t.sw += t.weight[r]
	}
	for i := range t.logits {
		t.logits[i] = T(float32(min(30, 30-math.Abs(rng.NormFloat64()*60))))
	}
	for r := range rows {
		t.logits[r*cols] = t.logits[r*cols+1+int(t.posCol[r])]
	}
	return t
}

// rowLosses runs rowLoss on every row.
func (t *trainState[T]) rowLosses() {
	for r := range t.rows {
		t.rowLoss(r)
	}
}

// TestDenseRowsFloat32: the float32 row losses (the vector kernels'
// passes) agree with the float64 ones on the same logits, for each
// ingredient of the dense objectives.
func TestDenseRowsFloat32(t *testing.T) {
	for _, o := range []Objective{
		{Kind: "shared"},
		{Kind: "shared", Smoothing: 0.2, Sigmoid: 0.3},
		{Kind: "all", Temperature: 2, Smoothing: 0.1, Sigmoid: 1},
		{Kind: "shared", Smoothing: 0.2, AnswerTargets: true, Sigmoid: 0.5},
	} {
		t.Run(fmt.Sprintf("%+v", o), func(t *testing.T) {
			s32, s64 := syntheticRows[float32](o, 16, 333, 7), syntheticRows[float64](o, 16, 333, 7)
			s32.rowLosses()
			s64.rowLosses()
			for r := range s32.rows {
				if math.Abs(s32.pos[r]-s64.pos[r]) > 1e-5*max(1, math.Abs(s64.pos[r])) || math.Abs(s32.neg[r]-s64.neg[r]) > 1e-5*max(1, math.Abs(s64.neg[r])) {
					t.Errorf("row %d: terms %v %v, float64 %v %v", r, s32.pos[r], s32.neg[r], s64.pos[r], s64.neg[r])
				}
			}
			scale := 0.0
			for _, v := range s64.dlogits {
				scale = max(scale, math.Abs(v))
			}
			for i, v := range s32.dlogits {
				if math.Abs(float64(v)-s64.dlogits[i]) > 1e-5*scale {
					t.Fatalf("gradient %d: %v, float64 %v (largest %v)", i, v, s64.dlogits[i], scale)
				}
			}
		})
	}
}
