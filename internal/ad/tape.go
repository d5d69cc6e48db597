// Package ad is reverse-mode automatic differentiation over float64
// vectors: the baselines (GQE, Query2Box, BetaE, ConE) record their forward
// pass on a Tape and get exact gradients from Backward. Every operation's
// derivative follows PyTorch's autograd at the points where a function is
// not differentiable (clamp bounds inclusive, ReLU 0 at 0, ties of min),
// so that gradients reproduce the authors' code.
package ad

import (
	"fmt"
	"math/rand/v2"
)

// V is a vector recorded on a tape.
type V int32

// Param is a parameter tensor (row-major, [rows, cols]) with its gradient.
type Param struct {
	Name       string
	Rows, Cols int
	Data, Grad []float64
}

// Row returns row r of the parameter's data.
func (p *Param) Row(r int) []float64 { return p.Data[r*p.Cols : (r+1)*p.Cols] }

// Tape records a computation. A Tape is used by one goroutine; Reset
// reuses its memory for the next computation.
type Tape struct {
	val    [][]float64
	grad   [][]float64
	back   []func()
	buf    []float64 // arena for values and gradients
	noGrad bool
	// sink, when set, holds the parameters' gradients of this tape
	// instead of Param.Grad, so that tapes can run in parallel.
	sink map[*Param][]float64
	// outer collects, per weight, the (output gradient, input) pairs of
	// its linear layers; Backward adds their outer products at the end, a
	// block of weight rows at a time, instead of streaming the whole
	// weight gradient once per query.
	outer map[*Param][]outerPair
	// memo holds values derived from a recorded vector (e.g. the
	// special functions of a query embedding that every candidate's
	// distance uses), by that vector.
	memo map[V]any
	rng  *rand.Rand // training-time randomness (dropout), per tape
}

// SetRand gives the tape its source of randomness (dropout masks): each
// goroutine's tape has its own, so that masks are drawn deterministically.
func (t *Tape) SetRand(r *rand.Rand) { t.rng = r }

// Rand is the tape's source of randomness; nil when none was set.
func (t *Tape) Rand() *rand.Rand { return t.rng }

// memoize returns what make derives from v, computed once per tape.
func (t *Tape) memoize(v V, make func() any) any {
	if x, ok := t.memo[v]; ok {
		return x
	}
	if t.memo == nil {
		t.memo = map[V]any{}
	}
	x := make()
	t.memo[v] = x
	return x
}

// SetSink makes Backward add parameter gradients to sink[p] (allocated on
// first use) instead of p.Grad; nil restores p.Grad.
func (t *Tape) SetSink(sink map[*Param][]float64) { t.sink = sink }

// gradOf is where p's gradient goes.
func (t *Tape) gradOf(p *Param) []float64 {
	if t.sink == nil {
		return p.Grad
	}
	g, ok := t.sink[p]
	if !ok {
		g = make([]float64, len(p.Data))
		t.sink[p] = g
	}
	return g
}

// NewTape returns an empty tape. With noGrad set it records no backward
// functions (inference).
func NewTape(noGrad bool) *Tape { return &Tape{noGrad: noGrad} }

// Reset forgets every recorded vector.
func (t *Tape) Reset() {
	t.val, t.grad, t.back = t.val[:0], t.grad[:0], t.back[:0]
	clear(t.memo)
	clear(t.buf) // alloc hands out zeroed memory
	t.buf = t.buf[:0]
}

// chunkFloats is the size of the arena's chunks: large enough that a
// query's vectors rarely straddle two, small enough to stay in cache.
const chunkFloats = 1 << 15

// alloc returns n zeroed floats from the arena. A full chunk is replaced by
// a fresh one (already zeroed by make), so earlier slices stay valid and
// nothing is cleared twice.
func (t *Tape) alloc(n int) []float64 {
	if cap(t.buf)-len(t.buf) < n {
		t.buf = make([]float64, 0, max(n, chunkFloats))
	}
	s := t.buf[len(t.buf) : len(t.buf)+n]
	t.buf = t.buf[:len(t.buf)+n]
	return s
}

// node appends a vector with value val and backward function back (which
// reads the node's gradient through t.G and adds to its inputs').
func (t *Tape) node(val []float64, back func(g []float64)) V {
	v := V(len(t.val))
	t.val = append(t.val, val)
	t.grad = append(t.grad, nil)
	if t.noGrad || back == nil {
		t.back = append(t.back, nil)
	} else {
		t.back = append(t.back, func() {
			if g := t.grad[v]; g != nil {
				back(g)
			}
		})
	}
	return v
}

// Val is v's value (do not modify).
func (t *Tape) Val(v V) []float64 { return t.val[v] }

// Len is v's length.
func (t *Tape) Len(v V) int { return len(t.val[v]) }

// G returns v's gradient accumulator, allocating it on first use.
func (t *Tape) G(v V) []float64 {
	if t.grad[v] == nil {
		t.grad[v] = t.alloc(len(t.val[v]))
	}
	return t.grad[v]
}

// Backward seeds the gradient of each scalar in seeds (node → dL/dnode)
// and propagates it to every recorded input, parameters included.
func (t *Tape) Backward(seeds map[V]float64) {
	for v, g := range seeds {
		t.G(v)[0] += g
	}
	for i := len(t.back) - 1; i >= 0; i-- {
		if t.back[i] != nil {
			t.back[i]()
		}
	}
	t.flushOuter()
}

// Const records x (copied) as a vector no gradient flows out of.
func (t *Tape) Const(x []float64) V {
	val := t.alloc(len(x))
	copy(val, x)
	return t.node(val, nil)
}

// Row records row r of p; its gradient is added to p's gradient row.
func (t *Tape) Row(p *Param, r int) V {
	if r < 0 || r >= p.Rows {
		panic(fmt.Sprintf("ad: row %d of %s, which has %d", r, p.Name, p.Rows))
	}
	val := t.alloc(p.Cols)
	copy(val, p.Row(r))
	return t.node(val, func(g []float64) {
		dst := t.gradOf(p)[r*p.Cols : (r+1)*p.Cols]
		for i, x := range g {
			dst[i] += x
		}
	})
}

func (t *Tape) same(a, b V, op string) int {
	if len(t.val[a]) != len(t.val[b]) {
		panic(fmt.Sprintf("ad: %s of lengths %d and %d", op, len(t.val[a]), len(t.val[b])))
	}
	return len(t.val[a])
}

// Mark is a point of the tape to Rewind to.
type Mark struct {
	nodes, buf int
	chunk      *float64
}

// Mark returns the tape's current end.
func (t *Tape) Mark() Mark { return Mark{len(t.val), len(t.buf), t.chunkID()} }

// Rewind forgets what was recorded after m (inference loops that score
// many entities against one embedding).
func (t *Tape) Rewind(m Mark) {
	t.val, t.grad, t.back = t.val[:m.nodes], t.grad[:m.nodes], t.back[:m.nodes]
	for v := range t.memo {
		if int(v) >= m.nodes {
			delete(t.memo, v)
		}
	}
	if m.buf <= len(t.buf) && m.chunk == t.chunkID() {
		clear(t.buf[m.buf:])
		t.buf = t.buf[:m.buf]
	}
}

// chunkID identifies the arena's current chunk.
func (t *Tape) chunkID() *float64 {
	if cap(t.buf) == 0 {
		return nil
	}
	return &t.buf[:1][0]
}

// Training reports whether the tape records gradients (dropout applies).
func (t *Tape) Training() bool { return !t.noGrad }
