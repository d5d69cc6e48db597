// Package serve is the HTTP layer of `gammae serve`: a JSON API that answers
// queries with a loaded model, and a small embedded web page to try it.
//
// The model and the query language live elsewhere; this package sees them only
// through the Engine interface, so that it can be tested with a fake.
package serve

import (
	"context"

	"github.com/gammae/gammae/calibrate"
)

// Engine answers queries. One Engine is shared by all requests, so its methods
// must be safe for concurrent use.
type Engine interface {
	// Answer parses one query text and returns its k best answers. A syntax
	// or name error in the query should implement Positioner so that the
	// client sees where it is; any other error is reported as a server error.
	Answer(ctx context.Context, query string, k int) (*Result, error)
	// Complete returns at most limit entity (and relation) names that start
	// with prefix, for autocompletion.
	Complete(prefix string, limit int) []Suggestion
	// Info describes the loaded model and data set.
	Info() Info
}

// BatchEngine is an Engine that can answer several queries at once, e.g.
// scoring them against all entities with one matrix product. The batch
// endpoint uses it when the engine has it. errs[i] is the error of queries[i]
// (nil on success), results[i] its result.
type BatchEngine interface {
	Engine
	AnswerBatch(ctx context.Context, queries []string, k int) (results []*Result, errs []error)
}

// Positioner is implemented by query errors that know where in the query text
// they occurred. Lines and columns count from 1; columns count characters
// (runes), not bytes.
type Positioner interface {
	error
	Position() (line, col int)
}

// Result is the answer to one query.
type Result struct {
	Query     string   `json:"query"`     // the query in canonical form
	Structure string   `json:"structure"` // structure name ("2i", "pin") or shape
	Explain   string   `json:"explain"`   // human-readable reading of the query
	Answers   []Answer `json:"answers"`
	// Entropy is the differential entropy of the query embedding; higher
	// means a vaguer query with more answers (SPEC section 5).
	Entropy float64 `json:"entropy"`
	// EstimatedAnswers is the model's estimate of the answer set's size,
	// Σ σ(logit); absent when the model's training loss does not make
	// σ(logit) a probability (Info.Estimates).
	EstimatedAnswers *float64 `json:"estimated_answers,omitempty"`
	// TookMS is the time spent answering, in milliseconds; the server fills
	// it in when the engine leaves it zero.
	TookMS float64 `json:"took_ms"`
	// Nodes, when the request asked to explain, are the answers of every
	// node of the query tree in its order (the lines of Explain).
	Nodes []Node `json:"nodes,omitempty"`
	// Variables are the answers of the query's existential variables, with
	// their names as written (logic form only), when asked to explain.
	Variables []Variable `json:"variables,omitempty"`
}

// Node is one node of an explained query: its line of the tree and the
// best answers of the query it heads ("the x with won(Oscar, x)"), each
// marked observed or predicted; anchors have none.
type Node struct {
	Depth   int      `json:"depth"`
	Node    string   `json:"node"`
	Answers []Answer `json:"answers,omitempty"`
	// ObservedAnswers counts the node's answers in the known graph.
	ObservedAnswers  int      `json:"observed_answers"`
	EstimatedAnswers *float64 `json:"estimated_answers,omitempty"` // as Result's
	// Entropy is the node's uncertainty (the model's measure, as Result's).
	Entropy float64 `json:"entropy"`
	Error   string  `json:"error,omitempty"`
}

// Variable is an existential variable of a logic-form query ("x" in
// exists x . …) with the best answers of its values.
type Variable struct {
	Name string `json:"name"` // as the query wrote it
	Node        // Node is the tree of its values, one line
}

// Explainer is an Engine that can answer every node and every variable of
// a query.
type Explainer interface {
	ExplainNodes(ctx context.Context, query string, k int) ([]Node, []Variable, error)
}

// Answer is one ranked candidate entity.
type Answer struct {
	Rank  int     `json:"rank"` // 1-based
	ID    int32   `json:"id"`
	Name  string  `json:"name"`            // dictionary name, e.g. a Freebase MID
	Label string  `json:"label,omitempty"` // readable name, when known
	Score float64 `json:"score"`
	// Observed marks answers entailed by the known graph (exact execution);
	// the others are predicted by the model.
	Observed bool `json:"observed"`
}

// Suggestion is one autocompletion candidate.
type Suggestion struct {
	Name  string `json:"name"`
	Label string `json:"label,omitempty"`
	Kind  string `json:"kind"` // "entity" or "relation"
	// Insert is the text to put in the query in place of the typed prefix,
	// quoted as the query language needs; Name when empty.
	Insert string `json:"insert,omitempty"`
}

// Info describes the loaded model.
type Info struct {
	Model        string `json:"model"`   // e.g. "GammaE"
	Dataset      string `json:"dataset"` // e.g. "FB15k-237"
	Entities     int    `json:"entities"`
	Relations    int    `json:"relations"`
	Dim          int    `json:"dim"`
	Union        string `json:"union"` // union mode: "moment", "dnf", "dm", "mixture"
	TrainedSteps int64  `json:"trained_steps"`
	// Loss is the training loss ("sigmoid", "softmax", "shared", …; ""
	// when unknown). Estimates: it makes σ(logit) the probability that an
	// entity answers, so results estimate their answer count. The losses
	// of the softmax family (softmax, all, shared) rank but leave the
	// logits' level free: their Σ σ(logit) would be a number, not an
	// estimate.
	Loss      string `json:"loss,omitempty"`
	Estimates bool   `json:"estimates"`
	// Calibration shifts the estimates' logits (gammae calibrate): they
	// are Σ σ(logit + its shift for the query's structure).
	Calibration calibrate.Shifts `json:"calibration,omitzero"`
	Syntax      string           `json:"syntax,omitempty"` // one-paragraph help on the query language
	Examples    []Example        `json:"examples,omitempty"`
}

// Example is a sample query shown on the web page.
type Example struct {
	Title string `json:"title"` // e.g. "2i: two conditions"
	Query string `json:"query"`
}

// QueryError gives a query error its position, for engines whose parser
// reports positions in a type of its own:
//
//	var qe *qlang.Error
//	if errors.As(err, &qe) {
//		return nil, &serve.QueryError{Line: qe.Pos.Line, Col: qe.Pos.Column, Err: err}
//	}
type QueryError struct {
	Line, Col int
	Err       error
}

func (e *QueryError) Error() string             { return e.Err.Error() }
func (e *QueryError) Unwrap() error             { return e.Err }
func (e *QueryError) Position() (line, col int) { return e.Line, e.Col }
