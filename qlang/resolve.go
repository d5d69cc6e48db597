package qlang

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/gammae/gammae/kg"
)

// Resolver maps the names written in a query to ids. Names arrive with
// quotes removed; raw ids (#123) never reach the resolver, the parser checks
// them against NumEntities and NumRelations.
type Resolver interface {
	Entity(name string) (int32, error)
	Relation(name string) (int32, error)
	NumEntities() int
	NumRelations() int
}

// NameError is a name that does not resolve to exactly one id. The parser
// reports its message at the name's position.
type NameError struct {
	Kind       string // "entity" or "relation"
	Name       string
	Ambiguous  bool
	Candidates []string // ambiguous: each match; unknown: the closest names; written as in a query
}

func (e *NameError) Error() string {
	var b strings.Builder
	if e.Ambiguous {
		fmt.Fprintf(&b, "%s %q is ambiguous: it matches %s", e.Kind, e.Name, strings.Join(e.Candidates, ", "))
		return b.String()
	}
	fmt.Fprintf(&b, "unknown %s %q", e.Kind, e.Name)
	if len(e.Candidates) > 0 {
		q := e.Candidates
		b.WriteString("; did you mean ")
		switch len(q) {
		case 1:
			b.WriteString(q[0])
		default:
			b.WriteString(strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1])
		}
		b.WriteString("?")
	}
	return b.String()
}

// maxSuggestions is how many close names an unknown-name error lists.
const maxSuggestions = 4

// DictResolver resolves names against a graph's dictionaries. Build it with
// NewDictResolver; it is read-only afterwards and safe for concurrent use.
//
// Entities resolve, first match wins:
//  1. the identifier (kg.Dict name, e.g. the Freebase MID /m/02mjmr);
//  2. the display label (kg.Dict label, e.g. Steven Spielberg);
//  3. identifier or label folded: case-insensitive, '_' equal to a space,
//     runs of spaces equal to one (so Steven_Spielberg needs no quotes).
//
// Relations resolve, first match wins:
//  1. the name (+/film/film/directed_by, -intergovorgs, concept:foo);
//  2. name or label, case-insensitive;
//  3. the name with '+' put in front (/film/film/directed_by, intergovorgs);
//  4. a trailing part of a forward relation's path that starts after '/', '.'
//     or ':' (directed_by, film/directed_by), case-insensitive, a leading '_'
//     optional (WN18RR's _hypernym is hypernym);
//  5. '+' or '-' followed by a name resolved by steps 1-4: '-' gives the
//     inverse relation (-directed_by).
//
// A step that matches several ids is an error listing them; a name that
// matches nothing is an error suggesting the closest known names.
type DictResolver struct {
	Entities, Relations *kg.Dict

	entLabel  map[string]int32 // exact label → id, ambiguous: -1
	entFolded map[string]int32 // folded identifier or label → id, ambiguous: -1
	rel       *relIndex

	once   sync.Once // builds entSug on the first unknown entity
	entSug *ngramIndex
}

// NewDictResolver indexes the dictionaries. It takes time linear in their
// size; the index for suggestions is built on the first unknown name.
func NewDictResolver(entities, relations *kg.Dict) *DictResolver {
	r := &DictResolver{
		Entities:  entities,
		Relations: relations,
		entLabel:  make(map[string]int32),
		entFolded: make(map[string]int32, entities.Len()),
		rel:       newRelIndex(relations),
	}
	for i := range entities.Names {
		id := int32(i)
		put(r.entFolded, fold(entities.Names[i]), id)
		if i < len(entities.Labels) && entities.Labels[i] != "" {
			put(r.entLabel, entities.Labels[i], id)
			put(r.entFolded, fold(entities.Labels[i]), id)
		}
	}
	return r
}

// put records id under key, marking the key ambiguous when it already names
// another id.
func put(m map[string]int32, key string, id int32) {
	if old, ok := m[key]; ok && old != id {
		m[key] = -1
		return
	}
	m[key] = id
}

// NumEntities bounds raw entity ids (#id).
func (r *DictResolver) NumEntities() int { return r.Entities.Len() }

// NumRelations bounds raw relation ids (#id).
func (r *DictResolver) NumRelations() int { return r.Relations.Len() }

