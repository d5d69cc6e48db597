// Package cone is ConE (Zhang et al., 2021) as its authors' code
// (MIRALab-USTC/QE-ConE) implements it: a query is a product of sector
// cones (axis, aperture "arg" per dimension); projection is an MLP,
// intersection an attention-weighted mean axis with a gated minimum
// aperture, negation the complementary cone, and the logit of an entity
// (an axis) is γ − (‖d_out‖₁ + λ‖d_in‖₁)·modulus on |sin(·/2)| distances.
package cone

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
	"github.com/gammae/gammae/qe"
	"github.com/gammae/gammae/query"
)

// Config is ConE's hyperparameters.
type Config struct {
	Entities  int     `json:"entities"`
	Relations int     `json:"relations"`
	Dim       int     `json:"dim"`
	Hidden    int     `json:"hidden"` // projection MLP width (1600 in the authors' code)
	Layers    int     `json:"layers"` // projection MLP hidden layers (2 there)
	Gamma     float64 `json:"gamma"`
	// CenterReg (λ) weighs the distance inside the cone.
	CenterReg float64 `json:"center_reg"`
	// Dropout on the apertures entering an intersection, in training.
	Dropout float64 `json:"dropout"`
	// Union is "dnf" (best branch, the authors' choice) or "dm".
	Union string  `json:"union"`
	LR    float64 `json:"lr"` // the run script's learning rate
	// EmbeddingRange ρ scales the angles (axis = tanh(x/ρ)·π) and the
	// initialisation; 0 means the authors' (γ+2)/d.
	EmbeddingRange float64 `json:"embedding_range,omitempty"`
}

// Validate reports every invalid field.
func (c Config) Validate() error {
	errs := baseline.Positive("cone", []string{"entities", "relations", "dim", "hidden", "layers"}, c.Entities, c.Relations, c.Dim, c.Hidden, c.Layers)
	if !(c.Gamma > 0) {
		errs = append(errs, fmt.Errorf("cone: gamma must be positive, got %g", c.Gamma))
	}
	if c.CenterReg < 0 {
		errs = append(errs, fmt.Errorf("cone: center_reg must not be negative, got %g", c.CenterReg))
	}
	if c.Dropout < 0 || c.Dropout >= 1 {
		errs = append(errs, fmt.Errorf("cone: dropout must be in [0, 1), got %g", c.Dropout))
	}
	if c.Union != "" && c.Union != "dnf" && c.Union != "dm" {
		errs = append(errs, fmt.Errorf("cone: union must be dnf or dm, got %q", c.Union))
	}
	if c.LR < 0 {
		errs = append(errs, fmt.Errorf("cone: lr must not be negative, got %g", c.LR))
	}
	if c.EmbeddingRange < 0 {
		errs = append(errs, fmt.Errorf("cone: embedding_range must not be negative, got %g", c.EmbeddingRange))
	}
	return errors.Join(errs...)
}

// Preset is the authors' run script's setting for a dataset (scripts.sh:
// d=800, γ 30/30/20, lr 5e-5/5e-5/1e-4, dropout 0.05/0.1/0.2 for
// FB15k/FB15k-237/NELL; center_reg 0.02; projection 1600 wide, 2 layers).
// "fb15k-237-hour" is the configuration for an hour of FB15k-237 on two
// CPU cores, chosen by 10-minute probes (docs/comparison.md): half the
// authors' size, the margin halved with it, lr 1e-3.
func Preset(dataset string) (Config, error) {
	c := Config{Dim: 800, Hidden: 1600, Layers: 2, CenterReg: 0.02, Union: "dnf"}
	switch dataset {
	case "fb15k":
		c.Gamma, c.LR, c.Dropout = 30, 5e-5, 0.05
	case "fb15k-237":
		c.Gamma, c.LR, c.Dropout = 30, 5e-5, 0.1
	case "nell":
		c.Gamma, c.LR, c.Dropout = 20, 1e-4, 0.2
	case "fb15k-237-hour":
		c.Dim, c.Hidden, c.Gamma, c.LR, c.Dropout = 400, 800, 15, 1e-3, 0.1
	default:
		return Config{}, fmt.Errorf("cone: no preset for %q (have fb15k-237, fb15k, nell, fb15k-237-hour)", dataset)
	}
	return c, nil
}

// Net is ConE's parameters.
type Net struct {
	cfg                    Config
	rho                    float64 // embedding range (γ+2)/d
	entity, modulus        *ad.Param
	axisRel, argRel        *ad.Param
	pw, pb                 []*ad.Param // cone_proj.layer1, layer2 … layerL, then layer0
	ax1w, ax1b, ar1w, ar1b *ad.Param   // cone_intersection.layer_axis1, layer_arg1
	ax2w, ax2b, ar2w, ar2b *ad.Param   // cone_intersection.layer_axis2, layer_arg2
	cache                  cache
}

