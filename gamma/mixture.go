package gamma

import (
	"math"

	"github.com/gammae/gammae/internal/kernel"
)

// The mixture union (the paper's form, SPEC section 9): a query is a set of
// Gamma components (its DNF branches), weighted by θ = softmax over the
// components of a learned score s = w·[α; β]. The score of an entity is
// γ − D with D = −ln Σᵢ θᵢ exp(−Dᵢ).
//
// θ is computed from the final components, after any projection or
// intersection distributed over the union, so one scorer serves every
// structure.

// mixtureForward sets r.theta from the output components.
func (m *Model[T]) mixtureForward(r *run[T]) {
	w := m.params[m.mixture].Data
	d, k, rows := m.cfg.Dim, len(r.prog.outputs), r.rows
	r.theta = grow(r.theta, k*rows)
	for i, o := range r.prog.outputs {
		v := &r.vals[o]
		for b := 0; b < rows; b++ {
			r.theta[i*rows+b] = kernel.Dot(w[:d], v.a[b*d:(b+1)*d]) + kernel.Dot(w[d:], v.b[b*d:(b+1)*d])
		}
	}
	softmaxInputs(r.theta, k, rows)
}

// mixtureBackward propagates r.score.ds, the gradient of the scores s,
// to the scorer weights and the components.
func (m *Model[T]) mixtureBackward(r *run[T]) {
	w := m.params[m.mixture].Data
	g := m.grad(m.mixture)
	d, rows := m.cfg.Dim, r.rows
	for i, o := range r.prog.outputs {
		v := &r.vals[o]
		for b := 0; b < rows; b++ {
			ds := r.score.ds[i*rows+b]
			if ds == 0 {
				continue
			}
			kernel.Axpy(ds, w[:d], v.da[b*d:(b+1)*d])
			kernel.Axpy(ds, w[d:], v.db[b*d:(b+1)*d])
			kernel.Axpy(ds, v.a[b*d:(b+1)*d], g[:d])
			kernel.Axpy(ds, v.b[b*d:(b+1)*d], g[d:])
		}
	}
}

// combine returns the distance of a query whose k components are at
// distances dist[0], dist[stride], …: the component itself, the nearest
// (dnf), or the mixture distance −ln Σ θᵢ e^{−Dᵢ} with weights theta[:k].
func combine[T kernel.Float](mode Union, dist []T, stride int, theta []T, k int) T {
	if k == 1 {
		return dist[0]
	}
	if mode == UnionDNF {
		best := dist[0]
		for i := 1; i < k; i++ {
			best = min(best, dist[i*stride])
		}
		return best
	}
	mx, s := mixtureSum(dist, stride, theta, k)
	return T(-(mx + math.Log(s)))
}

// combineAll sets dst (rows × n) to γ − combine(…) of every query row and
// entity, from the k components' table dist (k × rows × n), which it
// overwrites: their distances D_c, or for a mixture x_c = ln θ_c − D_c,
// as ScoreAll leaves them. It is combine for a whole score table with the
// mixture's exponentials and logarithm vectorised: the per-entity float64
// calls made mixture models score all entities 7 times slower than DNF
// ones.
func combineAll[T kernel.Float](e Embedding[T], dst, dist []T, n int, gamma T) {
	rows, k := e.Rows, e.Components()
	size := rows * n
	if e.mode == UnionDNF {
		copy(dst, dist[:size])
		for c := 1; c < k; c++ {
			for j, v := range dist[c*size : (c+1)*size] {
				dst[j] = min(dst[j], v)
			}
		}
		for j, v := range dst {
			dst[j] = gamma - v
		}
		return
	}
	// −ln Σ θ_c e^{−D_c} = −(m + ln Σ e^{x_c − m}) with x_c = ln θ_c − D_c
	// and m = max_c x_c; dst holds m until the end.
	mx, s := dst, dist[:size] // the sum over the first block, in place
	expShifted(dist[:k*size], k, mx, s)
	kernel.Log(s, s)
	for j := range dst {
		dst[j] = gamma + mx[j] + s[j]
	}
}

// expShifted takes x as k blocks of n values xᶜ and sets mx to m = maxᶜ xᶜ,
// each block to e^{xᶜ−m} and sum (which may be the first block) to their
// sum: the stable form of Σᶜ e^{xᶜ} = e^m·sum that the mixture's logarithm
// needs.
func expShifted[T kernel.Float](x []T, k int, mx, sum []T) {
	n := len(mx)
	copy(mx, x[:n])
	for c := 1; c < k; c++ {
		for j, v := range x[c*n : (c+1)*n] {
			mx[j] = max(mx[j], v)
		}
	}
	for c := 0; c < k; c++ {
		xc := x[c*n : (c+1)*n]
		for j := range xc {
			xc[j] -= mx[j]
		}
	}
	kernel.Exp(x, x)
	copy(sum, x[:n])
	for c := 1; c < k; c++ {
		kernel.Axpy(1, x[c*n:(c+1)*n], sum)
	}
}

// mixtureSum returns m and s with Σ θᵢ e^{−Dᵢ} = e^m·s, computed stably.
func mixtureSum[T kernel.Float](dist []T, stride int, theta []T, k int) (m, s float64) {
	m = math.Inf(-1)
	for i := 0; i < k; i++ {
		m = max(m, math.Log(float64(theta[i]))-float64(dist[i*stride]))
	}
	for i := 0; i < k; i++ {
		s += math.Exp(math.Log(float64(theta[i])) - float64(dist[i*stride]) - m)
	}
	return m, s
}

// combineBackward sets ddist[i·stride] = g·∂D/∂Dᵢ and adds g·∂D/∂sᵢ to
// ds[i], where D = combine(mode, dist, stride, theta, k) and sᵢ are the
// mixture scores behind theta.
func combineBackward[T kernel.Float](mode Union, g T, dist []T, stride int, theta []T, k int, ddist, ds []T) {
	if k == 1 {
		ddist[0] = g
		return
	}
	if mode == UnionDNF {
		best := 0
		for i := 0; i < k; i++ {
			if dist[i*stride] < dist[best*stride] {
				best = i
			}
			ddist[i*stride] = 0
		}
		ddist[best*stride] = g
		return
	}
	// rᵢ = softmax(ln θᵢ − Dᵢ): ∂D/∂Dᵢ = rᵢ and ∂D/∂sᵢ = θᵢ − rᵢ.
	mx, s := mixtureSum(dist, stride, theta, k)
	for i := 0; i < k; i++ {
		r := T(math.Exp(math.Log(float64(theta[i]))-float64(dist[i*stride])-mx) / s)
		ddist[i*stride] = g * r
		ds[i] += g * (theta[i] - r)
	}
}
