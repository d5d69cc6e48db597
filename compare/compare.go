// Package compare sets the evaluations of several models side by side in
// the layout of the GammaE paper's tables: MRR on EPFO and on negation
// queries, Hits@1 on EPFO queries, and the correlations of each model's
// uncertainty measure with the number of answers, with the paper's
// published rows beside them when asked.
package compare

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/gammae/gammae/evaluate"
	"github.com/gammae/gammae/metrics"
)

// Row is one model's results. MRR and Hits1 are in % by structure (the
// paper's column names: "2u", "up") with the averages under "epfo" and
// "neg"; Spearman and Pearson are by structure with "avg".
type Row struct {
	Name        string `json:"name"`
	Kind        string `json:"kind,omitempty"`
	Paper       bool   `json:"paper,omitempty"`       // published, not measured
	Uncertainty string `json:"uncertainty,omitempty"` // the size measure correlated
	Queries     int    `json:"queries,omitempty"`
	// Iterations and CPUSeconds are the training behind the evaluated
	// parameters (0 where unknown), Hosts the machines it ran on, Loss
	// its objective (sigmoid, softmax, …; "" where unknown).
	Loss       string             `json:"loss,omitempty"`
	Iterations int                `json:"iterations,omitempty"`
	CPUSeconds float64            `json:"cpu_seconds,omitempty"`
	Hosts      []string           `json:"hosts,omitempty"`
	MRR        map[string]float64 `json:"mrr"`
	Hits1      map[string]float64 `json:"hits1"`
	Spearman   map[string]float64 `json:"spearman,omitempty"`
	Pearson    map[string]float64 `json:"pearson,omitempty"`
}

// Comparison is the rows of one dataset's queries of one split.
type Comparison struct {
	Dataset string `json:"dataset"`
	Split   string `json:"split,omitempty"` // "test" when empty
	// PerStructure is the sample of queries per structure the rows were
	// scored on (0: all of them), drawn with Seed.
	PerStructure int    `json:"per_structure,omitempty"`
	Seed         uint64 `json:"seed,omitempty"`
	Rows         []Row  `json:"rows"`
}

// FromReport turns an evaluation into a row; measure names the model's
// uncertainty measure ("" when it has none).
func FromReport(name, kind, measure string, r *evaluate.Report) Row {
	row := Row{Name: name, Kind: kind, Uncertainty: measure, Queries: r.Queries,
		MRR: map[string]float64{}, Hits1: map[string]float64{}}
	for _, t := range r.Table.Rows {
		c := metrics.DisplayName(t.Structure)
		row.MRR[c], row.Hits1[c] = 100*t.MRR, 100*t.Hits1
	}
	if len(r.Table.Positive.Of) > 0 {
		row.MRR["epfo"], row.Hits1["epfo"] = 100*r.Table.Positive.MRR, 100*r.Table.Positive.Hits1
	}
	if len(r.Table.Negation.Of) > 0 {
		row.MRR["neg"], row.Hits1["neg"] = 100*r.Table.Negation.MRR, 100*r.Table.Negation.Hits1
	}
	if u := r.Uncertainty; u != nil && measure != "" {
		row.Spearman, row.Pearson = map[string]float64{}, map[string]float64{}
		for _, c := range append(u.Rows, evaluate.Correlation{Structure: "avg", Spearman: u.Average.Spearman, Pearson: u.Average.Pearson}) {
			// Undefined coefficients (NaN) are left out: "–" in the tables.
			if v := float64(c.Spearman); !math.IsNaN(v) {
				row.Spearman[metrics.DisplayName(c.Structure)] = v
			}
			if v := float64(c.Pearson); !math.IsNaN(v) {
				row.Pearson[metrics.DisplayName(c.Structure)] = v
			}
		}
	}
	return row
}

// table is one of the paper's tables.
type table struct {
	title  string
	cols   []string // keys of the rows' maps, in order
	heads  []string // column titles
	get    func(Row) map[string]float64
	digits int
}

func (c *Comparison) tables() []table {
	epfo := append(append([]string(nil), epfoCols[:9]...), "epfo")
	neg := append(append([]string(nil), negCols[:5]...), "neg")
	return []table{
		{"MRR (%) on EPFO queries", epfo, append(epfoCols[:9:9], "avg"), func(r Row) map[string]float64 { return r.MRR }, 1},
		{"MRR (%) on queries with negation", neg, append(negCols[:5:5], "avg"), func(r Row) map[string]float64 { return r.MRR }, 1},
		{"Hits@1 (%) on EPFO queries", epfo, append(epfoCols[:9:9], "avg"), func(r Row) map[string]float64 { return r.Hits1 }, 1},
		{"Spearman's rank correlation of the uncertainty measure with the number of answers", corrCols, corrCols, func(r Row) map[string]float64 { return r.Spearman }, 2},
		{"Pearson's correlation of the uncertainty measure with the number of answers", corrCols, corrCols, func(r Row) map[string]float64 { return r.Pearson }, 2},
	}
}

