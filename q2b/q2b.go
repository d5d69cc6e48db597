// Package q2b is Query2Box (Ren et al., 2020) as the KGReasoning code
// implements it (geo=box, box_mode "none,0.02"): a query is a box (center,
// offset); projection adds the relation's center and offset, intersection
// takes an attention-weighted center and a gated minimum of the offsets,
// and the logit of an entity is γ − ‖relu(|e−c| − o)‖₁ − 0.02·‖min(|e−c|, o)‖₁.
// It has no negation: queries with one are refused.
package q2b

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/query"
)

// Config is Query2Box's hyperparameters.
type Config struct {
	Entities  int     `json:"entities"`
	Relations int     `json:"relations"`
	Dim       int     `json:"dim"`
	Gamma     float64 `json:"gamma"`
	// CenterReg weighs the distance inside the box (box_mode's 0.02).
	CenterReg float64 `json:"center_reg"`
	LR        float64 `json:"lr"` // the run script's learning rate
}

// Validate reports every invalid field.
func (c Config) Validate() error {
	errs := baseline.Positive("q2b", []string{"entities", "relations", "dim"}, c.Entities, c.Relations, c.Dim)
	if !(c.Gamma > 0) {
		errs = append(errs, fmt.Errorf("q2b: gamma must be positive, got %g", c.Gamma))
	}
	if c.CenterReg < 0 {
		errs = append(errs, fmt.Errorf("q2b: center_reg must not be negative, got %g", c.CenterReg))
	}
	if c.LR < 0 {
		errs = append(errs, fmt.Errorf("q2b: lr must not be negative, got %g", c.LR))
	}
	return errors.Join(errs...)
}

// Preset is the KGReasoning run script's setting for a dataset
// (examples.sh: -d 400 -g 24, box mode none,0.02, lr 1e-4).
// "fb15k-237-hour" is the configuration for an hour of FB15k-237 on two
// CPU cores, chosen by 10-minute probes (docs/comparison.md): half the
// authors' size, the margin halved with it, lr 1e-3.
func Preset(dataset string) (Config, error) {
	switch dataset {
	case "fb15k-237", "fb15k", "nell":
		return Config{Dim: 400, Gamma: 24, CenterReg: 0.02, LR: 1e-4}, nil
	case "fb15k-237-hour":
		return Config{Dim: 200, Gamma: 12, CenterReg: 0.02, LR: 1e-3}, nil
	}
	return Config{}, fmt.Errorf("q2b: no preset for %q (have fb15k-237, fb15k, nell, fb15k-237-hour)", dataset)
}

// Net is Query2Box's parameters.
type Net struct {
	cfg                      Config
	entity, relation, offset *ad.Param
	c1w, c1b, c2w, c2b       *ad.Param // center_net (CenterIntersection)
	o1w, o1b, o2w, o2b       *ad.Param // offset_net (BoxOffsetIntersection)
}

// New initialises a model as the authors do: entity and relation tables
// uniform in ±(γ+2)/d, the offset table in [0, (γ+2)/d), linear weights
// Xavier-uniform, biases as nn.Linear.
func New(cfg Config, rng *rand.Rand) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := cfg.Dim
	r := (cfg.Gamma + 2) / float64(d)
	n := &Net{cfg: cfg,
		entity:   baseline.Uniform("entity_embedding", cfg.Entities, d, -r, r, rng),
		relation: baseline.Uniform("relation_embedding", cfg.Relations, d, -r, r, rng),
		offset:   baseline.Uniform("offset_embedding", cfg.Relations, d, 0, r, rng),
	}
	n.c1w, n.c1b = baseline.Linear("center_net.layer1", d, d, rng)
	n.c2w, n.c2b = baseline.Linear("center_net.layer2", d, d, rng)
	n.o1w, n.o1b = baseline.Linear("offset_net.layer1", d, d, rng)
	n.o2w, n.o2b = baseline.Linear("offset_net.layer2", d, d, rng)
	return &Model{Model: baseline.Model{Net: n}, net: n}, nil
}

// Model is Query2Box behind qe.Model.
type Model struct {
	baseline.Model
	net *Net
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.net.cfg }

// Embed returns the query's box, one row per DNF branch, under the keys
// "center" and "offset" as the reference vectors name them.
func (m *Model) Embed(q query.Node) (map[string][][]float64, error) {
	return m.EmbedMap(q, "center", "offset")
}

func (n *Net) Kind() string   { return "q2b" }
func (n *Net) Entities() int  { return n.cfg.Entities }
func (n *Net) Relations() int { return n.cfg.Relations }
func (n *Net) Params() []*ad.Param {
	return []*ad.Param{n.entity, n.relation, n.offset, n.c1w, n.c1b, n.c2w, n.c2b, n.o1w, n.o1b, n.o2w, n.o2b}
}

// Embed records a group of union-free queries' boxes.
func (n *Net) Embed(t *ad.Tape, g baseline.Group) (baseline.Emb, error) {
	switch q := g.Node().(type) {
	case query.Anchor:
		return baseline.Emb{t.Gather(n.entity, g.Anchors()), t.Zeros(n.cfg.Dim)}, nil
	case query.Projection:
		x, err := n.Embed(t, g.Arg())
		if err != nil {
			return nil, err
		}
		r := g.Relations()
		return baseline.Emb{t.Add(x[0], t.Gather(n.relation, r)), t.Add(x[1], t.Gather(n.offset, r))}, nil
	case query.Intersection:
		cs, os := make([]ad.V, len(q.Args)), make([]ad.V, len(q.Args))
		for i, a := range g.Args() {
			x, err := n.Embed(t, a)
			if err != nil {
				return nil, err
			}
			cs[i], os[i] = x[0], x[1]
		}
		center := baseline.CenterIntersection(t, cs, n.c1w, n.c1b, n.c2w, n.c2b)
		// BoxOffsetIntersection: min of the offsets, gated by
		// σ(L2(mean ReLU(L1(oₖ)))).
		hs := make([]ad.V, len(os))
		for i, o := range os {
			hs[i] = t.ReLU(t.Linear(o, n.o1w, n.o1b))
		}
		gate := t.Sigmoid(t.Linear(t.MeanOver(hs), n.o2w, n.o2b))
		return baseline.Emb{center, t.Mul(t.MinOver(os), gate)}, nil
	case query.Negation:
		return nil, errors.New("q2b: Query2Box has no negation operator")
	}
	return nil, fmt.Errorf("q2b: unexpected node %T", g.Node())
}

// Logits records γ − ‖relu(|e−c| − o)‖₁ − cen·‖min(|e−c|, o)‖₁ of every
// row's candidates.
func (n *Net) Logits(t *ad.Tape, q baseline.Emb, ids []int32) ad.V {
	return t.Affine(t.BoxDist(n.entity, ids, q[0], q[1], n.cfg.CenterReg), -1, n.cfg.Gamma)
}

// Uncertainty is the box size: the sum of its offsets.
func (n *Net) Uncertainty(t *ad.Tape, q baseline.Emb) (float64, bool) {
	s := 0.0
	for _, v := range t.Val(q[1]) {
		s += v
	}
	return s, true
}

// Kind is Query2Box's registry entry.
var Kind = baseline.NewKind(qe.Kind{
	Name: "q2b", Title: "Query2Box", Negation: false, Uncertainty: "box size",
	Structures: []string{"1p", "2p", "3p", "2i", "3i"},
}, Preset, New)
