package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gammae/gammae/pickle"
	"github.com/gammae/gammae/query"
)

// runCmd runs gammae in process and returns its exit code and output.
func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	code := run(context.Background(), args, &env{stdin: strings.NewReader(""), stdout: &out, stderr: &errb})
	return code, out.String(), errb.String()
}

func TestDataCommands(t *testing.T) {
	tmp := t.TempDir()
	tiny := filepath.Join("..", "..", "testdata", "tiny")
	gqd := filepath.Join(tmp, "tiny.gqd")
	bench := filepath.Join(tmp, "bench")

	code, out, stderr := runCmd(t, "data", "import", "--from", tiny, "--out", gqd, "--keep-unseen")
	if code != 0 || !strings.Contains(out, "wrote "+gqd) || !strings.Contains(out, "triples: train: 16 triples, valid: 3 triples, test: 4 triples") {
		t.Fatalf("import triples: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runCmd(t, "data", "export", "--out", bench, gqd)
	if code != 0 || !strings.Contains(out, "exported") {
		t.Fatalf("export: exit %d\n%s%s", code, out, stderr)
	}
	for _, f := range []string{"id2ent.pkl", "ent2id.pkl", "id2rel.pkl", "rel2id.pkl", "train.txt", "valid.txt", "test.txt", "stats.txt"} {
		if _, err := os.Stat(filepath.Join(bench, f)); err != nil {
			t.Errorf("export wrote no %s", f)
		}
	}

	// Add test queries without answers: import computes them.
	qs := []pickle.QueryGroup{
		group(t, "(e,(r,))", "(1,(0,))", "(0,(0,))"), // bob knows; ann knows
		group(t, "((e,(r,)),(e,(r,n)))", "((0,(0,)),(1,(0,-2)))"),
	}
	if err := pickle.DumpFile(filepath.Join(bench, "test-queries.pkl"), pickle.EncodeQueries(qs)); err != nil {
		t.Fatal(err)
	}
	full := filepath.Join(tmp, "bench.gqd")
	code, out, stderr = runCmd(t, "data", "import", "--from", bench, "--out", full, "--workers", "2")
	if code != 0 || !strings.Contains(out, "computed: test answers from the triples") || !strings.Contains(stderr, "test: answered 3 queries") {
		t.Fatalf("import benchmark: exit %d\n%s%s", code, out, stderr)
	}
	if !strings.Contains(out, "warning: 2 test queries have no hard answers") { // ann knows, and the 2in (answers.txt)
		t.Errorf("import does not warn about queries without hard answers:\n%s", out)
	}

	jsonPath := filepath.Join(tmp, "stats.json")
	code, out, stderr = runCmd(t, "data", "stats", "--json", jsonPath, full)
	if code != 0 || !strings.Contains(out, "2in") || !strings.Contains(out, "connected") {
		t.Fatalf("stats: exit %d\n%s%s", code, out, stderr)
	}
	var st struct {
		Entities   int
		Structures []struct {
			Name   string
			Splits []struct{ Queries int }
		}
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if st.Entities != 10 || len(st.Structures) != 2 || st.Structures[0].Name != "1p" || st.Structures[0].Splits[2].Queries != 2 {
		t.Errorf("stats json: %+v", st)
	}

	// stats of a directory imports it on the fly.
	if code, out, _ := runCmd(t, "data", "stats", bench); code != 0 || !strings.Contains(out, "1p") {
		t.Errorf("stats of a benchmark dir: exit %d\n%s", code, out)
	}
	// fay first appears in valid.txt: dropped unless asked to keep.
	if code, out, _ := runCmd(t, "data", "stats", "--json", "-", tiny); code != 0 || !strings.Contains(out, `"entities": 9`) {
		t.Errorf("stats --json - of named triples: exit %d\n%s", code, out)
	}
}

func group(t *testing.T, structure string, queries ...string) pickle.QueryGroup {
	t.Helper()
	s, err := query.ParseTuple(structure)
	if err != nil {
		t.Fatal(err)
	}
	g := pickle.QueryGroup{Structure: s}
	for _, q := range queries {
		tu, err := query.ParseTuple(q)
		if err != nil {
			t.Fatal(err)
		}
		g.Queries = append(g.Queries, tu)
	}
	return g
}

func TestDataCommandErrors(t *testing.T) {
	tmp := t.TempDir()
	bad := filepath.Join(tmp, "bad.gqd")
	if err := os.WriteFile(bad, []byte("not a dataset at all, clearly"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"data", "import", "--out", "x.gqd"}, 2, "Usage: gammae data import"},
		{[]string{"data", "import", "--from", tmp, "--out", filepath.Join(tmp, "x.gqd"), "--format", "csv"}, 1, `--format "csv"`},
		{[]string{"data", "import", "--from", bad, "--out", filepath.Join(tmp, "x.gqd")}, 1, "is a file"},
		{[]string{"data", "export", bad}, 2, "Usage: gammae data export"},
		{[]string{"data", "export", "--out", tmp, bad}, 1, "bad magic"},
		{[]string{"data", "stats"}, 2, "Usage: gammae data stats"},
		{[]string{"data", "stats", filepath.Join(tmp, "missing.gqd")}, 1, "no such file"},
	} {
		code, _, stderr := runCmd(t, c.args...)
		if code != c.code || !strings.Contains(stderr, c.msg) {
			t.Errorf("%v: exit %d, want %d with %q; stderr:\n%s", c.args, code, c.code, c.msg, stderr)
		}
	}
}

// Outputs in missing directories fail before any work, naming the path
// given; a graph without training edges imports with a warning.
func TestDataImportChecks(t *testing.T) {
	tmp := t.TempDir()
	tiny := filepath.Join("..", "..", "testdata", "tiny")
	missing := filepath.Join(tmp, "no", "dir", "x.gqd")
	for _, args := range [][]string{
		{"data", "import", "--from", tiny, "--out", missing},
		{"data", "generate", "--graph", tiny, "--out", missing},
	} {
		code, out, stderr := runCmd(t, args...)
		if code != 1 || !strings.Contains(stderr, "--out "+missing+": directory") || strings.Contains(stderr, ".tmp") {
			t.Errorf("gammae %s: exit %d\n%s%s", strings.Join(args, " "), code, out, stderr)
		}
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.MkdirAll(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{"train.txt": "", "valid.txt": "a\tr\tb\n", "test.txt": "a\tr\tb\n"} {
		if err := os.WriteFile(filepath.Join(empty, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, stderr := runCmd(t, "data", "import", "--from", empty, "--out", filepath.Join(tmp, "e.gqd"), "--keep-unseen")
	if !strings.Contains(stderr, "no training edges") {
		t.Errorf("empty train.txt: exit %d, no warning\n%s%s", code, out, stderr)
	}
}
