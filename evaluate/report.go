package evaluate

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/gammae/gammae/metrics"
)

// WriteText prints the report: the metrics in the paper's layout with
// per-structure query counts, the uncertainty correlations and the
// answer-count estimates when computed, and a summary line with the speed.
func (r *Report) WriteText(w io.Writer) error {
	if err := r.Table.WriteText(w); err != nil {
		return err
	}
	if r.Uncertainty != nil {
		if _, err := fmt.Fprintln(w, "\nuncertainty: correlation of query entropy with number of answers"); err != nil {
			return err
		}
		if err := r.Uncertainty.WriteText(w); err != nil {
			return err
		}
	}
	if r.Estimates != nil {
		head := "Σσ(logit)"
		if !r.Estimates.Calibration.IsZero() {
			head = "Σσ(logit + the calibration's shift: row applied)"
		}
		if _, err := fmt.Fprintf(w, "\nestimated answer count %s against answers (easy and hard), medians over queries;\nshift: the further logit shift that would make a query's estimate its count\n", head); err != nil {
			return err
		}
		if err := r.Estimates.WriteText(w); err != nil {
			return err
		}
	}
	rate := 0.0
	if r.Seconds > 0 {
		rate = float64(r.Queries) / r.Seconds
	}
	how := fmt.Sprintf("unions embedded as %s, negation elasticity %g", r.Union, r.Epsilon)
	if r.Precision == "bf16" {
		how += ", entity products in bfloat16"
	}
	if r.Union == "" { // a baseline (RunModel)
		how = "unions scored by their best DNF branch"
	}
	_, err := fmt.Fprintf(w, "\n%d queries in %.1f s (%.0f queries/s); %s\n", r.Queries, r.Seconds, rate, how)
	if err == nil && r.Skipped > 0 {
		_, err = fmt.Fprintf(w, "%d queries without hard answers skipped\n", r.Skipped)
	}
	return err
}

// WriteJSON writes the report as indented JSON (metrics as fractions).
func (r *Report) WriteJSON(w io.Writer) error {
	out := *r
	if out.Table.Rows == nil {
		out.Table.Rows = []metrics.Row{}
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// columns returns the table's columns: the rows, then the average when
// it covers anything.
func (u *Uncertainty) columns() []Correlation {
	cols := append([]Correlation(nil), u.Rows...)
	if len(u.Of) > 0 {
		cols = append(cols, u.Average)
	}
	return cols
}

// WriteText prints the correlations in the layout of the paper's tables 3
// and A4: structures as columns, SRCC, PCC and query counts as rows; the
// paper's structures and their average first, then any others (unions).
func (u *Uncertainty) WriteText(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var paper, other []Correlation
	for _, c := range u.Rows {
		if slices.Contains(UncertaintyStructures, c.Structure) {
			paper = append(paper, c)
		} else {
			other = append(other, c)
		}
	}
	if len(u.Of) > 0 {
		paper = append(paper, u.Average)
	}
	for i, cols := range [][]Correlation{paper, other} {
		if len(cols) == 0 {
			continue
		}
		if i > 0 && len(paper) > 0 {
			bw.WriteString("\n")
		}
		writeCorrelations(bw, cols)
	}
	if len(u.Of) > 0 && len(u.Of) < len(UncertaintyStructures) {
		names := make([]string, len(u.Of))
		for i, s := range u.Of {
			names[i] = metrics.DisplayName(s)
		}
		fmt.Fprintf(bw, "(avg over %d of the paper's %d structures: %s)\n", len(u.Of), len(UncertaintyStructures), strings.Join(names, " "))
	}
	return bw.Flush()
}

func writeCorrelations(bw *bufio.Writer, cols []Correlation) {
	writeStats(bw, correlationStats(cols), 8)
}

// correlationStats lays cols out as a table: SRCC, PCC and query counts.
func correlationStats(cols []Correlation) statTable {
	t := statTable{rows: []statRow{{label: "SRCC", prec: 3}, {label: "PCC", prec: 3}, {label: "queries"}}}
	for _, c := range cols {
		t.names = append(t.names, metrics.DisplayName(c.Structure))
		t.rows[0].values = append(t.rows[0].values, float64(c.Spearman))
		t.rows[1].values = append(t.rows[1].values, float64(c.Pearson))
		t.rows[2].values = append(t.rows[2].values, float64(c.Queries))
	}
	return t
}

// statTable is a table of statistics with structures as columns.
type statTable struct {
	names []string // the columns' display names
	rows  []statRow
}

// statRow is a labelled row of a statTable; NaN values are undefined.
type statRow struct {
	label  string
	prec   int // decimals in text
	values []float64
}

// writeStats prints t, labels and columns at least width wide ("-"
// where a value is undefined).
func writeStats(bw *bufio.Writer, t statTable, width int) {
	label := width
	for _, n := range t.names {
		width = max(width, len(n)+2)
	}
	fmt.Fprintf(bw, "%-*s", label, "")
	for _, n := range t.names {
		fmt.Fprintf(bw, "%*s", width, n)
	}
	bw.WriteString("\n")
	for _, r := range t.rows {
		fmt.Fprintf(bw, "%-*s", label, r.label)
		for _, v := range r.values {
			if math.IsNaN(v) {
				fmt.Fprintf(bw, "%*s", width, "-")
			} else {
				fmt.Fprintf(bw, "%*.*f", width, r.prec, v)
			}
		}
		bw.WriteString("\n")
	}
}

// writeStatsCSV writes t as CSV: a header "metric" and the names, one
// record per row, empty cells where undefined.
func writeStatsCSV(w io.Writer, t statTable) error {
	cw := csv.NewWriter(w)
	cw.Write(append([]string{"metric"}, t.names...))
	for _, r := range t.rows {
		rec := []string{r.label}
		for _, v := range r.values {
			s := ""
			if !math.IsNaN(v) {
				s = strconv.FormatFloat(v, 'g', -1, 64)
			}
			rec = append(rec, s)
		}
		cw.Write(rec)
	}
	cw.Flush()
	return cw.Error()
}

// WriteCSV writes the correlations as one CSV table: a header of
// structures (the average as avg), rows SRCC, PCC (empty when undefined)
// and queries.
func (u *Uncertainty) WriteCSV(w io.Writer) error {
	return writeStatsCSV(w, correlationStats(u.columns()))
}
