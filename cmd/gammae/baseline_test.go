package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/query"
	"github.com/gammae/gammae/registry"
)

// Every baseline trains, evaluates, compares and answers from the command
// line; bad input (an unknown kind, a negation query for GQE, a run of one
// kind resumed as another) gets a one-line error.
func TestBaselinesEndToEnd(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "tiny.gqd")
	graph := filepath.Join("..", "..", "testdata", "tiny")
	if code, out, errs := runCmd(t, "data", "generate", "--graph", graph, "--out", data, "--train-count", "30", "--neg-train-count", "8",
		"--eval-count", "5", "--max-tries", "300", "--quiet"); code != 0 {
		t.Fatalf("generate: %d\n%s%s", code, out, errs)
	}
	small := []string{"--preset", "small", "--dim", "6", "--batch", "8", "--negatives", "4", "--steps", "3", "--valid-every", "2", "--valid-queries", "3"}
	var runs []string
	for _, kind := range []string{"gqe", "q2b", "betae", "cone"} {
		run := filepath.Join(dir, kind)
		args := append([]string{"train", "--data", data, "--out", run, "--model-kind", kind}, small...)
		if kind == "betae" || kind == "cone" {
			args = append(args, "--hidden", "8") // GQE and Query2Box have no hidden layers: the flag is refused
		}
		code, out, errs := runCmd(t, args...)
		if code != 0 || !strings.Contains(out, "finished: 3 iterations") {
			t.Fatalf("gammae %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
		}
		var meta struct {
			Kind   string          `json:"kind"`
			Config json.RawMessage `json:"config"`
		}
		if b, err := os.ReadFile(filepath.Join(run, "config.json")); err != nil || json.Unmarshal(b, &meta) != nil || meta.Kind != kind || !strings.Contains(string(meta.Config), `"dim": 6`) {
			t.Errorf("%s: config.json records %q %s (%v)", kind, meta.Kind, meta.Config, err)
		}
		// --valid-every 2 of 3 iterations: at 2 and at the end.
		if b, err := os.ReadFile(filepath.Join(run, "log.jsonl")); err != nil || strings.Count(string(b), `"valid_mrr"`) != 2 {
			t.Errorf("%s: log.jsonl has %d validations, want 2 (%v)\n%s", kind, strings.Count(string(b), `"valid_mrr"`), err, b)
		}
		if code, out, errs := runCmd(t, "eval", "--model", run, "--quiet"); code != 0 || !strings.Contains(out, "MRR") {
			t.Errorf("eval %s: exit %d\n%s%s", kind, code, out, errs)
		}
		if code, out, errs := runCmd(t, "train", "--data", data, "--out", run, "--resume", "--steps", "4"); code != 0 || !strings.Contains(out, "finished: 4 iterations (1 now") {
			t.Errorf("resume %s: exit %d\n%s%s", kind, code, out, errs)
		}
		runs = append(runs, run)
	}
	code, out, errs := runCmd(t, append([]string{"compare", "--quiet", "--paper", "fb15k-237"}, runs...)...)
	if code != 0 || !strings.Contains(out, "| GQE "+runs[0]) || !strings.Contains(out, "| ConE "+runs[3]+" (cone size) |") || !strings.Contains(out, "| BetaE (paper) |") {
		t.Errorf("compare: exit %d\n%s%s", code, out, errs)
	}
	// A table kept as JSON takes a new run without evaluating its rows again.
	cmpJSON := filepath.Join(dir, "cmp.json")
	if code, out, errs := runCmd(t, "compare", "--quiet", "--json", cmpJSON, runs[0], runs[1]); code != 0 || !strings.Contains(out, "Training behind each row") {
		t.Errorf("compare --json: exit %d\n%s%s", code, out, errs)
	}
	code, out, errs = runCmd(t, "compare", "--quiet", "--paper", "fb15k-237", cmpJSON, runs[3])
	if code != 0 || strings.Index(out, "| GQE "+runs[0]) > strings.Index(out, "| ConE "+runs[3]+" (cone size) |") || strings.Count(out, "| GQE (paper) |") != 2 || !strings.Contains(out, "| GQE "+runs[0]+" | sigmoid | 2 | 0.") {
		t.Errorf("compare cmp.json RUN: exit %d, want the file's rows, then the run's, then the paper's once per table\n%s%s", code, out, errs)
	}
	if b, err := os.ReadFile(filepath.Join(runs[0], "config.json")); err != nil || !strings.Contains(string(b), `"hosts"`) {
		t.Errorf("config.json names no host (%v):\n%s", err, b)
	}
	if code, out, errs := runCmd(t, "compare", "--quiet", "--per-structure", "1", cmpJSON, runs[2]); code == 0 || !strings.Contains(errs, "scored all queries, these rows a sample of at most 1 per structure") {
		t.Errorf("compare of a table of all queries with a sample: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCmd(t, "compare", "--quiet", "--split", "valid", cmpJSON, runs[2]); code == 0 || !strings.Contains(errs, "compares tiny.gqd test queries, not tiny.gqd valid") {
		t.Errorf("compare of a test table with valid queries: exit %d\n%s%s", code, out, errs)
	}
	if code, out, errs := runCmd(t, "compare", "--quiet", "--split", "valid", runs[2]); code != 0 || !strings.Contains(out, "tiny.gqd valid queries") {
		t.Errorf("compare --split valid: exit %d, want its tables titled for the valid queries\n%s%s", code, out, errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"query", "--model", runs[2], "?y : exists x . knows(ann, x) & knows(x, ?y)"}, "rank"},
		{[]string{"query", "--model", runs[0], "i(p(ann, knows), n(p(bob, knows)))"}, "GQE has no negation operator"},
		{[]string{"query", "--model", runs[2], "--precision", "bf16", "p(ann, knows)"}, "--precision bf16: BetaE scores in float64"},
		{[]string{"train", "--data", data, "--out", filepath.Join(dir, "x"), "--model-kind", "nope"}, `unknown model kind "nope" (have gammae, gqe, q2b, betae, cone)`},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "h"), "--model-kind", "gqe", "--hidden", "8"}, small...), `GQE has no setting "hidden"`},
		{[]string{"train", "--data", data, "--out", runs[2], "--resume", "--model-kind", "gqe"}, "holds a betae run, not gqe"},
		{append([]string{"train", "--data", data, "--out", filepath.Join(dir, "neg"), "--model-kind", "q2b", "--structures", "1p,2in"}, small...), "Query2Box has no negation operator"},
	} {
		code, out, errs := runCmd(t, tc.args...)
		if !strings.Contains(out+errs, tc.want) {
			t.Errorf("gammae %s: exit %d, want %q\n%s%s", strings.Join(tc.args, " "), code, tc.want, out, errs)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "neg", "config.json")); err == nil {
		t.Error("a refused training run wrote its directory")
	}
}