// New initialises a model as the authors do: tables uniform in ±ρ with
// ρ = (γ+2)/d (or Config.EmbeddingRange), the modulus 0.5·ρ, linear
// weights Xavier-uniform. rng also draws the training dropout masks.
func New(cfg Config, rng *rand.Rand) (*Model, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d, h := cfg.Dim, cfg.Hidden
	rho := cfg.EmbeddingRange
	if rho == 0 {
		rho = (cfg.Gamma + 2) / float64(d)
	}
	n := &Net{cfg: cfg, rho: rho,
		entity:  baseline.Uniform("entity_embedding", cfg.Entities, d, -rho, rho, rng),
		modulus: baseline.NewParam("modulus", 1, 1),
	}
	n.modulus.Data[0] = 0.5 * rho
	n.axisRel = baseline.Uniform("axis_embedding", cfg.Relations, d, -rho, rho, rng)
	n.argRel = baseline.Uniform("arg_embedding", cfg.Relations, d, -rho, rho, rng)
	w1, b1 := baseline.Linear("cone_proj.layer1", 2*d, h, rng)
	w0, b0 := baseline.Linear("cone_proj.layer0", h, 2*d, rng)
	n.pw, n.pb = []*ad.Param{w1}, []*ad.Param{b1}
	for l := 2; l <= cfg.Layers; l++ {
		w, b := baseline.Linear(fmt.Sprintf("cone_proj.layer%d", l), h, h, rng)
		n.pw, n.pb = append(n.pw, w), append(n.pb, b)
	}
	n.pw, n.pb = append(n.pw, w0), append(n.pb, b0)
	n.ax1w, n.ax1b = baseline.Linear("cone_intersection.layer_axis1", 2*d, d, rng)
	n.ar1w, n.ar1b = baseline.Linear("cone_intersection.layer_arg1", 2*d, d, rng)
	n.ax2w, n.ax2b = baseline.Linear("cone_intersection.layer_axis2", d, d, rng)
	n.ar2w, n.ar2b = baseline.Linear("cone_intersection.layer_arg2", d, d, rng)
	dropout := rand.NewPCG(rng.Uint64(), rng.Uint64())
	return &Model{Model: baseline.Model{Net: n, DeMorgan: cfg.Union == "dm", Dropout: dropout}, net: n}, nil
}

// Model is ConE behind qe.Model.
type Model struct {
	baseline.Model
	net *Net
}

// Config returns the model's configuration.
func (m *Model) Config() Config { return m.net.cfg }

// Embed returns the query's cones, one row per DNF branch, under the keys
// "axis" and "arg".
func (m *Model) Embed(q query.Node) (map[string][][]float64, error) {
	return m.EmbedMap(q, "axis", "arg")
}

func (n *Net) Kind() string   { return "cone" }
func (n *Net) Entities() int  { return n.cfg.Entities }
func (n *Net) Relations() int { return n.cfg.Relations }

// Params are in the authors' named_parameters order.
func (n *Net) Params() []*ad.Param {
	L := len(n.pw)
	ps := []*ad.Param{n.entity, n.modulus, n.axisRel, n.argRel, n.pw[0], n.pb[0], n.pw[L-1], n.pb[L-1]}
	for l := 1; l < L-1; l++ {
		ps = append(ps, n.pw[l], n.pb[l])
	}
	return append(ps, n.ax1w, n.ax1b, n.ar1w, n.ar1b, n.ax2w, n.ax2b, n.ar2w, n.ar2b)
}

// axis maps a raw table row to an angle: tanh(x/ρ)·π (AngleScale with
// the authors' axis_scale 1, then convert_to_axis).
func (n *Net) axis(t *ad.Tape, x ad.V) ad.V {
	return t.Affine(t.Tanh(t.Affine(x, 1/n.rho, 0)), math.Pi, 0)
}

