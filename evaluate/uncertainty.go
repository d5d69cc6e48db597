package evaluate

import (
	"math"
	"slices"
	"strconv"

	"github.com/gammae/gammae/metrics"
)

// UncertaintyStructures are the columns of the paper's uncertainty tables
// (3 and A4), whose average they also define: unions have no single-Gamma
// embedding in the dnf and mixture modes, so the paper leaves them out.
var UncertaintyStructures = []string{"1p", "2p", "3p", "2i", "3i", "pi", "ip", "2in", "3in", "inp", "pin", "pni"}

// Coefficient is a correlation coefficient, or another statistic over
// queries that can be undefined; NaN (undefined: a constant variable, or
// too few queries) is null in JSON.
type Coefficient float64

// MarshalJSON writes NaN and infinities as null.
func (c Coefficient) MarshalJSON() ([]byte, error) {
	f := float64(c)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, f, 'g', -1, 64), nil
}

// UnmarshalJSON reads null as NaN.
func (c *Coefficient) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*c = Coefficient(math.NaN())
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	*c = Coefficient(f)
	return err
}

// Correlation relates, over the queries of one structure, the differential
// entropy of each query's embedding (SPEC section 5) to its number of
// answers (easy and hard).
type Correlation struct {
	Structure string      `json:"structure"` // canonical name
	Queries   int         `json:"queries"`
	Spearman  Coefficient `json:"spearman"`
	Pearson   Coefficient `json:"pearson"`
}

// Uncertainty is the per-structure correlations and their average over
// UncertaintyStructures, as in the paper.
type Uncertainty struct {
	Rows    []Correlation `json:"rows"`
	Average Correlation   `json:"average"`
	Of      []string      `json:"of"` // the structures averaged
}

// byAnswers returns v's values for t's ranked queries, and those
// queries' answer counts (easy and hard).
func (t *task) byAnswers(v []float64) (values, answers []float64) {
	for i, ok := range t.ranked {
		if !ok {
			continue
		}
		q := t.idx[i]
		values = append(values, v[i])
		answers = append(answers, float64(len(t.group.Answers(q))+len(t.group.EasyAnswers(q))))
	}
	return values, answers
}

// correlate computes the correlations of the tasks whose embeddings are
// single Gammas.
func correlate(tasks []*task) *Uncertainty {
	u := &Uncertainty{Of: []string{}}
	for _, t := range tasks {
		if t.entropy == nil {
			continue
		}
		h, n := t.byAnswers(t.entropy)
		u.Rows = append(u.Rows, Correlate(metrics.Canonical(t.name), h, n))
	}
	u.Average = Correlation{Structure: "avg"}
	for _, r := range u.Rows {
		if !slices.Contains(UncertaintyStructures, r.Structure) || !finite(r.Spearman) || !finite(r.Pearson) {
			continue
		}
		u.Of = append(u.Of, r.Structure)
		u.Average.Queries += r.Queries
		u.Average.Spearman += r.Spearman
		u.Average.Pearson += r.Pearson
	}
	if k := Coefficient(len(u.Of)); k > 0 {
		u.Average.Spearman /= k
		u.Average.Pearson /= k
	} else {
		u.Average.Spearman, u.Average.Pearson = Coefficient(math.NaN()), Coefficient(math.NaN())
	}
	return u
}

// Correlate returns Spearman's and Pearson's correlation of entropies and
// answer counts; both are NaN when undefined (fewer than two queries,
// a constant variable, or a non-finite entropy).
func Correlate(structure string, entropy, answers []float64) Correlation {
	c := Correlation{Structure: structure, Queries: len(entropy)}
	s, err := metrics.Spearman(entropy, answers)
	if err != nil {
		s = math.NaN()
	}
	p, err := metrics.Pearson(entropy, answers)
	if err != nil {
		p = math.NaN()
	}
	c.Spearman, c.Pearson = Coefficient(s), Coefficient(p)
	return c
}

func finite(c Coefficient) bool { return !math.IsNaN(float64(c)) && !math.IsInf(float64(c), 0) }
