package train

import (
	"strings"
	"testing"
)

// TestSelectNotesUnselected: training groups of the dataset that the
// structures leave out are named in a note, with their sizes; none when
// every group is selected.
func TestSelectNotesUnselected(t *testing.T) {
	d := tinyDataset(t)
	for _, c := range []struct {
		structures []string
		want       []string // substrings of the note; nil: no note
	}{
		{DefaultStructures, nil},
		{[]string{"1p", "2p", "3p", "2i", "3i"}, []string{"2in (", "pni (", "2u-DNF (", "up-DNF (", "not trained on"}},
	} {
		cfg := tinyConfig()
		cfg.Structures = c.structures
		sel, err := selectGroups(&cfg, d)
		if err != nil {
			t.Fatal(err)
		}
		var note string
		for _, n := range sel.notes {
			if strings.Contains(n, "not trained on") {
				note = n
			}
		}
		if c.want == nil && note != "" {
			t.Errorf("%v: note %q, want none", c.structures, note)
		}
		for _, w := range c.want {
			if !strings.Contains(note, w) {
				t.Errorf("%v: note %q lacks %q", c.structures, note, w)
			}
		}
	}
}

// TestSelectNotesMissing: a training structure the dataset lacks is
// skipped with a note that says how to sample it.
func TestSelectNotesMissing(t *testing.T) {
	cfg := tinyConfig()
	cfg.Structures = append(append([]string(nil), DefaultStructures...), "pi")
	sel, err := selectGroups(&cfg, tinyDataset(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range sel.notes {
		if strings.Contains(n, "structure pi in the dataset: skipped") && strings.Contains(n, "--train-structures") {
			return
		}
	}
	t.Errorf("no note on the missing pi queries: %q", sel.notes)
}
