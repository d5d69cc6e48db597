package answer

import (
	"context"
	"fmt"

	"github.com/gammae/gammae/qlang"
	"github.com/gammae/gammae/query"
	"github.com/gammae/gammae/serve"
)

// MaxExplainNodes bounds the nodes an explanation answers: each is a query
// of its own.
const MaxExplainNodes = 64

// NodeAnswer is what the model believes of one node of a query tree: the
// node's subquery (the node with everything below it, a query in its own
// right: "the x with won(Oscar, x)") and its best answers, each marked
// observed when the known graph entails it or predicted.
type NodeAnswer struct {
	Depth  int        `json:"depth"` // 0 for the root
	Node   string     `json:"node"`  // the node's line of the tree, e.g. "project won"
	Query  query.Node `json:"-"`
	Result *Result    `json:"result,omitempty"` // nil for an anchor (itself)
	Error  string     `json:"error,omitempty"`  // the model cannot answer this node
}

// Explain answers every node of q, in the order of its tree (pre-order,
// the lines of the resolver's FormatTree): the intermediate variables'
// candidates beside the final answers.
func (e *Engine) Explain(ctx context.Context, q query.Node, k int) ([]NodeAnswer, error) {
	var nodes []NodeAnswer
	var walk func(n query.Node, depth int)
	walk = func(n query.Node, depth int) {
		nodes = append(nodes, NodeAnswer{Depth: depth, Query: n, Node: e.resolver.FormatNode(n)})
		switch v := n.(type) {
		case query.Projection:
			walk(v.Arg, depth+1)
		case query.Negation:
			walk(v.Arg, depth+1)
		case query.Intersection:
			for _, a := range v.Args {
				walk(a, depth+1)
			}
		case query.Union:
			for _, a := range v.Args {
				walk(a, depth+1)
			}
		}
	}
	if n := query.Count(q); n > MaxExplainNodes {
		return nil, fmt.Errorf("the query has %d nodes; an explanation answers at most %d", n, MaxExplainNodes)
	}
	walk(q, 0)
	var qs []query.Node
	var at []int
	for i, n := range nodes {
		if _, anchor := n.Query.(query.Anchor); !anchor {
			qs, at = append(qs, n.Query), append(at, i)
		}
	}
	rs, errs := e.AnswerQueries(ctx, qs, k)
	for j, i := range at {
		nodes[i].Result = rs[j]
		if errs[j] != nil {
			nodes[i].Error = errs[j].Error()
		}
	}
	return nodes, ctx.Err()
}

var _ serve.Explainer = (*Engine)(nil)

// VariableAnswer is an existential variable with its answers.
type VariableAnswer struct {
	Name   string     `json:"name"`
	Query  query.Node `json:"-"`
	Result *Result    `json:"result,omitempty"`
	Error  string     `json:"error,omitempty"`
}

// ParseVariables parses a query and its existential variables (logic form).
func (e *Engine) ParseVariables(text string) (query.Node, []qlang.Variable, error) {
	q, vars, err := qlang.ParseVariables(text, e.resolver)
	if err != nil {
		_, perr := e.Parse(text) // the same error, with its position for clients
		return nil, nil, perr
	}
	return q, vars, nil
}

// ExplainVariables answers every variable as the query of its values.
func (e *Engine) ExplainVariables(ctx context.Context, vars []qlang.Variable, k int) []VariableAnswer {
	qs := make([]query.Node, len(vars))
	for i, v := range vars {
		qs[i] = v.Tree
	}
	rs, errs := e.AnswerQueries(ctx, qs, k)
	out := make([]VariableAnswer, len(vars))
	for i, v := range vars {
		out[i] = VariableAnswer{Name: v.Name, Query: v.Tree, Result: rs[i]}
		if errs[i] != nil {
			out[i].Error = errs[i].Error()
		}
	}
	return out
}

// ExplainNodes parses text and answers every node and variable of it
// (serve.Explainer).
func (e *Engine) ExplainNodes(ctx context.Context, text string, k int) ([]serve.Node, []serve.Variable, error) {
	q, vars, err := e.ParseVariables(text)
	if err != nil {
		return nil, nil, err
	}
	nodes, err := e.Explain(ctx, q, k)
	if err != nil {
		return nil, nil, err
	}
	out := make([]serve.Node, len(nodes))
	for i, n := range nodes {
		out[i] = serveNode(n.Depth, n.Node, n.Result, n.Error)
	}
	var sv []serve.Variable
	for _, v := range e.ExplainVariables(ctx, vars, k) {
		sv = append(sv, serve.Variable{Name: v.Name, Node: serveNode(0, e.resolver.Format(v.Query), v.Result, v.Error)})
	}
	return out, sv, nil
}

func serveNode(depth int, text string, r *Result, errText string) serve.Node {
	n := serve.Node{Depth: depth, Node: text, Error: errText}
	if r != nil {
		n.Answers, n.ObservedAnswers, n.EstimatedAnswers, n.Entropy = r.Answers, r.ObservedAnswers, r.EstimatedAnswers, r.Entropy
	}
	return n
}
