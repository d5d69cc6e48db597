package evaluate

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/gammae/gammae/metrics"
)

// Estimate compares, over the queries of one structure, each query's
// estimated answer count Σ σ(logit) over all entities (what `gammae query`
// and the server report) with its number of answers on the split's graph
// (easy and hard). The sum estimates the count only for a model whose
// loss makes σ(logit) a probability (the reference's sigmoid loss, or a
// dense loss with a sigmoid term); a softmax-family loss leaves each
// query's level of logits free, and this table shows how far off its
// sums are.
type Estimate struct {
	Structure string `json:"structure"` // canonical name; "all" pools every query
	Queries   int    `json:"queries"`
	// Medians over the queries: the answer count, the estimate, and the
	// estimate divided by the count.
	// NaN (null in JSON) without queries, as the rest.
	Answers  Coefficient `json:"median_answers"`
	Estimate Coefficient `json:"median_estimate"`
	Ratio    Coefficient `json:"median_ratio"`
	// Within2 is the fraction of queries whose estimate lies within a
	// factor of two of their count.
	Within2 Coefficient `json:"within_2x"`
	// Spearman is the rank correlation of estimates and counts: whether
	// the model tells the queries with many answers from those with few,
	// even when its level is off.
	Spearman Coefficient `json:"spearman"`
}

// Estimates is the per-structure comparison and the pooled one (All).
type Estimates struct {
	Rows []Estimate `json:"rows"`
	All  Estimate   `json:"all"`
}

// compareEstimates gathers the tasks' estimates.
func compareEstimates(tasks []*task) *Estimates {
	e := &Estimates{Rows: []Estimate{}}
	var allEst, allAns []float64
	for _, t := range tasks {
		if t.estimate == nil {
			continue
		}
		var est, ans []float64
		for i, ok := range t.ranked {
			if !ok {
				continue
			}
			q := t.idx[i]
			est = append(est, t.estimate[i])
			ans = append(ans, float64(len(t.group.Answers(q))+len(t.group.EasyAnswers(q))))
		}
		e.Rows = append(e.Rows, CompareEstimates(metrics.Canonical(t.name), est, ans))
		allEst, allAns = append(allEst, est...), append(allAns, ans...)
	}
	e.All = CompareEstimates("all", allEst, allAns)
	return e
}

// CompareEstimates summarises estimated against actual answer counts of
// the same queries (counts are at least 1: every query has an answer).
// Medians and the fraction are NaN without queries, Spearman's
// coefficient when undefined.
func CompareEstimates(structure string, estimates, answers []float64) Estimate {
	e := Estimate{Structure: structure, Queries: len(estimates)}
	ratio := make([]float64, len(estimates))
	within := 0
	for i, v := range estimates {
		ratio[i] = v / max(answers[i], 1)
		if ratio[i] >= 0.5 && ratio[i] <= 2 {
			within++
		}
	}
	e.Answers, e.Estimate, e.Ratio = medianOf(answers), medianOf(estimates), medianOf(ratio)
	e.Within2 = Coefficient(math.NaN())
	if len(estimates) > 0 {
		e.Within2 = Coefficient(float64(within) / float64(len(estimates)))
	}
	s, err := metrics.Spearman(estimates, answers)
	if err != nil {
		s = math.NaN()
	}
	e.Spearman = Coefficient(s)
	return e
}

// medianOf is the median of v (NaN when empty), v left as it is.
func medianOf(v []float64) Coefficient {
	if len(v) == 0 {
		return Coefficient(math.NaN())
	}
	s := slices.Clone(v)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return Coefficient(s[n/2])
	}
	return Coefficient((s[n/2-1] + s[n/2]) / 2)
}

// estimateRows are the table's rows: a label, a value and its format.
var estimateRows = []struct {
	label string
	value func(Estimate) float64
	prec  int
}{
	{"answers", func(e Estimate) float64 { return float64(e.Answers) }, 1},
	{"estimate", func(e Estimate) float64 { return float64(e.Estimate) }, 1},
	{"ratio", func(e Estimate) float64 { return float64(e.Ratio) }, 3},
	{"within2x", func(e Estimate) float64 { return float64(e.Within2) }, 3},
	{"SRCC", func(e Estimate) float64 { return float64(e.Spearman) }, 3},
	{"queries", func(e Estimate) float64 { return float64(e.Queries) }, 0},
}

// columns returns the structures, then the pooled column.
func (e *Estimates) columns() []Estimate { return append(slices.Clone(e.Rows), e.All) }

// WriteText prints structures as columns and, as rows, the medians of
// the answer counts, the estimates and their ratio, the fraction within
// a factor of two, the rank correlation and the query counts.
func (e *Estimates) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	cols := e.columns()
	width := 9
	for _, c := range cols {
		width = max(width, len(metrics.DisplayName(c.Structure))+2)
	}
	fmt.Fprintf(bw, "%-9s", "")
	for _, c := range cols {
		fmt.Fprintf(bw, "%*s", width, metrics.DisplayName(c.Structure))
	}
	bw.WriteString("\n")
	for _, r := range estimateRows {
		fmt.Fprintf(bw, "%-9s", r.label)
		for _, c := range cols {
			if v := r.value(c); math.IsNaN(v) {
				fmt.Fprintf(bw, "%*s", width, "-")
			} else {
				fmt.Fprintf(bw, "%*.*f", width, r.prec, v)
			}
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// WriteCSV writes the same table: a header of structures (the pooled
// column as all), one record per row, empty cells where undefined.
func (e *Estimates) WriteCSV(w io.Writer) error {
	cols := e.columns()
	cw := csv.NewWriter(w)
	rec := []string{"metric"}
	for _, c := range cols {
		rec = append(rec, metrics.DisplayName(c.Structure))
	}
	cw.Write(rec)
	for _, r := range estimateRows {
		rec = append(rec[:0], r.label)
		for _, c := range cols {
			s := ""
			if v := r.value(c); !math.IsNaN(v) {
				s = strconv.FormatFloat(v, 'g', -1, 64)
			}
			rec = append(rec, s)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}
