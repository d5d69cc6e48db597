package gamma

import "github.com/gammae/gammae/internal/kernel"

// linearForward sets y[rows×out] = x[rows×in]·Wᵀ + b, then ReLU if asked.
func (m *Model[T]) linearForward(l layer, x, y []T, rows int, relu bool) {
	b := m.params[l.w+1].Data
	y = y[:rows*l.out]
	m.mulWT(rows, x, l.in, l.w, 0, l.in, l.in, y, l.out)
	if relu {
		kernel.AddBiasReLU(y, b, rows, l.out)
	} else {
		kernel.AddBias(y, b, rows, l.out)
	}
}

// linearBackward accumulates the weight and bias gradients of y = x·Wᵀ + b
// given dy, and sets dx = dy·W when dx is not nil. sum is scratch of l.out.
func (m *Model[T]) linearBackward(l layer, x, dy, dx, sum []T, rows int) {
	gw, gb := m.grad(l.w), m.grad(l.w+1)
	kernel.SumRows(sum[:l.out], dy[:rows*l.out], rows, l.out)
	add(gb, sum[:l.out])
	kernel.Gemm(true, false, l.out, l.in, rows, 1, dy, l.out, x, l.in, 1, gw, l.in)
	if dx != nil {
		m.mulW(rows, dy, l.out, l.w, 0, l.out, l.in, dx, l.in)
	}
}

// mlp holds the activations of a stack of linear layers with ReLU between
// them (not after the last): acts[0] is the input, acts[i+1] the output of
// layer i.
type mlp[T kernel.Float] struct{ acts [][]T }

// prepare sizes the activation buffers for rows inputs.
func (a *mlp[T]) prepare(layers []layer, rows int) {
	if len(a.acts) != len(layers)+1 {
		a.acts = make([][]T, len(layers)+1)
	}
	a.acts[0] = grow(a.acts[0], rows*layers[0].in)
	for i, l := range layers {
		a.acts[i+1] = grow(a.acts[i+1], rows*l.out)
	}
}

func (a *mlp[T]) input() []T  { return a.acts[0] }
func (a *mlp[T]) output() []T { return a.acts[len(a.acts)-1] }

// forward runs the stack on acts[0].
func (m *Model[T]) mlpForward(layers []layer, a *mlp[T], rows int) {
	for i, l := range layers {
		m.linearForward(l, a.acts[i], a.acts[i+1], rows, i < len(layers)-1)
	}
}

// mlpBackward takes dOut (the gradient of the last layer's output, used as
// scratch) and accumulates parameter gradients; it sets dIn, the gradient of
// the input, unless dIn is nil. s1 and s2 are scratch buffers of at least
// rows × the widest hidden layer; sum holds the widest layer's output.
func (m *Model[T]) mlpBackward(layers []layer, a *mlp[T], rows int, dOut, dIn, s1, s2, sum []T) {
	cur := dOut
	for i := len(layers) - 1; i >= 0; i-- {
		l := layers[i]
		if i < len(layers)-1 {
			// ReLU: the gradient passes where the output was positive.
			kernel.ReLUBackward(cur[:rows*l.out], a.acts[i+1][:rows*l.out])
		}
		var dx []T
		if i > 0 {
			dx = s1[:rows*l.in]
			s1, s2 = s2, s1
		} else {
			dx = dIn
		}
		m.linearBackward(l, a.acts[i], cur[:rows*l.out], dx, sum, rows)
		cur = dx
	}
}

// grow returns buf resized to n elements, reallocating only when needed.
// The contents are unspecified.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}

// packKey names a packed weight block: op(W[:, off:off+k]) of parameter
// param, op a transpose when trans.
type packKey struct {
	param, off int
	trans      bool
}

// packMinRows is the fewest rows that take the packed weights: one row is
// a matrix–vector product, memory-bound either way, and the small path's
// dot products read the weights as they lie.
const packMinRows = 2

// On float32 the products with a weight matrix use it packed once per
// parameter version (kernel.PackB): a training step's levels and batches
// share one packing per direction instead of repacking it in every job of
// every product, and answering a few queries runs the register-blocked
// kernel without repacking at all.

// mulWT sets y[rows×n] = x[rows×k]·W[:, off:off+k]ᵀ for the weight
// parameter w (n rows of stride ldw).
func (m *Model[T]) mulWT(rows int, x []T, ldx, w, off, k, ldw int, y []T, n int) {
	if rows >= packMinRows {
		if p := m.packed(w, off, k, n, ldw, true); p != nil {
			kernel.GemmPacked(rows, 1, any(x).([]float32), ldx, p, 0, any(y).([]float32), n)
			return
		}
	}
	kernel.Gemm(false, true, rows, n, k, 1, x, ldx, m.params[w].Data[off:], ldw, 0, y, n)
}

// mulW sets y[rows×n] = dy[rows×k]·W[:, off:off+n] for the weight
// parameter w (k rows of stride ldw): the input gradient of a layer.
func (m *Model[T]) mulW(rows int, dy []T, ldy, w, off, k, ldw int, y []T, n int) {
	if rows >= packMinRows {
		if p := m.packed(w, off, k, n, ldw, false); p != nil {
			kernel.GemmPacked(rows, 1, any(dy).([]float32), ldy, p, 0, any(y).([]float32), n)
			return
		}
	}
	kernel.Gemm(false, false, rows, n, k, 1, dy, ldy, m.params[w].Data[off:], ldw, 0, y, n)
}

// packed returns op(W[:, off:…]) of parameter w packed as a k × n operand
// (op a transpose when trans), for float32 models (nil for float64),
// cached until ParamsChanged.
func (m *Model[T]) packed(w, off, k, n, ldw int, trans bool) *kernel.PackedB {
	data, ok := any(m.params[w].Data).([]float32)
	if !ok {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	key := packKey{w, off, trans}
	if p := m.packs[key]; p != nil {
		return p
	}
	if m.packs == nil {
		m.packs = map[packKey]*kernel.PackedB{}
	}
	p := kernel.PackB(trans, k, n, data[off:], ldw)
	m.packs[key] = p
	return p
}
