package baseline

// Slabs recycles the entity-sized arrays a model recomputes every step
// (BetaE's KL terms, ConE's half-angle sines): hundreds of megabytes a
// step that, freshly allocated, are zeroed, faulted in and collected again
// each time. A model puts a step's arrays back when its parameters change
// and takes them for the next step. Not safe for concurrent use: models
// call it under the lock of their cache.
type Slabs struct {
	free [][]float64
}

// Get returns a slice of length n, recycled when one of that length is
// free (its contents are then the old values, not zeros).
func (s *Slabs) Get(n int) []float64 {
	for i, x := range s.free {
		if len(x) == n {
			last := len(s.free) - 1
			s.free[i], s.free[last] = s.free[last], nil
			s.free = s.free[:last]
			return x
		}
	}
	return make([]float64, n)
}

// Put returns slices for reuse; nil ones are skipped. The caller must hold
// no other reference to them.
func (s *Slabs) Put(xs ...[]float64) {
	for _, x := range xs {
		if x != nil {
			s.free = append(s.free, x)
		}
	}
}
