package qlang

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/query"
)

// builder turns a logic formula into a query tree. The variables and the
// atoms between two of them must form a tree; rooted at the answer, every
// atom then constrains one variable, its owner: an atom with an entity
// constrains its variable, an atom between two variables constrains the one
// nearer the answer (it is the link of the other, the child). The tree of a
// variable v is built from the formula parts owned by v:
//
//   - an atom with an entity is a projection of the anchor;
//   - a link to a child c is a projection of c's tree, which is built from
//     the conjuncts next to the link (joined with it by '&') that constrain
//     c or its descendants;
//   - '&' is an intersection, '|' a union, '!' a negation.
//
// So existential variables are quantified innermost: !(r(a, x) & s(x, ?y))
// reads "no x with r(a, x) and s(x, y)". Formulas that do not fit this
// reading (a constraint on x outside the negation or disjunction holding x's
// link, a disjunction spanning two branches) are rejected.
type builder struct {
	p      *parser
	ans    token
	root   *formula
	names  []string // display name of each variable; 0 is the answer
	index  map[string]int
	first  []int // offset of each variable's first occurrence
	atoms  []*formula
	adj    [][]*formula // atoms between two variables, per variable
	parent []int
	link   []*formula // atom joining a variable to its parent
	depth  []int
}

// newBuilder classifies the terms of f's atoms into variables and entities
// and resolves the entities. Bare names are variables when they are the
// answer or declared by exists; ?names always are.
func newBuilder(p *parser, ans token, f *formula) *builder {
	b := &builder{p: p, ans: ans, root: f, index: map[string]int{}}
	b.variable(ans.text, "?"+ans.text, ans.off)
	b.collect(f)
	for name, off := range p.declared {
		if _, ok := b.index[name]; !ok {
			p.errorAt(off-1, fmt.Sprintf("variable %s is declared but not used", name))
		}
	}
	return b
}

func (b *builder) variable(name, display string, off int) int {
	if v, ok := b.index[name]; ok {
		return v
	}
	v := len(b.names)
	b.index[name] = v
	b.names = append(b.names, display)
	b.first = append(b.first, off)
	b.adj = append(b.adj, nil)
	return v
}

func (b *builder) collect(f *formula) {
	if f.op != 'a' {
		for _, k := range f.kids {
			b.collect(k)
		}
		return
	}
	b.atoms = append(b.atoms, f)
	for i, t := range f.args {
		f.vars[i] = -1
		switch {
		case t.kind == tVar:
			f.vars[i] = b.variable(t.text, "?"+t.text, t.off)
		case t.kind == tIdent && (t.text == b.p.answer || b.p.declared[t.text] > 0):
			display := t.text
			if t.text == b.p.answer {
				display = "?" + t.text
			}
			f.vars[i] = b.variable(t.text, display, t.off)
		default:
			f.ents[i] = b.entity(t)
		}
	}
	if f.vars[0] >= 0 && f.vars[1] >= 0 && f.vars[0] != f.vars[1] {
		b.adj[f.vars[0]] = append(b.adj[f.vars[0]], f)
		b.adj[f.vars[1]] = append(b.adj[f.vars[1]], f)
	}
}

// entity resolves an entity term; an unknown bare name that looks like a
// variable gets a hint.
func (b *builder) entity(t token) int32 {
	if t.kind != tIdent || !looksLikeVar(t.text) {
		return b.p.entity(t)
	}
	id, err := b.p.res.Entity(t.text)
	if err == nil {
		return id
	}
	msg := err.Error()
	if ne := (*NameError)(nil); !errors.As(err, &ne) || !ne.Ambiguous {
		msg += fmt.Sprintf(" (for a variable write ?%s or declare it: exists %s .)", t.text, t.text)
	}
	b.p.errorAt(t.off, msg)
	return 0
}

// looksLikeVar reports names like x, y1, z_2.
func looksLikeVar(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if i == 0 && (c < 'a' || c > 'z') || i > 0 && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return s != ""
}

func (b *builder) fail(off int, msg string) {
	b.p.errorAt(off, msg)
	panic(bailout{})
}

