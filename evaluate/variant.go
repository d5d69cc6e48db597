package evaluate

import (
	"fmt"

	"github.com/gammae/gammae/gamma"
)

// mixtureParam is the parameter only the mixture union has.
const mixtureParam = "mixture_net.weight"

// Variant returns m set up for an inference-time ablation: union queries
// embedded in another union mode ("" keeps m's), negation without
// elasticity. The moment, dnf and dm modes share their parameters, so a
// model trained in one can be evaluated in the others; the mixture mode
// needs its learned branch scorer, so only a model trained with it can use
// it. m itself is returned when nothing changes; otherwise a copy.
func Variant(m *gamma.Model[float32], union gamma.Union, noElasticity bool) (*gamma.Model[float32], error) {
	cfg := m.Config()
	want := cfg
	if union != "" {
		want.Union = union
	}
	if noElasticity {
		want.Epsilon = 0
	}
	if err := want.Validate(); err != nil {
		return nil, fmt.Errorf("evaluate: %v", err)
	}
	if want.Mode() == cfg.Mode() && want.Epsilon == cfg.Epsilon {
		return m, nil
	}
	_, hasMixture := m.Param(mixtureParam)
	if want.Mode() == gamma.UnionMixture && !hasMixture {
		return nil, fmt.Errorf("evaluate: union mode mixture needs the learned mixture weights (%s), which a model trained with union mode %s lacks: retrain with --union mixture", mixtureParam, cfg.Mode())
	}
	var params []gamma.Param[float32]
	for _, p := range m.Params() {
		if p.Name == mixtureParam && want.Mode() != gamma.UnionMixture {
			continue
		}
		params = append(params, p)
	}
	v, err := gamma.Load[float32](want, params)
	if err != nil {
		return nil, fmt.Errorf("evaluate: %v", err)
	}
	if err := v.SetPrecision(m.Precision()); err != nil {
		return nil, err
	}
	return v, nil
}
