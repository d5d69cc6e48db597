package evaluate

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/metrics"
)

// TestEntropyKnownValues checks the differential entropy of Gamma
// products against closed forms: Gamma(1, β) is the exponential
// distribution with entropy 1 − ln β; Gamma(2, 1) has 2 − ψ(2) =
// 1 + γ_E; Gamma(½, 2) has ½ − ln 2 + ln √π + ½ψ(½).
func TestEntropyKnownValues(t *testing.T) {
	const euler = 0.5772156649015329
	psiHalf := -euler - 2*math.Ln2
	cases := []struct {
		alpha, beta []float64
		want        float64
	}{
		{[]float64{1}, []float64{1}, 1},
		{[]float64{1}, []float64{4}, 1 - math.Log(4)},
		{[]float64{2}, []float64{1}, 1 + euler},
		{[]float64{0.5}, []float64{2}, 0.5 - math.Ln2 + 0.5*math.Log(math.Pi) + 0.5*psiHalf},
		{[]float64{1, 2, 1}, []float64{1, 1, 4}, 1 + (1 + euler) + (1 - math.Log(4))},
	}
	for _, c := range cases {
		if got := gamma.Entropy(c.alpha, c.beta); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Entropy(%v, %v) = %v, want %v", c.alpha, c.beta, got, c.want)
		}
		a32, b32 := make([]float32, len(c.alpha)), make([]float32, len(c.beta))
		for i := range a32 {
			a32[i], b32[i] = float32(c.alpha[i]), float32(c.beta[i])
		}
		if got := gamma.Entropy(a32, b32); math.Abs(got-c.want) > 1e-5 {
			t.Errorf("float32 Entropy(%v, %v) = %v, want %v", c.alpha, c.beta, got, c.want)
		}
	}
}

func TestCorrelate(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name    string
		h, n    []float64
		s, p    float64
		queries int
	}{
		// Ranks 1 2 3 4 against 1 3 2 4: Σd² = 2, ρ = 1 − 6·2/(4·15) = 0.8;
		// the values are their ranks, so Pearson is 0.8 too.
		{"swap", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 0.8, 0.8, 4},
		{"linear", []float64{0.5, 1, 1.5, 2}, []float64{3, 5, 7, 9}, 1, 1, 4},
		{"reversed", []float64{3, 2, 1}, []float64{10, 20, 30}, -1, -1, 3},
		{"constant answers", []float64{1, 2, 3}, []float64{5, 5, 5}, nan, nan, 3},
		{"one query", []float64{1}, []float64{5}, nan, nan, 1},
		{"no queries", nil, nil, nan, nan, 0},
		{"infinite entropy", []float64{1, math.Inf(1), 3}, []float64{1, 2, 3}, nan, nan, 3},
	}
	for _, c := range cases {
		got := Correlate("1p", c.h, c.n)
		if got.Queries != c.queries || !same(float64(got.Spearman), c.s, 1e-12) || !same(float64(got.Pearson), c.p, 1e-6) {
			t.Errorf("%s: %+v, want spearman %v pearson %v over %d", c.name, got, c.s, c.p, c.queries)
		}
	}
}

func same(a, b, tol float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return math.IsNaN(a) && math.IsNaN(b)
	}
	return math.Abs(a-b) <= tol
}

