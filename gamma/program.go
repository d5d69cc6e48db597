package gamma

import (
	"fmt"

	"github.com/gammae/gammae/query"
)

// opKind is an instruction of a compiled query.
type opKind uint8

const (
	opAnchor    opKind = iota // gather entity rows (raw, no regulariser)
	opProject                 // relation projection MLPs
	opNegate                  // α → 1/α, β moved by ε towards 1
	opIntersect               // attention-weighted average
	opUnion                   // moment-matching union net
)

type instr struct {
	kind  opKind
	slot  int   // id column: the anchor entity or the projection relation
	in    []int // input values
	out   int   // output value
	level int   // 0 for anchors, else 1 + the highest level of the inputs
}

// Program is a query structure compiled for a union mode: a list of
// batched operations over values (an α and a β matrix each). Programs are
// immutable and may be shared between Workspaces and goroutines.
type Program struct {
	instrs  []instr
	values  int
	levels  int   // 1 + the highest instruction level
	vlevel  []int // level of the instruction computing each value
	outputs []int // the final components (one unless DNF or mixture)
	slots   int
	mode    Union
	shape   string
}

// Slots is the number of id columns a query of this program takes, in
// query.Slots order.
func (p *Program) Slots() int { return p.slots }

// Components is the number of Gamma embeddings a query yields: 1, or the
// number of DNF branches in the dnf and mixture union modes.
func (p *Program) Components() int { return len(p.outputs) }

// Shape is the benchmark tuple of the compiled structure (for messages).
func (p *Program) Shape() string { return p.shape }

// tnode is a query tree whose anchors and relations carry their slot index.
type tnode struct {
	kind opKind // opAnchor, opProject, opNegate, opIntersect, opUnion
	slot int
	args []*tnode
}

// Compile turns a query tree (ids are ignored: a template) into a program
// for the given union mode. Any tree of anchors, projections, negations,
// intersections and unions compiles; intersections and unions need two or
// more arguments.
func Compile(q query.Node, mode Union) (*Program, error) {
	if mode == "" {
		mode = UnionMoment
	}
	switch mode {
	case UnionMoment, UnionMixture, UnionDNF, UnionDM:
	default:
		return nil, fmt.Errorf("gamma: unknown union mode %q", mode)
	}
	slots := 0
	t, err := annotate(q, &slots)
	if err != nil {
		return nil, err
	}
	p := &Program{mode: mode, slots: slots, shape: query.Shape(q)}
	var roots []*tnode
	switch mode {
	case UnionMoment:
		roots = []*tnode{t}
	case UnionDM:
		roots = []*tnode{deMorgan(t)}
	default:
		roots = dnf(t)
	}
	for _, r := range roots {
		p.outputs = append(p.outputs, p.emit(r))
	}
	return p, nil
}

// Compile compiles q for the model's union mode.
func (m *Model[T]) Compile(q query.Node) (*Program, error) { return Compile(q, m.cfg.Mode()) }

// annotate converts q, numbering anchors and relations in query.Slots order
// (a projection's argument before its relation).
func annotate(q query.Node, next *int) (*tnode, error) {
	switch v := q.(type) {
	case query.Anchor:
		*next++
		return &tnode{kind: opAnchor, slot: *next - 1}, nil
	case query.Projection:
		a, err := annotate(v.Arg, next)
		if err != nil {
			return nil, err
		}
		*next++
		return &tnode{kind: opProject, slot: *next - 1, args: []*tnode{a}}, nil
	case query.Negation:
		a, err := annotate(v.Arg, next)
		if err != nil {
			return nil, err
		}
		return &tnode{kind: opNegate, args: []*tnode{a}}, nil
	case query.Intersection, query.Union:
		kind, args, name := opIntersect, []query.Node(nil), "intersection"
		if u, ok := v.(query.Union); ok {
			kind, args, name = opUnion, u.Args, "union"
		} else {
			args = v.(query.Intersection).Args
		}
		if len(args) < 2 {
			return nil, fmt.Errorf("gamma: %s with %d arguments, want ≥ 2", name, len(args))
		}
		n := &tnode{kind: kind}
		for _, a := range args {
			t, err := annotate(a, next)
			if err != nil {
				return nil, err
			}
			n.args = append(n.args, t)
		}
		return n, nil
	case nil:
		return nil, fmt.Errorf("gamma: nil query node")
	}
	return nil, fmt.Errorf("gamma: unknown query node %T", q)
}

// deMorgan rewrites every union A ∨ B ∨ … as ¬(¬A ∧ ¬B ∧ …).
func deMorgan(t *tnode) *tnode {
	n := &tnode{kind: t.kind, slot: t.slot}
	for _, a := range t.args {
		n.args = append(n.args, deMorgan(a))
	}
	if n.kind == opUnion {
		neg := &tnode{kind: opIntersect}
		for _, a := range n.args {
			neg.args = append(neg.args, &tnode{kind: opNegate, args: []*tnode{a}})
		}
		return &tnode{kind: opNegate, args: []*tnode{neg}}
	}
	return n
}

// dnf rewrites t as a disjunction of union-free trees: projections and
// intersections distribute over unions, and a negated union becomes the
// intersection of the negated branches (¬(A∨B) = ¬A ∧ ¬B).
func dnf(t *tnode) []*tnode {
	switch t.kind {
	case opAnchor:
		return []*tnode{t}
	case opProject:
		var out []*tnode
		for _, a := range dnf(t.args[0]) {
			out = append(out, &tnode{kind: opProject, slot: t.slot, args: []*tnode{a}})
		}
		return out
	case opNegate:
		bs := dnf(t.args[0])
		if len(bs) == 1 {
			return []*tnode{{kind: opNegate, args: bs}}
		}
		n := &tnode{kind: opIntersect}
		for _, b := range bs {
			n.args = append(n.args, &tnode{kind: opNegate, args: []*tnode{b}})
		}
		return []*tnode{n}
	case opUnion:
		var out []*tnode
		for _, a := range t.args {
			out = append(out, dnf(a)...)
		}
		return out
	default: // intersection: the cartesian product of the arguments' branches
		out := []*tnode{{kind: opIntersect}}
		for _, a := range t.args {
			bs := dnf(a)
			var next []*tnode
			for _, partial := range out {
				for _, b := range bs {
					args := append(append([]*tnode(nil), partial.args...), b)
					next = append(next, &tnode{kind: opIntersect, args: args})
				}
			}
			out = next
		}
		return out
	}
}

// anchorSlot returns the id column of the anchor computing value v, or −1
// when an operator computes v.
func (p *Program) anchorSlot(v int) int {
	for i := range p.instrs {
		if in := &p.instrs[i]; in.out == v {
			if in.kind == opAnchor {
				return in.slot
			}
			return -1
		}
	}
	return -1
}

// emit appends the instructions computing t and returns its value.
func (p *Program) emit(t *tnode) int {
	in := make([]int, len(t.args))
	for i, a := range t.args {
		in[i] = p.emit(a)
	}
	level := 0
	for _, v := range in {
		level = max(level, p.vlevel[v]+1)
	}
	out := p.values
	p.values++
	p.vlevel = append(p.vlevel, level)
	p.levels = max(p.levels, level+1)
	p.instrs = append(p.instrs, instr{kind: t.kind, slot: t.slot, in: in, out: out, level: level})
	return out
}
