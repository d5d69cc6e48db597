// Package gamma is the GammaE model: entities and queries embedded as
// products of Gamma distributions, the logical operators as neural or
// closed-form maps on them, the KL-divergence score and the training loss,
// each with a hand-written backward pass (SPEC section 4).
//
// Queries are run in batches of one structure: a query tree is compiled once
// into a Program, and a Workspace runs a Program over a matrix of slot ids.
package gamma

import (
	"errors"
	"fmt"
	"math"
)

// Union selects how a union node is embedded (SPEC sections 4 and 9).
type Union string

const (
	// UnionMoment is the reference: one Gamma by moment matching of the
	// attention-weighted branches.
	UnionMoment Union = "moment"
	// UnionMixture is the paper's Gamma mixture: branches stay components
	// with weights θ = softmax of a learned score; D = −ln Σ θᵢ exp(−Dᵢ).
	UnionMixture Union = "mixture"
	// UnionDNF keeps branches to the end and scores the best branch.
	UnionDNF Union = "dnf"
	// UnionDM rewrites A ∨ B as ¬(¬A ∧ ¬B).
	UnionDM Union = "dm"
)

// Config is the model's shape and fixed hyperparameters. It is saved in
// checkpoints.
type Config struct {
	Entities  int `json:"entities"`
	Relations int `json:"relations"` // including inverses
	Dim       int `json:"dim"`       // d: α and β have d components each
	Hidden    int `json:"hidden"`    // width h of the projection MLPs
	Layers    int `json:"layers"`    // L: hidden layers of the projection MLPs

	Gamma   float64 `json:"gamma"`   // margin γ: logit = γ − distance
	Epsilon float64 `json:"epsilon"` // negation elasticity ε
	// InitRange is the half-width of the uniform initialisation of the
	// entity and relation tables; 0 means the reference's 3(γ+2)/d
	// (0.2325 at γ = 60, d = 800). The reference vectors were made with an
	// explicit 6.0: no formula of the reference code gives it at γ = 50,
	// d = 4 (3(γ+2)/d = 39), and their tables lie within ±6.
	InitRange float64 `json:"init_range,omitempty"`

	Union        Union   `json:"union"`         // "" means UnionMoment
	UnionDropout float64 `json:"union_dropout"` // dropout on union attention logits in training
	// ProjectionDropout is the dropout on the projection nets' hidden
	// activations in training (a regulariser the reference lacks; 0 keeps
	// it faithful). Inference never drops.
	ProjectionDropout float64 `json:"projection_dropout,omitempty"`
	// ProjectionDropoutRoot limits that dropout to the projections whose
	// output is the query's embedding (an output of its program): the
	// inputs of intersections, negations and further projections stay
	// whole.
	ProjectionDropoutRoot bool `json:"projection_dropout_root,omitempty"`
}

// DefaultConfig is the reference run configuration (SPEC section 4) for a
// graph of the given size.
func DefaultConfig(entities, relations int) Config {
	return Config{
		Entities: entities, Relations: relations,
		Dim: 800, Hidden: 1600, Layers: 4,
		Gamma: 60, Epsilon: 0.07,
		Union: UnionMoment, UnionDropout: 0.1,
	}
}

// Mode returns the union mode with the default filled in.
func (c Config) Mode() Union {
	if c.Union == "" {
		return UnionMoment
	}
	return c.Union
}

// Range returns the half-width of the embedding initialisation.
func (c Config) Range() float64 {
	if c.InitRange > 0 {
		return c.InitRange
	}
	return 3 * (c.Gamma + 2) / float64(c.Dim)
}

// Validate reports the first invalid field.
func (c Config) Validate() error {
	finite := func(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
	switch {
	case c.Entities < 1:
		return fmt.Errorf("gamma config: entities = %d, want ≥ 1", c.Entities)
	case c.Relations < 1:
		return fmt.Errorf("gamma config: relations = %d, want ≥ 1", c.Relations)
	case c.Dim < 2:
		// The union net narrows to d/2, which must be at least 1.
		return fmt.Errorf("gamma config: dim = %d, want ≥ 2", c.Dim)
	case c.Hidden < 1:
		return fmt.Errorf("gamma config: hidden = %d, want ≥ 1", c.Hidden)
	case c.Layers < 1:
		return fmt.Errorf("gamma config: layers = %d, want ≥ 1", c.Layers)
	case !finite(c.Gamma):
		return errors.New("gamma config: gamma must be finite")
	case !finite(c.Epsilon) || c.Epsilon < 0:
		return fmt.Errorf("gamma config: epsilon = %v, want finite ≥ 0", c.Epsilon)
	case !finite(c.InitRange) || c.InitRange < 0:
		return fmt.Errorf("gamma config: init_range = %v, want finite ≥ 0 (0 = 3(γ+2)/d)", c.InitRange)
	case !(c.UnionDropout >= 0 && c.UnionDropout < 1):
		return fmt.Errorf("gamma config: union_dropout = %v, want in [0, 1)", c.UnionDropout)
	case !(c.ProjectionDropout >= 0 && c.ProjectionDropout < 1):
		return fmt.Errorf("gamma config: projection_dropout = %v, want in [0, 1)", c.ProjectionDropout)
	case c.ProjectionDropoutRoot && c.ProjectionDropout == 0:
		return fmt.Errorf("gamma config: projection_dropout_root without projection_dropout")
	}
	switch c.Mode() {
	case UnionMoment, UnionMixture, UnionDNF, UnionDM:
	default:
		return fmt.Errorf("gamma config: union = %q, want moment, mixture, dnf or dm", c.Union)
	}
	return nil
}
