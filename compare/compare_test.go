package compare

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/metrics"
)

func report() *evaluate.Report {
	var acc metrics.Accumulator
	acc.Add("1p", metrics.Result{MRR: 0.5, Hits1: 0.25})
	acc.Add("2u-DNF", metrics.Result{MRR: 0.1, Hits1: 0.05})
	acc.Add("2in", metrics.Result{MRR: 0.04, Hits1: 0.01})
	return &evaluate.Report{Table: acc.Table(), Queries: 3, Uncertainty: &evaluate.Uncertainty{
		Rows:    []evaluate.Correlation{{Structure: "1p", Queries: 1, Spearman: 0.5, Pearson: evaluate.Coefficient(math.NaN())}},
		Average: evaluate.Correlation{Structure: "avg", Spearman: 0.5, Pearson: evaluate.Coefficient(math.NaN())},
	}}
}

func TestComparison(t *testing.T) {
	paper, err := Paper("FB15k-237")
	if err != nil {
		t.Fatal(err)
	}
	c := &Comparison{Dataset: "FB15k-237", Rows: append([]Row{
		FromReport("runs/betae", "betae", "differential entropy", report()),
		FromReport("runs/gqe", "gqe", "", report()),
	}, paper...)}
	var md bytes.Buffer
	if err := c.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	out := md.String()
	for _, want := range []string{
		"| runs/betae (differential entropy) | 50.0 | – | – | – | – | – | – | 10.0 | – | 30.0 |",
		"| GammaE (paper) | 43.2 | 13.2 | 11.0 | 33.5 | 47.9 | 27.2 | 15.9 | 15.4 | 11.3 | 24.3 |",
		"| ConE (paper) | 5.4 | 8.6 | 7.8 | 4.0 | 3.6 | 5.9 |",
		"| runs/gqe | 25.0 | – |",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "| GQE (paper) | – | – | – | – | – | – |") {
		t.Errorf("a row without values in the negation table:\n%s", out)
	}
	var csv bytes.Buffer
	if err := c.WriteCSV(&csv); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(csv.String(), "FB15k-237,runs/betae,betae,false,mrr,epfo,30\n") {
		t.Errorf("csv:\n%s", csv.String())
	}
	if _, err := json.Marshal(c); err != nil {
		t.Errorf("JSON: %v", err) // NaN coefficients must not reach it
	}
	if _, err := Paper("wn18rr"); err == nil {
		t.Error("Paper(wn18rr): no error")
	}
}

// A comparison written as JSON reads back, merges its measured rows into
// another of the same queries, and refuses one of other queries.
func TestReadMerge(t *testing.T) {
	row := FromReport("runs/betae", "betae", "differential entropy", report())
	row.Iterations, row.CPUSeconds, row.Hosts, row.Loss = 4000, 7123.4, []string{"AMD EPYC (family 25 model 17); avx512"}, "softmax"
	paper, _ := Paper("fb15k-237")
	old := &Comparison{Dataset: "fb237.gqd", Rows: append([]Row{row}, paper...)}
	path := filepath.Join(t.TempDir(), "cmp.json")
	b, err := json.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := &Comparison{Dataset: "fb237.gqd", Split: "test", Rows: []Row{FromReport("runs/gqe", "gqe", "", report())}}
	if err := c.Merge(got, path); err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 2 || c.Rows[1].Name != "runs/betae" || c.Rows[1].MRR["1p"] != 50 {
		t.Fatalf("merged rows %+v, want gqe then betae (paper rows left out)", c.Rows)
	}
	var md bytes.Buffer
	if err := c.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| runs/betae | softmax | 4000 | 7123 | AMD EPYC (family 25 model 17); avx512 |", "| runs/gqe | – | – | – | – |"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, md.String())
		}
	}
	var csv bytes.Buffer
	if err := c.WriteCSV(&csv); err != nil || !strings.Contains(csv.String(), "fb237.gqd,runs/betae,betae,false,cpu_seconds,,7123.4\n") {
		t.Errorf("csv (%v):\n%s", err, csv.String())
	}
	if err := (&Comparison{Dataset: "fb237.gqd", Split: "valid"}).Merge(got, path); err == nil || !strings.Contains(err.Error(), "compares fb237.gqd test queries, not fb237.gqd valid") {
		t.Errorf("merge of another split: %v", err)
	}
	sampled := &Comparison{Dataset: "fb237.gqd", PerStructure: 500, Seed: 1}
	if err := sampled.Merge(got, path); err == nil || !strings.Contains(err.Error(), "scored all queries, these rows a sample of at most 500 per structure (--per-structure 500 --seed 1)") {
		t.Errorf("merge of rows scored on all queries into a sample's: %v", err)
	}
	for _, bad := range []string{`{"rows": []}`, `[1, 2]`, `{"dataset": "x", "rows": [{"mrr": {}}]}`} {
		if err := os.WriteFile(path, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadFile(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("ReadFile(%s): %v, want an error naming the file", bad, err)
		}
	}
}
