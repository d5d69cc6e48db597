package ad

import (
	"fmt"
	"math"
)

// unary records f applied elementwise, with derivative df(x, y) at input x
// and output y.
func (t *Tape) unary(a V, f func(x float64) float64, df func(x, y float64) float64) V {
	x := t.val[a]
	y := t.alloc(len(x))
	for i, v := range x {
		y[i] = f(v)
	}
	return t.node(y, func(g []float64) {
		ga := t.G(a)
		for i, gi := range g {
			ga[i] += gi * df(x[i], y[i])
		}
	})
}

// binary records f applied elementwise to a and b with partial
// derivatives da, db.
func (t *Tape) binary(a, b V, op string, f func(x, y float64) float64, da, db func(x, y, z float64) float64) V {
	n := t.same(a, b, op)
	x, y := t.val[a], t.val[b]
	z := t.alloc(n)
	for i := range z {
		z[i] = f(x[i], y[i])
	}
	return t.node(z, func(g []float64) {
		ga, gb := t.G(a), t.G(b)
		for i, gi := range g {
			ga[i] += gi * da(x[i], y[i], z[i])
			gb[i] += gi * db(x[i], y[i], z[i])
		}
	})
}

// Add is a + b.
func (t *Tape) Add(a, b V) V {
	return t.binary(a, b, "add", func(x, y float64) float64 { return x + y },
		func(_, _, _ float64) float64 { return 1 }, func(_, _, _ float64) float64 { return 1 })
}

// Sub is a − b.
func (t *Tape) Sub(a, b V) V {
	return t.binary(a, b, "sub", func(x, y float64) float64 { return x - y },
		func(_, _, _ float64) float64 { return 1 }, func(_, _, _ float64) float64 { return -1 })
}

// Mul is a ⊙ b.
func (t *Tape) Mul(a, b V) V {
	return t.binary(a, b, "mul", func(x, y float64) float64 { return x * y },
		func(_, y, _ float64) float64 { return y }, func(x, _, _ float64) float64 { return x })
}

// Div is a ⊘ b.
func (t *Tape) Div(a, b V) V {
	return t.binary(a, b, "div", func(x, y float64) float64 { return x / y },
		func(_, y, _ float64) float64 { return 1 / y }, func(x, y, _ float64) float64 { return -x / (y * y) })
}

// Min2 is the elementwise minimum of a and b; at ties each gets half the
// gradient (torch.min(a, b)).
func (t *Tape) Min2(a, b V) V {
	return t.binary(a, b, "min", math.Min,
		func(x, y, _ float64) float64 { return Tie(x, y) },
		func(x, y, _ float64) float64 { return Tie(y, x) })
}

// Tie is the share of min(x, y)'s gradient that goes to x (torch.min of
// two tensors splits ties). Which is smaller is data, not a pattern: 0/1
// flags (conditional moves) rather than branches the CPU would mispredict.
func Tie(x, y float64) float64 {
	lt, eq := 0, 0
	if x < y {
		lt = 1
	}
	if x == y {
		eq = 1
	}
	return float64(lt) + 0.5*float64(eq)
}

// Affine is s·a + c elementwise.
func (t *Tape) Affine(a V, s, c float64) V {
	return t.unary(a, func(x float64) float64 { return s*x + c }, func(_, _ float64) float64 { return s })
}

// Abs is |a| (derivative 0 at 0, as torch).
func (t *Tape) Abs(a V) V {
	return t.unary(a, math.Abs, func(x, _ float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	})
}

// ReLU is max(a, 0) (derivative 0 at 0).
func (t *Tape) ReLU(a V) V {
	return t.unary(a, func(x float64) float64 { return math.Max(x, 0) }, func(x, _ float64) float64 {
		if x > 0 {
			return 1
		}
		return 0
	})
}

// Sigmoid is 1/(1+e^−a).
func (t *Tape) Sigmoid(a V) V {
	return t.unary(a, sigmoid, func(_, y float64) float64 { return y * (1 - y) })
}

func sigmoid(x float64) float64 {
	if x >= 0 {
		return 1 / (1 + math.Exp(-x))
	}
	e := math.Exp(x)
	return e / (1 + e)
}

// Tanh is tanh(a).
func (t *Tape) Tanh(a V) V {
	return t.unary(a, math.Tanh, func(_, y float64) float64 { return 1 - y*y })
}

// Sin is sin(a).
func (t *Tape) Sin(a V) V {
	return t.unary(a, math.Sin, func(x, _ float64) float64 { return math.Cos(x) })
}

