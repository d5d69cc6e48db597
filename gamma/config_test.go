package gamma

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	ok := tinyConfig(UnionMoment)
	cases := []struct {
		name   string
		edit   func(*Config)
		errHas string // "" means valid
	}{
		{"ok", func(*Config) {}, ""},
		{"default union", func(c *Config) { c.Union = "" }, ""},
		{"entities", func(c *Config) { c.Entities = 0 }, "entities"},
		{"relations", func(c *Config) { c.Relations = -1 }, "relations"},
		{"dim", func(c *Config) { c.Dim = 1 }, "dim"},
		{"hidden", func(c *Config) { c.Hidden = 0 }, "hidden"},
		{"layers", func(c *Config) { c.Layers = 0 }, "layers"},
		{"gamma", func(c *Config) { c.Gamma = math.NaN() }, "gamma"},
		{"epsilon", func(c *Config) { c.Epsilon = -0.1 }, "epsilon"},
		{"init range", func(c *Config) { c.InitRange = math.Inf(1) }, "init_range"},
		{"dropout", func(c *Config) { c.UnionDropout = 1 }, "union_dropout"},
		{"projection dropout", func(c *Config) { c.ProjectionDropout = -0.1 }, "projection_dropout"},
		{"root dropout", func(c *Config) { c.ProjectionDropoutRoot = true }, "projection_dropout_root"},
		{"union", func(c *Config) { c.Union = "sum" }, "union"},
	}
	for _, c := range cases {
		cfg := ok
		c.edit(&cfg)
		err := cfg.Validate()
		switch {
		case c.errHas == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.errHas != "" && (err == nil || !strings.Contains(err.Error(), c.errHas)):
			t.Errorf("%s: error %v, want one naming %q", c.name, err, c.errHas)
		}
	}
}

func TestConfigJSON(t *testing.T) {
	c := DefaultConfig(14505, 474)
	c.InitRange = 0.5
	data, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var back Config
	if err := json.Unmarshal(data, &back); err != nil {
		t.Fatal(err)
	}
	if back != c {
		t.Fatalf("round trip %+v, want %+v", back, c)
	}
	if r := DefaultConfig(1, 1).Range(); math.Abs(r-3*62.0/800) > 1e-15 {
		t.Errorf("default init range %v, want 3(γ+2)/d", r)
	}
}

// TestInit checks the initialisation bounds and the parameter layout for
// several depths.
func TestInit(t *testing.T) {
	for _, layers := range []int{1, 2, 4} {
		c := tinyConfig(UnionMixture)
		c.Layers = layers
		m, err := New[float64](c, rand.New(rand.NewPCG(5, uint64(layers))))
		if err != nil {
			t.Fatal(err)
		}
		names := map[string]bool{}
		for _, p := range m.Params() {
			names[p.Name] = true
			bound := 0.0
			switch {
			case p.Name == "entity_embedding" || p.Name == "alpha_embedding" || p.Name == "beta_embedding":
				bound = c.InitRange
			case strings.HasSuffix(p.Name, ".bias"):
				bound = 1 / math.Sqrt(float64(fanIn(m, p.Name)))
			case unusedProjection(p.Name, layers):
				bound = 1 / math.Sqrt(float64(p.Shape[1]))
			default:
				bound = math.Sqrt(6 / float64(p.Shape[0]+p.Shape[1]))
			}
			for _, v := range p.Data {
				if math.Abs(v) > bound {
					t.Fatalf("L=%d %s: %v outside ±%v", layers, p.Name, v, bound)
				}
			}
		}
		for _, want := range []string{"projection_net.layer2.weight", "projection_net.layerr3.bias", "mixture_net.weight"} {
			if !names[want] {
				t.Errorf("L=%d: %s missing", layers, want)
			}
		}
		if layers == 4 && !names["projection_net.layerr4.weight"] {
			t.Errorf("L=4: layerr4 missing")
		}
		if got := len(m.projA); got != layers+1 {
			t.Errorf("L=%d: α MLP has %d layers", layers, got)
		}
	}
}
