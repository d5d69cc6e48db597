package evaluate

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/gqe"
	"github.com/gammae/gammae/metrics"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/query"
)

func TestCompareEstimates(t *testing.T) {
	nan := math.NaN()
	for _, c := range []struct {
		name                     string
		est, ans                 []float64
		answers, estimate, ratio float64
		within, srcc             float64
	}{
		{"exact", []float64{1, 5, 9}, []float64{1, 5, 9}, 5, 5, 1, 1, 1},
		{"twice everywhere", []float64{2, 10, 18}, []float64{1, 5, 9}, 5, 10, 2, 1, 1},
		{"far off, order kept", []float64{0.01, 0.02, 0.03, 0.04}, []float64{10, 20, 30, 40}, 25, 0.025, 0.001, 0, 1},
		{"order reversed", []float64{4, 3, 2, 1}, []float64{1, 2, 3, 4}, 2.5, 2.5, (2.0/3 + 1.5) / 2, 0.5, -1},
		{"a count of zero counts as one", []float64{3}, []float64{0}, 0, 3, 3, 0, nan},
		{"no queries", nil, nil, nan, nan, nan, nan, nan},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := CompareEstimates("1p", c.est, c.ans)
			if e.Structure != "1p" || e.Queries != len(c.est) {
				t.Errorf("structure %q, %d queries", e.Structure, e.Queries)
			}
			for _, v := range []struct {
				name      string
				got, want float64
			}{
				{"answers", float64(e.Answers), c.answers}, {"estimate", float64(e.Estimate), c.estimate},
				{"ratio", float64(e.Ratio), c.ratio}, {"within2x", float64(e.Within2), c.within},
				{"srcc", float64(e.Spearman), c.srcc},
			} {
				if !same(v.got, v.want, 1e-12) {
					t.Errorf("%s %g, want %g", v.name, v.got, v.want)
				}
			}
		})
	}
}

// TestRunEstimates checks the sums against σ of the scores computed one
// query at a time, for GammaE (Run) and a baseline (RunModel), and the
// pooled column against the rows.
func TestRunEstimates(t *testing.T) {
	split := tinySplit(t, 9, "1p", "2p", "2i", "2u", "3in")
	gm := tinyModel(t, gamma.UnionMoment)
	bm, err := gqe.New(gqe.Config{Entities: entities, Relations: relations, Dim: 4, Gamma: 6}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	gws := gm.NewWorkspace()
	gammaScores := func(g int, q int) []float64 {
		grp := split.Groups[g]
		p, err := gm.Compile(grp.Template)
		if err != nil {
			t.Fatal(err)
		}
		e, err := gws.Embed(p, grp.Row(q))
		if err != nil {
			t.Fatal(err)
		}
		s := make([]float32, entities)
		if err := gws.ScoreAll(e, s); err != nil {
			t.Fatal(err)
		}
		out := make([]float64, entities)
		for i, v := range s {
			out[i] = float64(v)
		}
		return out
	}
	for _, c := range []struct {
		name   string
		groups int // the first ones of the split: GQE has no negation
		run    func(Options) (*Report, error)
		scores func(g, q int) []float64
	}{
		{"gammae", 5, func(o Options) (*Report, error) { return Run(context.Background(), gm, split, o) }, gammaScores},
		{"gqe", 4, func(o Options) (*Report, error) {
			o.Structures = []string{"1p", "2p", "2i", "2u"}
			return RunModel(context.Background(), bm, entities, split, o)
		}, func(g, q int) []float64 { return qeScores(t, bm, split.Groups[g].Query(q)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, err := c.run(Options{Estimates: true, Block: 4})
			if err != nil {
				t.Fatal(err)
			}
			if r.Estimates == nil || len(r.Estimates.Rows) != c.groups {
				t.Fatalf("estimates %+v, want %d rows", r.Estimates, c.groups)
			}
			var allEst, allAns []float64
			for g, grp := range split.Groups[:c.groups] {
				var est, ans []float64
				for q := range grp.Len() {
					if len(grp.Answers(q)) == 0 {
						continue
					}
					sum := 0.0
					for _, v := range c.scores(g, q) {
						sum += 1 / (1 + math.Exp(-v))
					}
					est = append(est, sum)
					ans = append(ans, float64(len(grp.Answers(q))+len(grp.EasyAnswers(q))))
				}
				want := CompareEstimates(metrics.Canonical(grp.Name()), est, ans)
				if got := r.Estimates.Rows[g]; !sameEstimate(got, want) {
					t.Errorf("row %+v, want %+v", got, want)
				}
				allEst, allAns = append(allEst, est...), append(allAns, ans...)
			}
			if want := CompareEstimates("all", allEst, allAns); !sameEstimate(r.Estimates.All, want) {
				t.Errorf("pooled %+v, want %+v", r.Estimates.All, want)
			}
			if r.Uncertainty != nil {
				t.Error("uncertainty computed without being asked for")
			}
		})
	}
}

// qeScores is a baseline's logits of one query against all entities.
func qeScores(t *testing.T, m qe.Model, q query.Node) []float64 {
	t.Helper()
	s := make([]float64, entities)
	if err := m.Scores(q, s); err != nil {
		t.Fatal(err)
	}
	return s
}

// sameEstimate compares two rows up to the float32 logits' rounding.
func sameEstimate(a, b Estimate) bool {
	return a.Structure == b.Structure && a.Queries == b.Queries &&
		same(float64(a.Answers), float64(b.Answers), 0) && same(float64(a.Estimate), float64(b.Estimate), 1e-5*math.Abs(float64(b.Estimate))) &&
		same(float64(a.Ratio), float64(b.Ratio), 1e-5*math.Abs(float64(b.Ratio))) && same(float64(a.Within2), float64(b.Within2), 0) &&
		same(float64(a.Spearman), float64(b.Spearman), 1e-9)
}

func TestEstimatesOutputs(t *testing.T) {
	split := tinySplit(t, 12, "1p", "2u", "3in")
	r, err := Run(context.Background(), tinyModel(t, gamma.UnionMoment), split, Options{Estimates: true})
	if err != nil {
		t.Fatal(err)
	}
	back := checkForms(t, r, "estimated answer count", "answers", "estimate", "ratio", "within2x", "SRCC", "all")
	if back.Estimates == nil || len(back.Estimates.Rows) != 3 || !sameEstimate(back.Estimates.All, r.Estimates.All) {
		t.Errorf("JSON round trip: %+v", back.Estimates)
	}
	var csv bytes.Buffer
	if err := r.Estimates.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	// 3in has 4 queries without hard answers (every third): 8 ranked.
	if len(lines) != 7 || lines[0] != "metric,1p,2u,3in,all" || lines[6] != "queries,12,12,8,32" {
		t.Errorf("estimates CSV:\n%s", csv.String())
	}
}
