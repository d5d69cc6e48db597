package qlang

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gammae/gammae/query"
)

// Limits that keep hostile input cheap.
const (
	maxSource = 1 << 20 // bytes
	maxDepth  = 200     // nesting of parentheses and calls; depth of the variable tree
	// MaxNodes bounds a query's tree (anchors, projections, negations,
	// intersections, unions): the benchmark's largest has 8, and answering
	// costs grow with it (a 40,000-atom intersection took seconds of CPU
	// and hundreds of MB of memory).
	MaxNodes = 1000
)

// Parse reads a query in any of the three syntaxes (see the package
// documentation) and resolves its names with r. The syntax is told by the
// first token: a variable (?y) starts the logic form, '(' a benchmark tuple,
// p( i( u( n( the functional form. A non-nil error is an ErrorList.
func Parse(src string, r Resolver) (q query.Node, err error) {
	return parse(src, r, nil)
}

func parse(src string, r Resolver, vars *[]Variable) (q query.Node, err error) {
	p := &parser{src: src, lex: lexer{src: src}, res: r}
	if vars != nil {
		defer func() {
			if err == nil {
				*vars = p.vars
			}
		}()
	}
	if r == nil {
		p.errorAt(0, "no resolver for names")
		return nil, p.errs
	}
	if len(src) > maxSource {
		p.errorAt(0, fmt.Sprintf("query too long (%d bytes, at most %d)", len(src), maxSource))
		return nil, p.errs
	}
	defer func() {
		if e := recover(); e != nil {
			if _, ok := e.(bailout); !ok {
				panic(e)
			}
			q, err = nil, p.result()
		}
	}()
	p.next()
	switch t := p.tok; {
	case t.kind == tVar:
		q = p.logic()
	case t.kind == tLParen:
		q = p.tuple()
	case t.kind == tIdent && isFunc(t.text) && p.peek().kind == tLParen:
		q = p.fnode()
		if p.tok.kind != tEOF {
			p.fail("expected end of query after the closing ')', found " + p.tok.describe())
		}
	case t.kind == tIdent && isFunc(strings.ToLower(t.text)) && p.peek().kind == tLParen:
		p.fail("the functional form is written in lower case: p(...), i(...), u(...), n(...)")
	case (t.kind == tIdent || t.kind == tString) && p.peek().kind == tLParen, t.kind == tNot, t.kind == tExists:
		p.fail("a logic query starts with its answer variable, e.g. ?y : directed_by(?y, Spielberg)")
	case t.kind == tEOF:
		p.fail("empty query: expected ?y : formula, p(...), i(...), u(...), n(...) or a benchmark tuple")
	default:
		p.fail("expected a query (?y : formula, p(...), i(...), u(...), n(...) or a benchmark tuple), found " + t.describe())
	}
	if err := p.result(); err != nil {
		return nil, err
	}
	if n := query.Count(q); n > MaxNodes {
		p.errorAt(0, fmt.Sprintf("query has %d nodes (atoms, operators); at most %d are answered", n, MaxNodes))
		return nil, p.errs
	}
	return q, nil
}

// bailout unwinds the parser after a syntax error; Parse recovers it.
type bailout struct{}

type parser struct {
	src   string
	lex   lexer
	tok   token
	res   Resolver
	errs  ErrorList
	depth int

	// logic form
	answer   string
	declared map[string]int // variable → offset of its declaration
	vars     []Variable     // the logic form's existential variables
}

// Variable is an existential variable of a logic-form query with the query
// tree of its values: in ?y : exists x . won(Oscar, x) & field(x, ?y), x's
// tree is p(Oscar, won), the subtree the answer's tree projects from.
type Variable struct {
	Name string // as written, e.g. "x" or "?x"
	Tree query.Node
}

// ParseVariables is Parse, also returning the existential variables of a
// logic-form query, innermost first (none for the other syntaxes).
// A variable under a negation or a disjunction gets the tree of its own
// branch.
func ParseVariables(src string, r Resolver) (query.Node, []Variable, error) {
	var vars []Variable
	q, err := parse(src, r, &vars)
	return q, vars, err
}

func (p *parser) result() error {
	if len(p.errs) == 0 {
		return nil
	}
	p.errs.sort()
	return p.errs
}

func (p *parser) next() { p.tok = p.lex.next() }

func (p *parser) peek() token {
	save := p.lex.pos
	t := p.lex.next()
	p.lex.pos = save
	return t
}

func (p *parser) errorAt(off int, msg string) {
	p.errs = append(p.errs, &Error{Pos: position(p.src, off), Msg: msg})
}

// fail reports a syntax error at the current token and stops parsing. An
// illegal token reports what is wrong with it instead.
func (p *parser) fail(msg string) {
	if p.tok.kind == tIllegal {
		msg = p.tok.text
	}
	p.errorAt(p.tok.off, msg)
	panic(bailout{})
}

// expect consumes a token of kind k or fails saying what was wanted.
func (p *parser) expect(k kind, what string) token {
	t := p.tok
	if t.kind != k {
		p.fail("expected " + what + ", found " + t.describe())
	}
	p.next()
	return t
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.fail(fmt.Sprintf("query nested more than %d levels deep", maxDepth))
	}
}

func (p *parser) leave() { p.depth-- }

func isFunc(s string) bool { return s == "p" || s == "i" || s == "u" || s == "n" }

// isName reports whether t can name an entity or relation.
func isName(t token) bool { return t.kind == tIdent || t.kind == tString || t.kind == tID }

