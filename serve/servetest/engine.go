// Package servetest provides a small fake serve.Engine for tests of the HTTP
// layer and the web page: a toy graph of European countries with a tiny query
// language, answered exactly, with deterministic "predicted" answers after
// the exact ones.
//
// The language: an entity name (france) is an anchor; rel(q) projects q
// through relation rel; q & q intersects, q | q unites, !q negates;
// parentheses group. & binds tighter than |.
package servetest

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/gammae/gammae/serve"
)

// Engine is the fake. Its zero value is ready to use and safe for concurrent
// use.
type Engine struct {
	// Delay is slept (or until the context ends) in every Answer call, to
	// test timeouts and graceful shutdown.
	Delay time.Duration
}

var _ serve.Engine = (*Engine)(nil)

// ParseError is a query error with its position.
type ParseError struct {
	Line, Col int
	Msg       string
}

func (e *ParseError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}
func (e *ParseError) Position() (line, col int) { return e.Line, e.Col }

var entities = []struct{ name, label string }{
	{"france", "France"}, {"germany", "Germany"}, {"spain", "Spain"}, {"portugal", "Portugal"},
	{"italy", "Italy"}, {"belgium", "Belgium"}, {"netherlands", "Netherlands"},
	{"switzerland", "Switzerland"}, {"austria", "Austria"}, {"poland", "Poland"},
	{"luxembourg", "Luxembourg"}, {"europe", "Europe"},
	{"french", "French language"}, {"german", "German language"}, {"spanish", "Spanish language"},
	{"portuguese", "Portuguese language"}, {"italian", "Italian language"}, {"dutch", "Dutch language"},
	{"polish", "Polish language"},
}

var relations = []string{"borders", "located_in", "speaks", "spoken_in"}

// edges maps relation name to (head, tail) name pairs.
var edges = func() map[string][][2]string {
	m := map[string][][2]string{}
	sym := func(r, a, b string) { m[r] = append(m[r], [2]string{a, b}, [2]string{b, a}) }
	for _, p := range [][2]string{
		{"france", "germany"}, {"france", "spain"}, {"france", "italy"}, {"france", "belgium"},
		{"france", "switzerland"}, {"france", "luxembourg"}, {"spain", "portugal"},
		{"germany", "poland"}, {"germany", "austria"}, {"germany", "switzerland"},
		{"germany", "belgium"}, {"germany", "netherlands"}, {"germany", "luxembourg"},
		{"belgium", "netherlands"}, {"belgium", "luxembourg"}, {"italy", "switzerland"},
		{"italy", "austria"}, {"austria", "switzerland"},
	} {
		sym("borders", p[0], p[1])
	}
	for _, e := range entities[:11] {
		m["located_in"] = append(m["located_in"], [2]string{e.name, "europe"})
	}
	for _, p := range [][2]string{
		{"france", "french"}, {"belgium", "french"}, {"belgium", "dutch"}, {"switzerland", "french"},
		{"switzerland", "german"}, {"switzerland", "italian"}, {"germany", "german"},
		{"austria", "german"}, {"luxembourg", "french"}, {"luxembourg", "german"},
		{"spain", "spanish"}, {"portugal", "portuguese"}, {"italy", "italian"},
		{"netherlands", "dutch"}, {"poland", "polish"},
	} {
		m["speaks"] = append(m["speaks"], p)
		m["spoken_in"] = append(m["spoken_in"], [2]string{p[1], p[0]})
	}
	return m
}()

func entityID(name string) int {
	for i, e := range entities {
		if e.name == name {
			return i
		}
	}
	return -1
}

// Answer parses and executes query on the toy graph.
func (e *Engine) Answer(ctx context.Context, query string, k int) (*serve.Result, error) {
	if e.Delay > 0 {
		t := time.NewTimer(e.Delay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	p := &parser{src: []rune(query), line: 1, col: 1}
	n, err := p.parse()
	if err != nil {
		return nil, err
	}
	set := n.eval()
	var answers []serve.Answer
	for id := range entities {
		if set[id] {
			answers = append(answers, answer(id, true, n.canon))
		}
	}
	var rest []serve.Answer
	for id := range entities {
		if !set[id] {
			rest = append(rest, answer(id, false, n.canon))
		}
	}
	sort.SliceStable(answers, func(i, j int) bool { return answers[i].Score > answers[j].Score })
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].Score > rest[j].Score })
	answers = append(answers, rest...)
	if len(answers) > k {
		answers = answers[:k]
	}
	for i := range answers {
		answers[i].Rank = i + 1
	}
	size := float64(len(set))
	return &serve.Result{
		Query:            n.canon,
		Structure:        n.shape,
		Explain:          n.explain,
		Answers:          answers,
		Entropy:          math.Round(100*(40+8*math.Log1p(size))) / 100,
		EstimatedAnswers: &size,
	}, nil
}

