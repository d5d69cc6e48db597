package gamma

import (
	"fmt"
	"slices"
	"sync"

	"github.com/gammae/gammae/internal/kernel"
)

// Param is one named parameter tensor, row-major. Names and shapes are the
// reference implementation's (nn.Linear weights are [out, in]), so
// checkpoints interoperate.
type Param[T kernel.Float] struct {
	Name  string
	Shape []int
	Data  []T
}

// Size is the number of elements its shape holds.
func size(shape []int) int {
	n := 1
	for _, s := range shape {
		n *= s
	}
	return n
}

// layer is an nn.Linear: params[w] is [out, in], params[w+1] the bias.
type layer struct{ w, in, out int }

// Model holds the parameters and their gradients. Forward passes run in a
// Workspace; a Model may be shared by several Workspaces for inference, but
// gradients accumulate into the Model, so training runs one Workspace.
type Model[T kernel.Float] struct {
	cfg    Config
	params []Param[T]
	// grads[i] is nil until a backward pass first reaches params[i]: like
	// torch's grad None, which Adam skips.
	grads [][]T

	entity, relAlpha, relBeta int // indices into params
	projA, projB              []layer
	interA, interB            []layer
	unionA, unionB            []layer
	mixture                   int // mixture_net.weight, or -1

	mu      sync.Mutex
	version uint64
	feats   *entityFeatures[T]                      // for ScoreAll, valid while feats.version == version
	packs   map[packKey]*kernel.PackedB             // inference weights, dropped by ParamsChanged
	tpacks  map[packKey]*trainPack[*kernel.PackedB] // training weights, repacked per version
	halves  *halves[T]                              // inference relation halves, valid while halves.version == version
	// bf16: ScoreAll's and training's packed products take bfloat16
	// operands (SetPrecision).
	bf16     bool
	tpacks16 map[packKey]*trainPack[*kernel.PackedBF16]
	// zeroGrads: every gradient is known to be zero (ZeroGrad, or
	// GradsZeroed), so the next Backward writes the entity rows it
	// reaches instead of reading them to add to them.
	zeroGrads bool
	// staleEntity: every gradient but the entity table's is zero, and the
	// table's is to be discarded (EntityGradStale): the next Backward
	// writes every row of it.
	staleEntity bool
}

// Config returns the model's configuration.
func (m *Model[T]) Config() Config { return m.cfg }

// Params returns the parameters in a stable order (the reference's). The
// Data slices are the model's own: writing them changes the model (call
// ParamsChanged afterwards).
func (m *Model[T]) Params() []Param[T] { return m.params }

// Grads returns the gradients parallel to Params. Data is nil for a
// parameter no backward pass has reached yet.
func (m *Model[T]) Grads() []Param[T] {
	out := make([]Param[T], len(m.params))
	for i, p := range m.params {
		out[i] = Param[T]{Name: p.Name, Shape: p.Shape, Data: m.grads[i]}
	}
	return out
}

// Tensors returns the parameter and gradient data parallel to Params, as
// optim.Adam.Step takes them. A gradient is nil until a backward pass first
// reaches its parameter (torch's grad None, which Adam skips).
func (m *Model[T]) Tensors() (params, grads [][]T) {
	params = make([][]T, len(m.params))
	for i, p := range m.params {
		params[i] = p.Data
	}
	return params, append([][]T(nil), m.grads...)
}

// ZeroGrad sets every existing gradient to zero (torch's zero_grad with
// set_to_none=False: parameters once reached keep a zero gradient).
func (m *Model[T]) ZeroGrad() {
	for _, g := range m.grads {
		if len(g) < 1<<20 {
			clear(g)
			continue
		}
		// The entity table's gradient: hundreds of MB at d = 800.
		parallelFor(len(g), 1<<18, func(_, lo, hi int) { clear(g[lo:hi]) })
	}
	m.GradsZeroed()
}

// GradsZeroed tells the model that every gradient is zero (an optimiser
// zeroed them as it read them: optim.Adam.ZeroGrads), as after ZeroGrad.
// The next Backward then writes the entity table's gradient rows instead
// of adding to them (the table's gradient is hundreds of MB at d = 800).
func (m *Model[T]) GradsZeroed() { m.zeroGrads, m.staleEntity = true, false }