// Cos is cos(a).
func (t *Tape) Cos(a V) V {
	return t.unary(a, math.Cos, func(x, _ float64) float64 { return -math.Sin(x) })
}

// Atan is atan(a).
func (t *Tape) Atan(a V) V {
	return t.unary(a, math.Atan, func(x, _ float64) float64 { return 1 / (1 + x*x) })
}

// Recip is 1/a.
func (t *Tape) Recip(a V) V {
	return t.unary(a, func(x float64) float64 { return 1 / x }, func(_, y float64) float64 { return -y * y })
}

// Clamp is min(max(a, lo), hi), passing the gradient where lo ≤ a ≤ hi
// (torch.clamp: the bounds are inclusive).
func (t *Tape) Clamp(a V, lo, hi float64) V {
	return t.unary(a, func(x float64) float64 { return math.Min(math.Max(x, lo), hi) }, func(x, _ float64) float64 {
		if x >= lo && x <= hi {
			return 1
		}
		return 0
	})
}

// Lgamma is ln Γ(a) for a > 0.
func (t *Tape) Lgamma(a V) V {
	return t.unary(a, func(x float64) float64 { v, _ := math.Lgamma(x); return v },
		func(x, _ float64) float64 { return Digamma(x) })
}

// Digammas is ψ(a) for a > 0.
func (t *Tape) Digammas(a V) V {
	return t.unary(a, Digamma, func(x, _ float64) float64 { return Trigamma(x) })
}

// Sum is each row's Σ: Rows() rows of one.
func (t *Tape) Sum(a V) V {
	x := t.val[a]
	w := t.width(len(x), "sum")
	s := t.alloc(t.n)
	for r := range s {
		for _, v := range x[r*w : (r+1)*w] {
			s[r] += v
		}
	}
	return t.node(s, func(g []float64) {
		ga := t.G(a)
		for i := range ga {
			ga[i] += g[i/w]
		}
	})
}

// ScaleBy is each row of a times that row's scalar in s (one column).
func (t *Tape) ScaleBy(a, s V) V {
	x, k := t.val[a], t.val[s]
	w := t.width(len(x), "scale")
	if len(k) != t.n {
		panic("ad: scale by a value that is not one column")
	}
	y := t.alloc(len(x))
	for i, v := range x {
		y[i] = v * k[i/w]
	}
	return t.node(y, func(g []float64) {
		ga, gs := t.G(a), t.G(s)
		for i, gi := range g {
			ga[i] += gi * k[i/w]
			gs[i/w] += gi * x[i]
		}
	})
}

// Concat joins values row by row.
func (t *Tape) Concat(vs ...V) V {
	ws := make([]int, len(vs))
	w := 0
	for i, v := range vs {
		ws[i] = t.width(len(t.val[v]), "concat")
		w += ws[i]
	}
	y := t.alloc(t.n * w)
	for r := range t.n {
		off := r * w
		for i, v := range vs {
			off += copy(y[off:], t.val[v][r*ws[i]:(r+1)*ws[i]])
		}
	}
	return t.node(y, func(g []float64) {
		for r := range len(g) / w {
			off := r * w
			for i, v := range vs {
				gv := t.G(v)[r*ws[i] : (r+1)*ws[i]]
				for j := range gv {
					gv[j] += g[off+j]
				}
				off += ws[i]
			}
		}
	})
}

// Slice is columns [lo, hi) of every row of a.
func (t *Tape) Slice(a V, lo, hi int) V {
	x := t.val[a]
	w, n := t.width(len(x), "slice"), t.n
	if lo < 0 || hi > w || lo > hi {
		panic(fmt.Sprintf("ad: columns [%d, %d) of %d", lo, hi, w))
	}
	k := hi - lo
	y := t.alloc(n * k)
	for r := range n {
		copy(y[r*k:(r+1)*k], x[r*w+lo:r*w+hi])
	}
	return t.node(y, func(g []float64) {
		ga := t.G(a)
		for r := range n {
			dst := ga[r*w+lo : r*w+hi]
			for j, gi := range g[r*k : (r+1)*k] {
				dst[j] += gi
			}
		}
	})
}

// Mask multiplies a by a constant mask (dropout's kept/scaled lanes).
func (t *Tape) Mask(a V, mask []float64) V {
	x := t.val[a]
	y := t.alloc(len(x))
	for i, v := range x {
		y[i] = v * mask[i]
	}
	return t.node(y, func(g []float64) {
		ga := t.G(a)
		for i, gi := range g {
			ga[i] += gi * mask[i]
		}
	})
}
