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
		if _, err := fmt.Fprintln(w, "\nestimated answer count Σσ(logit) against answers (easy and hard), medians over queries"); err != nil {
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
	width := 8
	for _, c := range cols {
		width = max(width, len(metrics.DisplayName(c.Structure))+2)
	}
	fmt.Fprintf(bw, "%-8s", "")
	for _, c := range cols {
		fmt.Fprintf(bw, "%*s", width, metrics.DisplayName(c.Structure))
	}
	bw.WriteString("\n")
	for _, m := range coefficientRows {
		fmt.Fprintf(bw, "%-8s", m.label)
		for _, c := range cols {
			if v := float64(m.value(c)); math.IsNaN(v) {
				fmt.Fprintf(bw, "%*s", width, "-")
			} else {
				fmt.Fprintf(bw, "%*.3f", width, v)
			}
		}
		bw.WriteString("\n")
	}
	fmt.Fprintf(bw, "%-8s", "queries")
	for _, c := range cols {
		fmt.Fprintf(bw, "%*d", width, c.Queries)
	}
	bw.WriteString("\n")
}

var coefficientRows = []struct {
	label string
	value func(Correlation) Coefficient
}{
	{"SRCC", func(c Correlation) Coefficient { return c.Spearman }},
	{"PCC", func(c Correlation) Coefficient { return c.Pearson }},
}

// WriteCSV writes the correlations as one CSV table: a header of
// structures (the average as avg), rows SRCC, PCC (empty when undefined)
// and queries.
func (u *Uncertainty) WriteCSV(w io.Writer) error {
	cols := u.columns()
	cw := csv.NewWriter(w)
	rec := []string{"metric"}
	for _, c := range cols {
		rec = append(rec, metrics.DisplayName(c.Structure))
	}
	cw.Write(rec)
	for _, m := range coefficientRows {
		rec = append(rec[:0], m.label)
		for _, c := range cols {
			s := ""
			if v := float64(m.value(c)); !math.IsNaN(v) {
				s = strconv.FormatFloat(v, 'g', -1, 64)
			}
			rec = append(rec, s)
		}
		cw.Write(rec)
	}
	rec = append(rec[:0], "queries")
	for _, c := range cols {
		rec = append(rec, strconv.Itoa(c.Queries))
	}
	cw.Write(rec)
	cw.Flush()
	return cw.Error()
}
