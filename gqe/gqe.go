// Package gqe is GQE (Hamilton et al., 2018) as the KGReasoning code
// implements it (geo=vec): a query is a point; projection adds the
// relation's vector, intersection is an attention-weighted sum, and the
// logit of an entity is γ − ‖e − q‖₁. It has no negation: queries with one
// are refused.
package gqe

import (
	"errors"
	"fmt"
	"math/rand/v2"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/query"
)

// Config is GQE's hyperparameters.
type Config struct {
	Entities  int     `json:"entities"`
	Relations int     `json:"relations"`
	Dim       int     `json:"dim"`
	Gamma     float64 `json:"gamma"`
	LR        float64 `json:"lr"` // the run script's learning rate
}

// Validate reports every invalid field.
func (c Config) Validate() error {
	errs := baseline.Positive("gqe", []string{"entities", "relations", "dim"}, c.Entities, c.Relations, c.Dim)
	if !(c.Gamma > 0) {
		errs = append(errs, fmt.Errorf("gqe: gamma must be positive, got %g", c.Gamma))
	}
	if c.LR < 0 {
		errs = append(errs, fmt.Errorf("gqe: lr must not be negative, got %g", c.LR))
	}
	return errors.Join(errs...)
}

// Preset is the KGReasoning run script's setting for a dataset
// (examples.sh: -d 800 -g 24, lr 1e-4 for all three datasets).
// "fb15k-237-hour" is the configuration for an hour of FB15k-237 on two
// CPU cores, chosen by 10-minute probes (docs/comparison.md): half the
// authors' size, the margin halved with it, lr 1e-3.
func Preset(dataset string) (Config, error) {
	switch dataset {
	case "fb15k-237", "fb15k", "nell":
		return Config{Dim: 800, Gamma: 24, LR: 1e-4}, nil
	case "fb15k-237-hour":
		return Config{Dim: 400, Gamma: 12, LR: 1e-3}, nil
	}
	return Config{}, fmt.Errorf("gqe: no preset for %q (have fb15k-237, fb15k, nell, fb15k-237-hour)", dataset)
}

// Net is GQE's parameters.
type Net struct {
	cfg                Config
	entity, relation   *ad.Param
	l1w, l1b, l2w, l2b *ad.Param // center_net (CenterIntersection)
}

// New initialises a model as the authors do: tables uniform in ±(γ+2)/d,
// linear weights Xavier-uniform, biases as nn.Linear.
func New(cfg Config, rng *rand.Rand) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := cfg.Dim
	r := (cfg.Gamma + 2) / float64(d)
	n := &Net{cfg: cfg,
		entity:   baseline.Uniform("entity_embedding", cfg.Entities, d, -r, r, rng),
		relation: baseline.Uniform("relation_embedding", cfg.Relations, d, -r, r, rng),
	}
	n.l1w, n.l1b = baseline.Linear("center_net.layer1", d, d, rng)
	n.l2w, n.l2b = baseline.Linear("center_net.layer2", d, d, rng)
	return &Model{Model: baseline.Model{Net: n}, net: n}, nil
}

// Model is GQE behind qe.Model.
type Model struct {
	baseline.Model
	net *Net
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.net.cfg }

// Embed returns the query's point, one row per DNF branch, under the key
// "center" as the reference vectors name it.
func (m *Model) Embed(q query.Node) (map[string][][]float64, error) {
	return m.EmbedMap(q, "center")
}

func (n *Net) Kind() string   { return "gqe" }
func (n *Net) Entities() int  { return n.cfg.Entities }
func (n *Net) Relations() int { return n.cfg.Relations }
func (n *Net) Params() []*ad.Param {
	return []*ad.Param{n.entity, n.relation, n.l1w, n.l1b, n.l2w, n.l2b}
}

// Embed records a group of union-free queries' points.
func (n *Net) Embed(t *ad.Tape, g baseline.Group) (baseline.Emb, error) {
	switch q := g.Node().(type) {
	case query.Anchor:
		return baseline.Emb{t.Gather(n.entity, g.Anchors())}, nil
	case query.Projection:
		x, err := n.Embed(t, g.Arg())
		if err != nil {
			return nil, err
		}
		return baseline.Emb{t.Add(x[0], t.Gather(n.relation, g.Relations()))}, nil
	case query.Intersection:
		xs := make([]ad.V, len(q.Args))
		for i, a := range g.Args() {
			x, err := n.Embed(t, a)
			if err != nil {
				return nil, err
			}
			xs[i] = x[0]
		}
		return baseline.Emb{baseline.CenterIntersection(t, xs, n.l1w, n.l1b, n.l2w, n.l2b)}, nil
	case query.Negation:
		return nil, errors.New("gqe: GQE has no negation operator")
	}
	return nil, fmt.Errorf("gqe: unexpected node %T", g.Node())
}

// Logits records γ − ‖e − q‖₁ of every row's candidates.
func (n *Net) Logits(t *ad.Tape, q baseline.Emb, ids []int32) ad.V {
	return t.Affine(t.L1Dist(n.entity, ids, q[0]), -1, n.cfg.Gamma)
}

// Uncertainty: a point has no size.
func (n *Net) Uncertainty(*ad.Tape, baseline.Emb) (float64, bool) { return 0, false }

// Kind is GQE's registry entry.
var Kind = baseline.NewKind(qe.Kind{
	Name: "gqe", Title: "GQE", Negation: false,
	Structures: []string{"1p", "2p", "3p", "2i", "3i"},
}, Preset, New)