// WriteMarkdown writes the tables that have a value, one row per model,
// "–" where a model has none (GQE and Query2Box answer no negation; GQE has
// no uncertainty measure).
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	bw := bufio.NewWriter(w)
	c.writeTraining(bw)
	for _, t := range c.tables() {
		if !c.has(t) {
			continue
		}
		fmt.Fprintf(bw, "%s, %s %s queries\n\n| model |", t.title, c.Dataset, cmp.Or(c.Split, "test"))
		for _, h := range t.heads {
			fmt.Fprintf(bw, " %s |", h)
		}
		bw.WriteString("\n|---|")
		for range t.heads {
			bw.WriteString("---:|")
		}
		bw.WriteString("\n")
		for _, r := range c.Rows {
			m := t.get(r)
			if !hasAny(m, t.cols) {
				continue // e.g. GQE in the negation table
			}
			fmt.Fprintf(bw, "| %s |", r.label())
			for _, k := range t.cols {
				fmt.Fprintf(bw, " %s |", cell(m, k, t.digits))
			}
			bw.WriteString("\n")
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// writeTraining lists what each measured row's parameters cost, when any
// row knows: results from different hosts compare per CPU-second.
func (c *Comparison) writeTraining(bw *bufio.Writer) {
	if !slices.ContainsFunc(c.Rows, func(r Row) bool { return r.Iterations > 0 }) {
		return
	}
	bw.WriteString("Training behind each row\n\n| model | loss | iterations | CPU-s | host |\n|---|---|---:|---:|---|\n")
	for _, r := range c.Rows {
		if r.Paper {
			continue
		}
		it, cpu := "–", "–"
		if r.Iterations > 0 {
			it = strconv.Itoa(r.Iterations)
		}
		if r.CPUSeconds > 0 {
			cpu = strconv.FormatFloat(r.CPUSeconds, 'f', max(0, 2-int(math.Log10(r.CPUSeconds))), 64)
		}
		fmt.Fprintf(bw, "| %s | %s | %s | %s | %s |\n", r.Name, cmp.Or(r.Loss, "–"), it, cpu, cmp.Or(strings.Join(r.Hosts, " + "), "–"))
	}
	bw.WriteString("\n")
}

func (r Row) label() string {
	if r.Uncertainty != "" {
		return fmt.Sprintf("%s (%s)", r.Name, r.Uncertainty)
	}
	return r.Name
}

// has reports whether any row has a value in t.
func (c *Comparison) has(t table) bool {
	for _, r := range c.Rows {
		if hasAny(t.get(r), t.cols) {
			return true
		}
	}
	return false
}

func hasAny(m map[string]float64, cols []string) bool {
	for _, k := range cols {
		if v, ok := m[k]; ok && !math.IsNaN(v) {
			return true
		}
	}
	return false
}

func cell(m map[string]float64, k string, digits int) string {
	v, ok := m[k]
	if !ok || math.IsNaN(v) {
		return "–"
	}
	return strconv.FormatFloat(v, 'f', digits, 64)
}

// WriteCSV writes one line per value: model, kind, paper, metric,
// structure, value (the averages as structures "epfo", "neg", "avg").
func (c *Comparison) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"dataset", "model", "kind", "paper", "metric", "structure", "value"})
	for _, r := range c.Rows {
		for _, m := range []struct {
			name string
			vals map[string]float64
			cols []string
		}{
			{"mrr", r.MRR, append(append(epfoCols[:9:9], "epfo"), append(negCols[:5:5], "neg")...)},
			{"hits1", r.Hits1, append(epfoCols[:9:9], "epfo")},
			{"spearman", r.Spearman, corrCols},
			{"pearson", r.Pearson, corrCols},
		} {
			for _, k := range m.cols {
				v, ok := m.vals[k]
				if !ok || math.IsNaN(v) {
					continue
				}
				cw.Write([]string{c.Dataset, r.Name, r.Kind, strconv.FormatBool(r.Paper), m.name, k, strconv.FormatFloat(v, 'g', 6, 64)})
			}
		}
		if r.Iterations > 0 {
			cw.Write([]string{c.Dataset, r.Name, r.Kind, "false", "iterations", "", strconv.Itoa(r.Iterations)})
		}
		if r.CPUSeconds > 0 {
			cw.Write([]string{c.Dataset, r.Name, r.Kind, "false", "cpu_seconds", "", strconv.FormatFloat(r.CPUSeconds, 'g', 6, 64)})
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadFile reads a comparison written as JSON (gammae compare --json).
func ReadFile(path string) (*Comparison, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var c Comparison
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: not a comparison (compare --json): %v", path, err)
	}
	if c.Dataset == "" || c.Rows == nil {
		return nil, fmt.Errorf("%s: not a comparison (compare --json): no dataset or rows", path)
	}
	for i, r := range c.Rows {
		if r.Name == "" || r.MRR == nil {
			return nil, fmt.Errorf("%s: row %d has no name or no MRR", path, i+1)
		}
	}
	return &c, nil
}

// sample says which of the split's queries the rows were scored on.
func (c *Comparison) sample() string {
	if c.PerStructure == 0 {
		return "all queries"
	}
	return fmt.Sprintf("a sample of at most %d per structure (--per-structure %d --seed %d)", c.PerStructure, c.PerStructure, c.Seed)
}

// Merge appends the measured rows of o, an earlier comparison (its paper
// rows are left out: --paper adds them once). The two must be of the same
// dataset's same split, scored on the same sample of it (all queries, or
// the same --per-structure and --seed).
func (c *Comparison) Merge(o *Comparison, from string) error {
	if o.Dataset != c.Dataset || cmp.Or(o.Split, "test") != cmp.Or(c.Split, "test") {
		return fmt.Errorf("%s compares %s %s queries, not %s %s", from, o.Dataset, cmp.Or(o.Split, "test"), c.Dataset, cmp.Or(c.Split, "test"))
	}
	if o.PerStructure != c.PerStructure || o.Seed != c.Seed {
		return fmt.Errorf("%s scored %s, these rows %s: compare them on the same queries", from, o.sample(), c.sample())
	}
	for _, r := range o.Rows {
		if !r.Paper {
			c.Rows = append(c.Rows, r)
		}
	}
	return nil
}
