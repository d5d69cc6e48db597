package kernel

// The fast float64 maps of the special functions: float64 in and out
// through the vector kernels' float64 lanes (the ones the float32 maps
// widen to), for callers that keep float64 tables but need only float32
// accuracy, such as BetaE's entity features in training. Their results are
// within 1e-9 of the float64 references, relative (absolute below 1e-3;
// measured: lgamma 4e-11, digamma 4e-13, trigamma 2e-14), not their bits;
// where no vector level exists they are the references.

// LgammaFast sets dst[i] = ln Γ(x[i]) (see Lgamma).
func LgammaFast(dst, x []float64) {
	defer clearUpper()
	map64(dst, x, "LgammaFast", cur.lgamma64, lgammaRef[float64])
}

// DigammaFast sets dst[i] = ψ(x[i]) (see Digamma).
func DigammaFast(dst, x []float64) {
	defer clearUpper()
	map64(dst, x, "DigammaFast", cur.digamma64, digammaRef[float64])
}

// TrigammaFast sets dst[i] = ψ'(x[i]) (see Trigamma).
func TrigammaFast(dst, x []float64) {
	defer clearUpper()
	map64(dst, x, "TrigammaFast", cur.trigamma64, trigammaRef[float64])
}

// map64 runs fast (or ref where the level has none) over chunks of x on
// every worker.
func map64(dst, x []float64, name string, fast, ref func(d, s []float64)) {
	checkLen(name, len(dst), len(x))
	if fast == nil {
		fast = ref
	}
	b := map64Bodies.get()
	*b = map64Body{f: fast, dst: dst, x: x}
	parallelRange(len(x), grainSpecial, b)
	map64Bodies.put(b)
}

type map64Body struct {
	f      func(dst, x []float64)
	dst, x []float64
}

func (b *map64Body) do(lo, hi int) { b.f(b.dst[lo:hi], b.x[lo:hi]) }

var map64Bodies pool[map64Body]
