package gamma

import (
	"iter"
	"runtime"
	"sync"

	"github.com/gammae/gammae/internal/kernel"
)

// linearForward sets y[rows×out] = x[rows×in]·Wᵀ + b, then ReLU if asked,
// with products as pm says.
func (m *Model[T]) linearForward(l layer, x, y []T, rows int, relu bool, pm prod) {
	b := m.params[l.w+1].Data
	y = y[:rows*l.out]
	m.mulWT(pm, rows, x, l.in, l.w, 0, l.in, l.in, y, l.out)
	if relu {
		kernel.AddBiasReLU(y, b, rows, l.out)
	} else {
		kernel.AddBias(y, b, rows, l.out)
	}
}

// linearBackward accumulates the weight and bias gradients of y = x·Wᵀ + b
// given dy, and sets dx = dy·W when dx is not nil. sum is scratch of l.out.
// pm says whether the products are serial (prodSerial).
func (m *Model[T]) linearBackward(l layer, x, dy, dx, sum []T, rows int, pm prod) {
	gw, gb := m.grad(l.w), m.grad(l.w+1)
	kernel.SumRows(sum[:l.out], dy[:rows*l.out], rows, l.out)
	add(gb, sum[:l.out])
	m.weightGrad(pm, l.out, l.in, rows, dy, l.out, x, l.in, gw, l.in)
	if dx != nil {
		m.mulW(pm, rows, dy, l.out, l.w, 0, l.out, l.in, dx, l.in)
	}
}

// weightGrad adds dyᵀ·x (out × in, dy rows × out, x rows × in) to the
// weight gradient gw: with bfloat16 operands when the model trains in
// bf16, as pm says otherwise.
func (m *Model[T]) weightGrad(pm prod, out, in, rows int, dy []T, ldy int, x []T, ldx int, gw []T, ldg int) {
	if !m.bf16 {
		gemmBy(pm, true, false, out, in, rows, 1, dy, ldy, x, ldx, 1, gw, ldg)
		return
	}
	dy32, x32, gw32 := any(dy).([]float32), any(x).([]float32), any(gw).([]float32)
	if pm&prodSerial != 0 {
		kernel.GemmBF16Serial(true, false, out, in, rows, dy32, ldy, x32, ldx, 1, gw32, ldg)
	} else {
		kernel.GemmBF16(true, false, out, in, rows, dy32, ldy, x32, ldx, 1, gw32, ldg)
	}
}