// answer scores entity id for a query: observed answers above 10, predicted
// ones below, both deterministic in (query, entity).
func answer(id int, observed bool, canon string) serve.Answer {
	h := fnv.New32a()
	h.Write([]byte(canon + "\x00" + entities[id].name))
	jitter := float64(h.Sum32()%1000) / 1000
	score := jitter
	if observed {
		score += 10
	}
	return serve.Answer{
		ID:       int32(id),
		Name:     entities[id].name,
		Label:    entities[id].label,
		Score:    math.Round(score*1000) / 1000,
		Observed: observed,
	}
}

// Complete lists entity and relation names starting with prefix (ignoring case).
func (e *Engine) Complete(prefix string, limit int) []serve.Suggestion {
	prefix = strings.ToLower(prefix)
	var out []serve.Suggestion
	for _, r := range relations {
		if strings.HasPrefix(r, prefix) && len(out) < limit {
			out = append(out, serve.Suggestion{Name: r, Kind: "relation", Insert: r + "("})
		}
	}
	for _, en := range entities {
		if strings.HasPrefix(en.name, prefix) && len(out) < limit {
			out = append(out, serve.Suggestion{Name: en.name, Label: en.label, Kind: "entity"})
		}
	}
	return out
}

// Info describes the toy model.
func (e *Engine) Info() serve.Info {
	return serve.Info{
		Model:        "fake",
		Dataset:      "toy-europe",
		Entities:     len(entities),
		Relations:    len(relations),
		Dim:          8,
		Union:        "dnf",
		TrainedSteps: 0,
		Estimates:    true,
		Syntax:       "entity names are anchors; rel(q) follows relation rel; q & q intersects, q | q unites, !q negates.",
		Examples: []serve.Example{
			{Title: "1p: one hop", Query: "borders(france)"},
			{Title: "2p: two hops", Query: "speaks(borders(spain))"},
			{Title: "2i: intersection", Query: "borders(france) & borders(germany)"},
			{Title: "2in: with negation", Query: "borders(germany) & !spoken_in(german)"},
			{Title: "2u: union", Query: "borders(spain) | borders(poland)"},
		},
	}
}

// node is a parsed query with its meaning.
type node struct {
	eval    func() map[int]bool
	canon   string // canonical text
	shape   string // structure sketch
	explain string
}

type parser struct {
	src       []rune
	pos       int
	line, col int
}

