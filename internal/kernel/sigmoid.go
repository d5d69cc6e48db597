package kernel

import "math"

// SigmoidSum returns Σ σ(x[i] + shift) = Σ 1/(1 + e^(−shift−x[i])): the
// expected number of answers of a query from its logits over all entities,
// shift a calibration's offset of every logit (0: none). Each term is
// computed in float32 (within a few ulp; 0 below x+shift ≈ −89, 1 above
// ≈ 17) and the sum is taken in float64 in 8 interleaved partial sums.
func SigmoidSum(x []float32, shift float32) float64 {
	defer clearUpper()
	return cur.sigmoidSum(x, math.Float32bits(-shift))
}

// sigmoidAt adds term i to acc[i%8], ns the negated shift: the twin's body
// and the vector kernels' tail.
func sigmoidAt(x []float32, ns float32, i int, acc *[8]float64) {
	acc[i%8] += float64(1 / (1 + exp32(ns-x[i])))
}

// The levels take the negated shift as its bits: a float32 argument live
// across a vector loop is reloaded with a legacy-SSE movss among the
// vector instructions (TestNoLegacySSEInVectorCode).

// sigmoidSumTwin is the scalar specification of the vector kernels.
func sigmoidSumTwin(x []float32, nb uint32) float64 {
	ns := math.Float32frombits(nb)
	var acc [8]float64
	for i := range x {
		sigmoidAt(x, ns, i, &acc)
	}
	return sumAcc64(&acc)
}

// sigmoidSumGo is the pure-Go level: float64 terms, faster as scalar code.
func sigmoidSumGo(x []float32, nb uint32) float64 {
	var acc [8]float64
	n := float64(math.Float32frombits(nb))
	for i, v := range x {
		acc[i%8] += 1 / (1 + math.Exp(n-float64(v)))
	}
	return sumAcc64(&acc)
}

// sumAcc64 adds the partial sums in order: every level's final sum.
func sumAcc64(acc *[8]float64) float64 {
	s := 0.0
	for _, v := range acc {
		s += v
	}
	return s
}