// EntityGradStale tells the model that every gradient but the entity
// table's is zero and the table's holds values to be discarded: an
// optimiser zeroed the others as it read them and left the table's
// alone. The next Backward then writes every row of the table's gradient
// (zero where no candidate reaches it) instead of adding to it, so
// neither the optimiser nor ZeroGrad spends a pass writing zeros over it.
func (m *Model[T]) EntityGradStale() { m.zeroGrads, m.staleEntity = false, true }

// EntityParam is the index of the entity table among the parameters.
func (m *Model[T]) EntityParam() int { return m.entity }

// ParamsChanged must be called after the parameters were modified (an
// optimiser step, a checkpoint load): it invalidates the cached
// entity-side scoring features.
func (m *Model[T]) ParamsChanged() {
	m.mu.Lock()
	m.version++
	m.feats = nil
	m.packs = nil
	m.halves = nil
	m.mu.Unlock()
}

// Reached reports, per parameter, whether a backward pass has reached it
// (its gradient is no longer torch's None).
func (m *Model[T]) Reached() []bool {
	out := make([]bool, len(m.grads))
	for i, g := range m.grads {
		out[i] = g != nil
	}
	return out
}

// SetReached marks parameters as reached, with a zero gradient, as a
// resumed run must: Adam keeps updating a reached parameter even when a
// batch gives it no gradient.
func (m *Model[T]) SetReached(reached []bool) error {
	if len(reached) != len(m.params) {
		return fmt.Errorf("gamma: %d reached flags for %d parameters", len(reached), len(m.params))
	}
	for i, r := range reached {
		if r {
			m.grad(i)
		}
	}
	return nil
}

// grad returns params[i]'s gradient buffer, allocating it at first use.
func (m *Model[T]) grad(i int) []T {
	if m.grads[i] == nil {
		m.grads[i] = make([]T, len(m.params[i].Data))
	}
	return m.grads[i]
}

// Param returns the parameter with the given name.
func (m *Model[T]) Param(name string) (Param[T], bool) {
	for _, p := range m.params {
		if p.Name == name {
			return p, true
		}
	}
	return Param[T]{}, false
}

// layout lists the reference's parameters with their shapes, in the order
// of its state dict minus the unused relation_embedding and modulus.
func layout(c Config) []Param[float64] {
	d, h := c.Dim, c.Hidden
	var ps []Param[float64]
	add := func(name string, shape ...int) { ps = append(ps, Param[float64]{Name: name, Shape: shape}) }
	lin := func(name string, out, in int) {
		add(name+".weight", out, in)
		add(name+".bias", out)
	}
	add("entity_embedding", c.Entities, 2*d)
	add("alpha_embedding", c.Relations, d)
	add("beta_embedding", c.Relations, d)
	lin("center_net.layer_alpha1", d, 2*d)
	lin("center_net.layer_beta1", d, 2*d)
	lin("center_net.layer_alpha2", d, d)
	lin("center_net.layer_beta2", d, d)
	// The reference always creates layer2 and layer3 (used only when
	// L ≥ 2, 3) before layer0, then appends layer4..L.
	for _, pre := range []string{"layer", "layerr"} {
		lin("projection_net."+pre+"1", h, 2*d)
		lin("projection_net."+pre+"2", h, h)
		lin("projection_net."+pre+"3", h, h)
		lin("projection_net."+pre+"0", d, h)
		for l := 4; l <= c.Layers; l++ {
			lin(fmt.Sprintf("projection_net.%s%d", pre, l), h, h)
		}
	}
	lin("union_net.layer_alpha1", d, 2*d)
	lin("union_net.layer_beta1", d, 2*d)
	lin("union_net.layer_alpha2", d/2, d)
	lin("union_net.layer_beta2", d/2, d)
	lin("union_net.layer_alpha3", d, d/2)
	lin("union_net.layer_beta3", d, d/2)
	if c.Mode() == UnionMixture {
		// Not in the reference: the scalar score of a mixture component,
		// θ = softmax over components. No bias: softmax ignores it.
		add("mixture_net.weight", 1, 2*d)
	}
	return ps
}