func (p *parser) errf(line, col int, format string, args ...any) error {
	return &ParseError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

func (p *parser) skip() {
	for p.pos < len(p.src) && unicode.IsSpace(p.src[p.pos]) {
		p.next()
	}
}

func (p *parser) next() rune {
	r := p.src[p.pos]
	p.pos++
	if r == '\n' {
		p.line, p.col = p.line+1, 1
	} else {
		p.col++
	}
	return r
}

func (p *parser) peek() rune {
	p.skip()
	if p.pos >= len(p.src) {
		return 0
	}
	return p.src[p.pos]
}

func (p *parser) parse() (*node, error) {
	n, err := p.union()
	if err != nil {
		return nil, err
	}
	if r := p.peek(); r != 0 {
		return nil, p.errf(p.line, p.col, "unexpected %q after the query; expected & or | or the end", r)
	}
	return n, nil
}

func (p *parser) union() (*node, error) {
	return p.binary('|', "u", "or", p.inter, func(a, b map[int]bool) map[int]bool {
		out := map[int]bool{}
		for k := range a {
			out[k] = true
		}
		for k := range b {
			out[k] = true
		}
		return out
	})
}

func (p *parser) inter() (*node, error) {
	return p.binary('&', "i", "and", p.unary, func(a, b map[int]bool) map[int]bool {
		out := map[int]bool{}
		for k := range a {
			if b[k] {
				out[k] = true
			}
		}
		return out
	})
}

func (p *parser) binary(op rune, tag, word string, sub func() (*node, error), f func(a, b map[int]bool) map[int]bool) (*node, error) {
	left, err := sub()
	if err != nil {
		return nil, err
	}
	args := []*node{left}
	for p.peek() == op {
		p.next()
		right, err := sub()
		if err != nil {
			return nil, err
		}
		args = append(args, right)
	}
	if len(args) == 1 {
		return left, nil
	}
	canon, shapes, expl := make([]string, len(args)), make([]string, len(args)), make([]string, len(args))
	for i, a := range args {
		canon[i], shapes[i], expl[i] = a.canon, a.shape, a.explain
	}
	return &node{
		eval: func() map[int]bool {
			acc := args[0].eval()
			for _, a := range args[1:] {
				acc = f(acc, a.eval())
			}
			return acc
		},
		canon:   "(" + strings.Join(canon, " "+string(op)+" ") + ")",
		shape:   fmt.Sprintf("%d%s(%s)", len(args), tag, strings.Join(shapes, ",")),
		explain: "(" + strings.Join(expl, " "+word+" ") + ")",
	}, nil
}

func (p *parser) unary() (*node, error) {
	switch r := p.peek(); {
	case r == '!':
		p.next()
		arg, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &node{
			eval: func() map[int]bool {
				in := arg.eval()
				out := map[int]bool{}
				for id := range entities {
					if !in[id] {
						out[id] = true
					}
				}
				return out
			},
			canon: "!" + arg.canon, shape: arg.shape + "n", explain: "not " + arg.explain,
		}, nil
	case r == '(':
		p.next()
		n, err := p.union()
		if err != nil {
			return nil, err
		}
		if p.peek() != ')' {
			return nil, p.errf(p.line, p.col, "expected ')'")
		}
		p.next()
		return n, nil
	case isName(r):
		line, col := p.line, p.col
		start := p.pos
		for p.pos < len(p.src) && isName(p.src[p.pos]) {
			p.next()
		}
		name := string(p.src[start:p.pos])
		if p.peek() == '(' {
			if !slices.Contains(relations, name) {
				return nil, p.errf(line, col, "unknown relation %q", name)
			}
			p.next()
			arg, err := p.union()
			if err != nil {
				return nil, err
			}
			if p.peek() != ')' {
				return nil, p.errf(p.line, p.col, "expected ')' to close %s(", name)
			}
			p.next()
			return &node{
				eval: func() map[int]bool {
					in := arg.eval()
					out := map[int]bool{}
					for _, e := range edges[name] {
						if in[entityID(e[0])] {
							out[entityID(e[1])] = true
						}
					}
					return out
				},
				canon: name + "(" + arg.canon + ")", shape: arg.shape + "p",
				explain: "what " + arg.explain + " " + strings.ReplaceAll(name, "_", " "),
			}, nil
		}
		id := entityID(name)
		if id < 0 {
			return nil, p.errf(line, col, "unknown entity %q", name)
		}
		return &node{
			eval:  func() map[int]bool { return map[int]bool{id: true} },
			canon: name, shape: "e", explain: entities[id].label,
		}, nil
	case r == 0:
		return nil, p.errf(p.line, p.col, "query ends early; expected an entity, a relation, '!' or '('")
	default:
		return nil, p.errf(p.line, p.col, "unexpected %q; expected an entity, a relation, '!' or '('", r)
	}
}

func isName(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

var _ serve.Explainer = (*Engine)(nil)

// ExplainNodes answers a fixed three-level tree for any query: the query
// itself, the same query again as its one operand, and an anchor, so that
// a client's tree drawing can be tested.
func (e *Engine) ExplainNodes(ctx context.Context, query string, k int) ([]serve.Node, []serve.Variable, error) {
	r, err := e.Answer(ctx, query, k)
	if err != nil {
		return nil, nil, err
	}
	observed := 0
	for _, a := range r.Answers {
		if a.Observed {
			observed++
		}
	}
	n := serve.Node{Answers: r.Answers, ObservedAnswers: observed, EstimatedAnswers: r.EstimatedAnswers}
	root, inner := n, n
	root.Depth, root.Node = 0, "intersection"
	inner.Depth, inner.Node = 1, "project "+r.Structure
	return []serve.Node{root, inner, {Depth: 2, Node: "anchor"}}, []serve.Variable{{Name: "x", Node: inner}}, nil
}
