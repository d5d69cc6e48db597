package gqe_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/gammae/gammae/gqe"
	"github.com/gammae/gammae/query"
)

// A GQE model scores every entity for a query; a negation is refused.
func Example() {
	m, err := gqe.New(gqe.Config{Entities: 5, Relations: 2, Dim: 8, Gamma: 24}, rand.New(rand.NewPCG(1, 2)))
	if err != nil {
		panic(err)
	}
	hop := query.Projection{Relation: 1, Arg: query.Anchor{Entity: 3}} // ?y : r1(e3, ?y)
	scores := make([]float64, 5)
	fmt.Println(m.Scores(hop, scores), len(scores))
	fmt.Println(m.Scores(query.Negation{Arg: hop}, scores))
	// Output:
	// <nil> 5
	// gqe: GQE has no negation operator (query (e,(r,n)))
}
