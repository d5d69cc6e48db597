package evaluate

import (
	"bufio"
	"io"
	"math"
	"slices"

	"github.com/gammae/gammae/calibrate"
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
	// Shift is the median over the queries of the logit shift that would
	// make a query's estimate its count (CountShift), on top of the shift
	// the estimates were taken with: the pooled one calibrates the model
	// (median ratio 1), the structures' tell whether one shift fits all.
	Shift Coefficient `json:"median_shift"`
	// Applied is the calibration's shift the estimates were taken with;
	// NaN for the pooled row when the structures' differ.
	Applied Coefficient `json:"logit_shift"`
}

// Estimates is the per-structure comparison and the pooled one (All).
type Estimates struct {
	// Calibration is the one the estimates were taken with
	// (Options.Calibration).
	Calibration calibrate.Shifts `json:"calibration"`
	Rows        []Estimate       `json:"rows"`
	All         Estimate         `json:"all"`
}

// compareEstimates gathers the tasks' estimates.
func compareEstimates(tasks []*task, c calibrate.Shifts) *Estimates {
	e := &Estimates{Calibration: c, Rows: []Estimate{}}
	var allEst, allAns, allFit []float64
	for _, t := range tasks {
		if t.estimate == nil {
			continue
		}
		est, ans := t.byAnswers(t.estimate)
		fit, _ := t.byAnswers(t.fit)
		row := CompareEstimates(metrics.Canonical(t.name), est, ans, fit)
		row.Applied = Coefficient(t.shift)
		e.Rows = append(e.Rows, row)
		allEst, allAns, allFit = append(allEst, est...), append(allAns, ans...), append(allFit, fit...)
	}
	e.All = CompareEstimates("all", allEst, allAns, allFit)
	e.All.Applied = Coefficient(math.NaN())
	if len(e.Rows) > 0 && !slices.ContainsFunc(e.Rows, func(r Estimate) bool { return r.Applied != e.Rows[0].Applied }) {
		e.All.Applied = e.Rows[0].Applied
	}
	return e
}

// CompareEstimates summarises estimated against actual answer counts of
// the same queries (counts are at least 1: every query has an answer),
// with the shifts that would make each estimate its count (CountShift; nil
// leaves Shift NaN). Medians and the fraction are NaN without queries,
// Spearman's coefficient when undefined.
func CompareEstimates(structure string, estimates, answers, shifts []float64) Estimate {
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
	e.Shift = medianOf(shifts)
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

// table lays the comparison out: structures, then the pooled column.
func (e *Estimates) table() statTable {
	t := statTable{rows: []statRow{{label: "answers", prec: 1}, {label: "estimate", prec: 1}, {label: "ratio", prec: 3},
		{label: "within2x", prec: 3}, {label: "SRCC", prec: 3}, {label: "shift", prec: 2}, {label: "applied", prec: 2}, {label: "queries"}}}
	for _, c := range append(slices.Clone(e.Rows), e.All) {
		t.names = append(t.names, metrics.DisplayName(c.Structure))
		for i, v := range []Coefficient{c.Answers, c.Estimate, c.Ratio, c.Within2, c.Spearman, c.Shift, c.Applied, Coefficient(c.Queries)} {
			t.rows[i].values = append(t.rows[i].values, float64(v))
		}
	}
	return t
}

// WriteText prints structures as columns and, as rows, the medians of
// the answer counts, the estimates and their ratio, the fraction within
// a factor of two, the rank correlation, the shift that would calibrate
// them, the calibration's shift they were taken with and the query counts.
func (e *Estimates) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	writeStats(bw, e.table(), 9)
	return bw.Flush()
}

// WriteCSV writes the same table: a header of structures (the pooled
// column as all), one record per row, empty cells where undefined.
func (e *Estimates) WriteCSV(w io.Writer) error { return writeStatsCSV(w, e.table()) }
