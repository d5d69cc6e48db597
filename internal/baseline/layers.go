package baseline

import (
	"math"
	"math/rand/v2"

	"github.com/gammae/gammae/internal/ad"
)

// Uniform is a [rows, cols] table drawn uniformly from [lo, hi).
func Uniform(name string, rows, cols int, lo, hi float64, rng *rand.Rand) *ad.Param {
	p := NewParam(name, rows, cols)
	for i := range p.Data {
		p.Data[i] = lo + (hi-lo)*rng.Float64()
	}
	return p
}

// NewParam is a zero [rows, cols] parameter.
func NewParam(name string, rows, cols int) *ad.Param {
	return &ad.Param{Name: name, Rows: rows, Cols: cols, Data: make([]float64, rows*cols)}
}

// Linear is an nn.Linear(in, out) named prefix: weight Xavier-uniform (as
// the authors re-initialise it), bias as PyTorch's default, uniform in
// ±1/√in.
func Linear(prefix string, in, out int, rng *rand.Rand) (w, b *ad.Param) {
	a := math.Sqrt(6 / float64(in+out))
	w = Uniform(prefix+".weight", out, in, -a, a, rng)
	k := 1 / math.Sqrt(float64(in))
	b = Uniform(prefix+".bias", 1, out, -k, k, rng)
	return w, b
}

// CenterIntersection is KGReasoning's attention: softmax over the inputs,
// per dimension, of L2(ReLU(L1(xₖ))), then Σ attentionₖ ⊙ xₖ.
func CenterIntersection(t *ad.Tape, xs []ad.V, l1w, l1b, l2w, l2b *ad.Param) ad.V {
	logits := make([]ad.V, len(xs))
	for k, x := range xs {
		logits[k] = t.Linear(t.ReLU(t.Linear(x, l1w, l1b)), l2w, l2b)
	}
	att := t.SoftmaxOver(logits)
	parts := make([]ad.V, len(xs))
	for k, x := range xs {
		parts[k] = t.Mul(att[k], x)
	}
	return t.SumOver(parts)
}
