package baseline

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"

	"github.com/gammae/gammae/qe"
)

// NewKind completes a model kind's registry entry from its package's
// typed preset and constructor: configurations travel as JSON, and the
// models it makes train with float32 products (Model.Float32).
func NewKind[C any, M qe.Model](k qe.Kind, preset func(dataset string) (C, error), build func(C, *rand.Rand) (M, error)) qe.Kind {
	k.Preset = func(dataset string) ([]byte, error) {
		c, err := preset(dataset)
		if err != nil {
			return nil, err
		}
		return json.Marshal(c)
	}
	k.New = func(config []byte, seed uint64) (qe.Model, error) {
		var c C
		if err := json.Unmarshal(config, &c); err != nil {
			return nil, fmt.Errorf("%s configuration: %v", k.Name, err)
		}
		m, err := build(c, rand.New(rand.NewPCG(seed, 0x9e)))
		if err != nil {
			return nil, err
		}
		// Models made for training and serving train with float32
		// products; the packages' own tests build float64 ones.
		if f, ok := any(m).(interface{ UseFloat32() }); ok {
			f.UseFloat32()
		}
		return m, nil
	}
	return k
}

// Positive returns an error for each of the named sizes that is not
// positive: names[i] is the JSON name of vals[i].
func Positive(kind string, names []string, vals ...int) []error {
	var errs []error
	for i, v := range vals {
		if v <= 0 {
			errs = append(errs, fmt.Errorf("%s: %s must be positive, got %d", kind, names[i], v))
		}
	}
	return errs
}