// gemmBy is kernel.Gemm, on the calling goroutine alone if pm says
// prodSerial.
func gemmBy[T kernel.Float](pm prod, transA, transB bool, m, n, k int, alpha T, a []T, lda int, b []T, ldb int, beta T, c []T, ldc int) {
	if pm&prodSerial != 0 {
		kernel.GemmSerial(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	kernel.Gemm(transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
}

// mlp holds the activations of a stack of linear layers with ReLU between
// them (not after the last): acts[0] is the input, acts[i+1] the output of
// layer i. scale is not 0 when the hidden activations went through
// dropout: the kept units were scaled by it, the dropped ones are 0; rows,
// when not nil, says which rows did (the others were left whole).
type mlp[T kernel.Float] struct {
	acts  [][]T
	scale T
	rows  []bool
}

// hiddenBackward turns dy, the gradient of the hidden activation y, into
// that of its pre-activation: ReLU passes it where y is positive, which
// leaves out the dropped units too, and the kept ones were scaled.
func (a *mlp[T]) hiddenBackward(dy, y []T) {
	kernel.ReLUBackward(dy, y)
	switch {
	case a.scale == 0:
	case a.rows == nil:
		kernel.Scale(a.scale, dy)
	default:
		for row := range selectedRows(dy, a.rows) {
			kernel.Scale(a.scale, row)
		}
	}
}

// selectedRows yields the rows of x (len(rows) rows of equal width) whose
// flag in rows is set.
func selectedRows[T any](x []T, rows []bool) iter.Seq[[]T] {
	return func(yield func([]T) bool) {
		w := len(x) / len(rows)
		for r, on := range rows {
			if on && !yield(x[r*w:(r+1)*w]) {
				return
			}
		}
	}
}

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
func (m *Model[T]) mlpForward(layers []layer, a *mlp[T], rows int, pm prod) {
	for i, l := range layers {
		m.linearForward(l, a.acts[i], a.acts[i+1], rows, i < len(layers)-1, pm)
	}
}

// mlpBackward takes dOut (the gradient of the last layer's output, used as
// scratch) and accumulates parameter gradients; it sets dIn, the gradient of
// the input, unless dIn is nil. s1 and s2 are scratch buffers of at least
// rows × the widest hidden layer; sum holds the widest layer's output.
func (m *Model[T]) mlpBackward(layers []layer, a *mlp[T], rows int, pm prod, dOut, dIn, s1, s2, sum []T) {
	cur := dOut
	for i := len(layers) - 1; i >= 0; i-- {
		l := layers[i]
		if i < len(layers)-1 {
			a.hiddenBackward(cur[:rows*l.out], a.acts[i+1][:rows*l.out])
		}
		var dx []T
		if i > 0 {
			dx = s1[:rows*l.in]
			s1, s2 = s2, s1
		} else {
			dx = dIn
		}
		m.linearBackward(l, a.acts[i], cur[:rows*l.out], dx, sum, rows, pm)
		cur = dx
	}
}

// grow returns buf resized to n elements, reallocating only when needed,
// with a quarter to spare: a training batch's row counts vary from step to
// step, and buffers grown to the exact size were reallocated (fresh pages
// faulted in and zeroed) for tens of MB per iteration. The contents are
// unspecified.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n, n+n/4)
	}
	return buf[:n]
}

// packKey names a packed weight block: W[:, off:off+k]ᵀ of parameter
// param (trans), or W[:k, off:off+n].
type packKey struct {
	param, off int
	trans      bool
}

// In inference, products of a few rows (answering queries) with a weight
// matrix use it packed once per parameter version (kernel.PackB) and run
// the register-blocked kernel without repacking it. One row is a
// matrix–vector product, memory-bound either way, where the small path's
// dot products read the weights as they lie; many rows take the blocked
// path.
//
// Training packs each weight block it multiplies by once per step, Wᵀ for
// the forward products and W for the input gradients (trainPacked), into
// storage kept from step to step. A block serves every level of the
// batch's projections (three for 3p) and both passes: packing per product
// would cost a tenth of the products' time, and two fifths for the few
// rows of a deep level (2–5 % of an iteration at d=400, 4 % at d=800,
// iterations alternated within one run). Products of 2–16 rows take the
// blocked kernel's bits rather than the small path's (deterministic
// either way).
const packMinRows, packMaxRows = 2, 16

// prod says how a pass runs its weight products: a set of flags, none for
// training (products of any size read the weights packed for the step, on
// all cores).
type prod uint8

const (
	// prodPacked: inference; products of a few rows use the packed
	// weights.
	prodPacked prod = 1 << iota
	// prodSerial: inside one of two concurrent nets (see sideBySide), the
	// products run on the calling goroutine alone.
	prodSerial
)

// inferProd is the mode of a forward pass: training or inference.
func inferProd(train bool) prod {
	if train {
		return 0
	}
	return prodPacked
}

// sideBySide runs the α and β nets of an operator on rows inputs, fa and
// fb, each given the product mode to use. With two cores or more the two
// nets run concurrently, so the elementwise work between products keeps
// both cores busy too (measured: embedding a batch of eight 3-hop queries
// at d=400 took 1.7 ms with one net after the other and each product split
// over the cores, 1.0 ms side by side; a training iteration at d=400
// 0.78 s, 0.70 s side by side).
//
// Small nets (answering a few queries) keep each product on their own
// core: a hand-off would cost more than the product. Larger ones offer
// their products to every core, so the core whose net finishes first —
// the nets are equal, but a core shared with other work is not — helps
// with the other's products instead of waiting for it: at d=800 12–14 %
// faster than serial products side by side on a busy 2-core host (1–2 %
// on a quiet one; within the noise at d=400), iterations alternated
// within one run.
//
// A small net's partner starts with kernel.Go: a net of a few rows takes
// ~0.1 ms, and a goroutine started with a plain go statement often began
// only when the caller's net was done (kernel.Go says why).
func (m *Model[T]) sideBySide(pm prod, rows int, fa, fb func(prod)) {
	if runtime.GOMAXPROCS(0) < 2 {
		fa(pm)
		fb(pm)
		return
	}
	h := m.cfg.Hidden
	if float64(rows)*float64(h)*float64(h) < sideShareWork {
		pm |= prodSerial
	}
	var wg sync.WaitGroup
	if pm&prodSerial != 0 {
		kernel.Go(&wg, func() { fb(pm) })
	} else {
		wg.Go(func() { fb(pm) })
	}
	fa(pm)
	wg.Wait()
}

// sideShareWork is the least rows·h² (a hidden layer's product) for which
// nets side by side share their products: above a batch of 16 queries
// being answered at h=1,400, below a training batch's 170 3-hop queries
// at h=800.
const sideShareWork = 1 << 25

// mulWT sets y[rows×n] = x[rows×k]·W[:, off:off+k]ᵀ for the weight
// parameter w (n rows of stride ldw), with products as pm says.
func (m *Model[T]) mulWT(pm prod, rows int, x []T, ldx, w, off, k, ldw int, y []T, n int) {
	var p *kernel.PackedB
	switch {
	case pm&prodPacked != 0 && m.bf16:
		// Inference in bf16: the weights packed once, rounded; one row
		// too, the product being memory-bound and the packed weights half
		// the bytes of the float32 ones.
		m.gemmPackedBF16(pm, rows, x, ldx, m.packedBF16(w, off, k, n, ldw, true), y, n)
		return
	case rows < packMinRows:
	case pm&prodPacked == 0:
		if p16 := m.trainPackedBF16(pm, w, off, k, n, ldw, true); p16 != nil {
			m.gemmPackedBF16(pm, rows, x, ldx, p16, y, n)
			return
		}
		p = m.trainPacked(w, off, k, n, ldw, true)
	case rows <= packMaxRows:
		p = m.packed(w, off, k, n, ldw)
	}
	if p != nil {
		m.gemmPacked(pm, rows, x, ldx, p, y, n)
		return
	}
	gemmBy(pm, false, true, rows, n, k, 1, x, ldx, m.params[w].Data[off:], ldw, 0, y, n)
}

// mulW sets y[rows×n] = x[rows×k]·W[:k, off:off+n] for the weight
// parameter w (rows of stride ldw), with products as pm says: the input
// gradient of a layer.
func (m *Model[T]) mulW(pm prod, rows int, x []T, ldx, w, off, k, ldw int, y []T, n int) {
	if pm&prodPacked == 0 && rows >= packMinRows {
		if p16 := m.trainPackedBF16(pm, w, off, k, n, ldw, false); p16 != nil {
			m.gemmPackedBF16(pm, rows, x, ldx, p16, y, n)
			return
		}
		if p := m.trainPacked(w, off, k, n, ldw, false); p != nil {
			m.gemmPacked(pm, rows, x, ldx, p, y, n)
			return
		}
	}
	gemmBy(pm, false, false, rows, n, k, 1, x, ldx, m.params[w].Data[off:], ldw, 0, y, n)
}

// gemmPacked sets y = x·op(W) with op(W) packed, as pm says (float32
// only).
func (m *Model[T]) gemmPacked(pm prod, rows int, x []T, ldx int, p *kernel.PackedB, y []T, n int) {
	x32, y32 := any(x).([]float32), any(y).([]float32)
	if pm&prodSerial != 0 {
		kernel.GemmPackedSerial(rows, 1, x32, ldx, p, 0, y32, n)
	} else {
		kernel.GemmPacked(rows, 1, x32, ldx, p, 0, y32, n)
	}
}

// gemmPackedBF16 is gemmPacked with bfloat16 operands.
func (m *Model[T]) gemmPackedBF16(pm prod, rows int, x []T, ldx int, p *kernel.PackedBF16, y []T, n int) {
	x32, y32 := any(x).([]float32), any(y).([]float32)
	if pm&prodSerial != 0 {
		kernel.GemmPackedBF16Serial(rows, x32, ldx, p, y32, n)
	} else {
		kernel.GemmPackedBF16(rows, x32, ldx, p, y32, n)
	}
}

// trainPack is a weight block packed for training's products (P is
// *kernel.PackedB or *kernel.PackedBF16), repacked into the same storage
// once per parameter version.
type trainPack[P any] struct {
	mu      sync.Mutex
	version uint64
	p       P
	packed  bool
}

// trainPackOf returns the pack of key in packs (created on first use),
// repacked by pack if the parameters changed since.
func trainPackOf[T kernel.Float, P any](m *Model[T], packs *map[packKey]*trainPack[P], key packKey, pack func(old P) P) P {
	m.mu.Lock()
	tp := (*packs)[key]
	if tp == nil {
		if *packs == nil {
			*packs = map[packKey]*trainPack[P]{}
		}
		tp = &trainPack[P]{}
		(*packs)[key] = tp
	}
	version := m.version
	m.mu.Unlock()
	tp.mu.Lock()
	defer tp.mu.Unlock()
	if !tp.packed || tp.version != version {
		tp.p, tp.version, tp.packed = pack(tp.p), version, true
	}
	return tp.p
}

// trainPackedBF16 is trainPacked rounded to bfloat16, for training's
// products (not inference's, pm prodPacked) when the model's precision is
// bf16; nil otherwise.
func (m *Model[T]) trainPackedBF16(pm prod, w, off, k, n, ldw int, trans bool) *kernel.PackedBF16 {
	if !m.bf16 || pm&prodPacked != 0 {
		return nil
	}
	return m.packedBF16(w, off, k, n, ldw, trans)
}

// packedBF16 returns W[:, off:off+k]ᵀ (trans) or W[:k, off:off+n] of
// parameter w rounded to bfloat16 and packed for the current parameter
// version.
func (m *Model[T]) packedBF16(w, off, k, n, ldw int, trans bool) *kernel.PackedBF16 {
	data := any(m.params[w].Data).([]float32)
	return trainPackOf(m, &m.tpacks16, packKey{w, off, trans}, func(old *kernel.PackedBF16) *kernel.PackedBF16 {
		return kernel.PackBF16Into(old, trans, k, n, data[off:], ldw)
	})
}

// trainPacked returns W[:, off:off+k]ᵀ (trans) or W[:k, off:off+n] of
// parameter w packed for the current parameter version, packing it on
// first use; nil for float64 models.
func (m *Model[T]) trainPacked(w, off, k, n, ldw int, trans bool) *kernel.PackedB {
	data, ok := any(m.params[w].Data).([]float32)
	if !ok {
		return nil
	}
	return trainPackOf(m, &m.tpacks, packKey{w, off, trans}, func(old *kernel.PackedB) *kernel.PackedB {
		return kernel.PackBInto(old, trans, k, n, data[off:], ldw)
	})
}

// packed returns W[:, off:off+k]ᵀ of parameter w packed, for float32
// models (nil for float64), cached until ParamsChanged.
func (m *Model[T]) packed(w, off, k, n, ldw int) *kernel.PackedB {
	data, ok := any(m.params[w].Data).([]float32)
	if !ok {
		return nil
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	key := packKey{w, off, true}
	if p := m.packs[key]; p != nil {
		return p
	}
	if m.packs == nil {
		m.packs = map[packKey]*kernel.PackedB{}
	}
	p := kernel.PackB(true, k, n, data[off:], ldw)
	m.packs[key] = p
	return p
}
