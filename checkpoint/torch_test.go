package checkpoint

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gammae/gammae/gamma"
	"github.com/gammae/gammae/query"
)

// The fixtures in testdata/torch are written by make_fixture.py from the
// reference vectors; expect.json holds their values.
const torchDir = "../testdata/torch"

type torchExpect struct {
	Config struct {
		Entities  int     `json:"nentity"`
		Relations int     `json:"nrelation"`
		Dim       int     `json:"dim"`
		Gamma     float64 `json:"gamma"`
		InitRange float64 `json:"init_range"`
		Hidden    int     `json:"hidden"`
		Layers    int     `json:"layers"`
		Dropout   float64 `json:"union_dropout"`
	} `json:"config"`
	Params map[string]struct {
		Shape []int     `json:"shape"`
		Data  []float64 `json:"data"`
	} `json:"params"`
	Queries []struct {
		Name      string    `json:"name"`
		Structure any       `json:"structure"`
		Flat      []int     `json:"flat"`
		Entropy   float64   `json:"entropy"`
		Logits    []float64 `json:"logits"`
	} `json:"queries"`
}

func readExpect(t *testing.T) *torchExpect {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(torchDir, "expect.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e torchExpect
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return &e
}

func TestReadTorch(t *testing.T) {
	want := readExpect(t)
	for _, c := range []struct {
		file string
		info map[string]string
	}{
		{"run/checkpoint", map[string]string{"step": "1000", "current_learning_rate": "0.0001", "warm_up_steps": "500"}},
		{"legacy.pt", map[string]string{}},
	} {
		t.Run(c.file, func(t *testing.T) {
			path := filepath.Join(torchDir, c.file)
			if !IsTorch(path) {
				t.Errorf("IsTorch(%s) = false", path)
			}
			st, err := ReadTorch(path)
			if err != nil {
				t.Fatal(err)
			}
			if len(st.Params) != len(want.Params) {
				t.Errorf("%d tensors, want %d", len(st.Params), len(want.Params))
			}
			for _, p := range st.Params {
				w, ok := want.Params[p.Name]
				if !ok {
					t.Errorf("unexpected tensor %s", p.Name)
					continue
				}
				if !slices.Equal(p.Shape, w.Shape) {
					t.Errorf("%s: shape %v, want %v", p.Name, p.Shape, w.Shape)
				}
				for i, v := range w.Data {
					if p.Data[i] != float32(v) {
						t.Errorf("%s[%d] = %v, want %v", p.Name, i, p.Data[i], float32(v))
						break
					}
				}
			}
			for k, v := range c.info {
				if st.Info[k] != v {
					t.Errorf("Info[%s] = %q, want %q", k, st.Info[k], v)
				}
			}
		})
	}
}

func TestIsTorchOtherFiles(t *testing.T) {
	dir := t.TempDir()
	st := filepath.Join(dir, "m.safetensors")
	m := importFixture(t)
	if err := SaveModel(st, m.Model, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{st, filepath.Join(torchDir, "expect.json"), filepath.Join(dir, "missing")} {
		if IsTorch(p) {
			t.Errorf("IsTorch(%s) = true", p)
		}
	}
	if _, err := ReadTorch(st); err == nil || !strings.Contains(err.Error(), st) {
		t.Errorf("ReadTorch(safetensors file) error %v, want one naming the file", err)
	}
}

func importFixture(t *testing.T) *TorchImport {
	t.Helper()
	imp, err := ImportTorch(filepath.Join(torchDir, "run", "checkpoint"), TorchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return imp
}

// TestImportTorch checks the inferred configuration, the parameters, and
// that the imported model answers the reference queries as the reference
// did (float64 logits and entropies from the authors' code).
func TestImportTorch(t *testing.T) {
	want := readExpect(t)
	imp := importFixture(t)
	wc := want.Config
	cfg := gamma.Config{
		Entities: wc.Entities, Relations: wc.Relations, Dim: wc.Dim, Hidden: wc.Hidden, Layers: wc.Layers,
		Gamma: wc.Gamma, Epsilon: 0.07, InitRange: wc.InitRange, Union: gamma.UnionMoment, UnionDropout: wc.Dropout,
	}
	if imp.Config != cfg {
		t.Errorf("config %+v, want %+v", imp.Config, cfg)
	}
	skipped := slices.Clone(imp.Skipped)
	slices.Sort(skipped)
	if w := []string{"embedding_range", "gamma", "modulus", "relation_embedding"}; !slices.Equal(skipped, w) {
		t.Errorf("skipped %v, want %v", skipped, w)
	}
	for _, p := range imp.Model.Params() {
		w := want.Params[p.Name]
		for i, v := range w.Data {
			if p.Data[i] != float32(v) {
				t.Fatalf("%s[%d] = %v, want %v", p.Name, i, p.Data[i], float32(v))
			}
		}
	}

	m := imp.Model
	ws := m.NewWorkspace()
	scores := make([]float32, m.Config().Entities)
	for qi, q := range want.Queries {
		tmpl, err := query.FromTuple(toTuple(q.Structure).(query.Tuple))
		if err != nil {
			t.Fatal(err)
		}
		var ids []int32
		for _, v := range q.Flat {
			if v >= 0 {
				ids = append(ids, int32(v))
			}
		}
		// The reference embeds DNF unions with the union net (moment mode).
		p, err := m.Compile(tmpl)
		if err != nil {
			t.Fatal(err)
		}
		e, err := ws.Embed(p, ids)
		if err != nil {
			t.Fatal(err)
		}
		what := fmt.Sprintf("query %d (%s)", qi, q.Name)
		if h := gamma.Entropy(e.Alpha[0], e.Beta[0]); relDiff(h, q.Entropy) > 1e-4 {
			t.Errorf("%s: entropy %v, want %v", what, h, q.Entropy)
		}
		if err := ws.ScoreAll(e, scores); err != nil {
			t.Fatal(err)
		}
		for j, l := range q.Logits {
			if relDiff(float64(scores[j]), l) > 1e-4 {
				t.Errorf("%s: logit %d = %v, want %v", what, j, scores[j], l)
				break
			}
		}
	}
}

func relDiff(got, want float64) float64 { return math.Abs(got-want) / max(1, math.Abs(want)) }

func toTuple(x any) any {
	t, err := query.TupleFromJSON(x)
	if err != nil {
		panic(err) // the reference file is trusted test input
	}
	return t
}

func TestImportTorchOptions(t *testing.T) {
	legacy := filepath.Join(torchDir, "legacy.pt")
	ckpt := filepath.Join(torchDir, "run", "checkpoint")
	f := func(v float64) *float64 { return &v }
	cases := []struct {
		name    string
		path    string
		o       TorchOptions
		wantErr string
		check   func(gamma.Config) bool
	}{
		{"legacy needs layers", legacy, TorchOptions{}, "cannot be told from the tensors", nil},
		{"legacy with layers", legacy, TorchOptions{Layers: 2}, "", func(c gamma.Config) bool {
			return c.Layers == 2 && c.Gamma == 50 && c.UnionDropout == 0.1 && c.InitRange == 6
		}},
		{"flags override", ckpt, TorchOptions{Gamma: f(30), Epsilon: f(0), UnionDropout: f(0.2), Union: gamma.UnionDNF}, "", func(c gamma.Config) bool {
			return c.Gamma == 30 && c.Epsilon == 0 && c.UnionDropout == 0.2 && c.Union == gamma.UnionDNF
		}},
		{"no run config", ckpt, TorchOptions{RunConfig: "-"}, "cannot be told", nil},
		{"wrong dim", ckpt, TorchOptions{Dim: 8}, "dim 8 given, but entity_embedding [13 8] says 4", nil},
		{"wrong layers", ckpt, TorchOptions{Layers: 3}, "gamma_mode (8,2) disagrees", nil},
		{"too deep", legacy, TorchOptions{Layers: 5}, "projection layers up to 3 only", nil},
		{"mixture without weights", ckpt, TorchOptions{Union: gamma.UnionMixture}, "mixture_net.weight missing", nil},
		{"missing run config", ckpt, TorchOptions{RunConfig: filepath.Join(t.TempDir(), "none.json")}, "none.json", nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			imp, err := ImportTorch(c.path, c.o)
			if c.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), c.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, c.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !c.check(imp.Config) {
				t.Errorf("config %+v", imp.Config)
			}
		})
	}
}

// TestImportTorchSaveRoundTrip converts the fixture to a gammae model
// file and back: the parameters must come back exactly.
func TestImportTorchSaveRoundTrip(t *testing.T) {
	imp := importFixture(t)
	path := filepath.Join(t.TempDir(), "ref.safetensors")
	if err := SaveModel(path, imp.Model, map[string]string{"source": "reference"}); err != nil {
		t.Fatal(err)
	}
	m, meta, err := LoadModel(path)
	if err != nil {
		t.Fatal(err)
	}
	if m.Config() != imp.Config {
		t.Errorf("config %+v, want %+v", m.Config(), imp.Config)
	}
	if meta["source"] != "reference" {
		t.Errorf("metadata %v lacks source", meta)
	}
	for i, p := range m.Params() {
		if !slices.Equal(p.Data, imp.Model.Params()[i].Data) {
			t.Errorf("%s differs after the round trip", p.Name)
		}
	}
}

func TestReadTorchErrors(t *testing.T) {
	dir := t.TempDir()
	cases := map[string][]byte{
		"empty":     {},
		"text":      []byte("not a checkpoint\n"),
		"zip-magic": []byte("PK\x03\x04garbage"),
		"legacy":    append(append([]byte{}, legacyMagic...), 0x2e),
	}
	for name, b := range cases {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadTorch(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: error %v, want one naming the file", name, err)
		}
	}
}

// FuzzReadTorch feeds ReadTorch arbitrary files: it must return an error
// or tensors, never panic or hang.
func FuzzReadTorch(f *testing.F) {
	for _, name := range []string{"legacy.pt", "run/checkpoint"} {
		b, err := os.ReadFile(filepath.Join(torchDir, name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
		f.Add(b[:len(b)/2])
	}
	f.Add([]byte{})
	f.Add(append(append([]byte{}, legacyMagic...), 0x80, 0x02, 0x4b, 0x01, 0x2e))
	// From memory: writing a file per input held the rate at ~400/s.
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := readTorch(bytes.NewReader(b), int64(len(b)))
		if err == nil && len(st.Params) == 0 {
			t.Error("no error and no tensors")
		}
	})
}

// TestStorageFits: element counts whose byte size overflows, or that are
// negative, are refused before anything is allocated.
func TestStorageFits(t *testing.T) {
	f32 := storageClasses["FloatStorage"]
	for _, tc := range []struct {
		numel int
		avail uint64
		ok    bool
	}{
		{10, 40, true},
		{11, 40, false},
		{0, 0, true},
		{-1, 1 << 40, false},
		{1 << 62, 1 << 40, false}, // 2⁶² × 4 bytes wraps to 0 in uint64
		{math.MaxInt, math.MaxUint64, false},
	} {
		if err := storageFits("k", tc.numel, f32, tc.avail); (err == nil) != tc.ok {
			t.Errorf("storageFits(%d, %d): %v, want ok=%v", tc.numel, tc.avail, err, tc.ok)
		}
	}
}
