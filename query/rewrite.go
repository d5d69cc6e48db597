package query

// DNF rewrites q as a disjunction of union-free trees: projections and
// intersections distribute over unions, and a negated union becomes the
// intersection of the negated branches (¬(A∨B) = ¬A ∧ ¬B). A union-free q is
// its own single branch. Models without a union operator answer a union by
// its best branch.
func DNF(q Node) []Node {
	switch n := q.(type) {
	case Projection:
		var out []Node
		for _, a := range DNF(n.Arg) {
			out = append(out, Projection{Relation: n.Relation, Arg: a})
		}
		return out
	case Negation:
		bs := DNF(n.Arg)
		if len(bs) == 1 {
			return []Node{Negation{Arg: bs[0]}}
		}
		args := make([]Node, len(bs))
		for i, b := range bs {
			args[i] = Negation{Arg: b}
		}
		return []Node{Intersection{Args: args}}
	case Union:
		var out []Node
		for _, a := range n.Args {
			out = append(out, DNF(a)...)
		}
		return out
	case Intersection: // the cartesian product of the arguments' branches
		out := [][]Node{nil}
		for _, a := range n.Args {
			bs := DNF(a)
			var next [][]Node
			for _, partial := range out {
				for _, b := range bs {
					next = append(next, append(append([]Node(nil), partial...), b))
				}
			}
			out = next
		}
		res := make([]Node, len(out))
		for i, args := range out {
			res[i] = Intersection{Args: args}
		}
		return res
	}
	return []Node{q}
}

// DeMorgan rewrites every union A ∨ B ∨ … of q as ¬(¬A ∧ ¬B ∧ …), for models
// with negation and intersection operators (BetaE, ConE, GammaE's dm mode).
func DeMorgan(q Node) Node {
	switch n := q.(type) {
	case Projection:
		return Projection{Relation: n.Relation, Arg: DeMorgan(n.Arg)}
	case Negation:
		return Negation{Arg: DeMorgan(n.Arg)}
	case Intersection:
		args := make([]Node, len(n.Args))
		for i, a := range n.Args {
			args[i] = DeMorgan(a)
		}
		return Intersection{Args: args}
	case Union:
		args := make([]Node, len(n.Args))
		for i, a := range n.Args {
			args[i] = Negation{Arg: DeMorgan(a)}
		}
		return Negation{Arg: Intersection{Args: args}}
	}
	return q
}

// HasNegation reports whether q contains a negation.
func HasNegation(q Node) bool {
	switch n := q.(type) {
	case Projection:
		return HasNegation(n.Arg)
	case Negation:
		return true
	case Intersection:
		for _, a := range n.Args {
			if HasNegation(a) {
				return true
			}
		}
	case Union:
		for _, a := range n.Args {
			if HasNegation(a) {
				return true
			}
		}
	}
	return false
}

// Count is the number of nodes of q.
func Count(q Node) int {
	switch n := q.(type) {
	case Projection:
		return 1 + Count(n.Arg)
	case Negation:
		return 1 + Count(n.Arg)
	case Intersection:
		c := 1
		for _, a := range n.Args {
			c += Count(a)
		}
		return c
	case Union:
		c := 1
		for _, a := range n.Args {
			c += Count(a)
		}
		return c
	}
	return 1
}

// Relax drops every negated argument of q's intersections, leaving the
// positive query whose answers the negations cut down: a 2in query becomes
// its 1p branch, 3in a 2i, pin and inp a 2p. ok is false when q has no
// negation to drop, or when an intersection has nothing but negated
// arguments (its relaxation would be every entity).
func Relax(q Node) (r Node, ok bool) {
	switch n := q.(type) {
	case Projection:
		a, ok := Relax(n.Arg)
		if !ok {
			return q, false
		}
		return Projection{Relation: n.Relation, Arg: a}, true
	case Intersection:
		var args []Node
		dropped := false
		for _, a := range n.Args {
			if _, neg := a.(Negation); neg {
				dropped = true
				continue
			}
			if ra, ok := Relax(a); ok {
				a, dropped = ra, true
			}
			args = append(args, a)
		}
		switch {
		case !dropped || len(args) == 0:
			return q, false
		case len(args) == 1:
			return args[0], true
		}
		return Intersection{Args: args}, true
	case Union:
		args := make([]Node, len(n.Args))
		dropped := false
		for i, a := range n.Args {
			args[i] = a
			if ra, ok := Relax(a); ok {
				args[i], dropped = ra, true
			}
		}
		return Union{Args: args}, dropped
	}
	return q, false
}

// Loosen replaces every intersection of q by the union of its arguments,
// leaving the query whose answers the intersections cut down: a 2i query
// becomes the union of its two projections, pi the union of its 2p and 1p
// branches, ip the projection of a union. ok is false when q has no
// intersection, or has a negation (Relax is that query's loosening).
func Loosen(q Node) (r Node, ok bool) {
	if HasNegation(q) {
		return q, false
	}
	return loosen(q)
}

func loosen(q Node) (Node, bool) {
	switch n := q.(type) {
	case Projection:
		a, ok := loosen(n.Arg)
		return Projection{Relation: n.Relation, Arg: a}, ok
	case Intersection:
		args, _ := loosenArgs(n.Args)
		return Union{Args: args}, true
	case Union:
		args, ok := loosenArgs(n.Args)
		return Union{Args: args}, ok
	}
	return q, false
}

// loosenArgs loosens each argument; ok when any had an intersection.
func loosenArgs(in []Node) (args []Node, ok bool) {
	args = make([]Node, len(in))
	for i, a := range in {
		var lo bool
		args[i], lo = loosen(a)
		ok = ok || lo
	}
	return args, ok
}
