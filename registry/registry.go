// Package registry names the query-embedding models gammae can train and
// answer with. GammaE has its own trainer, kernels and files; the baselines
// of the paper's comparison (GQE, Query2Box, BetaE, ConE) go through the
// qe.Model interface and are listed here, one line each.
package registry

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gammae/gammae/betae"
	"github.com/gammae/gammae/cone"
	"github.com/gammae/gammae/gqe"
	"github.com/gammae/gammae/q2b"
	"github.com/gammae/gammae/qe"
)

// GammaE is the registry name of the project's own model.
const GammaE = "gammae"

// baselines are the models behind qe.Model. Adding one is one line here
// and one package.
var baselines = []qe.Kind{
	gqe.Kind,
	q2b.Kind,
	betae.Kind,
	cone.Kind,
}

// Names lists every model kind, GammaE first.
func Names() []string {
	names := []string{GammaE}
	for _, k := range baselines {
		names = append(names, k.Name)
	}
	return names
}

// Lookup returns the baseline kind called name. GammaE is not one: callers
// check for it first.
func Lookup(name string) (qe.Kind, error) {
	for _, k := range baselines {
		if k.Name == strings.ToLower(name) {
			return k, nil
		}
	}
	if strings.ToLower(name) == GammaE {
		return qe.Kind{}, fmt.Errorf("model kind %q has its own trainer and files, not the baselines' interface", name)
	}
	return qe.Kind{}, fmt.Errorf("unknown model kind %q (have %s)", name, strings.Join(Names(), ", "))
}

// New builds an untrained baseline of kind from its JSON configuration
// (checkpoint.NewFunc), with a fixed seed: loading overwrites every
// parameter.
func New(kind string, config []byte) (qe.Model, error) {
	k, err := Lookup(kind)
	if err != nil {
		return nil, err
	}
	return k.New(config, 1)
}

// Config returns the JSON configuration of a baseline for a dataset preset
// ("fb15k-237", "fb15k", "nell") with the graph's sizes and the overrides
// applied. Overrides are keyed by the configuration's JSON names (dim,
// hidden, layers, gamma, lr, …): a key of overrides the model does not have
// is an error, one of defaults is skipped (GQE has no hidden layers).
func Config(k qe.Kind, preset string, entities, relations int, overrides, defaults map[string]any) ([]byte, error) {
	raw, err := k.Preset(preset)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", k.Title, err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, fmt.Errorf("%s preset %s: %v", k.Title, preset, err)
	}
	m["entities"], m["relations"] = entities, relations
	for key, v := range defaults {
		if _, ok := m[key]; ok {
			m[key] = v
		}
	}
	for key, v := range overrides {
		if _, ok := m[key]; !ok {
			return nil, fmt.Errorf("%s has no setting %q", k.Title, key)
		}
		m[key] = v
	}
	return json.Marshal(m)
}
