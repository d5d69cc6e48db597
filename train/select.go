package train

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gammae/gammae/dataset"
	"github.com/gammae/gammae/query"
)

// pathStructures are the chain structures that make the "path" batches of
// the reference schedule; every other structure goes to the "other" batch.
var pathStructures = map[string]bool{"1p": true, "2p": true, "3p": true}

// selection is the training data chosen for a run.
type selection struct {
	path, other []*dataset.Group
	// pathW and otherW are the groups' weights (Config.StructureWeights).
	pathW, otherW []float64
	notes         []string // what was skipped or substituted, for the log
}

// selectGroups picks the training groups named by cfg from d.
func selectGroups(cfg *Config, d *dataset.Dataset) (*selection, error) {
	sel := &selection{}
	for _, name := range cfg.Structures {
		st, ok := query.Lookup(name)
		shape := name
		if ok {
			shape = st.Shape
			name = st.Name
		} else if _, err := query.Template(name); err != nil {
			return nil, fmt.Errorf("training structure %q: not a structure name nor a shape: %v", name, err)
		}
		src, split := &d.Train, "train"
		isUnion := name == "2u-DNF" || name == "up-DNF"
		if isUnion {
			switch cfg.UnionTrain {
			case "none":
				sel.notes = append(sel.notes, fmt.Sprintf("union training off: skipping %s", name))
				continue
			case "valid":
				src, split = &d.Valid, "valid"
				sel.notes = append(sel.notes, fmt.Sprintf("reproducing the reference code: training %s on the VALIDATION queries and their hard answers (--union-train=valid)", name))
			}
		}
		g := src.Group(shape)
		if g == nil || g.Len() == 0 {
			hint := ""
			switch {
			case isUnion && split == "train":
				hint = " (generate them from the train graph with 'gammae data generate', or pass --union-train=valid to use validation unions as the reference code does)"
			case split == "train":
				hint = fmt.Sprintf(" ('gammae data generate --train-structures' with %s among them samples them from the train graph)", name)
			}
			sel.notes = append(sel.notes, fmt.Sprintf("no %s queries of structure %s in the dataset: skipped%s", split, name, hint))
			continue
		}
		for i := 0; i < g.Len(); i++ {
			if len(g.Answers(i)) == 0 {
				return nil, fmt.Errorf("%s query %d of structure %s has no answers", split, i, name)
			}
		}
		if pathStructures[name] {
			sel.path, sel.pathW = append(sel.path, g), append(sel.pathW, cfg.weight(name))
		} else {
			sel.other, sel.otherW = append(sel.other, g), append(sel.otherW, cfg.weight(name))
		}
	}
	if len(sel.path)+len(sel.other) == 0 {
		return nil, fmt.Errorf("no training queries: the dataset has none of the structures %v", cfg.Structures)
	}
	if left := unselected(d, sel); len(left) > 0 {
		sel.notes = append(sel.notes, fmt.Sprintf("the dataset's train split also has %s, which the training structures (--structures) do not name: not trained on", strings.Join(left, ", ")))
	}
	return sel, nil
}

// unselected lists the dataset's training groups that sel leaves out, as
// "NAME (N queries)": a user who generated them most likely meant to
// train on them.
func unselected(d *dataset.Dataset, sel *selection) []string {
	var left []string
	for _, g := range d.Train.Groups {
		if g.Len() > 0 && !slices.Contains(sel.path, g) && !slices.Contains(sel.other, g) {
			left = append(left, fmt.Sprintf("%s (%d queries)", g.Name(), g.Len()))
		}
	}
	return left
}