// Embed records a group of union-free queries' axes and apertures.
func (n *Net) Embed(t *ad.Tape, g baseline.Group) (baseline.Emb, error) {
	d := n.cfg.Dim
	switch q := g.Node().(type) {
	case query.Anchor:
		return baseline.Emb{n.axis(t, t.Gather(n.entity, g.Anchors())), t.Zeros(d)}, nil
	case query.Projection:
		a, err := n.Embed(t, g.Arg())
		if err != nil {
			return nil, err
		}
		r := g.Relations()
		x := t.Concat(t.Add(a[0], n.axis(t, t.Gather(n.axisRel, r))), t.Add(a[1], n.axis(t, t.Gather(n.argRel, r))))
		L := len(n.pw)
		for l := 0; l < L-1; l++ {
			x = t.ReLU(t.Linear(x, n.pw[l], n.pb[l]))
		}
		x = t.Linear(x, n.pw[L-1], n.pb[L-1])
		axis := t.Affine(t.Tanh(t.Slice(x, 0, d)), math.Pi, 0)
		arg := t.Affine(t.Tanh(t.Affine(t.Slice(x, d, 2*d), 2, 0)), math.Pi/2, math.Pi/2)
		return baseline.Emb{axis, arg}, nil
	case query.Negation:
		a, err := n.Embed(t, g.Arg())
		if err != nil {
			return nil, err
		}
		shift := make([]float64, len(t.Val(a[0])))
		for i, v := range t.Val(a[0]) {
			if v >= 0 {
				shift[i] = -math.Pi
			} else {
				shift[i] = math.Pi
			}
		}
		return baseline.Emb{t.Add(a[0], t.Const(shift)), t.Affine(a[1], -1, math.Pi)}, nil
	case query.Intersection:
		axes, args := make([]ad.V, len(q.Args)), make([]ad.V, len(q.Args))
		for i, arg := range g.Args() {
			x, err := n.Embed(t, arg)
			if err != nil {
				return nil, err
			}
			axes[i], args[i] = x[0], x[1]
		}
		return n.intersect(t, axes, args), nil
	}
	return nil, fmt.Errorf("cone: unexpected node %T", g.Node())
}

// intersect is ConeIntersection.
func (n *Net) intersect(t *ad.Tape, axes, args []ad.V) baseline.Emb {
	nd := len(t.Val(axes[0])) // rows × dimensions
	logits := make([]ad.V, len(axes))
	axLogit := make([]ad.V, len(axes))
	argAct := make([]ad.V, len(axes))
	for k := range axes {
		logits[k] = t.Concat(t.Sub(axes[k], args[k]), t.Add(axes[k], args[k]))
		axLogit[k] = t.Linear(t.ReLU(t.Linear(logits[k], n.ax1w, n.ax1b)), n.ax2w, n.ax2b)
	}
	att := t.SoftmaxOver(axLogit)
	xs, ys := make([]ad.V, len(axes)), make([]ad.V, len(axes))
	for k, a := range axes {
		xs[k], ys[k] = t.Mul(att[k], t.Cos(a)), t.Mul(att[k], t.Sin(a))
	}
	x, y := t.SumOver(xs), t.SumOver(ys)
	// |x| < 1e-3 is set to 1e-3 (no gradient there), then the angle is
	// atan(y/x) moved to the quadrant of (x, y).
	keep, fill := make([]float64, nd), make([]float64, nd)
	for i, v := range t.Val(x) {
		if math.Abs(v) < 1e-3 {
			fill[i] = 1e-3
		} else {
			keep[i] = 1
		}
	}
	x = t.Add(t.Mask(x, keep), t.Const(fill))
	shift := make([]float64, nd)
	for i, v := range t.Val(x) {
		switch yv := t.Val(y)[i]; {
		case v < 0 && !(yv < 0):
			shift[i] = math.Pi
		case v < 0 && yv < 0:
			shift[i] = -math.Pi
		}
	}
	axis := t.Add(t.Atan(t.Div(y, x)), t.Const(shift))

	for k := range args {
		argAct[k] = t.ReLU(t.Linear(logits[k], n.ar1w, n.ar1b))
	}
	gate := t.Sigmoid(t.Linear(t.MeanOver(argAct), n.ar2w, n.ar2b))
	dropped := args
	if p := n.cfg.Dropout; p > 0 && t.Training() && t.Rand() != nil {
		dropped = make([]ad.V, len(args))
		for k, a := range args {
			mask := make([]float64, nd)
			for i := range mask {
				if t.Rand().Float64() >= p {
					mask[i] = 1 / (1 - p)
				}
			}
			dropped[k] = t.Mask(a, mask)
		}
	}
	return baseline.Emb{axis, t.Mul(t.MinOver(dropped), gate)}
}

// Logits records γ − (‖d_out‖₁ + λ‖d_in‖₁)·modulus (cal_logit_cone) of
// every row's candidates.
func (n *Net) Logits(t *ad.Tape, q baseline.Emb, ids []int32) ad.V {
	return n.coneLogits(t, q, ids)
}

// Uncertainty is the cone size: the sum of the apertures.
func (n *Net) Uncertainty(t *ad.Tape, q baseline.Emb) (float64, bool) {
	s := 0.0
	for _, v := range t.Val(q[1]) {
		s += v
	}
	return s, true
}

// Kind is ConE's registry entry.
var Kind = baseline.NewKind(qe.Kind{
	Name: "cone", Title: "ConE", Negation: true, Uncertainty: "cone size",
	Structures: []string{"1p", "2p", "3p", "2i", "3i", "2in", "3in", "inp", "pin", "pni"},
}, Preset, New)
