package cone

import (
	"math"
	"sync"

	"github.com/gammae/gammae/internal/ad"
	"github.com/gammae/gammae/internal/baseline"
)

// halves are sin and cos of half of every entity's axis, per dimension,
// computed once per parameter version: every |sin((x − y)/2)| of the
// distance is then sin(x/2)cos(y/2) − cos(x/2)sin(y/2), products only.
type halves struct{ sin, cos []float64 }

type cache struct {
	mu sync.Mutex
	h  *halves
}

func (n *Net) halves() *halves {
	n.cache.mu.Lock()
	defer n.cache.mu.Unlock()
	if n.cache.h != nil {
		return n.cache.h
	}
	N, d := n.cfg.Entities, n.cfg.Dim
	h := &halves{sin: make([]float64, N*d), cos: make([]float64, N*d)}
	for k, x := range n.entity.Data[:N*d] {
		a := math.Tanh(x/n.rho) * math.Pi / 2
		h.sin[k], h.cos[k] = math.Sincos(a)
	}
	n.cache.h = h
	return h
}

// ScoreAll writes γ − (‖d_out‖₁ + λ‖d_in‖₁)·modulus for every entity.
func (n *Net) ScoreAll(t *ad.Tape, q baseline.Emb, dst []float64) {
	h := n.halves()
	axis, arg, d := t.Val(q[0]), t.Val(q[1]), n.cfg.Dim
	// sin and cos of axis/2, (axis−arg)/2, (axis+arg)/2, and |sin(arg/2)|.
	sa, ca := make([]float64, d), make([]float64, d)
	s1, c1 := make([]float64, d), make([]float64, d)
	s2, c2 := make([]float64, d), make([]float64, d)
	base := make([]float64, d)
	for i := range d {
		sa[i], ca[i] = math.Sincos(axis[i] / 2)
		s1[i], c1[i] = math.Sincos((axis[i] - arg[i]) / 2)
		s2[i], c2[i] = math.Sincos((axis[i] + arg[i]) / 2)
		base[i] = math.Abs(math.Sin(arg[i] / 2))
	}
	mod := n.modulus.Data[0]
	for ent := range dst {
		se, ce := h.sin[ent*d:(ent+1)*d], h.cos[ent*d:(ent+1)*d]
		out, in := 0.0, 0.0
		for i := range d {
			toAxis := math.Abs(se[i]*ca[i] - ce[i]*sa[i])
			if !(toAxis < base[i]) {
				out += math.Min(math.Abs(se[i]*c1[i]-ce[i]*s1[i]), math.Abs(se[i]*c2[i]-ce[i]*s2[i]))
			}
			in += math.Min(toAxis, base[i])
		}
		dst[ent] = n.cfg.Gamma - (out+n.cfg.CenterReg*in)*mod
	}
}

// ParamsChanged drops the entity halves.
func (n *Net) ParamsChanged() {
	n.cache.mu.Lock()
	n.cache.h = nil
	n.cache.mu.Unlock()
}