func (b *builder) run() query.Node {
	for _, a := range b.atoms {
		switch {
		case a.vars[0] < 0 && a.vars[1] < 0:
			b.fail(a.off, fmt.Sprintf("%s relates two entities: an atom needs a variable on at least one side", b.p.text(a)))
		case a.vars[0] == a.vars[1]:
			b.fail(a.off, fmt.Sprintf("%s relates %s to itself, a cycle: the variables of a query must form a tree", b.p.text(a), b.names[a.vars[0]]))
		}
	}
	if !b.mentions(0) {
		b.fail(b.ans.off, fmt.Sprintf("the answer variable %s does not occur in the formula", b.names[0]))
	}
	b.span()
	for _, a := range b.atoms {
		a.owners = []int{b.owner(a)}
	}
	b.owners(b.root)
	return b.build(b.root, 0)
}

func (b *builder) mentions(v int) bool {
	for _, a := range b.atoms {
		if a.vars[0] == v || a.vars[1] == v {
			return true
		}
	}
	return false
}

// span roots the variables at the answer by breadth-first search, rejecting
// cycles, variables not connected to the answer and too deep trees.
func (b *builder) span() {
	n := len(b.names)
	b.parent = make([]int, n)
	b.link = make([]*formula, n)
	b.depth = make([]int, n)
	seen := make([]bool, n)
	used := map[*formula]bool{}
	for i := range b.parent {
		b.parent[i] = -1
	}
	seen[0] = true
	queue := []int{0}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for _, a := range b.adj[u] {
			if used[a] {
				continue
			}
			used[a] = true
			w := a.vars[0]
			if w == u {
				w = a.vars[1]
			}
			if seen[w] {
				b.fail(a.off, fmt.Sprintf("%s closes a cycle through %s: the variables of a query must form a tree (use a separate variable in each branch)",
					b.p.text(a), strings.Join(b.cycle(u, w), ", ")))
			}
			seen[w] = true
			b.parent[w], b.link[w], b.depth[w] = u, a, b.depth[u]+1
			if b.depth[w] > maxDepth {
				b.fail(a.off, fmt.Sprintf("the query is more than %d atoms deep", maxDepth))
			}
			queue = append(queue, w)
		}
	}
	for v := range n {
		if !seen[v] {
			b.fail(b.first[v], fmt.Sprintf("variable %s is not connected to the answer %s: no chain of atoms links them", b.names[v], b.names[0]))
		}
	}
}

// cycle lists the variables on the tree path from u to w.
func (b *builder) cycle(u, w int) []string {
	var up, down []string
	for b.depth[u] > b.depth[w] {
		up, u = append(up, b.names[u]), b.parent[u]
	}
	for b.depth[w] > b.depth[u] {
		down, w = append(down, b.names[w]), b.parent[w]
	}
	for u != w {
		up, u = append(up, b.names[u]), b.parent[u]
		down, w = append(down, b.names[w]), b.parent[w]
	}
	up = append(up, b.names[u])
	slices.Reverse(down)
	return append(up, down...)
}

// owner is the variable an atom constrains.
func (b *builder) owner(a *formula) int {
	x, y := a.vars[0], a.vars[1]
	switch {
	case x < 0:
		return y
	case y < 0:
		return x
	case b.depth[x] < b.depth[y]:
		return x
	}
	return y
}

// owners fills in the owners of compound formulas.
func (b *builder) owners(f *formula) []int {
	if f.op == 'a' {
		return f.owners
	}
	var all []int
	for _, k := range f.kids {
		all = append(all, b.owners(k)...)
	}
	slices.Sort(all)
	f.owners = slices.Compact(all)
	return f.owners
}

func has(owners []int, v int) bool {
	_, ok := slices.BinarySearch(owners, v)
	return ok
}

