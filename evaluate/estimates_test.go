package evaluate

import (
	"bytes"
	"context"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/gammae/gammae/calibrate"
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
		est, ans, shifts         []float64
		answers, estimate, ratio float64
		within, srcc, shift      float64
	}{
		{"exact", []float64{1, 5, 9}, []float64{1, 5, 9}, []float64{0, 0, 0}, 5, 5, 1, 1, 1, 0},
		{"twice everywhere", []float64{2, 10, 18}, []float64{1, 5, 9}, []float64{-0.7, -0.9, -0.8}, 5, 10, 2, 1, 1, -0.8},
		{"far off, order kept", []float64{0.01, 0.02, 0.03, 0.04}, []float64{10, 20, 30, 40}, []float64{7, 8, 6, 9}, 25, 0.025, 0.001, 0, 1, 7.5},
		{"order reversed", []float64{4, 3, 2, 1}, []float64{1, 2, 3, 4}, nil, 2.5, 2.5, (2.0/3 + 1.5) / 2, 0.5, -1, nan},
		{"a count of zero counts as one", []float64{3}, []float64{0}, nil, 0, 3, 3, 0, nan, nan},
		{"no queries", nil, nil, nil, nan, nan, nan, nan, nan, nan},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := CompareEstimates("1p", c.est, c.ans, c.shifts)
			if e.Structure != "1p" || e.Queries != len(c.est) {
				t.Errorf("structure %q, %d queries", e.Structure, e.Queries)
			}
			for _, v := range []struct {
				name      string
				got, want float64
			}{
				{"answers", float64(e.Answers), c.answers}, {"estimate", float64(e.Estimate), c.estimate},
				{"ratio", float64(e.Ratio), c.ratio}, {"within2x", float64(e.Within2), c.within},
				{"srcc", float64(e.Spearman), c.srcc}, {"shift", float64(e.Shift), c.shift},
			} {
				if !same(v.got, v.want, 1e-12) {
					t.Errorf("%s %g, want %g", v.name, v.got, v.want)
				}
			}
		})
	}
}

// TestRunEstimates checks the sums against σ of the scores computed one
// query at a time, for GammaE (Run) and a baseline (RunModel), with and
// without a calibration's shift, each query's fitted shift against a
// bisection in float64, and the pooled column against the rows.
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
	type runCase struct {
		name   string
		groups int // the first ones of the split: GQE has no negation
		run    func(Options) (*Report, error)
		scores func(g, q int) []float64
		cal    calibrate.Shifts
	}
	var cases []runCase
	for _, c := range []runCase{
		{"gammae", 5, func(o Options) (*Report, error) { return Run(context.Background(), gm, split, o) }, gammaScores, calibrate.Shifts{}},
		{"gqe", 4, func(o Options) (*Report, error) {
			o.Structures = []string{"1p", "2p", "2i", "2u"}
			return RunModel(context.Background(), bm, entities, split, o)
		}, func(g, q int) []float64 { return qeScores(t, bm, split.Groups[g].Query(q)) }, calibrate.Shifts{}},
	} {
		cases = append(cases, c)
		c.name, c.cal = c.name+" calibrated", calibrate.Shifts{Default: -1.75, Structures: map[string]float64{"2p": 0.5}}
		cases = append(cases, c)
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r, err := c.run(Options{Estimates: true, Block: 4, Calibration: c.cal})
			if err != nil {
				t.Fatal(err)
			}
			if r.Estimates == nil || len(r.Estimates.Rows) != c.groups {
				t.Fatalf("estimates %+v, want %d rows", r.Estimates, c.groups)
			}
			if !reflect.DeepEqual(r.Estimates.Calibration, c.cal) {
				t.Errorf("calibration %+v, want %+v", r.Estimates.Calibration, c.cal)
			}
			var allEst, allAns, allFit []float64
			for g, grp := range split.Groups[:c.groups] {
				var est, ans, fit []float64
				shift := c.cal.For(metrics.Canonical(grp.Name()))
				for q := range grp.Len() {
					if len(grp.Answers(q)) == 0 {
						continue
					}
					scores := c.scores(g, q)
					sum := func(b float64) float64 {
						s := 0.0
						for _, v := range scores {
							s += 1 / (1 + math.Exp(-v-b))
						}
						return s
					}
					n := float64(len(grp.Answers(q)) + len(grp.EasyAnswers(q)))
					lo, hi := -float64(calibrate.MaxShift), float64(calibrate.MaxShift)
					for range 60 {
						if mid := (lo + hi) / 2; sum(mid) < n {
							lo = mid
						} else {
							hi = mid
						}
					}
					est, ans, fit = append(est, sum(shift)), append(ans, n), append(fit, lo-shift)
				}
				want := CompareEstimates(metrics.Canonical(grp.Name()), est, ans, fit)
				want.Applied = Coefficient(shift)
				if got := r.Estimates.Rows[g]; !sameEstimate(got, want) {
					t.Errorf("row %+v, want %+v", got, want)
				}
				allEst, allAns, allFit = append(allEst, est...), append(allAns, ans...), append(allFit, fit...)
			}
			want := CompareEstimates("all", allEst, allAns, allFit)
			want.Applied = Coefficient(c.cal.Default) // one shift for all, or several (NaN)
			if len(c.cal.Structures) > 0 {
				want.Applied = Coefficient(math.NaN())
			}
			if !sameEstimate(r.Estimates.All, want) {
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
		same(float64(a.Spearman), float64(b.Spearman), 1e-9) && same(float64(a.Shift), float64(b.Shift), 1e-3) && same(float64(a.Applied), float64(b.Applied), 0)
}

func TestEstimatesOutputs(t *testing.T) {
	split := tinySplit(t, 12, "1p", "2u", "3in")
	r, err := Run(context.Background(), tinyModel(t, gamma.UnionMoment), split, Options{Estimates: true})
	if err != nil {
		t.Fatal(err)
	}
	back := checkForms(t, r, "estimated answer count", "answers", "estimate", "ratio", "within2x", "SRCC", "shift", "applied", "all")
	if back.Estimates == nil || len(back.Estimates.Rows) != 3 || !sameEstimate(back.Estimates.All, r.Estimates.All) {
		t.Errorf("JSON round trip: %+v", back.Estimates)
	}
	var csv bytes.Buffer
	if err := r.Estimates.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	// 3in has 4 queries without hard answers (every third): 8 ranked.
	if len(lines) != 9 || lines[0] != "metric,1p,2u,3in,all" || !strings.HasPrefix(lines[6], "shift,") || lines[7] != "applied,0,0,0,0" || lines[8] != "queries,12,12,8,32" {
		t.Errorf("estimates CSV:\n%s", csv.String())
	}
}