// fnode parses the functional form:
//
//	p(q, r1, r2...)  i(q1, q2, ...)  u(q1, q2, ...)  n(q)  entity
func (p *parser) fnode() query.Node {
	p.enter()
	defer p.leave()
	t := p.tok
	if t.kind != tIdent || !isFunc(t.text) || p.peek().kind != tLParen {
		if !isName(t) {
			p.fail("expected an entity or p(...), i(...), u(...), n(...), found " + t.describe())
		}
		p.next()
		return query.Anchor{Entity: p.entity(t)}
	}
	p.next()
	p.next()
	switch t.text {
	case "p":
		q := p.fnode()
		p.expect(tComma, "',' and a relation in p(query, relation)")
		for {
			rt := p.tok
			if !isName(rt) {
				p.fail("expected a relation name or #id, found " + rt.describe())
			}
			p.next()
			q = query.Projection{Relation: p.relation(rt), Arg: q}
			if p.tok.kind != tComma {
				break
			}
			p.next()
		}
		p.expect(tRParen, "')' closing p(query, relation)")
		return q
	case "n":
		q := p.fnode()
		p.expect(tRParen, "')' closing n(query) (n takes one argument)")
		return query.Negation{Arg: q}
	}
	args := []query.Node{p.fnode()}
	for p.tok.kind == tComma {
		p.next()
		args = append(args, p.fnode())
	}
	p.expect(tRParen, fmt.Sprintf("',' or ')' in %s(...)", t.text))
	if len(args) < 2 {
		p.errorAt(t.off, fmt.Sprintf("%s(...) needs at least two arguments", t.text))
		panic(bailout{})
	}
	if t.text == "u" {
		return query.Union{Args: args}
	}
	return query.Intersection{Args: args}
}

// entity resolves the entity named by token t, recording an error (and
// returning 0) when it does not resolve.
func (p *parser) entity(t token) int32 {
	if t.kind == tID {
		return p.rawID(t, "entity", p.res.NumEntities())
	}
	id, err := p.res.Entity(t.text)
	if err != nil {
		p.errorAt(t.off, err.Error())
		return 0
	}
	return id
}

func (p *parser) relation(t token) int32 {
	if t.kind == tID {
		return p.rawID(t, "relation", p.res.NumRelations())
	}
	id, err := p.res.Relation(t.text)
	if err != nil {
		p.errorAt(t.off, err.Error())
		return 0
	}
	return id
}

func (p *parser) rawID(t token, what string, n int) int32 {
	v, err := strconv.ParseInt(t.text, 10, 32)
	if err != nil || v >= int64(n) {
		p.errorAt(t.off, fmt.Sprintf("%s id #%s out of range [0, %d)", what, t.text, n))
		return 0
	}
	return int32(v)
}

// tuple reads the whole source as a grounded benchmark tuple.
func (p *parser) tuple() query.Node {
	depth := 0
	for i := 0; i < len(p.src); i++ {
		switch p.src[i] {
		case '(':
			if depth++; depth > maxDepth {
				p.errorAt(i, fmt.Sprintf("benchmark tuple nested more than %d levels deep", maxDepth))
				return nil
			}
		case ')':
			depth--
		}
	}
	t, err := query.ParseTuple(p.src)
	if err != nil {
		off, msg := tupleError(p.src, err)
		p.errorAt(off, "benchmark tuple: "+msg)
		return nil
	}
	start := p.tok.off
	if hasSymbols(t) {
		p.errorAt(start, "benchmark tuple: a structure tuple with e/r/n/u placeholders is a shape, not a query; write ids")
		return nil
	}
	q, err := query.FromTuple(t)
	if err != nil {
		p.errorAt(start, "benchmark tuple: "+err.Error())
		return nil
	}
	p.checkIDs(q, start)
	return q
}

// tupleError recovers the offset and the message from a query.ParseTuple
// error, which quotes the whole input.
func tupleError(src string, err error) (int, string) {
	msg := err.Error()
	rest, ok := strings.CutPrefix(msg, "tuple "+strconv.Quote(src))
	if !ok {
		return 0, msg
	}
	if r, ok := strings.CutPrefix(rest, " at offset "); ok { // " at offset N: what"
		n, what, _ := strings.Cut(r, ": ")
		if off, err := strconv.Atoi(n); err == nil {
			return off, what
		}
	}
	if r, ok := strings.CutPrefix(rest, ": "); ok { // ": unexpected X at offset N"
		if i := strings.LastIndex(r, " at offset "); i >= 0 {
			if off, err := strconv.Atoi(r[i+len(" at offset "):]); err == nil {
				return off, r[:i]
			}
		}
	}
	return 0, strings.TrimPrefix(rest, ": ")
}

func hasSymbols(t query.Tuple) bool {
	for _, x := range t {
		switch v := x.(type) {
		case string:
			return true
		case query.Tuple:
			if hasSymbols(v) {
				return true
			}
		}
	}
	return false
}

// checkIDs reports ids of q outside the resolver's ranges.
func (p *parser) checkIDs(q query.Node, off int) {
	switch v := q.(type) {
	case query.Anchor:
		if int(v.Entity) >= p.res.NumEntities() {
			p.errorAt(off, fmt.Sprintf("benchmark tuple: entity id %d out of range [0, %d)", v.Entity, p.res.NumEntities()))
		}
	case query.Projection:
		if int(v.Relation) >= p.res.NumRelations() {
			p.errorAt(off, fmt.Sprintf("benchmark tuple: relation id %d out of range [0, %d)", v.Relation, p.res.NumRelations()))
		}
		p.checkIDs(v.Arg, off)
	case query.Negation:
		p.checkIDs(v.Arg, off)
	case query.Intersection:
		for _, a := range v.Args {
			p.checkIDs(a, off)
		}
	case query.Union:
		for _, a := range v.Args {
			p.checkIDs(a, off)
		}
	}
}
