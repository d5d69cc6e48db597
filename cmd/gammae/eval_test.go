package main

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gammae/gammae/checkpoint"
	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/query"
	"github.com/gammae/gammae/sample"
)

const torchFixture = "../../testdata/torch"

// refDataset writes a dataset over a random graph of the reference
// fixture's size (13 entities, 3 relations and their inverses) with test
// queries of every benchmark structure.
func refDataset(t *testing.T, dir string) string {
	t.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	files := map[string]*strings.Builder{"train.txt": {}, "valid.txt": {}, "test.txt": {}}
	for e := range 13 { // every entity in train, in id order
		fmt.Fprintf(files["train.txt"], "e%d\tr%d\te%d\n", e, e%3, (e+1)%13)
	}
	seen := map[[3]int]bool{}
	for i := 0; i < 75; i++ {
		h, rel, tl := r.IntN(13), r.IntN(3), r.IntN(13)
		if seen[[3]int{h, rel, tl}] {
			continue
		}
		seen[[3]int{h, rel, tl}] = true
		f := "train.txt"
		if i%5 == 3 {
			f = "valid.txt"
		} else if i%5 == 4 {
			f = "test.txt"
		}
		fmt.Fprintf(files[f], "e%d\tr%d\te%d\n", h, rel, tl)
	}
	triples := filepath.Join(dir, "triples")
	if err := os.MkdirAll(triples, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(triples, name), []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	k, _, err := kg.LoadTriples(triples, kg.TripleOptions{KeepUnseen: true})
	if err != nil {
		t.Fatal(err)
	}
	if k.Entities.Len() != 13 || k.Relations.Len() != 6 {
		t.Fatalf("graph of %d entities, %d relations", k.Entities.Len(), k.Relations.Len())
	}
	var specs []sample.Spec
	for _, st := range query.Structures {
		specs = append(specs, sample.Spec{Shape: st.Shape, Count: 4})
	}
	d, _, err := sample.Generate(context.Background(), k, sample.Options{Seed: 3, Workers: 1, Train: specs, Test: specs, Valid: specs[:3], MaxTries: 3000})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "ref.gqd")
	if err := dataset.Save(path, d); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestImportTorchAndEval(t *testing.T) {
	tmp := t.TempDir()
	data := refDataset(t, tmp)
	model := filepath.Join(tmp, "ref.safetensors")

	code, out, stderr := runCmd(t, "import-torch", filepath.Join(torchFixture, "run", "checkpoint"), model)
	for _, want := range []string{"13 entities, 6 relations, dim 4, hidden 8, layers 2, gamma 50, epsilon 0.07, union moment",
		"layers 2 from the run's gamma_mode", "unused tensors skipped: gamma, embedding_range, relation_embedding, modulus", "step = 1000", "wrote " + model} {
		if code != 0 || !strings.Contains(out, want) {
			t.Fatalf("import-torch: exit %d, output lacks %q:\n%s%s", code, want, out, stderr)
		}
	}

	jsonPath, csvPath := filepath.Join(tmp, "r.json"), filepath.Join(tmp, "r.csv")
	code, out, stderr = runCmd(t, "eval", "--model", model, "--data", data, "--uncertainty", "--estimates", "--json", jsonPath, "--csv", csvPath)
	if code != 0 {
		t.Fatalf("eval: exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"MRR", "H@1", "H@3", "H@10", "queries", "1p", "pni", "2u", "up-DM", "SRCC", "PCC", "unions embedded as moment", "estimated answer count", "within2x"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval output lacks %q:\n%s", want, out)
		}
	}
	var rep struct {
		Queries int `json:"queries"`
		Table   struct {
			Rows []struct{ Structure string } `json:"rows"`
		} `json:"table"`
	}
	b, err := os.ReadFile(jsonPath)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil || rep.Queries == 0 || len(rep.Table.Rows) < 10 {
		t.Errorf("JSON report %s: %v", b, err)
	}
	for _, p := range []string{csvPath, filepath.Join(tmp, "r-uncertainty.csv"), filepath.Join(tmp, "r-estimates.csv")} {
		if b, err := os.ReadFile(p); err != nil || !strings.HasPrefix(string(b), "metric,1p,") {
			t.Errorf("%s: %v %q", p, err, b)
		}
	}

	// The torch checkpoint directly gives the same numbers.
	_, direct, stderr := runCmd(t, "eval", "--model", filepath.Join(torchFixture, "run", "checkpoint"), "--data", data, "--uncertainty", "--estimates")
	if tail(direct) != tail(out) || !strings.Contains(stderr, "reference PyTorch checkpoint") {
		t.Errorf("torch checkpoint evaluates differently:\n%s\nvs\n%s\n%s", direct, out, stderr)
	}

	// Ablations and selections.
	code, out, stderr = runCmd(t, "eval", "--data", data, "--union", "dnf", "--no-elasticity", "--structures", "2u,up,2in,(e,(r,))", "--per-structure", "2", "--split", "test", model)
	if code != 0 || !strings.Contains(out, "unions embedded as dnf, negation elasticity 0") || strings.Contains(out, "pni") {
		t.Errorf("ablation: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runCmd(t, "eval", "--model", model, "--data", data, "--split", "valid", "--quiet")
	if code != 0 || !strings.Contains(out, "valid queries") || stderr != "" {
		t.Errorf("valid split: exit %d\n%s%s", code, out, stderr)
	}
	code, out, stderr = runCmd(t, "eval", "--model", model, "--data", data, "--split", "train", "--quiet")
	if code != 0 || !strings.Contains(out, "train queries") || !strings.Contains(out, "pni") || stderr != "" {
		t.Errorf("train split: exit %d\n%s%s", code, out, stderr)
	}
}

// tail drops the first line (it names the model path) and the timing.
func tail(s string) string {
	lines := strings.Split(s, "\n")
	var keep []string
	for _, l := range lines[1:] {
		if !strings.Contains(l, "queries/s") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func TestEvalErrors(t *testing.T) {
	tmp := t.TempDir()
	data := refDataset(t, tmp)
	model := filepath.Join(tmp, "ref.safetensors")
	if code, out, stderr := runCmd(t, "import-torch", filepath.Join(torchFixture, "run", "checkpoint"), model); code != 0 {
		t.Fatalf("import-torch: %s%s", out, stderr)
	}
	legacy := filepath.Join(torchFixture, "legacy.pt")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"eval"}, 2, "Usage: gammae eval"},
		{[]string{"eval", "--model", model}, 1, "no --data given"},
		{[]string{"eval", "--model", model, "--data", data, "--split", "training"}, 1, `--split "training": want test, valid or train`},
		{[]string{"eval", "--model", model, "--data", data, "--union", "mixture"}, 1, "retrain with --union mixture"},
		{[]string{"eval", "--model", model, "--data", data, "--union", "sum"}, 1, "union"},
		{[]string{"eval", "--model", model, "--data", data, "--structures", "4p"}, 1, `structure "4p" not in the split`},
		{[]string{"eval", "--model", model, "--data", "../../testdata/tiny"}, 1, "has 13 entities and 6 relations, dataset"},
		{[]string{"eval", "--model", legacy, "--data", data}, 1, "gammae import-torch"},
		{[]string{"eval", "--model", filepath.Join(tmp, "none"), "--data", data}, 1, "no such file"},
		// The dataset opens beside the model: its error is the one reported
		// when the model opens, the model's when neither does.
		{[]string{"eval", "--model", model, "--data", filepath.Join(tmp, "none.gqd")}, 1, "none.gqd"},
		{[]string{"eval", "--model", filepath.Join(tmp, "nomodel"), "--data", filepath.Join(tmp, "none.gqd")}, 1, "nomodel"},
		{[]string{"import-torch", legacy}, 2, "Usage: gammae import-torch"},
		{[]string{"import-torch", legacy, filepath.Join(tmp, "x.safetensors")}, 1, "give the layers"},
		{[]string{"import-torch", "--dim", "8", legacy, filepath.Join(tmp, "x.safetensors")}, 1, "dim 8 given"},
		{[]string{"import-torch", data, filepath.Join(tmp, "x.safetensors")}, 1, "not a torch.save file"},
	}
	for _, c := range cases {
		code, out, stderr := runCmd(t, c.args...)
		if code != c.code || !strings.Contains(out+stderr, c.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s%s", c.args, code, c.code, c.want, out, stderr)
		}
	}
	// With the depth given, the legacy file imports and evaluates.
	x := filepath.Join(tmp, "legacy.safetensors")
	if code, out, stderr := runCmd(t, "import-torch", "--layers", "2", "--gamma", "50", legacy, x); code != 0 {
		t.Fatalf("import-torch --layers: %s%s", out, stderr)
	}
	if code, out, stderr := runCmd(t, "eval", "--model", x, "--data", data, "--quiet"); code != 0 {
		t.Errorf("eval of the legacy import: %s%s", out, stderr)
	}
}

// TestEvalNELLOfficial evaluates a small random model on the benchmark's
// official NELL test queries, their answers computed from the triples.
func TestEvalNELLOfficial(t *testing.T) {
	if testing.Short() {
		t.Skip("reads and answers 77,021 queries")
	}
	dir := filepath.Join("..", "..", "..", "shared", "data", "NELL-betae")
	if _, err := os.Stat(filepath.Join(dir, "test-queries.pkl")); err != nil {
		t.Skipf("NELL benchmark absent: %v", err)
	}
	cfg := gamma.Config{Entities: 63361, Relations: 400, Dim: 8, Hidden: 16, Layers: 2, Gamma: 24, Epsilon: 0.07}
	m, err := gamma.New[float32](cfg, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	model := filepath.Join(t.TempDir(), "nell.safetensors")
	if err := checkpoint.SaveModel(model, m, nil); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCmd(t, "eval", "--model", model, "--data", dir, "--per-structure", "40", "--quiet")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, stderr)
	}
	for _, want := range []string{"2u-DM", "up-DM", "pni", "640 queries"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
