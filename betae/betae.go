// Package betae is BetaE (Ren & Leskovec, 2020) as the KGReasoning code
// implements it (geo=beta): a query is a product of Beta distributions
// (α, β per dimension); projection is an MLP on [α; β; r], intersection an
// attention-weighted average of the inputs' α and β, negation takes their
// reciprocals, and the logit of an entity is γ − ‖KL(Beta(entity) ‖
// Beta(query))‖₁. Entity rows and every projection output pass the
// regulariser clamp(x + 1, 0.05, 1e9).
package betae

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/query"
)

// The regulariser's bounds (Regularizer(1, 0.05, 1e9)).
const (
	regLo = 0.05
	regHi = 1e9
)

// Config is BetaE's hyperparameters.
type Config struct {
	Entities  int     `json:"entities"`
	Relations int     `json:"relations"`
	Dim       int     `json:"dim"`
	Hidden    int     `json:"hidden"` // projection MLP width
	Layers    int     `json:"layers"` // projection MLP hidden layers
	Gamma     float64 `json:"gamma"`
	// Union is "dnf" (a union scored by its best branch) or "dm" (De
	// Morgan: ¬(¬A ∧ ¬B)).
	Union string  `json:"union"`
	LR    float64 `json:"lr"` // the run script's learning rate
}

// Validate reports every invalid field.
func (c Config) Validate() error {
	errs := baseline.Positive("betae", []string{"entities", "relations", "dim", "hidden", "layers"}, c.Entities, c.Relations, c.Dim, c.Hidden, c.Layers)
	if !(c.Gamma > 0) {
		errs = append(errs, fmt.Errorf("betae: gamma must be positive, got %g", c.Gamma))
	}
	if c.Union != "" && c.Union != "dnf" && c.Union != "dm" {
		errs = append(errs, fmt.Errorf("betae: union must be dnf or dm, got %q", c.Union))
	}
	if c.LR < 0 {
		errs = append(errs, fmt.Errorf("betae: lr must not be negative, got %g", c.LR))
	}
	return errors.Join(errs...)
}

// Preset is the KGReasoning run script's setting for a dataset
// (examples.sh: -d 400 -g 60, beta_mode "(1600,2)", lr 1e-4).
// "fb15k-237-hour" is the configuration for an hour of FB15k-237 on two
// CPU cores, chosen by 10-minute probes (docs/comparison.md): half the
// authors' size, the margin halved with it, lr 1e-3.
func Preset(dataset string) (Config, error) {
	switch dataset {
	case "fb15k-237", "fb15k", "nell":
		return Config{Dim: 400, Hidden: 1600, Layers: 2, Gamma: 60, Union: "dnf", LR: 1e-4}, nil
	case "fb15k-237-hour":
		return Config{Dim: 200, Hidden: 800, Layers: 2, Gamma: 30, Union: "dnf", LR: 1e-3}, nil
	}
	return Config{}, fmt.Errorf("betae: no preset for %q (have fb15k-237, fb15k, nell, fb15k-237-hour)", dataset)
}

// Net is BetaE's parameters.
type Net struct {
	cfg              Config
	entity, relation *ad.Param
	c1w, c1b         *ad.Param   // center_net.layer1 (2d → 2d)
	c2w, c2b         *ad.Param   // center_net.layer2 (2d → d)
	pw, pb           []*ad.Param // projection_net.layer1, layer2 … layerL, then layer0
	cache            cache
}

// New initialises a model as the authors do: tables uniform in ±(γ+2)/d
// (entity rows [α | β] of width 2d), linear weights Xavier-uniform.
func New(cfg Config, rng *rand.Rand) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, h := cfg.Dim, cfg.Hidden
	r := (cfg.Gamma + 2) / float64(d)
	n := &Net{cfg: cfg,
		entity:   baseline.Uniform("entity_embedding", cfg.Entities, 2*d, -r, r, rng),
		relation: baseline.Uniform("relation_embedding", cfg.Relations, d, -r, r, rng),
	}
	n.c1w, n.c1b = baseline.Linear("center_net.layer1", 2*d, 2*d, rng)
	n.c2w, n.c2b = baseline.Linear("center_net.layer2", 2*d, d, rng)
	// named_parameters order: layer1, layer0, layer2, … (the order the
	// authors create them); the forward order is layer1, layer2, …, layer0.
	w1, b1 := baseline.Linear("projection_net.layer1", 3*d, h, rng)
	w0, b0 := baseline.Linear("projection_net.layer0", h, 2*d, rng)
	n.pw, n.pb = []*ad.Param{w1}, []*ad.Param{b1}
	for l := 2; l <= cfg.Layers; l++ {
		w, b := baseline.Linear(fmt.Sprintf("projection_net.layer%d", l), h, h, rng)
		n.pw, n.pb = append(n.pw, w), append(n.pb, b)
	}
	n.pw, n.pb = append(n.pw, w0), append(n.pb, b0)
	return &Model{Model: baseline.Model{Net: n, DeMorgan: cfg.Union == "dm"}, net: n}, nil
}

