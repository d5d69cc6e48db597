// Package ad is reverse-mode automatic differentiation over float64
// matrices: the baselines (GQE, Query2Box, BetaE, ConE) record their
// forward pass on a Tape and get exact gradients from Backward. A recorded
// value holds one row per query of a batch of queries of the same
// structure (SetRows), so that a linear layer is one matrix product for
// the whole batch; elementwise operations do not care. Every operation's
// derivative follows PyTorch's autograd at the points where a function is
// not differentiable (clamp bounds inclusive, ReLU 0 at 0, ties of min),
// so that gradients reproduce the authors' code.
package ad

import (
	"fmt"
	"math/rand/v2"
)

// V is a value recorded on a tape: Rows() rows of its width, row-major.
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
	n    int        // rows of the values recorded now
	// f32, when set, makes linear layers float32 matrix products (the
	// weights converted once per batch, shared by the batch's tapes).
	f32 *Weights32
	// wg32 accumulates the float32 weight gradients of those products.
	wg32 map[*Param][]float32
}

// SetRows sets the number of rows (queries) of the values recorded from
// now on: every operand of an operation has this many rows.
func (t *Tape) SetRows(n int) {
	if n < 1 {
		panic(fmt.Sprintf("ad: %d rows", n))
	}
	t.n = n
}

// Rows is the number of rows of the values recorded now.
func (t *Tape) Rows() int { return t.n }

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
func NewTape(noGrad bool) *Tape { return &Tape{noGrad: noGrad, n: 1} }

// Reset forgets every recorded value.
func (t *Tape) Reset() {
	t.n = 1
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

// Backward propagates the gradients set through G (dL/dv of the outputs)
// to every recorded input, parameters included.
func (t *Tape) Backward() {
	for i := len(t.back) - 1; i >= 0; i-- {
		if t.back[i] != nil {
			t.back[i]()
		}
	}
	t.flushOuter()
}

// Const records x (copied; Rows() rows) as a value no gradient flows out
// of.
func (t *Tape) Const(x []float64) V {
	t.width(len(x), "const")
	val := t.alloc(len(x))
	copy(val, x)
	return t.node(val, nil)
}

// Zeros records Rows() rows of w zeros.
func (t *Tape) Zeros(w int) V { return t.node(t.alloc(t.n*w), nil) }

// Gather records rows ids of p, one per row of the batch; their gradients
// are added to p's gradient rows.
func (t *Tape) Gather(p *Param, ids []int32) V {
	if len(ids) != t.n {
		panic(fmt.Sprintf("ad: %d ids for %d rows", len(ids), t.n))
	}
	val := t.alloc(t.n * p.Cols)
	for i, r := range ids {
		if r < 0 || int(r) >= p.Rows {
			panic(fmt.Sprintf("ad: row %d of %s, which has %d", r, p.Name, p.Rows))
		}
		copy(val[i*p.Cols:], p.Row(int(r)))
	}
	return t.node(val, func(g []float64) {
		pg := t.gradOf(p)
		for i, r := range ids {
			dst := pg[int(r)*p.Cols : int(r+1)*p.Cols]
			for j, x := range g[i*p.Cols : (i+1)*p.Cols] {
				dst[j] += x
			}
		}
	})
}

// width is the row width of a value of n floats.
func (t *Tape) width(n int, op string) int {
	if n%t.n != 0 {
		panic(fmt.Sprintf("ad: %s of %d values in %d rows", op, n, t.n))
	}
	return n / t.n
}

func (t *Tape) same(a, b V, op string) int {
	if len(t.val[a]) != len(t.val[b]) {
		panic(fmt.Sprintf("ad: %s of lengths %d and %d", op, len(t.val[a]), len(t.val[b])))
	}
	return len(t.val[a])
}

// Training reports whether the tape records gradients (dropout applies).
func (t *Tape) Training() bool { return !t.noGrad }

// Float32 reports whether linear layers are float32 products (SetFloat32):
// a model may then take float32 shortcuts of its own.
func (t *Tape) Float32() bool { return t.f32 != nil }
