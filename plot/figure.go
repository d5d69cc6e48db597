package plot

import (
	"slices"
	"strings"

	"github.com/gammae/gammae/query"
)

// Panel is one chart: series sharing axes.
type Panel struct {
	Title, XLabel, YLabel string
	Series                []Series
	Main                  string // the series drawn thickest, if any
}

// Figure is panels stacked vertically under a title.
type Figure struct {
	Title  string
	Width  int // pixels; 0 means 900
	Panels []Panel
}

// Curves returns the standard two panels of a run: training loss (every
// field whose name contains "loss") and validation MRR (every field whose
// name contains "mrr", and the per-structure values of a "valid" object),
// both against the step.
func Curves(l *Log, title string) Figure {
	loss := Panel{Title: "Training loss", XLabel: "step", YLabel: "loss", Main: "loss"}
	valid := Panel{Title: "Validation MRR", XLabel: "step", YLabel: "MRR", Main: "valid_mrr"}
	var vs []*Series
	for _, s := range l.Series {
		name := strings.ToLower(s.Name)
		switch {
		case strings.Contains(name, "loss"):
			loss.Series = append(loss.Series, *s)
		case strings.Contains(name, "mrr"),
			strings.HasPrefix(name, "valid.") && strings.Count(name, ".") == 1:
			vs = append(vs, s)
		}
	}
	// Summary first, then structures in the paper's order, then the rest.
	slices.SortStableFunc(vs, func(a, b *Series) int { return structureRank(a.Name) - structureRank(b.Name) })
	for _, s := range vs {
		valid.Series = append(valid.Series, *s)
	}
	return Figure{Title: title, Panels: []Panel{loss, valid}}
}

// structureRank orders series names: no structure (e.g. valid_mrr) first,
// then by the structure named in a path element, in query.Structures order.
func structureRank(name string) int {
	for _, part := range strings.Split(name, ".") {
		if s, ok := query.Lookup(part); ok {
			for i, t := range query.Structures {
				if t.Name == s.Name {
					return 1 + i
				}
			}
		}
	}
	if strings.Contains(name, ".") {
		return 1 + len(query.Structures)
	}
	return 0
}

// Compare returns two panels over several runs: each run's training loss
// and its validation MRR (the "valid_mrr" field), one series per run named
// by names[i], against xlabel ("step" unless the logs were taken Along
// another field).
func Compare(logs []*Log, names []string, xlabel string) Figure {
	loss := Panel{Title: "Training loss", XLabel: xlabel, YLabel: "loss"}
	valid := Panel{Title: "Validation MRR", XLabel: xlabel, YLabel: "MRR"}
	for i, l := range logs {
		if s := l.Get("loss"); s != nil {
			loss.Series = append(loss.Series, Series{Name: names[i], X: s.X, Y: s.Y})
		}
		if s := l.Get("valid_mrr"); s != nil {
			valid.Series = append(valid.Series, Series{Name: names[i], X: s.X, Y: s.Y})
		}
	}
	return Figure{Title: "Runs compared", Panels: []Panel{loss, valid}}
}
