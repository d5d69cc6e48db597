package train

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/gammae/gammae/query"
)

// canonical is a training structure's name as selectGroups resolves it
// ("2u" is "2u-DNF"); a shape or unknown name is itself.
func canonical(name string) string {
	if st, ok := query.Lookup(name); ok {
		return st.Name
	}
	return name
}

// validateWeights checks StructureWeights against Structures.
func (c *Config) validateWeights() []error {
	var errs []error
	trained := map[string]bool{}
	for _, s := range c.Structures {
		trained[canonical(s)] = true
	}
	for _, name := range slices.Sorted(maps.Keys(c.StructureWeights)) {
		w := c.StructureWeights[name]
		if !(w > 0) || math.IsInf(w, 0) {
			errs = append(errs, fmt.Errorf("structure weight %s=%g: want a finite number > 0", name, w))
		}
		if !trained[canonical(name)] {
			errs = append(errs, fmt.Errorf("structure weight %s: not a training structure (have %s)", name, strings.Join(c.Structures, ",")))
		}
	}
	return errs
}

// weight is the weight of the training structure name.
func (c *Config) weight(name string) float64 {
	for k, w := range c.StructureWeights {
		if canonical(k) == canonical(name) {
			return w
		}
	}
	return 1
}

// ParseWeights reads "name=w,name=w" (e.g. "2in=10,3in=10"), naming the
// offending item in its error.
func ParseWeights(s string) (map[string]float64, error) {
	out := map[string]float64{}
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		name, val, ok := strings.Cut(item, "=")
		if !ok {
			return nil, fmt.Errorf("%q: want structure=weight, e.g. 2in=10", item)
		}
		w, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil {
			return nil, fmt.Errorf("%q: weight %q is not a number", item, val)
		}
		name = strings.TrimSpace(name)
		if _, dup := out[name]; dup {
			return nil, fmt.Errorf("%q: structure %s weighted twice", item, name)
		}
		out[name] = w
	}
	return out, nil
}

// FormatWeights writes weights as ParseWeights reads them, by name.
func FormatWeights(w map[string]float64) string {
	items := make([]string, 0, len(w))
	for _, name := range slices.Sorted(maps.Keys(w)) {
		items = append(items, name+"="+strconv.FormatFloat(w[name], 'g', -1, 64))
	}
	return strings.Join(items, ",")
}

// weightedRows lists the rows of a group of n queries that one epoch
// visits at weight w: every row ⌊w⌋ times, then a fixed random share of the
// rest (round(w·n) rows in all, at least one), chosen by seed.
func weightedRows(n int, w float64, seed uint64) []int32 {
	count := max(1, int(math.Round(w*float64(n))))
	out := make([]int32, 0, count)
	for len(out)+n <= count {
		for r := range n {
			out = append(out, int32(r))
		}
	}
	if rem := count - len(out); rem > 0 {
		perm := rand.New(rand.NewPCG(seed, 0x5eed)).Perm(n)
		for _, r := range perm[:rem] {
			out = append(out, int32(r))
		}
	}
	return out
}