// build returns the tree of variable v from f, whose parts all constrain v
// or its descendants.
func (b *builder) build(f *formula, v int) query.Node {
	if !has(f.owners, v) {
		b.detached(f)
	}
	switch f.op {
	case '!':
		return query.Negation{Arg: b.build(f.kids[0], v)}
	case '|':
		args := make([]query.Node, len(f.kids))
		for i, k := range f.kids {
			args[i] = b.build(k, v)
		}
		return query.Union{Args: args}
	case '&':
		return b.conjunction(flatten(nil, f), v)
	}
	if f.vars[0] >= 0 && f.vars[1] >= 0 {
		b.unconstrained(f)
	}
	if f.vars[0] < 0 { // rel(entity, v)
		return query.Projection{Relation: f.rel, Arg: query.Anchor{Entity: f.ents[0]}}
	}
	return query.Projection{Relation: kg.Inverse(f.rel), Arg: query.Anchor{Entity: f.ents[1]}}
}

func flatten(dst []*formula, f *formula) []*formula {
	if f.op != '&' {
		return append(dst, f)
	}
	for _, k := range f.kids {
		dst = flatten(dst, k)
	}
	return dst
}

// conjunction builds v's tree from conjuncts: those constraining v become
// arguments of an intersection, the others wait for the link of the child
// whose branch they constrain.
func (b *builder) conjunction(conj []*formula, v int) query.Node {
	var level []*formula
	pending := map[int][]*formula{}
	var children []int
	for _, g := range conj {
		if has(g.owners, v) {
			level = append(level, g)
			continue
		}
		c := -1
		for _, o := range g.owners {
			co := b.childUnder(o, v)
			if co < 0 {
				b.detached(g)
			}
			if c >= 0 && co != c {
				b.fail(g.off, fmt.Sprintf("%s constrains both %s and %s, which are separate branches of %s: a negation or disjunction must stay within one branch",
					b.p.text(g), b.names[c], b.names[co], b.names[v]))
			}
			c = co
		}
		if pending[c] == nil {
			children = append(children, c)
		}
		pending[c] = append(pending[c], g)
	}
	for _, c := range children {
		if !slices.Contains(level, b.link[c]) {
			b.detached(pending[c][0])
		}
	}
	args := make([]query.Node, 0, len(level))
	for _, g := range level {
		if g.op != 'a' || g.vars[0] < 0 || g.vars[1] < 0 {
			args = append(args, b.build(g, v))
			continue
		}
		c := g.vars[0] + g.vars[1] - v // the child this link leads to
		if len(pending[c]) == 0 {
			b.unconstrained(g)
		}
		sub := b.conjunction(pending[c], c)
		b.p.vars = append(b.p.vars, Variable{Name: b.names[c], Tree: sub})
		if g.vars[0] == c { // rel(c, v)
			args = append(args, query.Projection{Relation: g.rel, Arg: sub})
		} else {
			args = append(args, query.Projection{Relation: kg.Inverse(g.rel), Arg: sub})
		}
	}
	if len(args) == 1 {
		return args[0]
	}
	return query.Intersection{Args: args}
}

// childUnder returns the child of v on the path from v down to o, or -1
// when o is not below v.
func (b *builder) childUnder(o, v int) int {
	for o >= 0 && b.parent[o] != v {
		o = b.parent[o]
	}
	return o
}

// detached rejects g, which constrains a variable whose link is not in g's
// conjunction.
func (b *builder) detached(g *formula) {
	o := g.owners[0]
	for _, x := range g.owners {
		if b.depth[x] < b.depth[o] {
			o = x
		}
	}
	if b.link[o] == nil {
		b.fail(g.off, fmt.Sprintf("%s cannot be placed in the query tree", b.p.text(g)))
	}
	b.fail(g.off, fmt.Sprintf("%s constrains %s but is not in the same conjunction as the atom linking %s to %s (%s): a negation or disjunction must hold all of a variable's branch or none of it",
		b.p.text(g), b.names[o], b.names[o], b.names[b.parent[o]], b.p.text(b.link[o])))
}

// unconstrained rejects the link a whose child has no other constraint.
func (b *builder) unconstrained(a *formula) {
	c := a.vars[0]
	if b.depth[a.vars[1]] > b.depth[c] {
		c = a.vars[1]
	}
	b.fail(a.off, fmt.Sprintf("nothing constrains %s besides %s: every variable must be reached from an entity, so add an atom relating %s to an entity (joined with '&')",
		b.names[c], b.p.text(a), b.names[c]))
}