// A model without negation validates on the structures it answers: a
// validation split with negation queries is no error for GQE and
// Query2Box (it stopped their training once).
func TestValidatorSkipsNegation(t *testing.T) {
	d, err := dataset.Load(tinyData(t, "5", "300"))
	if err != nil {
		t.Fatal(err)
	}
	d.Valid = d.Test // the test split has negation queries
	neg := false
	for _, g := range d.Valid.Groups {
		neg = neg || query.HasNegation(g.Template)
	}
	if !neg {
		t.Fatal("the split has no negation queries to skip")
	}
	for _, kind := range []string{"gqe", "q2b", "betae"} {
		k, err := registry.Lookup(kind)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := registry.Config(k, "fb15k-237", d.KG.Train.N, d.KG.Train.R, map[string]any{"dim": 4}, map[string]any{"hidden": 4})
		if err != nil {
			t.Fatal(err)
		}
		m, err := registry.New(kind, cfg)
		if err != nil {
			t.Fatal(err)
		}
		validate := modelValidator(d, 5, 1, kind, d.KG.Train.N)
		mrr, per, err := validate(context.Background(), m)
		if err != nil {
			t.Fatalf("%s: %v", kind, err)
		}
		_, hasNeg := per["2in"]
		if hasNeg == !k.Negation || mrr <= 0 {
			t.Errorf("%s: MRR %g, per structure %v (negation operator: %v)", kind, mrr, per, k.Negation)
		}
	}
}

// The hour preset gives each baseline its probed hour configuration.
func TestBaselineHourPreset(t *testing.T) {
	data := tinyData(t, "2", "100")
	for kind, want := range map[string]string{"gqe": "d=400 h=1 L=1", "q2b": "d=200 h=1 L=1", "betae": "d=200 h=800 L=2", "cone": "d=400 h=800 L=2"} {
		code, out, errs := runCmd(t, "train", "--data", data, "--model-kind", kind, "--preset", "fb15k-237-hour", "--bench", "1", "--batch", "4", "--negatives", "2")
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("%s: exit %d, want %q in\n%s%s", kind, code, want, out, errs)
		}
	}
}

// tinyData samples a small dataset from testdata/tiny with evalCount
// valid and test queries per structure, and returns its path.
func tinyData(t *testing.T, evalCount, maxTries string) string {
	t.Helper()
	data := filepath.Join(t.TempDir(), "tiny.gqd")
	if code, out, errs := runCmd(t, "data", "generate", "--graph", filepath.Join("..", "..", "testdata", "tiny"), "--out", data,
		"--train-count", "10", "--neg-train-count", "4", "--eval-count", evalCount, "--max-tries", maxTries, "--quiet"); code != 0 {
		t.Fatalf("generate: %d\n%s%s", code, out, errs)
	}
	return data
}
