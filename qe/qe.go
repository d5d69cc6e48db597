// Package qe is what the query-embedding models (GammaE and its baselines
// GQE, Query2Box, BetaE, ConE) have in common: named parameter tensors, the
// examples of a training batch, the batch loss of SPEC section 4, and the
// Model interface through which a trainer, an evaluator and a question
// answerer use any of them.
package qe

import "github.com/gammae/gammae/query"

// Tensor is a named parameter (or its gradient), row-major, float64. Names
// are those of the authors' PyTorch modules (named_parameters), so that
// reference vectors and checkpoints line up.
type Tensor struct {
	Name  string
	Shape []int
	Data  []float64
}

// Example is one row of a training batch: a query, one positive answer,
// negatives, and the subsampling weight sqrt(1/(4+|answers|)).
type Example struct {
	Query     query.Node
	Positive  int32
	Negatives []int32
	Weight    float64
}

// Loss is a batch loss and its two halves, as the reference code logs them.
type Loss struct {
	Loss, Positive, Negative float64
}

// Model is a query-embedding model over a fixed set of entities and
// relations. Scores and Uncertainty are safe for concurrent use (they only
// read the parameters); Gradient and writes to Params are not.
type Model interface {
	// Kind is the model's registry name: gqe, q2b, betae, cone, gammae.
	Kind() string
	// Params returns the live parameter tensors in a fixed order.
	Params() []Tensor
	// Scores writes the logit of every entity for q into dst (one per
	// entity). Unions are scored by their best DNF branch.
	Scores(q query.Node, dst []float64) error
	// Gradient sets grads (shaped as Params, same order) to the gradient of
	// the batch loss and returns the loss.
	Gradient(batch []Example, grads []Tensor) (Loss, error)
	// Uncertainty returns the model's size of q's embedding (differential
	// entropy, box or cone size), and false when the model has none.
	Uncertainty(q query.Node) (float64, bool)
	// ParamsChanged must be called after Params' data was written (an
	// optimiser step, a load): models cache what they derive from them.
	ParamsChanged()
}

// BatchScorer is a Model that scores queries of one structure together
// (their embeddings' products batched): what an evaluator uses when the
// model offers it.
type BatchScorer interface {
	// ScoresBatch writes the logits of every entity for each of qs (of
	// one structure) into dst, len(qs) rows of one per entity.
	ScoresBatch(qs []query.Node, dst []float64) error
}

// Stateful is a model with random state of its own (ConE's dropout) that
// a checkpoint must keep for a resumed run to continue exactly.
type Stateful interface {
	RNGState() ([]byte, error)
	SetRNGState(state []byte) error
}

// Kind describes a model kind for the registry: how to build one from its
// JSON configuration, the authors' run-script presets, and what it can
// train on. Each model package exports one.
type Kind struct {
	Name  string // registry name, e.g. "betae"
	Title string // display name, e.g. "BetaE"
	// Negation reports whether the model has a negation operator; without
	// one, negation queries are refused for training and answering.
	Negation bool
	// Structures are the training structures of the authors' code.
	Structures []string
	// Uncertainty names the model's size measure ("" when it has none).
	Uncertainty string
	// Preset returns the JSON configuration of the authors' run script for
	// a dataset ("fb15k-237", "fb15k", "nell"), entities and relations unset.
	Preset func(dataset string) ([]byte, error)
	// New builds a model from a JSON configuration (as its package's Config,
	// entities and relations set), initialised from seed.
	New func(config []byte, seed uint64) (Model, error)
}
