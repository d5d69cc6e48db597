package ad

import (
	"math"

	"github.com/gammae/gammae/internal/kernel"
)

// Linear is W·x + b for a weight of shape [out, in] (nn.Linear). The rows
// go through the kernels' float64 dot and axpy (vectorised where the CPU
// allows): a projection MLP's products are most of a baseline's time.
func (t *Tape) Linear(x V, w, b *Param) V {
	in := t.val[x]
	if len(in) != w.Cols || b.Cols*b.Rows != w.Rows {
		panic("ad: linear layer shapes")
	}
	y := t.alloc(w.Rows)
	for o := range y {
		y[o] = b.Data[o] + kernel.DotF64(w.Data[o*w.Cols:(o+1)*w.Cols], in)
	}
	return t.node(y, func(g []float64) {
		gx, bg := t.G(x), t.gradOf(b)
		for o, go_ := range g {
			if go_ == 0 {
				continue
			}
			kernel.AxpyF64(go_, w.Data[o*w.Cols:(o+1)*w.Cols], gx)
			bg[o] += go_
		}
		if t.outer == nil {
			t.outer = map[*Param][]outerPair{}
		}
		t.outer[w] = append(t.outer[w], outerPair{g, in})
	})
}

// outerPair is one linear layer's contribution g ⊗ x to its weight's
// gradient.
type outerPair struct{ g, x []float64 }

// outerRows is the block of weight-gradient rows updated from every pair
// before the next block: 32 rows of 1600 float64 stay in L2.
const outerRows = 32

// flushOuter adds the collected outer products to the weights' gradients.
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
	n := len(t.val[vs[0]])
	y := t.alloc(n)
	arg := make([]int, n)
	for i := range n {
		y[i] = t.val[vs[0]][i]
		for k := 1; k < len(vs); k++ {
			if v := t.val[vs[k]][i]; v < y[i] {
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

// MaxScalar is the largest of scalar nodes; the gradient goes to the first
// holding it (torch.max over DNF branches).
func (t *Tape) MaxScalar(vs []V) V {
	best := 0
	for k, v := range vs {
		if t.val[v][0] > t.val[vs[best]][0] {
			best = k
		}
	}
	y := t.alloc(1)
	y[0] = t.val[vs[best]][0]
	return t.node(y, func(g []float64) { t.G(vs[best])[0] += g[0] })
}