// Entity resolves an entity name (see the type's documentation).
func (r *DictResolver) Entity(name string) (int32, error) {
	if id, ok := r.Entities.ID(name); ok {
		return id, nil
	}
	if id, ok := r.entLabel[name]; ok {
		if id >= 0 {
			return id, nil
		}
		return 0, r.ambiguousEntity(name, func(i int) bool { return r.label(i) == name })
	}
	f := fold(name)
	if id, ok := r.entFolded[f]; ok {
		if id >= 0 {
			return id, nil
		}
		return 0, r.ambiguousEntity(name, func(i int) bool {
			return fold(r.Entities.Names[i]) == f || r.label(i) != "" && fold(r.label(i)) == f
		})
	}
	return 0, &NameError{Kind: "entity", Name: name, Candidates: r.SuggestEntities(name, maxSuggestions)}
}

// label is the display label of entity i, or "".
func (r *DictResolver) label(i int) string {
	if i < len(r.Entities.Labels) {
		return r.Entities.Labels[i]
	}
	return ""
}

func (r *DictResolver) ambiguousEntity(name string, match func(i int) bool) error {
	var c []string
	for i := range r.Entities.Names {
		if match(i) {
			c = append(c, fmt.Sprintf("%s (#%d %s)", quoteName(r.Entities.Label(int32(i))), i, quoteName(r.Entities.Names[i])))
		}
	}
	return &NameError{Kind: "entity", Name: name, Ambiguous: true, Candidates: c}
}

// Relation resolves a relation name (see the type's documentation).
func (r *DictResolver) Relation(name string) (int32, error) { return r.rel.resolve(name) }

// entityToken is how Format writes entity e: its label when that resolves
// back to e, else its identifier, else #e.
func (r *DictResolver) entityToken(e int32) string {
	return entityToken(r.Entities, e, func(s string) bool {
		id, err := r.Entity(s)
		return err == nil && id == e
	})
}

// SuggestEntities returns up to k entity names close to name (by shared
// character trigrams and edit distance), best first, written as in a query
// (quoted when needed).
func (r *DictResolver) SuggestEntities(name string, k int) []string {
	r.once.Do(func() {
		keys := make([]string, len(r.Entities.Names))
		for i := range keys {
			keys[i] = r.Entities.Label(int32(i))
		}
		r.entSug = newNgramIndex(keys)
	})
	var out []string
	for _, id := range r.entSug.search(name, k) {
		out = append(out, r.entityToken(id))
	}
	return out
}

// SuggestRelations returns up to k relation names close to name, best
// first, in the short form Format writes; a name starting with '-' gets
// inverse relations.
func (r *DictResolver) SuggestRelations(name string, k int) []string {
	return r.rel.suggest(name, k)
}

// fold normalises a name for forgiving matching: lower case, '_' as a space,
// one space between words.
func fold(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for _, c := range s {
		if c == '_' || unicode.IsSpace(c) {
			space = b.Len() > 0
			continue
		}
		if space {
			b.WriteByte(' ')
			space = false
		}
		b.WriteRune(unicode.ToLower(c))
	}
	return b.String()
}

// relIndex resolves relation names. It is small (hundreds of relations),
// so Format builds one per call; the suggestion index waits for a first
// unknown name.
type relIndex struct {
	d      *kg.Dict
	folded map[string]int32 // lower-case name or label → id, ambiguous: -1
	suffix map[string]int32 // lower-case path suffix of a forward relation → id, ambiguous: -1

	once sync.Once
	sug  *ngramIndex // over names, path suffixes and labels of forward relations

	shortOnce sync.Once
	short     []string // shortForm of every relation, built on first use
}

func newRelIndex(d *kg.Dict) *relIndex {
	x := &relIndex{d: d, folded: make(map[string]int32), suffix: make(map[string]int32)}
	for i, n := range d.Names {
		id := int32(i)
		put(x.folded, strings.ToLower(n), id)
		if i < len(d.Labels) && d.Labels[i] != "" {
			put(x.folded, strings.ToLower(d.Labels[i]), id)
		}
		if strings.HasPrefix(n, "-") {
			continue // inverses are reached through step 5
		}
		for _, s := range pathSuffixes(strings.TrimPrefix(n, "+")) {
			put(x.suffix, strings.ToLower(s), id)
			if t := strings.TrimLeft(s, "_"); t != s && t != "" {
				put(x.suffix, strings.ToLower(t), id)
			}
		}
	}
	return x
}

func (x *relIndex) suggestIndex() *ngramIndex {
	x.once.Do(func() {
		var keys []string
		var owner []int32
		for i, n := range x.d.Names {
			if strings.HasPrefix(n, "-") {
				continue // suggest reaches inverses through '-'
			}
			keys = append(keys, n)
			keys = append(keys, pathSuffixes(strings.TrimPrefix(n, "+"))...)
			if i < len(x.d.Labels) && x.d.Labels[i] != "" {
				keys = append(keys, x.d.Labels[i])
			}
			for len(owner) < len(keys) {
				owner = append(owner, int32(i))
			}
		}
		x.sug = newNgramIndex(keys)
		x.sug.owner = owner
	})
	return x.sug
}