// TestRunUncertainty recomputes each structure's correlation from
// entropies of queries embedded one at a time.
func TestRunUncertainty(t *testing.T) {
	names := []string{"1p", "2p", "2i", "ip", "2u", "up", "2in", "3in", "2u-DM"}
	split := tinySplit(t, 15, names...)
	for _, union := range []gamma.Union{gamma.UnionMoment, gamma.UnionDNF} {
		m := tinyModel(t, gamma.UnionMoment)
		r, err := Run(context.Background(), m, split, Options{Uncertainty: true, Union: union, Block: 4})
		if err != nil {
			t.Fatal(err)
		}
		v, err := Variant(m, union, false)
		if err != nil {
			t.Fatal(err)
		}
		ws := v.NewWorkspace()
		var want []Correlation
		for _, g := range split.Groups {
			p, err := v.Compile(g.Template)
			if err != nil {
				t.Fatal(err)
			}
			if p.Components() != 1 {
				continue // DNF unions: no single Gamma
			}
			var h, n []float64
			for q := 0; q < g.Len(); q++ {
				if len(g.Answers(q)) == 0 {
					continue
				}
				e, err := ws.Embed(p, g.Row(q))
				if err != nil {
					t.Fatal(err)
				}
				h = append(h, gamma.Entropy(e.Alpha[0], e.Beta[0]))
				n = append(n, float64(len(g.Answers(q))+len(g.EasyAnswers(q))))
			}
			s, _ := metrics.Spearman(h, n)
			pc, _ := metrics.Pearson(h, n)
			want = append(want, Correlation{metrics.Canonical(g.Name()), len(h), Coefficient(s), Coefficient(pc)})
		}
		u := r.Uncertainty
		if u == nil || len(u.Rows) != len(want) {
			t.Fatalf("%s: uncertainty %+v, want %d rows", union, u, len(want))
		}
		for i, w := range want {
			g := u.Rows[i]
			if g.Structure != w.Structure || g.Queries != w.Queries ||
				!same(float64(g.Spearman), float64(w.Spearman), 1e-9) || !same(float64(g.Pearson), float64(w.Pearson), 1e-6) {
				t.Errorf("%s: row %+v, want %+v", union, g, w)
			}
		}
		// The average covers the paper's structures only: not 2u, up, 2u-DM.
		var of []string
		var sum float64
		for _, row := range u.Rows {
			if slices.Contains(UncertaintyStructures, row.Structure) && !math.IsNaN(float64(row.Spearman)) && !math.IsNaN(float64(row.Pearson)) {
				of = append(of, row.Structure)
				sum += float64(row.Spearman)
			}
		}
		if !slices.Equal(u.Of, of) || !same(float64(u.Average.Spearman), sum/float64(len(of)), 1e-12) {
			t.Errorf("%s: average %+v over %v, want over %v", union, u.Average, u.Of, of)
		}
	}
}

func TestCoefficientJSON(t *testing.T) {
	in := []Coefficient{0.25, Coefficient(math.NaN()), -1}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "[0.25,null,-1]" {
		t.Errorf("JSON %s", b)
	}
	var out []Coefficient
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	if out[0] != 0.25 || !math.IsNaN(float64(out[1])) || out[2] != -1 {
		t.Errorf("round trip %v", out)
	}
}

// TestReportOutputs checks that the text, JSON and CSV forms carry the
// paper's layout and the same numbers.
func TestReportOutputs(t *testing.T) {
	split := tinySplit(t, 12, "1p", "2p", "2u", "2in", "pni")
	r, err := Run(context.Background(), tinyModel(t, gamma.UnionMoment), split, Options{Uncertainty: true})
	if err != nil {
		t.Fatal(err)
	}
	back := checkForms(t, r, "MRR", "H@10", "queries", "2u", "avg", "SRCC", "PCC", "unions embedded as moment", "(avg over 4 of the paper's 12 structures: 1p 2p 2in pni)")
	if back.Queries != r.Queries || back.Table.Rows[0].MRR != r.Table.Rows[0].MRR || len(back.Uncertainty.Rows) != 5 {
		t.Errorf("JSON round trip: %+v", back)
	}
	var csv bytes.Buffer
	if err := r.Uncertainty.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(csv.String()), "\n")
	if len(lines) != 4 || lines[0] != "metric,1p,2p,2u,2in,pni,avg" || !strings.HasPrefix(lines[3], "queries,12,12,12,12,12,48") {
		t.Errorf("uncertainty CSV:\n%s", csv.String())
	}
}

// checkForms checks that r's text holds each of want, and returns r read
// back from its JSON.
func checkForms(t *testing.T, r *Report, want ...string) Report {
	t.Helper()
	var text bytes.Buffer
	if err := r.WriteText(&text); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(text.String(), w) {
			t.Errorf("text lacks %q:\n%s", w, text.String())
		}
	}
	var js bytes.Buffer
	if err := r.WriteJSON(&js); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal(js.Bytes(), &back); err != nil {
		t.Fatalf("%v in %s", err, js.String())
	}
	return back
}