// Model is BetaE behind qe.Model.
type Model struct {
	baseline.Model
	net *Net
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.net.cfg }

// Embed returns the query's Beta parameters, one row per DNF branch, under
// the keys "alpha" and "beta".
func (m *Model) Embed(q query.Node) (map[string][][]float64, error) {
	return m.EmbedMap(q, "alpha", "beta")
}

func (n *Net) Kind() string   { return "betae" }
func (n *Net) Entities() int  { return n.cfg.Entities }
func (n *Net) Relations() int { return n.cfg.Relations }

// Params are in the authors' named_parameters order.
func (n *Net) Params() []*ad.Param {
	L := len(n.pw)
	ps := []*ad.Param{n.entity, n.relation, n.c1w, n.c1b, n.c2w, n.c2b, n.pw[0], n.pb[0], n.pw[L-1], n.pb[L-1]}
	for l := 1; l < L-1; l++ {
		ps = append(ps, n.pw[l], n.pb[l])
	}
	return ps
}

// Embed records a group of union-free queries' α and β.
func (n *Net) Embed(t *ad.Tape, g baseline.Group) (baseline.Emb, error) {
	d := n.cfg.Dim
	switch q := g.Node().(type) {
	case query.Anchor:
		x := t.Clamp(t.Affine(t.Gather(n.entity, g.Anchors()), 1, 1), regLo, regHi)
		return baseline.Emb{t.Slice(x, 0, d), t.Slice(x, d, 2*d)}, nil
	case query.Projection:
		a, err := n.Embed(t, g.Arg())
		if err != nil {
			return nil, err
		}
		x := t.Concat(a[0], a[1], t.Gather(n.relation, g.Relations()))
		L := len(n.pw)
		for l := 0; l < L-1; l++ {
			x = t.ReLU(t.Linear(x, n.pw[l], n.pb[l]))
		}
		x = t.Clamp(t.Affine(t.Linear(x, n.pw[L-1], n.pb[L-1]), 1, 1), regLo, regHi)
		return baseline.Emb{t.Slice(x, 0, d), t.Slice(x, d, 2*d)}, nil
	case query.Negation:
		a, err := n.Embed(t, g.Arg())
		if err != nil {
			return nil, err
		}
		return baseline.Emb{t.Recip(a[0]), t.Recip(a[1])}, nil
	case query.Intersection:
		as, bs := make([]ad.V, len(q.Args)), make([]ad.V, len(q.Args))
		logits := make([]ad.V, len(q.Args))
		for i, arg := range g.Args() {
			x, err := n.Embed(t, arg)
			if err != nil {
				return nil, err
			}
			as[i], bs[i] = x[0], x[1]
			logits[i] = t.Linear(t.ReLU(t.Linear(t.Concat(x[0], x[1]), n.c1w, n.c1b)), n.c2w, n.c2b)
		}
		att := t.SoftmaxOver(logits)
		pa, pb := make([]ad.V, len(as)), make([]ad.V, len(as))
		for i := range as {
			pa[i], pb[i] = t.Mul(att[i], as[i]), t.Mul(att[i], bs[i])
		}
		return baseline.Emb{t.SumOver(pa), t.SumOver(pb)}, nil
	}
	return nil, fmt.Errorf("betae: unexpected node %T", g.Node())
}

// Logits records γ − ‖KL(Beta(entity) ‖ Beta(query))‖₁ of every row's
// candidates, with torch's Beta KL:
// lnΓ(αq)+lnΓ(βq)+lnΓ(αp+βp) − lnΓ(αp)−lnΓ(βp)−lnΓ(αq+βq)
// + (αp−αq)ψ(αp) + (βp−βq)ψ(βp) + (αq+βq−αp−βp)ψ(αp+βp).
func (n *Net) Logits(t *ad.Tape, q baseline.Emb, ids []int32) ad.V {
	return t.Affine(n.klDist(t, q, ids), -1, n.cfg.Gamma)
}

// Uncertainty is the differential entropy of the Beta embedding, summed
// over dimensions: ln B(α,β) − (α−1)ψ(α) − (β−1)ψ(β) + (α+β−2)ψ(α+β).
func (n *Net) Uncertainty(t *ad.Tape, q baseline.Emb) (float64, bool) {
	h := 0.0
	for i, a := range t.Val(q[0]) {
		b := t.Val(q[1])[i]
		la, _ := math.Lgamma(a)
		lb, _ := math.Lgamma(b)
		lab, _ := math.Lgamma(a + b)
		h += la + lb - lab - (a-1)*ad.Digamma(a) - (b-1)*ad.Digamma(b) + (a+b-2)*ad.Digamma(a+b)
	}
	return h, true
}

// Kind is BetaE's registry entry.
var Kind = baseline.NewKind(qe.Kind{
	Name: "betae", Title: "BetaE", Negation: true, Uncertainty: "differential entropy",
	Structures: []string{"1p", "2p", "3p", "2i", "3i", "2in", "3in", "inp", "pin", "pni"},
}, Preset, New)
