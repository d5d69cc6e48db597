// Package reftest reads the reference vectors of the authors' PyTorch
// implementations (testdata/reference/<model>-small.json, float64) for the
// models' parity tests. A file of the same format named by the environment
// variable GAMMAE_REFERENCE_<MODEL> (GQE, Q2B, BETAE, CONE; GAMMAE for
// GammaE) is read instead, so that other seeds and sizes can be checked.
package reftest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gammae/gammae/query"
)

// Reference is one reference file.
type Reference struct {
	Path   string
	Model  string                     `json:"model"`
	Config map[string]json.RawMessage `json:"config"`
	// Params in the order of the file (the modules' named_parameters).
	Params     []Param
	RawParams  map[string]Param `json:"params"`
	RawQueries []struct {
		Name      string          `json:"name"`
		Query     any             `json:"query"`
		Embedding json.RawMessage `json:"embedding"`
		Logits    []float64       `json:"logits"`
	} `json:"queries"`
	Queries   []Query
	TrainStep struct {
		RawQueries []struct {
			Name  string `json:"name"`
			Query any    `json:"query"`
		} `json:"queries"`
		Queries            []query.Node
		Positive           []int32              `json:"positive"`
		Negative           [][]int32            `json:"negative"`
		Weight             []float64            `json:"subsampling_weight"`
		Loss               float64              `json:"loss"`
		PositiveSampleLoss float64              `json:"positive_sample_loss"`
		NegativeSampleLoss float64              `json:"negative_sample_loss"`
		Grads              map[string][]float64 `json:"grads"`
		Adam               struct {
			LR    float64              `json:"lr"`
			Betas [2]float64           `json:"betas"`
			Eps   float64              `json:"eps"`
			After map[string][]float64 `json:"params_after_one_step"`
		} `json:"adam"`
	} `json:"train_step"`
}

// Param is a named parameter tensor of the file.
type Param struct {
	Name  string
	Shape []int     `json:"shape"`
	Data  []float64 `json:"data"`
}

// Query is a reference query: its structure name (e.g. "2u-DNF"), the
// grounded query tree, the model's embedding as the file gives it (a JSON
// object of named matrices, one row per DNF branch) and the logits of every
// entity.
type Query struct {
	Name      string
	Node      query.Node
	Embedding map[string][][]float64
	Logits    []float64
}

// Load reads the reference of model ("gqe", "q2b", "betae", "cone",
// "gammae"): $GAMMAE_REFERENCE_<MODEL> if set, else the repository's
// testdata/reference/<model>-small.json.
func Load(t testing.TB, model string) *Reference {
	t.Helper()
	path := os.Getenv("GAMMAE_REFERENCE_" + strings.ToUpper(model))
	if path == "" {
		root, err := repoRoot()
		if err != nil {
			t.Fatalf("reference vectors: %v", err)
		}
		path = filepath.Join(root, "testdata", "reference", model+"-small.json")
	}
	r, err := Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Read parses a reference file.
func Read(path string) (*Reference, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Reference
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	r.Path = path
	order, err := paramOrder(data)
	if err != nil {
		return nil, fmt.Errorf("%s: params: %v", path, err)
	}
	for _, name := range order {
		p := r.RawParams[name]
		p.Name = name
		r.Params = append(r.Params, p)
	}
	for i, q := range r.RawQueries {
		n, err := node(q.Query)
		if err != nil {
			return nil, fmt.Errorf("%s: query %d (%s): %v", path, i, q.Name, err)
		}
		var emb map[string][][]float64
		if len(q.Embedding) > 0 {
			if err := json.Unmarshal(q.Embedding, &emb); err != nil {
				return nil, fmt.Errorf("%s: query %d (%s) embedding: %v", path, i, q.Name, err)
			}
		}
		r.Queries = append(r.Queries, Query{Name: q.Name, Node: n, Embedding: emb, Logits: q.Logits})
	}
	for i, q := range r.TrainStep.RawQueries {
		n, err := node(q.Query)
		if err != nil {
			return nil, fmt.Errorf("%s: train_step query %d (%s): %v", path, i, q.Name, err)
		}
		r.TrainStep.Queries = append(r.TrainStep.Queries, n)
	}
	return &r, nil
}

// Float returns the config value key as a number.
func (r *Reference) Float(t testing.TB, key string) float64 {
	t.Helper()
	raw, ok := r.Config[key]
	if !ok {
		t.Fatalf("%s: config has no %q", r.Path, key)
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatalf("%s: config %q: %v", r.Path, key, err)
	}
	return v
}

// Int returns the config value key as an integer.
func (r *Reference) Int(t testing.TB, key string) int { return int(r.Float(t, key)) }

func node(x any) (query.Node, error) {
	tu, err := query.TupleFromJSON(x)
	if err != nil {
		return nil, err
	}
	return query.FromTuple(tu)
}

// paramOrder returns the keys of the top-level "params" object in file order.
func paramOrder(data []byte) ([]string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(top["params"]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object")
	}
	var keys []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		keys = append(keys, tok.(string))
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return nil, err
		}
	}
	return keys, nil
}

func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("repository root (go.mod) not found from %s", dir)
		}
		dir = parent
	}
}

// Close reports whether got is within tol of want, relative to max(1, |want|).
func Close(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// Compare fails t at the first of got that differs from want by more than
// tol (relative to max(1, |want|)), naming what.
func Compare(t testing.TB, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d values, want %d", what, len(got), len(want))
		return
	}
	for i := range got {
		if !Close(got[i], want[i], tol) || math.IsNaN(got[i]) != math.IsNaN(want[i]) {
			t.Errorf("%s[%d] = %.12g, want %.12g", what, i, got[i], want[i])
			return
		}
	}
}
