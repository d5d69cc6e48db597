package qlang

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gammae/gammae/kg"
	"github.com/gammae/gammae/query"
)

// Format writes q in the functional form with names, e.g.
// i(p("Nobel Prize", award_winner), n(p(Physics, field))). Parse with a
// DictResolver over the same dictionaries gives q back: an entity is written
// by its label when the label names it alone, else by its identifier, else
// as #id; a relation by its shortest unambiguous spelling (see DictResolver).
//
// A bare anchor formats as its name, which Parse rejects: a query starts
// with a projection. Format indexes rels and scans ents for each call; a server formatting many
// queries should use (*DictResolver).Format.
func Format(q query.Node, ents, rels *kg.Dict) string {
	rx := newRelIndex(rels)
	f := formatter{
		ent: func(e int32) string { return entityToken(ents, e, scanResolves(ents, e)) },
		rel: func(r int32) string { return relToken(rx, r) },
	}
	var b strings.Builder
	f.node(&b, q)
	return b.String()
}

// Format is the package Format with this resolver's indexes.
func (r *DictResolver) Format(q query.Node) string {
	var b strings.Builder
	r.formatter().node(&b, q)
	return b.String()
}

func (r *DictResolver) formatter() formatter {
	return formatter{ent: r.entityToken, rel: func(id int32) string { return relToken(r.rel, id) }}
}

type formatter struct {
	ent, rel func(int32) string
}

// RelationToken is how queries written by this resolver name relation id
// (the shortest unambiguous form).
func (r *DictResolver) RelationToken(id int32) string { return relToken(r.rel, id) }

func (f formatter) node(b *strings.Builder, q query.Node) {
	switch v := q.(type) {
	case query.Anchor:
		b.WriteString(f.ent(v.Entity))
	case query.Projection:
		b.WriteString("p(")
		f.node(b, v.Arg)
		b.WriteString(", ")
		b.WriteString(f.rel(v.Relation))
		b.WriteByte(')')
	case query.Negation:
		b.WriteString("n(")
		f.node(b, v.Arg)
		b.WriteByte(')')
	case query.Intersection:
		f.call(b, "i(", v.Args)
	case query.Union:
		f.call(b, "u(", v.Args)
	default:
		fmt.Fprintf(b, "<invalid node %T>", q)
	}
}

func (f formatter) call(b *strings.Builder, head string, args []query.Node) {
	b.WriteString(head)
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		f.node(b, a)
	}
	b.WriteByte(')')
}

// entityToken writes entity e by the first of label, identifier for which
// resolves reports true, else as #e.
func entityToken(d *kg.Dict, e int32, resolves func(string) bool) string {
	if e < 0 || int(e) >= d.Len() {
		return "#" + strconv.Itoa(int(e))
	}
	if l := d.Label(e); resolves(l) {
		return quoteName(l)
	}
	if n := d.Names[e]; resolves(n) {
		return quoteName(n)
	}
	return "#" + strconv.Itoa(int(e))
}

// scanResolves reports whether a label or identifier of e resolves to e,
// without an index: an identifier match comes first, then the label must be
// unique. Only the two spellings entityToken tries need answering.
func scanResolves(d *kg.Dict, e int32) func(string) bool {
	return func(s string) bool {
		if id, ok := d.ID(s); ok {
			return id == e
		}
		n, hit := 0, false
		for i, l := range d.Labels {
			if l == s {
				n++
				hit = hit || i == int(e)
			}
		}
		return n == 1 && hit
	}
}

func relToken(x *relIndex, r int32) string {
	if r < 0 || int(r) >= x.d.Len() {
		return "#" + strconv.Itoa(int(r))
	}
	return quoteName(x.shortForm(r))
}

// quoteName returns s bare when it reads back as one name, else quoted.
func quoteName(s string) string {
	l := lexer{src: s}
	if t := l.next(); t.kind == tIdent && t.off == 0 && t.end == len(s) {
		return s
	}
	return strconv.Quote(s)
}

// FormatTree draws q as an indented tree, one node per line, with names and
// ids, for explaining a query:
//
//	intersection
//	├── project award_winner  (#6 +/award/award_winner/awards_won./award/award_honor/award_winner)
//	│   └── "Nobel Prize"  (#120 /m/05f3q)
//	└── not
//	    └── project field  (#8 +/people/person/field)
//	        └── Physics  (#77 /m/05qjt)
func FormatTree(q query.Node, ents, rels *kg.Dict) string {
	rx := newRelIndex(rels)
	f := formatter{
		ent: func(e int32) string { return entityToken(ents, e, scanResolves(ents, e)) },
		rel: func(r int32) string { return relToken(rx, r) },
	}
	var b strings.Builder
	f.tree(&b, q, ents, rels, "", "")
	return b.String()
}

// FormatTree is the package FormatTree with this resolver's indexes.
func (r *DictResolver) FormatTree(q query.Node) string {
	var b strings.Builder
	r.formatter().tree(&b, q, r.Entities, r.Relations, "", "")
	return b.String()
}

// FormatNode returns q's own line of FormatTree (without its children).
func (r *DictResolver) FormatNode(q query.Node) string {
	var b strings.Builder
	r.formatter().line(&b, q, r.Entities, r.Relations)
	return b.String()
}

// line writes q's own line of the tree and returns its children.
func (f formatter) line(b *strings.Builder, q query.Node, ents, rels *kg.Dict) []query.Node {
	switch v := q.(type) {
	case query.Anchor:
		b.WriteString(f.ent(v.Entity))
		b.WriteString(idNote(ents, v.Entity))
	case query.Projection:
		b.WriteString("project ")
		b.WriteString(f.rel(v.Relation))
		b.WriteString(idNote(rels, v.Relation))
		return []query.Node{v.Arg}
	case query.Negation:
		b.WriteString("not")
		return []query.Node{v.Arg}
	case query.Intersection:
		b.WriteString("intersection")
		return v.Args
	case query.Union:
		b.WriteString("union")
		return v.Args
	default:
		fmt.Fprintf(b, "<invalid node %T>", q)
	}
	return nil
}

// tree writes q's line after first, and its children's lines after rest.
func (f formatter) tree(b *strings.Builder, q query.Node, ents, rels *kg.Dict, first, rest string) {
	b.WriteString(first)
	kids := f.line(b, q, ents, rels)
	b.WriteByte('\n')
	for i, k := range kids {
		if i == len(kids)-1 {
			f.tree(b, k, ents, rels, rest+"└── ", rest+"    ")
		} else {
			f.tree(b, k, ents, rels, rest+"├── ", rest+"│   ")
		}
	}
}

// idNote is "  (#id identifier)", the identifier omitted when out of range.
func idNote(d *kg.Dict, id int32) string {
	if id < 0 || int(id) >= d.Len() {
		return fmt.Sprintf("  (#%d unknown)", id)
	}
	return fmt.Sprintf("  (#%d %s)", id, d.Names[id])
}