// alloc builds a zero model with the parameter layout of c.
func alloc[T kernel.Float](c Config) (*Model[T], error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	c.Union = c.Mode()
	m := &Model[T]{cfg: c, mixture: -1}
	index := map[string]int{}
	for i, p := range layout(c) {
		m.params = append(m.params, Param[T]{Name: p.Name, Shape: p.Shape, Data: make([]T, size(p.Shape))})
		index[p.Name] = i
	}
	m.grads = make([][]T, len(m.params))
	lin := func(name string) layer {
		i := index[name+".weight"]
		s := m.params[i].Shape
		return layer{w: i, out: s[0], in: s[1]}
	}
	m.entity, m.relAlpha, m.relBeta = index["entity_embedding"], index["alpha_embedding"], index["beta_embedding"]
	m.interA = []layer{lin("center_net.layer_alpha1"), lin("center_net.layer_alpha2")}
	m.interB = []layer{lin("center_net.layer_beta1"), lin("center_net.layer_beta2")}
	m.unionA = []layer{lin("union_net.layer_alpha1"), lin("union_net.layer_alpha2"), lin("union_net.layer_alpha3")}
	m.unionB = []layer{lin("union_net.layer_beta1"), lin("union_net.layer_beta2"), lin("union_net.layer_beta3")}
	for l := 1; l <= c.Layers; l++ {
		m.projA = append(m.projA, lin(fmt.Sprintf("projection_net.layer%d", l)))
		m.projB = append(m.projB, lin(fmt.Sprintf("projection_net.layerr%d", l)))
	}
	m.projA = append(m.projA, lin("projection_net.layer0"))
	m.projB = append(m.projB, lin("projection_net.layerr0"))
	if i, ok := index["mixture_net.weight"]; ok {
		m.mixture = i
	}
	return m, nil
}

// Load builds a model of configuration c from named parameters (a
// checkpoint or the reference's tensors), converting to T. Every parameter
// of the layout must be present with its shape; extra names are an error.
func Load[T kernel.Float, S kernel.Float](c Config, params []Param[S]) (*Model[T], error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	known := map[string]bool{}
	for _, p := range layout(c) {
		known[p.Name] = true
	}
	byName := make(map[string]Param[S], len(params))
	for _, src := range params {
		if !known[src.Name] {
			return nil, fmt.Errorf("gamma: unknown parameter %q", src.Name)
		}
		byName[src.Name] = src
	}
	return Decode(c, func(dst Param[T]) error {
		src, ok := byName[dst.Name]
		if !ok {
			return fmt.Errorf("gamma: parameter %s missing", dst.Name)
		}
		if !slices.Equal(src.Shape, dst.Shape) || len(src.Data) != len(dst.Data) {
			return fmt.Errorf("gamma: parameter %s has shape %v (%d values), want %v", src.Name, src.Shape, len(src.Data), dst.Shape)
		}
		if same, ok := any(src.Data).([]T); ok {
			copy(dst.Data, same)
			return nil
		}
		for j, v := range src.Data {
			dst.Data[j] = T(v)
		}
		return nil
	})
}

// Decode builds a model of configuration c whose parameters fill writes:
// it is called once for each parameter of the layout, in order, with its
// name, shape and zeroed storage. A loader decodes a file straight into the
// model this way, with no copy between (a d=400 model is 73 MB, and the
// first touch of fresh memory is dear on some hosts: internal/mapfile).
func Decode[T kernel.Float](c Config, fill func(p Param[T]) error) (*Model[T], error) {
	m, err := alloc[T](c)
	if err != nil {
		return nil, err
	}
	for _, p := range m.params {
		if err := fill(p); err != nil {
			return nil, err
		}
	}
	return m, nil
}

func (m *Model[T]) index(name string) int {
	for i, p := range m.params {
		if p.Name == name {
			return i
		}
	}
	return -1
}
