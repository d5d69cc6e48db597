package ad

import (
	"math"
	"sync"

	"github.com/gammae/gammae/internal/kernel"
)

// Linear is x·Wᵀ + b, row by row, for a weight of shape [out, in]
// (nn.Linear). In float64 the rows go through the kernels' dot and axpy;
// with SetFloat32 the whole batch is three float32 matrix products
// (forward, input gradient, weight gradient), the way GammaE trains.
func (t *Tape) Linear(x V, w, b *Param) V {
	in := t.val[x]
	n := t.n
	if t.width(len(in), "linear") != w.Cols || b.Cols*b.Rows != w.Rows {
		panic("ad: linear layer shapes")
	}
	if t.f32 != nil {
		return t.linear32(x, w, b)
	}
	y := t.alloc(n * w.Rows)
	for r := range n {
		xr, yr := in[r*w.Cols:(r+1)*w.Cols], y[r*w.Rows:(r+1)*w.Rows]
		for o := range yr {
			yr[o] = b.Data[o] + kernel.DotF64(w.Data[o*w.Cols:(o+1)*w.Cols], xr)
		}
	}
	return t.node(y, func(g []float64) {
		gx, bg := t.G(x), t.gradOf(b)
		if t.outer == nil {
			t.outer = map[*Param][]outerPair{}
		}
		for r := range n {
			gr, xr, gxr := g[r*w.Rows:(r+1)*w.Rows], in[r*w.Cols:(r+1)*w.Cols], gx[r*w.Cols:(r+1)*w.Cols]
			for o, go_ := range gr {
				if go_ == 0 {
					continue
				}
				kernel.AxpyF64(go_, w.Data[o*w.Cols:(o+1)*w.Cols], gxr)
				bg[o] += go_
			}
			t.outer[w] = append(t.outer[w], outerPair{gr, xr})
		}
	})
}

// Weights32 holds float32 copies of a model's weights for one batch,
// converted on first use and shared by the batch's tapes.
type Weights32 struct {
	mu sync.Mutex
	m  map[*Param][]float32
}

// NewWeights32 returns an empty set: make one per batch, after the
// parameters last changed.
func NewWeights32() *Weights32 { return &Weights32{m: map[*Param][]float32{}} }

func (ws *Weights32) get(p *Param) []float32 {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w, ok := ws.m[p]
	if !ok {
		w = to32(p.Data)
		ws.m[p] = w
	}
	return w
}

// SetFloat32 makes the linear layers recorded from now on float32 matrix
// products with the weights of ws (nil: float64).
func (t *Tape) SetFloat32(ws *Weights32) { t.f32 = ws }

func to32(x []float64) []float32 {
	y := make([]float32, len(x))
	for i, v := range x {
		y[i] = float32(v)
	}
	return y
}

func (t *Tape) linear32(x V, w, b *Param) V {
	n, in, out := t.n, w.Cols, w.Rows
	w32 := t.f32.get(w)
	x32 := to32(t.val[x])
	y32 := make([]float32, n*out)
	kernel.GemmSerial(false, true, n, out, in, 1, x32, in, w32, in, 0, y32, out)
	y := t.alloc(n * out)
	for i, v := range y32 {
		y[i] = float64(v) + b.Data[i%out]
	}
	return t.node(y, func(g []float64) {
		g32 := to32(g)
		gx32 := make([]float32, n*in)
		kernel.GemmSerial(false, false, n, in, out, 1, g32, out, w32, in, 0, gx32, in)
		gx := t.G(x)
		for i, v := range gx32 {
			gx[i] += float64(v)
		}
		bg := t.gradOf(b)
		for i, v := range g {
			bg[i%out] += v
		}
		if t.wg32 == nil {
			t.wg32 = map[*Param][]float32{}
		}
		acc, ok := t.wg32[w]
		if !ok {
			acc = make([]float32, out*in)
			t.wg32[w] = acc
		}
		kernel.GemmSerial(true, false, out, in, n, 1, g32, out, x32, in, 1, acc, in)
	})
}

// outerPair is one linear layer's contribution g ⊗ x to its weight's
// gradient.
type outerPair struct{ g, x []float64 }

// outerRows is the block of weight-gradient rows updated from every pair
// before the next block: 32 rows of 1600 float64 stay in L2.
const outerRows = 32

