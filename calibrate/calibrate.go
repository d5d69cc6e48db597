// Package calibrate fits and applies the logit shift that turns a model's
// Σ σ(logit) over all entities into an estimate of a query's answer count.
//
// A loss that weighs one positive against the mean of many negatives (the
// reference's sigmoid loss, or a sigmoid term beside a cross-entropy)
// trains σ(logit) to a level offset from the probability that an entity
// answers, by about a constant per structure: Σ σ(logit) then overshoots
// the answer count by an order of magnitude. One shift of every logit,
// fitted on validation queries, takes the offset out.
package calibrate

// Shifts is a calibration: the logit shift of each structure it was
// fitted on (benchmark names, canonical: "2u-DNF", not "2u"), and the
// pooled one for every other structure. The zero value shifts nothing.
type Shifts struct {
	Default    float64            `json:"logit_shift"`
	Structures map[string]float64 `json:"structure_shifts,omitempty"`
}

// For returns the shift of a structure.
func (s Shifts) For(structure string) float64 {
	if v, ok := s.Structures[structure]; ok {
		return v
	}
	return s.Default
}

// IsZero reports whether s shifts nothing.
func (s Shifts) IsZero() bool {
	if s.Default != 0 {
		return false
	}
	for _, v := range s.Structures {
		if v != 0 {
			return false
		}
	}
	return true
}
