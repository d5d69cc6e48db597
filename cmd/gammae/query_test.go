package main

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/sample"
)

// tinyRun writes a run directory with a small random model of the tiny
// graph (testdata/tiny: ann, bob, cat ... knows, lives, likes, near) and
// its dataset, and returns the run directory.
func tinyRun(t *testing.T) string {
	t.Helper()
	tmp := t.TempDir()
	d, _, err := dataset.Open(context.Background(), filepath.Join("..", "..", "testdata", "tiny"), dataset.SourceTriples, dataset.ImportOptions{KeepUnseen: true})
	if err != nil {
		t.Fatal(err)
	}
	gqd := filepath.Join(tmp, "tiny.gqd")
	if err := dataset.Save(gqd, d); err != nil {
		t.Fatal(err)
	}
	cfg := gamma.Config{Entities: d.KG.Entities.Len(), Relations: d.KG.Relations.Len(), Dim: 8, Hidden: 16, Layers: 2, Gamma: 12, Epsilon: 0.07}
	m, err := gamma.New[float32](cfg, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		t.Fatal(err)
	}
	run := filepath.Join(tmp, "run")
	if err := os.Mkdir(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.SaveModel(filepath.Join(run, checkpoint.ModelFile), m, map[string]string{"gammae.iteration": "42"}); err != nil {
		t.Fatal(err)
	}
	if err := checkpoint.WriteRunMeta(run, &checkpoint.RunMeta{Version: 1, Dataset: gqd, Model: cfg}); err != nil {
		t.Fatal(err)
	}
	return run
}

// tinyQueries writes, beside run, a dataset of tinyRun's graph with
// 1p and 2p test queries, and returns its path.
func tinyQueries(t *testing.T, run string) string {
	return tinyQuerySet(t, run, "queries.gqd", func(o *sample.Options, specs []sample.Spec) { o.Test = specs })
}

// tinyQuerySet writes, beside run, a dataset of tinyRun's graph named
// name with five 1p and five 2p queries in the split that put sets, and
// returns its path.
func tinyQuerySet(t *testing.T, run, name string, put func(*sample.Options, []sample.Spec)) string {
	t.Helper()
	d, err := dataset.Load(filepath.Join(filepath.Dir(run), "tiny.gqd"))
	if err != nil {
		t.Fatal(err)
	}
	o := sample.Options{Seed: 1, Workers: 1, MaxTries: 2000}
	put(&o, []sample.Spec{{Shape: "(e,(r,))", Count: 5}, {Shape: "(e,(r,r))", Count: 5}})
	q, _, err := sample.Generate(context.Background(), d.KG, o)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(filepath.Dir(run), name)
	if err := dataset.Save(path, q); err != nil {
		t.Fatal(err)
	}
	return path
}

// runIn runs gammae in process with the given stdin.
func runIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

// answerRows parses the table rows of query output: entity → status.
func answerRows(out string) map[string]string {
	rows := map[string]string{}
	re := regexp.MustCompile(`(?m)^\s*\d+\s+(.+?)\s+#\d+\s+-?[\d.]+(?:e[+-]\d+)?\s+(observed|predicted)\s*$`)
	for _, m := range re.FindAllStringSubmatch(out, -1) {
		rows[m[1]] = m[2]
	}
	return rows
}

func TestQueryTable(t *testing.T) {
	run := tinyRun(t)
	// All ten entities, so that every status shows; flags after the query.
	code, out, stderr := runIn(t, "", "query", "--model", run, "p(bob, knows)", "-k", "100")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, s := range []string{"query:     p(bob, knows)\n", "structure: 1p", "observed answers: 2", "rank", "entity", "score"} {
		if !strings.Contains(out, s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
	rows := answerRows(out)
	if len(rows) != 10 {
		t.Fatalf("%d answer rows, want 10:\n%s", len(rows), out)
	}
	for name, status := range rows {
		want := "predicted"
		if name == "cat" || name == "dan" { // bob knows dan (train), cat (test)
			want = "observed"
		}
		if status != want {
			t.Errorf("%s is %s, want %s", name, status, want)
		}
	}
	if strings.Contains(out, "parsed") {
		t.Error("tree shown without --explain")
	}

	// --explain, and a query the shell split into words.
	code, out, stderr = runIn(t, "", "query", "--model", run, "--explain", "-k", "2", "?y", ":", "knows(ann,", "?x)", "&", "lives(?x,", "?y)")
	// Every node below the root shows its own best answers (2 observed for
	// "the x with knows(ann, x)": bob and cat).
	if code != 0 || !strings.Contains(out, "(* observed in the graph):\n  project lives  (#") || !strings.Contains(out, "\n      └── ann  (#0 ann)\n") ||
		!strings.Contains(out, "(2 observed, ~") || len(answerRows(out)) != 2 || !strings.Contains(out, "structure: 2p") {
		t.Errorf("--explain: exit %d\n%s%s", code, out, stderr)
	}
	if !strings.Contains(out, "variables (* observed in the graph):\n  ?x → ") {
		t.Errorf("--explain shows no variables:\n%s", out)
	}
	// --variable names one; a name the query lacks is a clear error.
	code, out, stderr = runIn(t, "", "query", "--model", run, "--variable", "x", "?y : knows(ann, ?x) & lives(?x, ?y)")
	if code != 0 || !strings.Contains(out, "  ?x → ") {
		t.Errorf("--variable x: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runIn(t, "", "query", "--model", run, "--variable", "w", "?y : knows(ann, ?x) & lives(?x, ?y)")
	if code != 1 || !strings.Contains(stderr, "--variable w: no such variable in the query (it has ?x)") {
		t.Errorf("--variable w: exit %d\n%s%s", code, out, stderr)
	}
}

func TestQueryNamesAndData(t *testing.T) {
	run := tinyRun(t)
	names := t.TempDir()
	if err := os.WriteFile(filepath.Join(names, "entity2text.txt"), []byte("ann\tAnn Smith\ncat\tFelix the Cat\nzed\tnot in the graph\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runIn(t, "", "query", "--model", run, "--names", names, "-k", "100", "p(Ann_Smith, knows)")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	if !strings.Contains(out, `query:     p("Ann Smith", knows)`) || answerRows(out)["Felix the Cat (cat)"] != "observed" {
		t.Errorf("labels not used:\n%s", out)
	}

	// A model file of a run directory has the run's dataset; a bare one,
	// elsewhere, records none: --data is needed.
	file := filepath.Join(run, checkpoint.ModelFile)
	if code, out, stderr := runIn(t, "", "query", "--model", file, "p(ann, knows)"); code != 0 || !strings.Contains(out, "rank") {
		t.Errorf("model file of a run: exit %d\n%s%s", code, out, stderr)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	file = filepath.Join(t.TempDir(), "bare.safetensors")
	if err := os.WriteFile(file, b, 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runIn(t, "", "query", "--model", file, "p(ann, knows)")
	if code != 1 || !strings.Contains(stderr, "give one with --data") {
		t.Errorf("model file without --data: exit %d\n%s", code, stderr)
	}
	meta, err := checkpoint.ReadRunMeta(run)
	if err != nil {
		t.Fatal(err)
	}
	code, out, stderr = runIn(t, "", "query", "--model", file, "--data", meta.Dataset, "p(ann, knows)")
	if code != 0 || !strings.Contains(out, "structure: 1p") {
		t.Errorf("model file with --data: exit %d\n%s%s", code, out, stderr)
	}

	// A dataset of another graph is refused.
	other := filepath.Join(t.TempDir(), "other.gqd")
	d, _, err := dataset.Open(context.Background(), filepath.Join("..", "..", "testdata", "tiny"), dataset.SourceTriples, dataset.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := dataset.Save(other, d); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runIn(t, "", "query", "--model", run, "--data", other, "p(ann, knows)")
	if code != 1 || !strings.Contains(stderr, "not the graph it was trained on") {
		t.Errorf("mismatched dataset: exit %d\n%s", code, stderr)
	}
}

func TestQueryJSON(t *testing.T) {
	run := tinyRun(t)
	code, out, stderr := runIn(t, "", "query", "--model", run, "--json", "-k", "3", "i(p(bob, knows), p(ann, knows))")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	var r struct {
		Input     string `json:"input"`
		Line      int    `json:"line"`
		Query     string `json:"query"`
		Structure string `json:"structure"`
		Answers   []struct {
			Rank     int     `json:"rank"`
			Name     string  `json:"name"`
			Score    float64 `json:"score"`
			Observed bool    `json:"observed"`
		} `json:"answers"`
		Entropy   float64 `json:"entropy"`
		Estimated float64 `json:"estimated_answers"`
		Observed  int     `json:"observed_answers"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	if r.Input != "i(p(bob, knows), p(ann, knows))" || r.Line != 0 || r.Structure != "2i" || len(r.Answers) != 3 || r.Observed != 1 {
		t.Errorf("JSON result %+v", r)
	}
	for _, a := range r.Answers {
		if a.Observed != (a.Name == "cat") { // bob>cat (test), ann>cat (train)
			t.Errorf("answer %+v", a)
		}
	}
}

func TestQueryBatch(t *testing.T) {
	run := tinyRun(t)
	input := "# friends\np(ann, knows)\n\n  p(bob, knowz)  \ni(p(bob, knows), n(p(ann, knows)))\n"
	file := filepath.Join(t.TempDir(), "q.txt")
	if err := os.WriteFile(file, []byte(input), 0o644); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runIn(t, "", "query", "--model", run, "--file", file, "-k", "2")
	if code != 1 || strings.Count(out, "query:") != 2 || !strings.Contains(out, "structure: 2in") {
		t.Errorf("--file: exit %d\n%s%s", code, out, stderr)
	}
	wantErr := file + ":4:8: unknown relation \"knowz\"; did you mean knows?\n    p(bob, knowz)\n           ^\n"
	if !strings.Contains(stderr, wantErr) || !strings.Contains(stderr, "1 of 3 queries failed") {
		t.Errorf("--file errors:\n%s\nwant\n%s", stderr, wantErr)
	}

	// stdin, given as "-" or implied, in JSON lines.
	for _, args := range [][]string{{"-"}, nil} {
		code, out, stderr = runIn(t, input, append([]string{"query", "--model", run, "--json", "-k", "1"}, args...)...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 1 || len(lines) != 3 || !strings.Contains(stderr, "stdin:4:8: unknown relation") {
			t.Fatalf("stdin %v: exit %d\n%s%s", args, code, out, stderr)
		}
		var e struct {
			Input string `json:"input"`
			Line  int    `json:"line"`
			Error struct {
				Message string `json:"message"`
				Line    int    `json:"line"`
				Column  int    `json:"column"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(lines[1]), &e); err != nil {
			t.Fatal(err)
		}
		if e.Input != "p(bob, knowz)" || e.Line != 4 || e.Error.Line != 1 || e.Error.Column != 8 || !strings.Contains(e.Error.Message, "knowz") {
			t.Errorf("JSON error line %+v", e)
		}
	}

	// Only comments: nothing to answer.
	if code, _, stderr := runIn(t, "# nothing\n\n", "query", "--model", run); code != 1 || !strings.Contains(stderr, "stdin: no queries") {
		t.Errorf("empty input: exit %d\n%s", code, stderr)
	}
}

func TestQueryErrors(t *testing.T) {
	dir := tinyRun(t)
	// A multi-line query: the caret goes under the right line and column.
	code, stdout, stderr := runIn(t, "", "query", "--model", dir, "?y : exists x . knows(ann, x)\n   & lives(x, ?y) & near(?y, Atlantis)")
	want := "query:2:30: unknown entity \"Atlantis\"\n       & lives(x, ?y) & near(?y, Atlantis)\n                                 ^\n"
	if code != 1 || stdout != "" || !strings.Contains(stderr, want) || !strings.Contains(stderr, "1 of 1 queries failed") {
		t.Errorf("exit %d\n%s\nwant\n%s", code, stderr, want)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"query", "p(ann, knows)"}, 1, "--model is required"},
		{[]string{"query", "--model", dir}, 2, "Usage: gammae query"},
		{[]string{"query", "--model", dir, "-k", "0", "p(ann, knows)"}, 1, "-k 0"},
		{[]string{"query", "--model", dir, "p(ann, knows)", "--bogus"}, 2, "flag provided but not defined: -bogus"},
		{[]string{"query", "--model", dir, "--file", "q.txt", "p(ann, knows)"}, 1, "not both"},
		{[]string{"query", "--model", filepath.Join(dir, "missing"), "p(ann, knows)"}, 1, "no such file"},
	} {
		var out, errb bytes.Buffer
		// A terminal-less empty stdin would be read as a batch: give none.
		code := run(context.Background(), c.args, &env{stdin: nil, stdout: &out, stderr: &errb})
		if code != c.code || !strings.Contains(errb.String(), c.msg) {
			t.Errorf("%v: exit %d, want %d with %q; stderr:\n%s", c.args, code, c.code, c.msg, errb.String())
		}
	}
}

// TestQueryUnion: unions are answered as DNF (best branch) unless --union
// says otherwise; an unknown form is a clear error.
func TestQueryUnion(t *testing.T) {
	run := tinyRun(t)
	q := "u(p(ann, knows), p(bob, likes))"
	code, dnf, stderr := runIn(t, "", "query", "--model", run, "-k", "100", q)
	if code != 0 || len(answerRows(dnf)) != 10 {
		t.Fatalf("default: exit %d\n%s%s", code, dnf, stderr)
	}
	code, moment, stderr := runIn(t, "", "query", "--model", run, "--union", "moment", "-k", "100", q)
	if code != 0 || len(answerRows(moment)) != 10 {
		t.Fatalf("--union moment: exit %d\n%s%s", code, moment, stderr)
	}
	if dnf == moment {
		t.Error("--union moment answers as the default dnf does")
	}
	code, _, stderr = runIn(t, "", "query", "--model", run, "--union", "bogus", q)
	if code == 0 || !strings.Contains(stderr, "--union bogus") {
		t.Errorf("--union bogus: exit %d, stderr %q", code, stderr)
	}
}

// TestQueryEstimates: a result estimates its answer count (Σ σ(logit))
// only for a model whose training loss makes σ(logit) a probability; a
// model of the softmax family says n/a, its JSON has no estimate, and
// eval --estimates says its sums are none.
func TestQueryEstimates(t *testing.T) {
	queries := "" // tinyRun's graph with test queries, for eval
	for _, c := range []struct {
		train string // the run's training configuration
		want  string
		json  bool // estimated_answers in --json output
	}{
		{"", "estimated answers: 0.", true}, // no training configuration: the reference's loss
		{`{"loss":"adversarial"}`, "estimated answers: 0.", true},
		{`{"loss":"softmax"}`, "estimated answers: n/a (a softmax-family loss)", false},
		{`{"loss":"shared","negatives":2048}`, "estimated answers: n/a", false},
		{`{"loss":"shared","loss_sigmoid":0.5}`, "estimated answers: 0.", true},
	} {
		run := tinyRun(t)
		if queries == "" {
			queries = tinyQueries(t, run)
		}
		if c.train != "" {
			meta, err := checkpoint.ReadRunMeta(run)
			if err != nil {
				t.Fatal(err)
			}
			meta.Train = json.RawMessage(c.train)
			if err := checkpoint.WriteRunMeta(run, meta); err != nil {
				t.Fatal(err)
			}
		}
		code, out, stderr := runIn(t, "", "query", "--model", run, "p(bob, knows)")
		if code != 0 || !strings.Contains(out, c.want) {
			t.Errorf("%s: exit %d, want %q\n%s%s", c.train, code, c.want, out, stderr)
		}
		code, out, stderr = runIn(t, "", "query", "--model", run, "--json", "p(bob, knows)")
		if code != 0 || strings.Contains(out, `"estimated_answers"`) != c.json {
			t.Errorf("%s --json: exit %d, estimated_answers present %v, want %v\n%s%s", c.train, code, !c.json, c.json, out, stderr)
		}
		// eval --estimates gives the sums either way, and says when they are no estimates.
		code, out, stderr = runIn(t, "", "eval", "--model", run, "--data", queries, "--estimates", "--quiet")
		if code != 0 || !strings.Contains(out, "estimated answer count") || strings.Contains(out, "the sums are no estimates") == c.json {
			t.Errorf("%s eval --estimates: exit %d, note present %v, want %v\n%s%s", c.train, code, !c.json, !c.json, out, stderr)
		}
	}
}