// flushOuter adds the collected outer products (and the float32 weight
// gradients) to the weights' gradients.
func (t *Tape) flushOuter() {
	for w, pairs := range t.outer {
		wg := t.gradOf(w)
		for lo := 0; lo < w.Rows; lo += outerRows {
			hi := min(lo+outerRows, w.Rows)
			for _, pr := range pairs {
				for o := lo; o < hi; o++ {
					if c := pr.g[o]; c != 0 {
						kernel.AxpyF64(c, pr.x, wg[o*w.Cols:(o+1)*w.Cols])
					}
				}
			}
		}
	}
	clear(t.outer)
	for w, acc := range t.wg32 {
		wg := t.gradOf(w)
		for i, v := range acc {
			wg[i] += float64(v)
		}
		clear(acc)
	}
}

// SoftmaxOver returns, per dimension, the softmax of the k vectors across
// the list (torch.softmax(stack, dim=0)).
func (t *Tape) SoftmaxOver(vs []V) []V {
	n := len(t.val[vs[0]])
	out := make([]V, len(vs))
	ys := make([][]float64, len(vs))
	for k := range vs {
		ys[k] = t.alloc(n)
	}
	for i := range n {
		m := math.Inf(-1)
		for _, v := range vs {
			m = math.Max(m, t.val[v][i])
		}
		s := 0.0
		for k, v := range vs {
			e := math.Exp(t.val[v][i] - m)
			ys[k][i] = e
			s += e
		}
		for k := range vs {
			ys[k][i] /= s
		}
	}
	for k := range vs {
		out[k] = t.node(ys[k], nil)
	}
	// One backward for the whole softmax, recorded after its outputs so
	// that it runs once their consumers have completed their gradients.
	t.joint(func() {
		for i := range n {
			dot := 0.0
			for k := range vs {
				if g := t.grad[out[k]]; g != nil {
					dot += g[i] * ys[k][i]
				}
			}
			for k, v := range vs {
				gk := 0.0
				if g := t.grad[out[k]]; g != nil {
					gk = g[i]
				}
				t.G(v)[i] += ys[k][i] * (gk - dot)
			}
		}
	})
	return out
}

// joint records a backward function that runs after every node recorded
// later (their gradients complete) and before the earlier ones.
func (t *Tape) joint(back func()) {
	t.val = append(t.val, nil)
	t.grad = append(t.grad, nil)
	if t.noGrad {
		t.back = append(t.back, nil)
	} else {
		t.back = append(t.back, back)
	}
}

// MinOver is the per-dimension minimum over the list; the gradient goes to
// the first vector holding it (torch.min(stack, dim=0)).
func (t *Tape) MinOver(vs []V) V {
	return t.pick(vs, func(v, best float64) bool { return v < best })
}

// pick records, per element, the value of the first of vs that no later
// one beats, and passes the gradient to it.
func (t *Tape) pick(vs []V, beats func(v, best float64) bool) V {
	n := len(t.val[vs[0]])
	y := t.alloc(n)
	arg := make([]int, n)
	for i := range n {
		y[i] = t.val[vs[0]][i]
		for k := 1; k < len(vs); k++ {
			if v := t.val[vs[k]][i]; beats(v, y[i]) {
				y[i], arg[i] = v, k
			}
		}
	}
	return t.node(y, func(g []float64) {
		for i, gi := range g {
			t.G(vs[arg[i]])[i] += gi
		}
	})
}

// MeanOver is the per-dimension mean over the list.
func (t *Tape) MeanOver(vs []V) V {
	n := len(t.val[vs[0]])
	y := t.alloc(n)
	for _, v := range vs {
		for i, x := range t.val[v] {
			y[i] += x
		}
	}
	k := float64(len(vs))
	for i := range y {
		y[i] /= k
	}
	return t.node(y, func(g []float64) {
		for _, v := range vs {
			gv := t.G(v)
			for i, gi := range g {
				gv[i] += gi / k
			}
		}
	})
}

// SumOver is the per-dimension sum over the list.
func (t *Tape) SumOver(vs []V) V {
	n := len(t.val[vs[0]])
	y := t.alloc(n)
	for _, v := range vs {
		for i, x := range t.val[v] {
			y[i] += x
		}
	}
	return t.node(y, func(g []float64) {
		for _, v := range vs {
			gv := t.G(v)
			for i, gi := range g {
				gv[i] += gi
			}
		}
	})
}

// MaxOver is the elementwise maximum over the list; the gradient goes to
// the first value holding it (torch.max over DNF branches).
func (t *Tape) MaxOver(vs []V) V {
	return t.pick(vs, func(v, best float64) bool { return v > best })
}