// pathSuffixes lists the trailing parts of a relation path that start after
// '/', '.' or ':', longest first, the whole path included.
func pathSuffixes(p string) []string {
	out := []string{p}
	for i := 0; i < len(p)-1; i++ {
		if c := p[i]; c == '/' || c == '.' || c == ':' {
			out = append(out, p[i+1:])
		}
	}
	return out
}

// match is the outcome of one resolution step.
type match struct {
	id       int32 // -1: no match
	amb      bool  // several ids match key
	bySuffix bool  // the match is on path suffixes (step 4)
	key      string
}

// lookup runs the resolution steps without building errors.
func (x *relIndex) lookup(name string) (m match, inverse bool) {
	if m = x.lookupBase(name); m.id >= 0 || m.amb {
		return m, false
	}
	if len(name) > 1 && (name[0] == '+' || name[0] == '-') {
		return x.lookupBase(name[1:]), name[0] == '-'
	}
	return m, false
}

// lookupBase runs steps 1-4.
func (x *relIndex) lookupBase(name string) match {
	if id, ok := x.d.ID(name); ok {
		return match{id: id}
	}
	lower := strings.ToLower(name)
	for i, key := range []string{lower, "+" + lower, lower} {
		tbl := x.folded
		if i == 2 {
			tbl = x.suffix
		}
		if id, ok := tbl[key]; ok {
			return match{id: id, amb: id < 0, bySuffix: i == 2, key: key}
		}
	}
	return match{id: -1}
}

func (x *relIndex) resolve(name string) (int32, error) {
	m, inv := x.lookup(name)
	switch {
	case m.amb:
		return 0, x.ambiguous(name, m)
	case m.id < 0:
		return 0, &NameError{Kind: "relation", Name: name, Candidates: x.suggest(name, maxSuggestions)}
	case inv:
		return kg.Inverse(m.id), nil
	}
	return m.id, nil
}

// ambiguous lists the relations matching m.key.
func (x *relIndex) ambiguous(name string, m match) error {
	var c []string
	for i, n := range x.d.Names {
		hit := false
		if m.bySuffix {
			if !strings.HasPrefix(n, "-") {
				for _, s := range pathSuffixes(strings.TrimPrefix(n, "+")) {
					s = strings.ToLower(s)
					hit = hit || s == m.key || strings.TrimLeft(s, "_") == m.key
				}
			}
		} else {
			hit = strings.ToLower(n) == m.key || i < len(x.d.Labels) && strings.ToLower(x.d.Labels[i]) == m.key
		}
		if hit {
			c = append(c, quoteName(n))
		}
	}
	return &NameError{Kind: "relation", Name: name, Ambiguous: true, Candidates: c}
}

// shortForm is the shortest spelling of relation id that resolves back to
// it: a path suffix, '-' and a suffix of the forward name for an inverse,
// else the full name, else #id. Every query echo formats its relations, so
// the spellings of all relations are found once.
func (x *relIndex) shortForm(id int32) string {
	x.shortOnce.Do(func() {
		x.short = make([]string, len(x.d.Names))
		for i := range x.short {
			x.short[i] = x.findShortForm(int32(i))
		}
	})
	if id >= 0 && int(id) < len(x.short) {
		return x.short[id]
	}
	return fmt.Sprintf("#%d", id)
}

func (x *relIndex) findShortForm(id int32) string {
	n := x.d.Names[id]
	base, inverse := strings.CutPrefix(n, "-")
	var cands []string
	for _, s := range pathSuffixes(strings.TrimPrefix(base, "+")) {
		for _, c := range []string{s, strings.TrimLeft(s, "_")} {
			if inverse {
				c = "-" + c
			}
			cands = append(cands, c)
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return len(cands[i]) < len(cands[j]) })
	cands = append(cands, n)
	for _, c := range cands {
		m, inv := x.lookup(c)
		if !m.amb && m.id >= 0 && (m.id == id && !inv || inv && kg.Inverse(m.id) == id) {
			return c
		}
	}
	return fmt.Sprintf("#%d", id)
}

func (x *relIndex) suggest(name string, k int) []string {
	q := strings.TrimLeft(name, "+-")
	var out []string
	for _, id := range x.suggestIndex().search(q, k) {
		if strings.HasPrefix(name, "-") && int(kg.Inverse(id)) < x.d.Len() {
			id = kg.Inverse(id)
		}
		out = append(out, quoteName(x.shortForm(id)))
	}
	return out
}
